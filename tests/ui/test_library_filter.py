"""``/`` in a library folder's list: each keystroke's query runs in a worker against the
folder session's index, the newest query wins, and the list shows its answer when it
comes; the rows are read from that index a screen at a time, never all held."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from foley_tui.app.foley_app import FoleyApp
from foley_tui.audition.change import Change
from foley_tui.library.folder import folder_session
from foley_tui.library.source import FolderSource
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.store import SessionService
from foley_tui.widgets.status_line import StatusLine
from tests.fakes import FakePlayer
from tests.library_fixtures import bwf, needs_ffmpeg
from tests.ui.test_library_screen import scanned, shown

SOUNDS = {
    "zz doors/oak.wav": "Oak door slam",
    "zz doors/steel.wav": "Steel door creak",
    "weather/rain.wav": "Rain on a tin roof",
    "weather/wind.wav": "Wind gust",
}


def status_text(screen: AuditionScreen) -> str:
    return str(screen.query_one(StatusLine).render())


def view_of(screen: AuditionScreen) -> list[str]:
    """The descriptions the list shows, in order."""
    rows = screen.listing.rows
    return [row.caption for sid in screen.listing.view if (row := rows.get(sid)) is not None]


@needs_ffmpeg
async def test_typing_backspace_and_an_empty_answer(data_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "Sounds"
    for i, (rel, description) in enumerate(SOUNDS.items()):
        bwf(root / rel, description, freq=300 + 100 * i)
    service = SessionService(data_dir)
    sid = folder_session(service, root)
    app = FoleyApp(service.get(sid), FakePlayer(), service=service, library=FolderSource(root, sid))
    async with app.run_test(size=(160, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, AuditionScreen)
        await scanned(pilot, screen, len(SOUNDS))
        assert screen.listing.paged
        await pilot.press("slash", *"door")  # typed on without waiting for any answer
        await shown(pilot, screen)
        assert view_of(screen) == ["Oak door slam", "Steel door creak"]
        assert 'filter "door"' in status_text(screen) and "2 shown" in status_text(screen)
        await pilot.press(*"s", "l")  # "doorsl": nothing
        await shown(pilot, screen)
        assert view_of(screen) == [] and "0 shown" in status_text(screen)
        await pilot.press("backspace", "backspace", "space", *"oak")
        await shown(pilot, screen)
        assert view_of(screen) == ["Oak door slam"]
        for _ in "door oak":
            await pilot.press("backspace")
        await shown(pilot, screen)
        assert len(view_of(screen)) == len(SOUNDS) and "shown" not in status_text(screen)
        await pilot.press(*"weather")  # a folder's name finds its sounds
        await shown(pilot, screen)
        assert sorted(view_of(screen)) == ["Rain on a tin roof", "Wind gust"]


@needs_ffmpeg
async def test_an_answer_to_an_older_keystroke_is_dropped(data_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "Sounds"
    for i, (rel, description) in enumerate(SOUNDS.items()):
        bwf(root / rel, description, freq=300 + 100 * i)
    service = SessionService(data_dir)
    sid = folder_session(service, root)
    app = FoleyApp(service.get(sid), FakePlayer(), service=service, library=FolderSource(root, sid))
    async with app.run_test(size=(160, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, AuditionScreen)
        await scanned(pilot, screen, len(SOUNDS))
        runner = screen.model.view_runner
        assert runner is not None
        held: list[tuple[Callable[[], list[str] | None], Callable[..., Change]]] = []

        def hold_the_first(
            query: Callable[[], list[str] | None], done: Callable[..., Change]
        ) -> None:
            if not held:
                held.append((query, done))  # the "w" query: kept until "wi" is shown
            else:
                runner(query, done)

        screen.model.view_runner = hold_the_first
        await pilot.press("slash", "w", "i")
        await shown(pilot, screen)
        assert view_of(screen) == ["Wind gust"]
        # The query of "w" runs only now, after the newer one was shown: it is dropped.
        runner(*held[0])
        await idle_workers(pilot, app)
        assert view_of(screen) == ["Wind gust"] and screen.model.view.query == "wi"
        assert "1 shown" in status_text(screen)


async def idle_workers(pilot: Pilot[Any], app: FoleyApp) -> None:
    for _ in range(600):  # a bound, not a target
        await pilot.pause()
        if not any(w.is_running for w in app.workers if w.group == "view"):
            return
    raise AssertionError("a view query never finished")


async def test_a_big_folder_session_holds_only_the_rows_shown(
    data_dir: Path, tmp_path: Path
) -> None:
    root = tmp_path / "Sounds"
    root.mkdir()
    service = SessionService(data_dir)
    sid = folder_session(service, root)
    count = 900
    service.get(sid).cache_candidates(
        {"sound": {"id": f"lib:{i:03d}", "caption": f"take {i:03d}", "duration_s": 1.0}}
        for i in range(count)
    )
    app = FoleyApp(service.get(sid), FakePlayer(), service=service, library=FolderSource(root, sid))
    async with app.run_test(size=(160, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, AuditionScreen)
        await scanned(pilot, screen, count)
        listing = screen.listing
        assert len(listing.view) == count and f"{count} of {count}" in status_text(screen)
        assert 0 < listing.rows_held < count // 2
        assert [listing.rows[s].caption for s in listing.view[:2]] == ["take 000", "take 001"]
        await pilot.press("G")  # the last row: read when it is shown
        await pilot.pause()
        assert screen.current_id == "lib:899" and listing.rows_held < count // 2
        await pilot.press("slash", *"take 45")
        await shown(pilot, screen)
        assert [listing.rows[s].caption for s in listing.view] == [
            f"take {i:03d}"
            for i in range(count)
            if "45" in f"{i:03d}"  # each term anywhere
        ]
