"""The output ring and the audio callback that copies out of it: every voice, the lane
gains and the limiter are mixed by the feeder ahead of the device; the callback only
copies, replaces non-finite samples and clamps, without a lock or an allocation of
samples; how far ahead the mix runs is bounded (how late a control is heard)."""

from __future__ import annotations

import threading
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from foley_tui.audio.base import MixVoice, Scene
from foley_tui.audio.bus import MasterBus
from foley_tui.audio.player import SoundDevicePlayer
from foley_tui.audio.ring import OutputRing
from foley_tui.audio.scene_voice import SceneVoice
from foley_tui.audio.stream_engine import RING_MAX_S
from foley_tui.audio.voice import Voice

from .test_audio_player import RATE, FakeStream, Flags, const, drain, write
from .test_audio_player import fake_sd as fake_sd
from .test_audio_player import player as player


def test_the_ring_wraps_and_hands_out_what_was_pushed_in_order() -> None:
    ring = OutputRing(1000)
    data = np.arange(2 * 2600, dtype=np.float32).reshape(-1, 2)
    out = np.zeros((300, 2), np.float32)
    got: list[np.ndarray] = []
    pushed = 0
    while pushed < len(data):
        step = min(370, ring.free, len(data) - pushed)
        ring.push(data[pushed : pushed + step])
        pushed += step
        count = ring.read_into(out, 300)
        got.append(out[:count].copy())
    while ring.queued:
        count = ring.read_into(out, 300)
        got.append(out[:count].copy())
    np.testing.assert_array_equal(np.concatenate(got), data)
    assert ring.read_into(out, 300) == 0 and not out.any()  # empty: silence


def test_a_fade_over_the_queue_reaches_silence_and_says_where_it_stopped() -> None:
    ring = OutputRing(64)
    ring.push(np.ones((40, 2), np.float32))
    ring.read_into(np.zeros((30, 2), np.float32), 30)  # wraps on the next push
    ring.push(np.ones((40, 2), np.float32))
    assert ring.fade_out(ring.read + 10, 20) == 0.0
    out = np.zeros((50, 2), np.float32)
    assert ring.read_into(out, 50) == 50
    np.testing.assert_allclose(out[:10, 0], 1.0)
    np.testing.assert_allclose(out[10:30, 0], 1 - np.arange(1, 21) / 20, atol=1e-6)
    assert not out[30:].any()
    ring.push(np.ones((10, 2), np.float32))
    assert ring.fade_out(ring.read, 20) == pytest.approx(0.5)  # the queue ends mid-fade


