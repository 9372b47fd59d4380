"""Players without a sound card: NullPlayer, make_player's fallbacks, and the
SoundDevicePlayer's logic driven through a fake ``sounddevice`` whose stream callback the
test calls by hand (deterministic fades, gain, pause, seek, loop, end of sound)."""

from __future__ import annotations

import builtins
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from foley_tui.audio.base import AudioFormat, Player, PlayerState, PlayerStatus, Source
from foley_tui.audio.player import NullPlayer, SoundDevicePlayer, list_devices, make_player
from foley_tui.audio.stream_engine import RING_MAX_S

RATE = 44100


def source(path: Path, loudness: float | None = None) -> Source:
    stat = path.stat()
    identity = f"{path}|{stat.st_size}|{stat.st_mtime_ns}"
    return Source(path, AudioFormat.WAV, "path", identity, loudness)


def write(path: Path, data: np.ndarray, rate: int = RATE) -> Source:
    sf.write(str(path), data, rate, format="WAV", subtype="FLOAT")
    return source(path)


def const(value: float, frames: int) -> np.ndarray:
    return np.full((frames, 2), value, np.float32)


class Recorder:
    def __init__(self) -> None:
        self.statuses: list[PlayerStatus] = []
        self.threads: set[str] = set()
        self.event = threading.Event()

    def __call__(self, status: PlayerStatus) -> None:
        self.statuses.append(status)
        self.threads.add(threading.current_thread().name)
        self.event.set()

    def wait_for(self, state: PlayerState, timeout: float = 30.0) -> PlayerStatus:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for status in self.statuses:
                if status.state is state:
                    return status
            time.sleep(0.005)
        raise AssertionError(f"no {state} in {[s.state for s in self.statuses]}")


# -- NullPlayer -----------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_null_player_keeps_time(tmp_path: Path) -> None:
    clock = Clock()
    player = NullPlayer("PortAudio library not found", clock=clock)
    assert isinstance(player, Player)
    assert not player.available and player.unavailable_reason == "PortAudio library not found"
    assert player.device_name == "no audio: PortAudio library not found"
    src = write(tmp_path / "a", const(0.1, RATE * 10))  # 10 s
    recorder = Recorder()
    player.set_state_callback(recorder)
    player.play(src, 1.0)
    clock.now += 2.5
    status = player.status()
    assert (status.state, status.position_s, status.duration_s) == (PlayerState.PLAYING, 3.5, 10.0)
    player.pause()
    clock.now += 5
    assert player.status().position_s == 3.5 and player.status().state is PlayerState.PAUSED
    player.toggle_pause()
    clock.now += 1
    assert player.status().position_s == 4.5
    player.seek(-2, relative=True)
    assert player.status().position_s == 2.5
    player.pause()
    player.seek(99)
    assert player.status().position_s == 10.0
    player.seek(8.0)
    player.resume()
    player.set_loop(True)
    clock.now += 3
    assert player.status().position_s == pytest.approx(1.0)  # wrapped
    player.set_loop(False)
    clock.now += 20
    status = player.status()
    assert (status.state, status.position_s) == (PlayerState.STOPPED, 10.0)
    player.set_volume_db(-6)
    player.set_loudness_match(True, -20)
    assert (player.status().volume_db, player.status().loudness_match) == (-6, True)
    recorder.wait_for(PlayerState.STOPPED)
    assert [s.state for s in recorder.statuses][:2] == [PlayerState.PLAYING, PlayerState.PAUSED]
    assert threading.main_thread().name not in recorder.threads  # never the caller's thread
    player.close()


