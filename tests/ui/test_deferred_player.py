"""DeferredPlayer: the device opens in the background after the first frame."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from foley_tui.app import FoleyApp
from foley_tui.audio.base import AudioFormat, PlayerState, Source
from foley_tui.cli_app import DeferredPlayer, make_app_player
from tests.fakes import FakePlayer
from tests.ui.conftest import SIZE, Session, ready

SOURCE = Source(Path("/tmp/x.wav"), AudioFormat.WAV, "path", "x")


def gated(fake: FakePlayer) -> tuple[DeferredPlayer, threading.Event]:
    """A DeferredPlayer whose real player (``fake``) is built once the event is set."""
    gate = threading.Event()

    def build() -> FakePlayer:
        gate.wait(5)
        return fake

    return DeferredPlayer(build), gate


def test_settings_before_start_reach_the_player_and_play_waits() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    assert player.starting and not player.available
    assert player.status().state is PlayerState.STOPPED
    player.set_loop(True)
    player.set_volume_db(-6.0)
    player.start()
    gate.set()
    player.play(SOURCE, 1.0)  # waits for the real player
    assert not player.starting
    assert fake.loop is True and fake.volume_db == -6.0
    assert fake.played() == [("x.wav", 1.0)]
    player.close()
    assert fake.closed


def test_a_failing_device_falls_back_to_silence() -> None:
    def build() -> FakePlayer:
        raise OSError("PortAudio library not found")

    player = DeferredPlayer(build)
    player.start()
    player.play(SOURCE)
    assert not player.available
    assert "PortAudio library not found" in (player.unavailable_reason or "")
    player.close()


async def test_app_starts_it_after_mount_and_shows_the_no_audio_notice(
    session: Session, notifications: Callable[[FoleyApp], list[str]]
) -> None:
    from foley_tui.app import FoleyApp
    from foley_tui.config import Config

    player = make_app_player(None, no_audio=True)
    app = FoleyApp(session.service.get(session.session_id), player, Config(), session.service)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        player._ready.wait(10)
        await pilot.pause(0.1)
        assert not player.starting
        assert any("--no-audio" in n for n in notifications(app))


def test_prefetch_is_dropped_while_starting_then_forwarded() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    player.start()
    player.prefetch(SOURCE)  # returns at once: the device is still opening
    gate.set()
    player.play(SOURCE)  # waits for the real player
    player.prefetch(SOURCE)
    assert fake.prefetched() == ["x.wav"]
    player.close()
