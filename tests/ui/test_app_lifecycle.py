"""The app's own lifecycle: it starts the player after the first frame, says "no audio"
once per run (never with --no-audio), and leaves cleanly when the terminal goes."""

from __future__ import annotations

import threading
from collections.abc import Callable

from foley_tui.app.foley_app import HANGUP_STATUS, FoleyApp
from foley_tui.audio.base import Player
from foley_tui.audio.deferred import DeferredPlayer
from foley_tui.audio.null_player import NullPlayer
from foley_tui.cli.app import make_app_player
from foley_tui.config import Config
from foley_tui.store import SessionService
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready, settle
from tests.ui.seed import seed_session

Notes = Callable[[FoleyApp], list[str]]


def no_audio_notes(app: FoleyApp, notifications: Notes) -> list[str]:
    return [n for n in notifications(app) if n.startswith("No audio")]


async def test_the_app_starts_the_player_after_mount(session: Session) -> None:
    fake = FakePlayer()
    app = session.app(fake)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert ("start", ()) in fake.calls


async def test_no_audio_flag_means_no_notice(session: Session, notifications: Notes) -> None:
    player = make_app_player(None, no_audio=True)
    store = session.service.get(session.session_id)
    app = FoleyApp(store, player, Config(), session.service, audio_notice=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert player.wait_ready(30)
        await settle(pilot)
        await pilot.pause(0.3)  # the app's start-up timer ticks every 0.1 s
        assert not player.starting and not player.available
        assert no_audio_notes(app, notifications) == []


async def test_a_failing_device_is_noticed_once_per_run(
    session: Session, notifications: Notes
) -> None:
    gate = threading.Event()

    def build() -> Player:
        assert gate.wait(30)
        raise OSError("PortAudio library not found")

    player = DeferredPlayer(build)
    other_service, other_id = seed_session(session.data_dir, title="Second scene")
    assert isinstance(other_service, SessionService)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert player.starting  # the UI is up although the device is still opening
        gate.set()
        assert player.wait_ready(30)
        for _ in range(50):
            if no_audio_notes(app, notifications):
                break
            await pilot.pause(0.05)
        notes = no_audio_notes(app, notifications)
        assert len(notes) == 1 and "PortAudio library not found" in notes[0]
        # Switching sessions (and back) does not say it again.
        app.open_session(other_id)
        await settle(pilot)
        app.open_session(session.session_id)
        await settle(pilot)
        await pilot.pause(0.3)
        assert len(no_audio_notes(app, notifications)) == 1


async def test_a_silent_player_from_the_start_is_noticed_once(
    session: Session, notifications: Notes
) -> None:
    app = session.app(NullPlayer("no output device found"))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for _ in range(600):  # the notice comes from the start-up timer's tick
            if no_audio_notes(app, notifications):
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)  # and only once: a second tick would say it again
        assert no_audio_notes(app, notifications) == ["No audio: no output device found"]


async def test_leave_saves_cursor_and_view_then_exits(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("j", "j", "s")
        assert current(app) is not None
        where = current(app)
        app.leave("SIGHUP")
        # On disk before the app has even begun to shut down (a fresh reader sees it).
        meta = SessionService(session.data_dir).get(session.session_id, touch=False).meta()
        assert meta.cursor == where
        assert meta.view.get("sort") == "caption"
        app.leave("SIGHUP")  # a second signal is harmless
    assert app.return_code == HANGUP_STATUS
    assert app.left_because == "SIGHUP"
    assert where in IDS
