"""``foley-tui demo`` and ``foley-tui`` alone (resume): first run, reset, coming back."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import soundfile as sf

import foley_tui.cli.app as cli_app
from foley_tui.app.foley_app import FoleyApp
from foley_tui.audio.base import Source
from foley_tui.audio.resolve import resolve
from foley_tui.cli import main
from foley_tui.demo import build as demo
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.store import SessionService
from tests.fakes import FakePlayer
from tests.ui.conftest import wait_workers


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path]]:
    """Replace the app launch with a recorder of (session id, data dir)."""
    calls: list[tuple[str, Path]] = []

    def fake_launch(session_id: str, *, data: Any = None, **_: Any) -> int:
        calls.append((session_id, Path(data)))
        return 0

    monkeypatch.setattr(cli_app, "launch", fake_launch)
    return calls


def test_demo_verb_builds_once_and_reset_rebuilds_only_it(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--no-open"]) == 0
    first = capsys.readouterr().out.strip()
    assert main(["demo", "--no-open"]) == 0
    assert capsys.readouterr().out.strip() == first
    service = SessionService(data_dir)
    mine = service.create("Mine")
    assert main(["demo", "--reset", "--no-open"]) == 0
    second = capsys.readouterr().out.strip()
    assert second != first
    assert {s.session_id for s in service.list()} == {mine, second}


def test_demo_verb_opens_the_demo(data_dir: Path, launched: list[tuple[str, Path]]) -> None:
    assert main(["demo"]) == 0
    [(session_id, where)] = launched
    assert where == data_dir
    assert SessionService(data_dir).get(session_id).meta().title == demo.DEMO_TITLE


def test_first_run_builds_the_demo_and_opens_it_in_the_app(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`foley-tui` on an empty data dir: the real launch path and the real app, run
    headless, with a fake player in place of the sound card."""
    seen: dict[str, Any] = {}

    def headless_run(self: FoleyApp, *args: Any, **kwargs: Any) -> None:
        async def go() -> None:
            async with self.run_test(size=(120, 30)) as pilot:
                for _ in range(4):
                    await pilot.pause()
                    await wait_workers(self)
                screen = self.screen
                assert isinstance(screen, AuditionScreen)
                seen["session"] = self.store.session_id
                seen["rows"] = len(screen.listing.rows)
                seen["cost"] = screen.listing.picks_cost()

        asyncio.run(go())

    monkeypatch.setattr(FoleyApp, "run", headless_run)
    monkeypatch.setattr(cli_app, "make_app_player", lambda device, no_audio: FakePlayer())
    assert not (data_dir / "sessions").exists()
    assert main([]) == 0
    service = SessionService(data_dir)
    [info] = service.list()
    assert info.title == demo.DEMO_TITLE
    assert seen == {"session": info.session_id, "rows": len(demo.SOUNDS), "cost": 0.08}
    store = service.get(info.session_id)
    for sound_id in store.candidate_ids():
        candidate = store.candidate(sound_id)
        assert candidate is not None
        found = resolve(candidate, data_dir)
        assert isinstance(found, Source), (sound_id, found)
        with sf.SoundFile(found.path) as audio:
            assert audio.frames > 0 and len(audio.read(1024)) > 0


def test_no_arguments_resume_the_most_recent_session(
    data_dir: Path, launched: list[tuple[str, Path]]
) -> None:
    service = SessionService(data_dir)
    older = service.create("Older")
    newer = service.create("Newer")
    service.get(older).cache_candidates([{"sound": {"id": "lib:1", "caption": "x"}}])
    service.get(older).add_pick("lib:1")  # touched last
    assert service.most_recent() == older
    assert main([]) == 0
    assert launched == [(older, data_dir)]
    assert {s.session_id for s in service.list()} == {older, newer}  # no demo built


def test_data_dir_before_the_verb_or_alone_is_honoured(
    data_dir: Path, tmp_path: Path, launched: list[tuple[str, Path]]
) -> None:
    other = tmp_path / "elsewhere"
    assert main(["--data-dir", str(other), "demo", "--no-open"]) == 0
    assert main(["--data-dir", str(other)]) == 0  # the default verb, same data dir
    [(session_id, where)] = launched
    assert where == other.resolve()
    assert SessionService(other).list()[0].session_id == session_id
    assert not (data_dir / "sessions").exists()


def test_a_demo_that_cannot_be_built_is_a_one_line_error(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing() -> Path:
        raise demo.DemoError("the demo sounds are not installed (looked in /nowhere)")

    monkeypatch.setattr(demo, "sounds_dir", missing)
    assert main(["demo", "--no-open"]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0
    assert err.startswith("foley-tui: error: could not build the demo session: the demo sounds")


def test_coming_back_lands_where_you_stopped(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two launches of `foley-tui`: filter, sort and move in the first, quit; the second
    opens the same session with the same filter, sort and highlighted candidate."""
    runs: list[dict[str, Any]] = []

    async def wait(pilot: Any) -> None:
        for _ in range(4):
            await pilot.pause()
            await wait_workers(pilot.app)

    def headless_run(self: FoleyApp, *args: Any, **kwargs: Any) -> None:
        async def go() -> None:
            async with self.run_test(size=(120, 30)) as pilot:
                await wait(pilot)
                screen = self.screen
                assert isinstance(screen, AuditionScreen)
                if not runs:  # the first visit: narrow, sort, move, quit
                    await pilot.press("slash", *"rain", "enter", "s", "j", "j")
                    await wait(pilot)
                    expected = screen.current_id
                    await pilot.press("q")
                    await wait(pilot)
                else:
                    expected = None
                runs.append(
                    {
                        "session": self.store.session_id,
                        "query": screen.view_settings.query,
                        "sort": screen.view_settings.sort,
                        "current": screen.current_id if expected is None else expected,
                        "shown": len(screen.listing.view),
                    }
                )

        asyncio.run(go())

    monkeypatch.setattr(FoleyApp, "run", headless_run)
    monkeypatch.setattr(cli_app, "make_app_player", lambda device, no_audio: FakePlayer())
    assert main([]) == 0  # first run: builds the demo
    assert main([]) == 0  # coming back
    first, second = runs
    assert first["query"] == "rain" and first["sort"] != "rank"
    assert 1 < first["shown"] < len(demo.SOUNDS)
    assert second == first
