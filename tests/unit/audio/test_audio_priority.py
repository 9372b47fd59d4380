"""The player's priorities on a loaded machine: the GIL-heavy work of a play runs at a
ceiling just below the audio threads (nothing of normal priority preempts it while it
holds the GIL the callback needs), the stream's own threads start real-time, nothing is
imported while the stream runs, and a device that runs dry while idle is reopened with a
larger buffer then, in silence."""

from __future__ import annotations

import os
import sys
import threading
import types
from pathlib import Path
from typing import Any

import pytest

from foley_tui.audio import priority
from foley_tui.audio.base import MixVoice, Scene
from foley_tui.audio.player import SoundDevicePlayer
from foley_tui.audio.priority import CEILING_PRIORITY, audio_ceiling

from .test_audio_player import RATE, FakeStream, const, drain, write
from .test_audio_player import fake_sd as fake_sd
from .test_audio_player import player as player

OTHER = os.SCHED_OTHER
RR = os.SCHED_RR


class FakeScheduler:
    """The kernel's answers to the scheduling calls, per thread: every thread starts
    normal; ``allowed=False`` refuses real-time policies as an unprivileged user's
    kernel does."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, allowed: bool = True) -> None:
        self.allowed = allowed
        self.threads: dict[int, tuple[int, int]] = {}
        self.calls: list[tuple[int, int]] = []  # (policy, priority) asked, this thread
        self.caller = threading.get_ident()
        monkeypatch.setattr(os, "sched_getscheduler", self._getscheduler)
        monkeypatch.setattr(os, "sched_getparam", self._getparam)
        monkeypatch.setattr(os, "sched_setscheduler", self._setscheduler)
        monkeypatch.setattr(priority, "restore_scheduling", self._restore)

    def _restore(self, policy: int, priority: int) -> None:
        self._setscheduler(0, policy, os.sched_param(priority))

    def now(self) -> tuple[int, int]:
        """The calling thread's (policy, priority)."""
        return self.threads.get(threading.get_ident(), (OTHER, 0))

    def _getscheduler(self, pid: int) -> int:
        assert pid == 0
        return self.now()[0]

    def _getparam(self, pid: int) -> os.sched_param:
        assert pid == 0
        return os.sched_param(self.now()[1])

    def _setscheduler(self, pid: int, policy: int, param: os.sched_param) -> None:
        assert pid == 0
        if threading.get_ident() == self.caller:
            self.calls.append((policy, param.sched_priority))
        if policy != OTHER and not self.allowed:
            raise PermissionError(1, "Operation not permitted")
        self.threads[threading.get_ident()] = (policy, param.sched_priority)


def test_the_ceiling_raises_a_normal_thread_for_the_block_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sched = FakeScheduler(monkeypatch)
    with audio_ceiling():
        assert sched.now() == (RR, CEILING_PRIORITY)
    assert sched.now() == (OTHER, 0)
    with pytest.raises(ValueError), audio_ceiling():
        raise ValueError("the work failed")
    assert sched.now() == (OTHER, 0)  # restored whatever the block did
    assert CEILING_PRIORITY < priority.REALTIME_PRIORITY  # the audio threads preempt it


def test_the_real_system_call_puts_the_thread_back_where_it_was() -> None:
    """Without fakes: the restore (a ctypes call, which drops the GIL for it) leaves the
    thread on the policy and priority it had, whether the raise was granted or not."""
    before = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)
    with audio_ceiling():
        inside = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)
    assert inside in {before, (RR, CEILING_PRIORITY)}
    assert (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority) == before
    if inside != before:  # granted (root, RLIMIT_RTPRIO): the ctypes path restored it
        priority.restore_scheduling(RR, CEILING_PRIORITY)
        assert os.sched_getscheduler(0) == RR
        priority.restore_scheduling(*before)
        assert (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority) == before


def test_a_thread_already_at_a_higher_real_time_priority_is_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sched = FakeScheduler(monkeypatch)
    assert priority.ask_realtime()
    sched.calls.clear()
    with audio_ceiling():
        assert sched.now() == (RR, priority.REALTIME_PRIORITY)
    assert sched.calls == []