def test_the_callback_only_copies_what_the_feeder_mixed(
    player: SoundDevicePlayer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No voice renders, no bus mixes, no limiter runs inside the callback (previews
    fading under a scene included); it takes no lock."""
    stream = FakeStream.instances[-1]
    inside = threading.local()
    calls: list[str] = []

    def guard(name: str, real: Any) -> Any:
        def wrapper(self: Any, *args: Any) -> Any:
            if getattr(inside, "callback", False):
                calls.append(name)
            return real(self, *args)

        return wrapper

    monkeypatch.setattr(Voice, "render", guard("voice", Voice.render))
    monkeypatch.setattr(SceneVoice, "render", guard("scene", SceneVoice.render))
    monkeypatch.setattr(MasterBus, "process", guard("bus", MasterBus.process))
    callback = stream.callback

    def in_callback(out: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        inside.callback = True
        try:
            callback(out, frames, time_info, status)
        finally:
            inside.callback = False

    stream.callback = in_callback
    hit = write(tmp_path / "hit.wav", const(0.2, RATE))
    scene = Scene([MixVoice(hit.path, 0.0), MixVoice(hit.path, 0.0, lane="music")])
    player.play(write(tmp_path / "a.wav", const(0.5, RATE)))
    drain(stream, player, 4096)
    player.play_scene(scene)  # the preview fades out under the scene
    out = drain(stream, player, 8192)
    assert out.any()
    assert calls == []
    # The player's locks held elsewhere (the feeder mixing, play() swapping) never hold
    # the callback up.
    done = threading.Event()
    with player.held():

        def pull() -> None:
            stream.pull(512)
            done.set()

        worker = threading.Thread(target=pull)
        worker.start()
        worker.join(timeout=30)
    assert done.is_set()


def test_the_callback_allocates_no_sample_memory(player: SoundDevicePlayer, tmp_path: Path) -> None:
    stream = FakeStream.instances[-1]
    player.play(write(tmp_path / "a.wav", const(0.5, RATE * 2)))
    drain(stream, player, 4096)
    out = np.zeros((1024, 2), np.float32)
    flags = Flags()
    peaks = []
    tracemalloc.start()
    try:
        for _ in range(20):
            while player.rendering and player.queued_frames < 1024:
                threading.Event().wait(0.001)
            # tracemalloc counts every thread's allocations: the reader and the feeder
            # are held off while the callback runs, so what is measured is the callback's.
            with player.held():
                tracemalloc.reset_peak()
                before = tracemalloc.get_traced_memory()[0]
                stream.callback(out, 1024, None, flags)
                peaks.append(tracemalloc.get_traced_memory()[1] - before)
    finally:
        tracemalloc.stop()
    assert out.any()
    # A block of samples is 8 KiB; what the callback makes is a few array views.
    assert max(peaks) < out.nbytes // 4, peaks


def test_non_finite_samples_in_the_ring_never_reach_the_device(
    player: SoundDevicePlayer,
) -> None:
    """The last guard: even what the mix could never produce is replaced and clamped."""
    stream = FakeStream.instances[-1]
    bad = np.array([[np.nan, np.inf], [-np.inf, 4.0], [0.25, -0.25]], np.float32)
    player.ring.push(bad)
    out = stream.pull(3)
    np.testing.assert_array_equal(out, [[0.0, 0.0], [0.0, 1.0], [0.25, -0.25]])


def test_the_mix_runs_at_most_the_ring_depth_ahead(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """However fast the device pulls (the ring grows with the gaps it sees), what is
    mixed ahead, so how late a control is heard, stays within RING_MAX_S."""
    stream = FakeStream.instances[-1]
    player.play(write(tmp_path / "a.wav", const(0.5, RATE * 3)))
    most = 0
    for _ in range(60):
        drain(stream, player, 2048)
        most = max(most, player.queued_frames, player.ring_target_frames)
    assert most <= RING_MAX_S * RATE
    assert player.ring_ms <= RING_MAX_S * 1e3


class Underflow:
    output_underflow = True


def test_underruns_are_counted_and_a_dry_device_gets_a_larger_buffer(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """PortAudio's underflow flag counts; when the device keeps running dry the player
    reopens it with a larger latency (the ring keeps playing where it was) and says so."""
    from foley_tui.audio.stream_engine import LATENCY_STEPS_S, START_GRACE_S, UNDERRUNS_TO_RAISE

    first = FakeStream.instances[-1]
    player.play(write(tmp_path / "a.wav", const(0.5, RATE * 2)))
    drain(first, player, int(START_GRACE_S * RATE) + 2048)  # past the stream's start
    assert player.status().underruns == 0
    for _ in range(UNDERRUNS_TO_RAISE):
        first.pull(256, Underflow())
    for _ in range(1000):
        if len(FakeStream.instances) > 1 and player.status().output_note:
            break
        threading.Event().wait(0.002)
    status = player.status()
    assert status.underruns == UNDERRUNS_TO_RAISE
    assert first.aborted and first.closed
    second = FakeStream.instances[-1]
    assert second is not first and second.started
    assert second.kwargs["latency"] == LATENCY_STEPS_S[0]
    assert status.output_note == "output latency raised to 50 ms after underruns"
    assert player.latency_s == LATENCY_STEPS_S[0]
    assert drain(second, player, 1024).any()  # the sound goes on through the new stream
    # The new stream's own start may flag underflows: holes, counted, but no reason to
    # raise the latency again (once raised, each reopen's start would raise it further).
    for _ in range(UNDERRUNS_TO_RAISE):
        second.pull(256, Underflow())
    assert player.status().underruns == 2 * UNDERRUNS_TO_RAISE
    player.stop()
    while not player.idle:
        second.pull(256)  # the stop's fade
    _wait_for_rest(player)  # the feeder has looked at the device all the while
    assert FakeStream.instances[-1] is second and player.latency_s == LATENCY_STEPS_S[0]


def test_a_starved_ring_on_a_clocked_device_is_an_underrun(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """A callback that finds the ring short while a sound plays hands out a hole: it
    counts (a real device is never ahead of real time, so it never naps)."""
    stream = FakeStream.instances[-1]
    player.play(write(tmp_path / "a.wav", const(0.5, RATE * 2)))
    with player.held():  # the feeder is held up
        queued = player.queued_frames
        stream.pull(queued + 256)
    assert player.status().underruns == 1


def test_a_sound_shorter_than_the_ring_it_replaces_still_ends(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """A click of a sound mixed whole over the old sound's queued frames: it is heard
    (after one device period), then reported stopped."""
    from foley_tui.audio.base import PlayerState

    from .test_audio_player import Recorder

    stream = FakeStream.instances[-1]
    player.play(write(tmp_path / "long.wav", const(0.5, RATE * 2)))
    drain(stream, player, 2048)
    for _ in range(1000):
        if player.queued_frames >= player.ring_target_frames:
            break
        threading.Event().wait(0.002)
    recorder = Recorder()
    player.set_state_callback(recorder)
    player.play(write(tmp_path / "click.wav", const(0.25, 64)))
    out = drain(stream, player, int(RING_MAX_S * RATE) + 2048)
    at = int(np.argmax(out[:, 0] != 0.5))  # one device period on: the switch
    assert 0 < at <= 512
    fade = np.maximum(1 - np.arange(1, 65) / int(0.010 * RATE), 0)
    np.testing.assert_allclose(out[at : at + 64, 0], 0.25 + 0.5 * fade, atol=1e-6)
    assert not out[-1024:].any()  # the old sound faded out, the click over
    recorder.wait_for(PlayerState.STOPPED)
    assert player.status().state is PlayerState.STOPPED


def test_only_portaudios_own_thread_asks_for_a_real_time_priority(
    player: SoundDevicePlayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The callback thread asks once for SCHED_RR (granted where the system allows);
    a Python thread calling the callback (tests, benches) never does."""
    import _thread
    import os

    asked: list[tuple[int, int, int, int]] = []  # (thread, pid, policy, priority)

    def sched_setscheduler(pid: int, policy: int, param: os.sched_param) -> None:
        asked.append((_thread.get_ident(), pid, policy, param.sched_priority))

    def from_thread(ident: int) -> list[tuple[int, int, int]]:
        # The feeder thread asks for itself too: only the callback's asks count here.
        return [(pid, policy, prio) for who, pid, policy, prio in asked if who == ident]

    monkeypatch.setattr(os, "sched_setscheduler", sched_setscheduler)
    stream = FakeStream.instances[-1]
    stream.pull(256)  # from this (Python) thread: no
    assert from_thread(_thread.get_ident()) == [] and not player.realtime
    fresh = SoundDevicePlayer(read_ahead_s=0.2)  # a new stream, its callback not run yet
    try:
        stream = FakeStream.instances[-1]
        done = threading.Event()
        native_ident: list[int] = []

        def native() -> None:  # a thread Python did not start with threading, as PortAudio's
            native_ident.append(_thread.get_ident())
            try:
                for _ in range(3):
                    stream.pull(256)
            finally:
                done.set()

        _thread.start_new_thread(native, ())
        assert done.wait(30)
        assert from_thread(native_ident[0]) == [(0, os.SCHED_RR, 10)]  # once, for it
        assert fresh.realtime
    finally:
        fresh.close()


def test_an_idle_stream_rests_and_the_next_sound_starts_it(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """Once nothing has sounded for a while the stream stops (no callback costs CPU while
    the app idles); the next play() starts it again itself, its first frames already in
    the ring, so the sound is whole from its first frame."""
    from foley_tui.audio.base import PlayerState

    from .test_audio_player import Recorder

    stream = FakeStream.instances[-1]
    rng = np.random.default_rng(5)
    data = rng.uniform(-0.9, 0.9, (RATE // 10, 2)).astype(np.float32)
    src = write(tmp_path / "a.wav", data)
    recorder = Recorder()
    player.set_state_callback(recorder)
    player.play(src)
    drain(stream, player, len(data) + 1024)
    recorder.wait_for(PlayerState.STOPPED)
    for _ in range(30_000):  # a state, not a time: the feeder rests the idle stream
        if not player.output_running:
            break
        threading.Event().wait(0.001)
    assert not player.output_running
    assert not stream.running and not stream.closed  # stopped (aborted: silence), open
    starts = stream.starts
    player.play(src)
    assert player.output_running and stream.running and stream.starts == starts + 1
    out = drain(stream, player, len(data) + 1024)
    np.testing.assert_array_equal(out[: len(data)], data)
    assert FakeStream.instances[-1] is stream  # the same stream, not a new one


def test_a_prefetch_starts_a_resting_stream_ahead_of_the_play(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """The cursor landing on a row (a prefetch) says a play may follow: the resting
    stream starts then, in silence, and the play finds it running."""
    stream = FakeStream.instances[-1]
    src = write(tmp_path / "a.wav", const(0.5, RATE // 10))
    _wait_for_rest(player)
    player.prefetch(src)
    assert player.output_running and stream.running
    starts = stream.starts
    player.play(src)
    assert stream.starts == starts  # already running: play() only switches
    assert drain(stream, player, 1024).any()


def _wait_for_rest(player: SoundDevicePlayer) -> None:
    """Until the feeder rests the idle stream (it looks at the device all the while)."""
    for _ in range(30_000):
        if not player.output_running:
            return
        threading.Event().wait(0.001)
    raise AssertionError("the idle stream never rested")


def test_a_start_that_flags_an_underflow_in_silence_is_no_underrun(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """A stream's first callbacks may carry the device's underflow flag (its buffer
    being filled): in silence that is neither an underrun reported nor a reason to raise
    the latency, at the first start and at every start after a rest."""
    from foley_tui.audio.stream_engine import UNDERRUNS_TO_RAISE

    stream = FakeStream.instances[-1]
    for _ in range(UNDERRUNS_TO_RAISE + 1):
        stream.pull(256, Underflow())  # the fixture's stream has just started
    _wait_for_rest(player)
    assert len(FakeStream.instances) == 1 and player.status().underruns == 0
    player.play(write(tmp_path / "a.wav", const(0.5, RATE)))  # starts the stream again
    player.stop()
    while not player.idle:
        stream.pull(256)  # the stop's fade
    for _ in range(UNDERRUNS_TO_RAISE + 1):
        stream.pull(256, Underflow())
    _wait_for_rest(player)
    assert len(FakeStream.instances) == 1 and player.status().underruns == 0
    assert player.latency_s == stream.latency  # never reopened larger
