"""DeferredPlayer: the device opens in the background; nothing a caller does ever waits
for it, and a device that fails to open becomes the silent player."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from foley_tui.audio.base import AudioFormat, Player, PlayerState, PlayerStatus, Source
from foley_tui.audio.deferred import STARTING_LABEL, DeferredPlayer
from foley_tui.audio.null_player import NullPlayer
from tests.fakes import FakePlayer

SOURCE = Source(Path("/tmp/x.wav"), AudioFormat.WAV, "path", "x")
OTHER = Source(Path("/tmp/y.wav"), AudioFormat.WAV, "path", "y")


def gated(fake: Player) -> tuple[DeferredPlayer, threading.Event]:
    """A DeferredPlayer whose real player (``fake``) is built once the event is set."""
    gate = threading.Event()

    def build() -> Player:
        assert gate.wait(30), "the test never opened the gate"
        return fake

    return DeferredPlayer(build), gate


def wait_until(condition: object, what: str) -> None:
    """Poll ``condition()`` (a zero-argument callable) until true; fail loudly after 30 s."""
    assert callable(condition)
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.005)


def test_every_player_has_start_up_in_its_protocol() -> None:
    null = NullPlayer("none")
    null.start()
    assert not null.starting
    assert isinstance(DeferredPlayer(FakePlayer), Player)


def test_settings_before_start_reach_the_player() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    assert player.starting and not player.available
    assert player.device_name == STARTING_LABEL
    assert player.status().state is PlayerState.STOPPED
    player.set_loop(True)
    player.set_volume_db(-6.0)
    player.set_loudness_match(True, -20.0)
    player.start()
    player.start()  # idempotent: one opening thread
    gate.set()
    assert player.wait_ready(30)
    assert not player.starting and player.available
    assert player.device_name == "fake device"
    assert fake.loop is True and fake.volume_db == -6.0 and fake.loudness_match is True
    player.close()
    assert fake.closed


def test_play_while_starting_returns_at_once_and_starts_when_the_device_is_up() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    player.start()
    player.play(OTHER, 0.5)
    player.play(SOURCE, 1.0)  # the latest request wins
    player.seek(0.5, relative=True)
    assert fake.played() == []  # returned without waiting: the gate is still shut
    gate.set()
    wait_until(lambda: fake.played() == [("x.wav", 1.5)], "the pending play started")
    player.close()


def test_a_scene_played_while_starting_starts_when_the_device_is_up() -> None:
    from foley_tui.audio.base import Scene

    fake = FakePlayer()
    player, gate = gated(fake)
    scene = Scene(voices=[], label="empty scene")  # the deferred player only hands it on
    player.start()
    player.play(SOURCE)
    player.play_scene(scene, 2.0, 5.0)  # the latest request wins
    gate.set()
    wait_until(lambda: fake.state is PlayerState.PLAYING, "the pending scene started")
    assert fake.scene is scene
    assert ("play_scene", (scene, 2.0, 5.0)) in fake.calls
    assert fake.played() == []
    player.close()


def test_stop_while_starting_drops_the_pending_play() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    player.start()
    player.play(SOURCE)
    player.stop()
    gate.set()
    assert player.wait_ready(30)
    assert fake.played() == []
    player.close()


def test_the_state_callback_hears_that_the_player_is_up() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    heard: list[PlayerStatus] = []
    player.set_state_callback(heard.append)
    player.start()
    gate.set()
    wait_until(lambda: bool(heard), "a state callback after start-up")
    assert heard[0].state is PlayerState.STOPPED
    assert fake.callback is not None  # and it was handed on to the real player
    player.close()


def test_a_failing_device_becomes_the_silent_player_with_its_reason(tmp_path: Path) -> None:
    import numpy as np
    import soundfile as sf

    wav = tmp_path / "one.wav"
    sf.write(wav, np.zeros(48000, dtype="float32"), 48000)

    def build() -> Player:
        raise OSError("PortAudio library not found")

    player = DeferredPlayer(build)
    player.start()
    assert player.wait_ready(30)
    player.play(Source(wav, AudioFormat.WAV, "path", "one"))  # silent, keeps time
    assert not player.available
    assert "PortAudio library not found" in (player.unavailable_reason or "")
    assert player.status().state is PlayerState.PLAYING
    player.close()


def test_close_while_starting_never_waits_and_closes_what_opens_later() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    player.start()
    player.close()  # returns at once although the device is still opening
    assert not fake.closed
    gate.set()
    wait_until(lambda: fake.closed, "the late player was closed")
    assert not player.available


def test_prefetch_is_dropped_while_starting_then_forwarded() -> None:
    fake = FakePlayer()
    player, gate = gated(fake)
    player.start()
    player.prefetch(SOURCE)  # returns at once: the device is still opening
    gate.set()
    assert player.wait_ready(30)
    player.prefetch(SOURCE)
    assert fake.prefetched() == ["x.wav"]
    player.close()


def test_finish_waits_for_the_opening_thread_and_reports_one_still_opening() -> None:
    """The process's exit waits for a device still opening (PortAudio's atexit terminate
    must not run under it): finish is False while the thread runs, True once it has
    closed what it built."""
    fake = FakePlayer()
    player, gate = gated(fake)
    assert player.finish(0.0)  # never started: nothing to wait for
    player.start()
    player.close()
    assert not player.finish(0.01)  # still inside the factory
    gate.set()
    assert player.finish(60.0)
    assert fake.closed