def test_where_no_real_time_priority_is_allowed_the_work_just_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sched = FakeScheduler(monkeypatch, allowed=False)
    ran = False
    with audio_ceiling():
        ran = True
    assert ran and sched.now() == (OTHER, 0)
    assert sched.calls == [(RR, CEILING_PRIORITY)]  # asked once, nothing to restore


def test_a_play_decodes_its_first_block_at_the_ceiling_on_the_callers_thread(
    player: SoundDevicePlayer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from foley_tui.audio import stream_engine
    from foley_tui.audio.mixer import StemMix

    sched = FakeScheduler(monkeypatch)
    seen: list[tuple[str, tuple[int, int]]] = []
    read_first = stream_engine.BlockDecoder.read_first
    stem_read = StemMix.read

    def spy_first(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(("preview", sched.now()))
        return read_first(self, *args, **kwargs)

    def spy_stems(self: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == sched.caller:
            seen.append(("scene", sched.now()))
        return stem_read(self, *args, **kwargs)

    monkeypatch.setattr(stream_engine.BlockDecoder, "read_first", spy_first)
    monkeypatch.setattr(StemMix, "read", spy_stems)
    source = write(tmp_path / "a.wav", const(0.5, RATE))
    player.play(source)
    assert sched.now() == (OTHER, 0)
    scene = Scene([MixVoice(source.path, 0.0)])
    player.play_scene(scene)
    assert sched.now() == (OTHER, 0)
    assert ("preview", (RR, CEILING_PRIORITY)) in seen
    assert ("scene", (RR, CEILING_PRIORITY)) in seen
    assert all(state == (RR, CEILING_PRIORITY) for _, state in seen)


def test_the_stream_opens_and_starts_real_time_so_its_threads_inherit_it(
    fake_sd: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PortAudio's thread and the ALSA pulse plugin's mainloop are started by the
    stream's open and start: they inherit the opening thread's scheduling."""
    sched = FakeScheduler(monkeypatch)
    states: list[tuple[str, tuple[int, int]]] = []

    class Recording(FakeStream):
        def __init__(self, **kwargs: Any) -> None:
            states.append(("open", sched.now()))
            super().__init__(**kwargs)

        def start(self) -> None:
            states.append(("start", sched.now()))
            super().start()

    monkeypatch.setattr(fake_sd, "OutputStream", Recording)
    created = SoundDevicePlayer()
    try:
        assert states == [("open", (RR, CEILING_PRIORITY)), ("start", (RR, CEILING_PRIORITY))]
        assert sched.now() == (OTHER, 0)
    finally:
        created.close()


def test_the_scene_machinery_is_imported_before_the_stream_runs(
    fake_sd: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import holds the GIL while a shared library loads: none may happen while the
    callback needs it (the first scene would otherwise import the limiter's scipy)."""
    monkeypatch.delitem(sys.modules, "foley_tui.audio.scene_voice", raising=False)
    loaded: list[bool] = []

    class Recording(FakeStream):
        def start(self) -> None:
            loaded.append("foley_tui.audio.scene_voice" in sys.modules)
            super().start()

    monkeypatch.setattr(fake_sd, "OutputStream", Recording)
    created = SoundDevicePlayer()
    created.close()
    assert loaded == [True]


class Underflow:
    output_underflow = True


def test_a_device_that_runs_dry_while_idle_is_reopened_larger_before_anything_plays(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    from foley_tui.audio.stream_engine import (
        LATENCY_STEPS_S,
        START_GRACE_S,
        UNDERRUNS_TO_RAISE,
    )

    first = FakeStream.instances[-1]
    first.pull(int(START_GRACE_S * player.samplerate))  # past the start itself
    for _ in range(UNDERRUNS_TO_RAISE):
        first.pull(256, Underflow())
    reopened = threading.Event()
    for _ in range(2000):
        if len(FakeStream.instances) > 1 and player.status().output_note:
            reopened.set()
            break
        threading.Event().wait(0.005)
    assert reopened.is_set()
    assert first.aborted and first.closed
    second = FakeStream.instances[-1]
    assert second.started and second.kwargs["latency"] == LATENCY_STEPS_S[0]
    assert player.status().output_note == "output latency raised to 50 ms after underruns"
    player.play(write(tmp_path / "a.wav", const(0.5, RATE)))
    assert drain(second, player, 1024).any()  # what plays next uses the new stream
