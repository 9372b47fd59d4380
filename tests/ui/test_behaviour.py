"""Pilot tests of the screen's guarantees: store-first decisions, live updates, restore on
reopen, unreadable and unplayable entries, narrow terminals, held keys, virtual rendering."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from textual.strip import Strip

from foley_tui.app.foley_app import FoleyApp
from foley_tui.audition.model import AuditionModel
from foley_tui.config import Settings
from foley_tui.domain import Status
from foley_tui.store import SessionService, StoreWriteError, encode_key
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready, settle, wait_workers
from tests.ui.seed import candidate, seed_session


def plain(renderable: RenderableType) -> str:
    console = Console(width=60, file=io.StringIO(), record=True)
    console.print(renderable)
    return console.export_text()


async def test_failed_write_leaves_the_row_and_shows_the_error(
    session: Session,
    monkeypatch: pytest.MonkeyPatch,
    notifications: Callable[[FoleyApp], list[str]],
) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)

        def fail(*args: object, **kwargs: object) -> int:
            raise StoreWriteError("disk full")

        monkeypatch.setattr(screen.store, "toggle_pick", fail)  # what p calls
        await pilot.press("p")
        await settle(pilot)  # written by a worker: its answer comes after the key
        assert screen.listing.decisions.status(IDS[0]) is Status.UNDECIDED
        assert current(app) == IDS[0]  # no advance either
        assert session.pick_file(IDS[0]) is None
        assert any("disk full" in n for n in notifications(app))


async def test_reopen_restores_cursor_and_view(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("j", "j", "s", "a")
        await pilot.press("q")
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert current(app) == IDS[2]
        assert screen.view_settings.sort == "caption"
        assert screen.view_settings.autoplay is True
        await pilot.press("j")  # autoplay restored: moving plays
        assert len(player.played()) == 1


async def test_other_writers_appear_without_moving_the_cursor(session: Session) -> None:
    app = session.app(settings=Settings(poll_interval_s=0.1))
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("j", "j")
        # The agent (another process) adds a candidate and foley's `pick` writes a pick,
        # non-atomically and without our journal.
        other = SessionService(session.data_dir).get(session.session_id)
        other.cache_candidates([candidate(40, None)])
        (session.folder / "picks").mkdir(exist_ok=True)
        (session.folder / "picks" / encode_key(IDS[7])).write_text(
            json.dumps({"sound_id": IDS[7], "layer": "voice", "onset": 1.5}, indent=4)
        )
        for _ in range(20):
            await pilot.pause(0.1)
            await wait_workers(app)
            if IDS[7] in screen.listing.decisions.picks and "freesound:1040" in (
                screen.listing.rows
            ):
                break
        assert screen.listing.decisions.picks[IDS[7]].onset == 1.5
        assert "freesound:1040" in screen.listing.view
        assert current(app) == IDS[2]


async def test_unreadable_entries_are_reported(
    data_dir: Path, notifications: Callable[[FoleyApp], list[str]]
) -> None:
    service, session_id = seed_session(data_dir)
    bad = data_dir / "sessions" / session_id / "candidates" / encode_key("broken:1")
    bad.write_text('{"sound": {"id": "broken:1", "capt')
    app = Session(data_dir, service, session_id).app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.listing.rows["broken:1"].unreadable
        assert any("unreadable" in n and "broken:1" in n for n in notifications(app))
        # Highlighting it explains rather than crashes.
        await pilot.press("G")
        while current(app) != "broken:1":
            await pilot.press("k")
        await settle(pilot)  # its file is read by a worker
        assert "unreadable" in plain(screen.query_one(Details).content)


async def test_unplayable_candidates_are_marked_and_explained(
    data_dir: Path, notifications: Callable[[FoleyApp], list[str]]
) -> None:
    service, session_id = seed_session(data_dir, audio_count=6)
    player = FakePlayer()
    app = Session(data_dir, service, session_id).app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("G", "space")
        assert player.played() == []
        assert any("Can't play" in n for n in notifications(app))
        assert IDS[-1] in screen.candidate_list.unplayable
        assert "unplayable" in plain(screen.query_one(Details).content)
        line = screen.candidate_list.render_line(len(IDS))
        assert "⊘" in line.text


async def test_details_pane_hides_when_narrow(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        assert not screen.query_one("#details-pane").display
        await pilot.press("p")  # still fully usable
        assert session.pick_file(IDS[0]) is not None
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.query_one("#details-pane").display


async def test_held_key_decides_each_row_once(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A held key's repeats come faster than the guard's window; Pilot's presses on a
    # loaded machine need not: the guard's clock stands still, as under a held key.
    monkeypatch.setattr(AuditionModel, "clock", staticmethod(lambda: 1000.0))
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("p", "p", "p")  # key repeat: one pick per row, in order
        assert set(session.picks()) == set(IDS[:3])
        await pilot.press("G", "x", "x")  # last row: a repeat must not toggle it back
        assert session.reject_file(IDS[-1]) == {"sound_id": IDS[-1], "reason": None}


async def test_decision_applies_to_the_row_highlighted_when_pressed(session: Session) -> None:
    app = session.app(settings=Settings(auto_advance=False))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("p", "j", "x", "j", "3")
        assert set(session.picks()) == {IDS[0], IDS[2]}
        assert set(session.rejects()) == {IDS[1]}


async def test_list_renders_only_visible_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    service = SessionService.in_memory()
    session_id = service.create("big")
    store = service.get(session_id)
    store.cache_candidates(candidate(i, None) for i in range(3000))
    rendered: list[int] = []
    original = CandidateList.render_line

    def counting(self: CandidateList, y: int) -> Strip:
        if y > 0:  # line 0 is the column header
            rendered.append(round(self.scroll_offset.y) + y - 1)
        return original(self, y)

    monkeypatch.setattr(CandidateList, "render_line", counting)
    from foley_tui.app.foley_app import FoleyApp

    app = FoleyApp(store, FakePlayer(), service=service)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ready(pilot)
        assert len(screen.listing.view) == 3000
        rendered.clear()
        await pilot.press("G")
        assert current(app) == screen.listing.view[-1]
        # Only the rows on screen are drawn: the last ones, never the 3,000.
        assert 0 < len(set(rendered)) <= 30
        assert len(screen.listing.view) - 1 in rendered