def test_null_player_ends_on_its_own_and_reports_bad_audio(
    tmp_path: Path, audio_files: dict[str, Path]
) -> None:
    player = NullPlayer("no output device")
    recorder = Recorder()
    player.set_state_callback(recorder)
    player.play(write(tmp_path / "short", const(0.1, RATE // 20)))  # 50 ms
    ended = recorder.wait_for(PlayerState.STOPPED)
    assert ended.position_s == pytest.approx(0.05)
    player.play(source(audio_files["not_audio"]))
    status = player.status()
    assert status.state is PlayerState.STOPPED and "unsupported or corrupt" in (status.error or "")
    player.stop()
    player.close()


def test_make_player_without_portaudio(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_portaudio(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_portaudio)
    import foley_tui.audio  # the package itself never needs PortAudio

    assert foley_tui.audio.Source is Source
    player = make_player()
    assert isinstance(player, NullPlayer)
    assert "PortAudio library not found" in (player.unavailable_reason or "")
    assert "libportaudio2" in player.device_name
    player.close()
    from foley_tui.audio.player import AudioUnavailable

    with pytest.raises(AudioUnavailable):
        list_devices()


# -- a fake sounddevice ---------------------------------------------------------------


class FakePortAudioError(Exception):
    pass


class Flags:
    output_underflow = False


class FakeStream:
    instances: list[FakeStream] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.callback = kwargs["callback"]
        latency = kwargs.get("latency")
        self.latency = latency if isinstance(latency, float) else 0.0087
        self.started = self.stopped = self.closed = self.aborted = False
        self.running = False
        self.starts = 0
        FakeStream.instances.append(self)

    def start(self) -> None:
        self.started = self.running = True
        self.starts += 1

    def stop(self) -> None:
        self.stopped = True
        self.running = False

    def abort(self) -> None:
        self.aborted = True
        self.running = False

    def close(self) -> None:
        self.closed = True

    def pull(self, frames: int, flags: Any = None) -> np.ndarray:
        out = np.full((frames, 2), 7.0, np.float32)  # garbage: the callback must overwrite
        self.callback(out, frames, None, flags or Flags())
        return out


def fake_sounddevice(
    devices: list[dict[str, Any]] | None = None, fail: bool = False
) -> types.ModuleType:
    module = types.ModuleType("sounddevice")
    devices = (
        devices
        if devices is not None
        else [
            {
                "name": "Speakers",
                "hostapi": 0,
                "max_output_channels": 2,
                "default_samplerate": RATE,
            },
            {"name": "Mic", "hostapi": 0, "max_output_channels": 0, "default_samplerate": RATE},
        ]
    )

    def query_devices(device: Any = None, kind: str | None = None) -> Any:
        if fail:
            raise FakePortAudioError("Error querying device -1")
        if kind is None and device is None:
            return devices
        if device is None:
            return devices[0]
        if isinstance(device, int):
            return devices[device]
        for item in devices:
            if device.lower() in item["name"].lower():
                return item
        raise ValueError(f"No output device matching {device!r}")

    module.query_devices = query_devices  # type: ignore[attr-defined]
    module.query_hostapis = lambda index=None: (  # type: ignore[attr-defined]
        {"name": "ALSA"} if index is not None else [{"name": "ALSA"}]
    )
    module.OutputStream = FakeStream  # type: ignore[attr-defined]
    module.PortAudioError = FakePortAudioError  # type: ignore[attr-defined]
    module.default = types.SimpleNamespace(device=[-1, 0])  # type: ignore[attr-defined]
    return module


@pytest.fixture
def fake_sd(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = fake_sounddevice()
    monkeypatch.setitem(sys.modules, "sounddevice", module)
    FakeStream.instances.clear()
    return module


def test_no_output_device_falls_back_to_null(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", fake_sounddevice(fail=True))
    player = make_player()
    assert isinstance(player, NullPlayer)
    assert player.unavailable_reason == (
        "no audio output device; running silent (foley-tui devices lists the outputs; "
        "choose one with --device N or --device NAME)"
    )
    player.close()


def test_unknown_device_name_falls_back_with_reason(fake_sd: types.ModuleType) -> None:
    player = make_player("hdmi")
    assert isinstance(player, NullPlayer) and "device 'hdmi'" in (player.unavailable_reason or "")
    player.close()


def test_list_devices_and_device_choice(fake_sd: types.ModuleType) -> None:
    devices = list_devices()
    assert [(d.index, d.name, d.is_default, d.hostapi) for d in devices] == [
        (0, "Speakers", True, "ALSA")
    ]
    player = make_player("0")
    assert isinstance(player, SoundDevicePlayer) and player.available
    stream = FakeStream.instances[-1]
    assert stream.kwargs["device"] == 0 and stream.kwargs["latency"] == "low"
    assert (stream.kwargs["samplerate"], stream.kwargs["channels"], stream.kwargs["dtype"]) == (
        RATE,
        2,
        "float32",
    )
    assert stream.started and player.device_name == "Speakers (ALSA)"
    player.close()
    assert stream.stopped and stream.closed  # graceful stop, not abort: the tail plays out


def drain(
    stream: FakeStream, player: SoundDevicePlayer, frames: int, block: int = 512
) -> np.ndarray:
    """Pull ``frames`` from the callback, ``block`` at a time (at most what the output
    ring holds), waiting for the feeder when it is behind."""
    chunks = []
    got = 0
    deadline = time.monotonic() + 5
    while got < frames and time.monotonic() < deadline:
        want = min(block, frames - got, player.ring_target_frames)
        if player.rendering and player.queued_frames < want:
            time.sleep(0.001)  # let the feeder catch up (the real device would underrun)
            continue
        chunk = stream.pull(want)
        chunks.append(chunk)
        got += len(chunk)
    return np.concatenate(chunks)


@pytest.fixture
def player(fake_sd: types.ModuleType) -> Any:
    created = SoundDevicePlayer(read_ahead_s=0.2)
    yield created
    created.close()


def test_plays_bit_exact_at_unity_to_the_last_frame(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    stream = FakeStream.instances[-1]
    rng = np.random.default_rng(3)
    data = (rng.uniform(-0.9, 0.9, (RATE * 2 + 123, 2))).astype(np.float32)  # 2 s, odd length
    recorder = Recorder()
    player.set_state_callback(recorder)
    assert not stream.pull(256).any()  # idle: silence, never garbage
    player.play(write(tmp_path / "a", data))
    out = drain(stream, player, len(data) + 2000)
    np.testing.assert_array_equal(out[: len(data)], data)  # every frame, in order
    assert not out[len(data) :].any()  # then silence
    ended = recorder.wait_for(PlayerState.STOPPED)
    assert ended.position_s == pytest.approx(len(data) / RATE)
    assert recorder.statuses[0].state is PlayerState.PLAYING
    assert threading.main_thread().name not in recorder.threads


def test_switch_fades_the_old_sound_without_a_click(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    stream = FakeStream.instances[-1]
    player.play(write(tmp_path / "a", const(0.5, RATE)))
    drain(stream, player, 2048)
    player.play(write(tmp_path / "b", const(0.25, RATE)))
    out = drain(stream, player, 4096, block=2048)
    # The ring's old frames play for one device period at most (the callback may be
    # copying them), then the new sound starts over the old one's fade.
    at = int(np.argmax(out[:, 0] != 0.5))
    assert 0 < at <= 512
    np.testing.assert_array_equal(out[:at, 0], 0.5)
    out = out[at:]
    fade = int(0.010 * RATE)
    old_part = out[:fade, 0] - 0.25
    assert old_part[0] == pytest.approx(0.5, abs=0.01)  # the old sound continues...
    assert np.all(np.diff(old_part) <= 1e-6)  # ...and only goes down
    assert np.max(np.abs(np.diff(out[:, 0]))) < 0.002  # no step anywhere: no click
    np.testing.assert_array_equal(out[fade + 1 :, 0], 0.25)  # the new sound, untouched


def test_pause_resume_stop_and_seek(player: SoundDevicePlayer, tmp_path: Path) -> None:
    stream = FakeStream.instances[-1]
    ramp = np.repeat((np.arange(RATE * 2, dtype=np.float32) / (RATE * 2))[:, None], 2, axis=1)
    src = write(tmp_path / "ramp", ramp)
    player.play(src)
    drain(stream, player, RATE // 2)
    player.pause()
    # A pause is a control: heard once the ring's mixed frames have played, then the
    # fade-out.
    drain(stream, player, int(RING_MAX_S * RATE) + 2048)
    held = player.status()
    assert held.state is PlayerState.PAUSED
    assert not drain(stream, player, 1024).any()
    assert player.status().position_s == held.position_s  # a paused playhead holds
    player.resume()
    assert player.status().state is PlayerState.PLAYING
    after = drain(stream, player, 1024)
    expected = (held.position_s + 1024 / RATE) / 2
    assert after[-1, 0] == pytest.approx(expected, abs=0.002)  # continues from there
    # A seek is heard within one device period (the 512 frames the callback may be
    # copying) of the call; the playhead is the last frame handed to the device.
    period = 512
    player.seek(1.5)
    out = drain(stream, player, 4096)
    heard = player.status().position_s
    assert 1.5 + (4096 - period) / RATE <= heard <= 1.5 + 4096 / RATE
    assert out[-1, 0] == pytest.approx((heard - 1 / RATE) / 2, abs=1e-5)
    player.seek(-1.0, relative=True)
    out = drain(stream, player, 1024)
    again = player.status().position_s
    assert heard - 1.0 + (1024 - period) / RATE <= again <= heard - 1.0 + 1024 / RATE
    assert out[-1, 0] == pytest.approx((again - 1 / RATE) / 2, abs=1e-5)
    player.seek(99)  # clamped to the end
    drain(stream, player, 4096)
    player.stop()
    drain(stream, player, 2048)
    assert player.status().state is PlayerState.STOPPED
    assert not drain(stream, player, 512).any()


def test_loop_wraps_seamlessly(player: SoundDevicePlayer, tmp_path: Path) -> None:
    stream = FakeStream.instances[-1]
    ramp = np.repeat((np.arange(4410, dtype=np.float32) / 5000)[:, None] + 0.1, 2, axis=1)
    player.set_loop(True)
    player.play(write(tmp_path / "loop", ramp))
    out = drain(stream, player, 4410 * 3)
    np.testing.assert_array_equal(out, np.concatenate([ramp, ramp, ramp]))
    assert player.status().state is PlayerState.PLAYING and player.status().loop


def test_volume_and_declared_loudness_gain(player: SoundDevicePlayer, tmp_path: Path) -> None:
    stream = FakeStream.instances[-1]
    data = const(0.1, RATE)
    path = tmp_path / "quiet"
    sf.write(str(path), data, RATE, format="WAV", subtype="FLOAT")
    player.set_volume_db(-6.0)
    player.set_loudness_match(True, -23.0)
    player.play(source(path, loudness=-29.0))  # declared: +6 dB to reach -23
    out = drain(stream, player, 1024)
    np.testing.assert_allclose(out, 0.1, rtol=1e-5)  # -6 + 6 = unity, from the first frame
    player.set_volume_db(0.0)
    drain(stream, player, 4096)  # ramp
    np.testing.assert_allclose(drain(stream, player, 512), 0.1 * 10 ** (6 / 20), rtol=1e-4)


def test_measured_loudness_ramps_in_after_a_unity_start(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    stream = FakeStream.instances[-1]
    rng = np.random.default_rng(1)
    data = (rng.standard_normal((RATE * 3, 2)) * 0.05).astype(np.float32)
    src = write(tmp_path / "noise", data)
    from foley_tui.audio.loudness import match_gain_db, measure_file

    expected = 10 ** (match_gain_db(measure_file(src.path), -23.0) / 20)
    player.set_loudness_match(True, -23.0)
    player.play(src)
    first = drain(stream, player, 256)
    np.testing.assert_array_equal(first, data[:256])  # sound starts at once, at unity
    deadline = time.monotonic() + 5
    while player.measured_lufs(src) is None and time.monotonic() < deadline:
        time.sleep(0.005)
    drain(stream, player, 8192)  # the gain ramp
    out = drain(stream, player, 512)
    position = round(player.status().position_s * RATE)
    np.testing.assert_allclose(
        out, data[position - 512 : position] * expected, rtol=1e-4, atol=1e-6
    )


def test_cached_head_replays_without_disk_and_continues_exactly(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    stream = FakeStream.instances[-1]
    rng = np.random.default_rng(5)
    data = rng.uniform(-0.5, 0.5, (RATE, 2)).astype(np.float32)
    path = tmp_path / "x48"
    sf.write(str(path), data, 48000, format="WAV", subtype="FLOAT")  # resampled
    src = source(path)
    player.prefetch(src)
    player.play(src)
    voice = player.voice
    assert voice is not None and voice.decoder is None  # served from the head cache
    first = drain(stream, player, RATE + 100)
    player.clear_cache()
    player.play(src)  # cold: decoded continuously from the file
    second = drain(stream, player, RATE + 100)
    np.testing.assert_allclose(first, second, atol=1e-6)  # the seam is invisible


def test_bad_audio_reports_an_error_and_never_raises(
    player: SoundDevicePlayer, audio_files: dict[str, Path]
) -> None:
    recorder = Recorder()
    player.set_state_callback(recorder)
    player.play(source(audio_files["not_audio"]))
    status = recorder.wait_for(PlayerState.STOPPED)
    assert "unsupported or corrupt" in (status.error or "")
    player.play(source(audio_files["truncated"]))
    stream = FakeStream.instances[-1]
    drain(stream, player, RATE)
    assert player.status().state is PlayerState.STOPPED


def test_a_retired_voice_that_runs_dry_is_dropped(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """Nothing feeds a faded-out voice; if its buffer is empty it must not linger forever."""
    stream = FakeStream.instances[-1]
    player.play(write(tmp_path / "a", const(0.5, RATE * 5)))
    drain(stream, player, 1024)
    old = player.voice
    assert old is not None
    old.chunks.clear()
    old.head = None
    player.play(write(tmp_path / "b", const(0.25, RATE)))
    drain(stream, player, 1024)
    assert player.fading == ()


def test_an_error_while_mixing_stops_the_sound_not_the_stream(
    player: SoundDevicePlayer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = FakeStream.instances[-1]
    recorder = Recorder()
    player.set_state_callback(recorder)
    src = write(tmp_path / "a", const(0.5, RATE))
    player.play(src)

    def broken(self: Any, out: np.ndarray, frames: int) -> int:
        raise RuntimeError("boom")

    from foley_tui.audio import voice as module

    monkeypatch.setattr(module.Voice, "render", broken)
    # What was mixed before plays out (at most the ring's depth), then silence.
    out = np.concatenate([stream.pull(256) for _ in range(int(RING_MAX_S * RATE) // 256 + 2)])
    assert not out[-256:].any()
    status = recorder.wait_for(PlayerState.STOPPED)
    assert "playback error" in (status.error or "") and "boom" in (status.error or "")
    monkeypatch.undo()
    player.play(src)  # the stream still works
    assert stream.pull(256)[0, 0] == 0.5


def test_an_error_in_the_callback_plays_silence_and_never_escapes(
    player: SoundDevicePlayer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = FakeStream.instances[-1]
    player.play(write(tmp_path / "a", const(0.5, RATE)))
    from foley_tui.audio.ring import OutputRing

    def broken(self: Any, out: np.ndarray, frames: int) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(OutputRing, "read_into", broken)
    assert not stream.pull(256).any()  # silence, and no exception escapes to PortAudio
    monkeypatch.undo()
    assert stream.pull(256)[0, 0] == 0.5


def test_idle_naps_on_an_unpaced_sink_and_play_cuts_them_short(
    fake_sd: types.ModuleType, tmp_path: Path
) -> None:
    """Idle callbacks asked for far faster than real time nap (no spinning CPU); a play()
    arriving during a nap is rendered by that same callback."""
    naps: list[float] = []

    class Kick(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            assert timeout is not None
            naps.append(timeout)
            if len(naps) == 3:
                player.play(src)  # arrives mid-nap
            return True

        def set(self) -> None:
            pass

        def clear(self) -> None:
            pass

    src = write(tmp_path / "a", const(0.5, RATE))
    player = SoundDevicePlayer(read_ahead_s=0.2, kick=Kick())
    try:
        stream = FakeStream.instances[-1]
        outs = [stream.pull(512) for _ in range(10)]  # 116 ms of audio, asked for at once
    finally:
        player.close()
    # Three idle naps, the third cut short by play(); later ones pace the starved
    # stream while the feeder mixes (only an unpaced sink ever gets that far ahead).
    assert len(naps) >= 3 and all(nap <= 0.005 for nap in naps)
    first_sound = next(i for i, out in enumerate(outs) if out.any())
    assert outs[first_sound][0, 0] == 0.5  # rendered by the callback that napped
    assert not outs[first_sound - 1].any()


def test_a_prefetched_play_reads_no_file(
    player: SoundDevicePlayer, tmp_path: Path, audio_files: dict[str, Path]
) -> None:
    stream = FakeStream.instances[-1]
    data = np.random.default_rng(9).uniform(-0.5, 0.5, (RATE, 2)).astype(np.float32)
    warm = write(tmp_path / "warm", data)
    cold = write(tmp_path / "cold", data)
    player.prefetch(warm)
    # Both files vanish: only a play() that reads no file can still start a sound.
    assert isinstance(warm.path, Path) and isinstance(cold.path, Path)
    warm.path.unlink()
    cold.path.unlink()
    # is_warm says which play() reads no file (the screens play the others from a worker).
    assert player.is_warm(warm) and not player.is_warm(cold)
    assert not player.is_warm(warm, 0.5)  # a start past the head opens the file
    player.play(cold)  # the control: a cold play opens the file, so it fails here
    assert player.status().state is PlayerState.STOPPED and player.status().error
    # The feeder decodes on from the file (and finds it gone) once it mixes: held off
    # here, so what is checked is what play() itself did.
    with player.held():
        player.play(warm)
        status = player.status()
    assert (status.state, status.error) == (PlayerState.PLAYING, None)
    np.testing.assert_array_equal(drain(stream, player, 1024), data[:1024])  # the head


def test_prefetch_is_a_hint_that_never_raises(
    player: SoundDevicePlayer, tmp_path: Path, audio_files: dict[str, Path]
) -> None:
    for name in ("not_audio", "truncated", "empty", "no_frames"):
        player.prefetch(source(audio_files[name]))
    missing = Source(tmp_path / "gone.wav", AudioFormat.WAV, "path", "gone")
    player.prefetch(missing)
    null = NullPlayer("no output device")
    null.prefetch(missing)  # nothing to warm without a device; must not raise
    null.close()
    player.close()
    player.prefetch(missing)  # after close: still quiet


def test_a_blob_read_by_range_plays_bit_exact_and_a_lost_store_says_why(
    player: SoundDevicePlayer,
) -> None:
    """A Redis session's pushed audio: prefetched head, the rest fetched as it plays."""
    import io

    from foley_tui.audio.blob import RemoteBlob

    stream = FakeStream.instances[-1]
    data = np.random.default_rng(5).uniform(-0.9, 0.9, (RATE * 4, 2)).astype(np.float32)
    buffer = io.BytesIO()
    sf.write(buffer, data, RATE, format="WAV", subtype="FLOAT")
    raw = buffer.getvalue()
    ranges: list[tuple[int, int]] = []
    down = threading.Event()

    def fetch(start: int, end: int) -> bytes:
        if down.is_set():
            raise ConnectionError("Redis at redis://h:1/0 is unreachable")
        ranges.append((start, end))
        return raw[start : end + 1]

    blob = RemoteBlob("Redis blob ab12…", len(raw), "ab12", fetch, raw[:4096])
    src = Source(blob, AudioFormat.WAV, "redis", f"blob:ab12|{len(raw)}")
    player.prefetch(src)
    player.play(src)
    out = drain(stream, player, len(data) + 2000)
    np.testing.assert_array_equal(out[: len(data)], data)
    assert len(ranges) >= 4  # streamed in blocks, never one whole-file read

    recorder = Recorder()
    player.set_state_callback(recorder)
    player.play(src, 1.0)
    drain(stream, player, 4096)
    down.set()  # the server goes away while it plays
    drain(stream, player, RATE * 3, block=4096)
    ended = recorder.wait_for(PlayerState.STOPPED)
    assert ended.error is not None and "cannot read Redis blob ab12…" in ended.error


def test_null_player_is_warm_once_its_duration_was_read(tmp_path: Path) -> None:
    """Without a device play() still reads a header (the duration): prefetch reads it in
    the caller's worker, so the play on the UI thread reads no file."""
    data = np.zeros((RATE // 2, 2), np.float32)
    sound = write(tmp_path / "half", data)
    null = NullPlayer("no output device")
    assert not null.is_warm(sound)
    null.prefetch(sound)
    assert null.is_warm(sound)
    assert isinstance(sound.path, Path)
    sound.path.unlink()  # gone: only a play that reads nothing still starts
    null.play(sound)
    status = null.status()
    assert status.state is PlayerState.PLAYING and status.duration_s == pytest.approx(0.5)
    null.close()
