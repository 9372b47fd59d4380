"""Players: :class:`SoundDevicePlayer` (PortAudio), :class:`NullPlayer` (no device), factory.

Headless: never imports textual; ``sounddevice`` is imported lazily (in :func:`make_player`,
:func:`list_devices` and the player's constructor), so a machine without PortAudio can
still ``import foley_tui.audio`` and run the app silently.

How :class:`SoundDevicePlayer` gets sound out within a millisecond of ``play()``:

* ONE callback ``OutputStream`` is opened at the device's own default rate, stereo
  float32, ``latency='low'``, and left running (idle it writes silence). Opening a stream
  per play costs ~0.8 ms, switching sound inside a running callback ~0.2 ms. On a sink
  that is not clocked (an ALSA ``file`` PCM in tests) idle callbacks nap, so an idle
  stream never spins a CPU; play() cuts the nap short.
* ``play()`` opens the file and decodes just the first block (a few hundred microseconds,
  whatever the file's length; the resampler comes ready-made from a pool), or takes it
  from a bounded cache of recently played or prefetched heads (:meth:`prefetch`); it
  queues the block on a new *voice* and swaps the voice in. The next callback (every few
  ms) plays it. The old voice fades out over ~10 ms beside it: no click.
* A feeder thread decodes further blocks ahead (about a second) into the voice's queue;
  the callback only pops arrays from that queue and never waits on disk. If the feeder
  falls behind, the callback plays silence and the playhead holds (no frames are lost).
* Gain = preview volume x loudness match, ramped per block so changes never click. With
  loudness match on, the candidate's declared ``loudness_lufs`` is used at once; otherwise
  the sound starts at the declared/unity gain while a worker measures BS.1770 loudness,
  then ramps to the matched gain (measured values are cached by source identity).
* A sound's tail is never cut: the resampler is flushed at the end of the file, the voice
  ends only when its last frame has been handed to the device, and ``close()`` stops the
  stream gracefully (PortAudio drains its buffers).

State callbacks always run on the player's own notifier thread, never on the caller's.
"""

from __future__ import annotations

import contextlib
import math
import queue
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from foley_tui.audio.base import Player, PlayerState, PlayerStatus, Source, StateCallback
from foley_tui.audio.decode import (
    AudioInfo,
    BlockDecoder,
    DecodeError,
    Frames,
    ResamplerPool,
    probe,
)
from foley_tui.audio.loudness import LoudnessCache, db_to_gain, match_gain_db, measure_file

#: Fade used when a new sound replaces the old one, on stop and on pause (no click).
SWITCH_FADE_S = 0.010
#: Fade-in when starting mid-sound (seek, resume); a start at 0 plays the file as is.
ENTRY_FADE_S = 0.004
#: How far the feeder decodes ahead of the callback.
READ_AHEAD_S = 1.0
#: Gain changes (volume, measured loudness arriving) are ramped over this time.
GAIN_RAMP_S = 0.030
#: play() decodes at least this many output frames itself (~23 ms at 44.1 kHz), and the
#: callback wakes the feeder only after FEEDER_GRACE_FRAMES of them have played (or
#: fewer are left), leaving ~12 ms for the feeder's first, small, block.
FIRST_BLOCK_FRAMES = 1024
FEEDER_GRACE_FRAMES = 512
#: Output frames kept per cached head (decoded start of a sound), and the cache budget.
HEAD_S = 0.15
HEAD_CACHE_BYTES = 32 * 1024 * 1024
#: The audio callback is Python and needs the GIL: lowering Python's thread switch
#: interval (default 5 ms) bounds how long the UI or the feeder can hold the callback off.
SWITCH_INTERVAL_S = 0.0005
DEFAULT_TARGET_LUFS = -23.0
#: Idle naps on an unpaced sink (see SoundDevicePlayer._idle_nap).
IDLE_AHEAD_S = 0.020
IDLE_NAP_S = 0.002


class AudioUnavailable(Exception):
    """No audio output: PortAudio missing, no device, or the device refused to open."""


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """An output device as listed by ``foley-tui devices``."""

    index: int
    name: str
    hostapi: str
    channels: int
    default_samplerate: float
    is_default: bool


def _import_sounddevice() -> Any:
    """``import sounddevice``; raises :class:`AudioUnavailable` when PortAudio is missing."""
    try:
        import sounddevice
    except OSError as exc:  # the PortAudio shared library is not installed
        raise AudioUnavailable(
            f"PortAudio library not found ({exc}); install libportaudio2"
        ) from None
    return sounddevice


def list_devices() -> list[DeviceInfo]:
    """Output devices PortAudio can see; raises :class:`AudioUnavailable` without PortAudio."""
    sd = _import_sounddevice()
    try:
        devices = sd.query_devices()
        hostapis = sd.query_hostapis()
        try:
            default_out = int(sd.default.device[1])
        except (TypeError, ValueError, IndexError):
            default_out = -1
    except sd.PortAudioError as exc:
        raise AudioUnavailable(f"PortAudio error: {exc}") from None
    result: list[DeviceInfo] = []
    for index, device in enumerate(devices):
        if int(device["max_output_channels"]) <= 0:
            continue
        result.append(
            DeviceInfo(
                index=index,
                name=str(device["name"]),
                hostapi=str(hostapis[device["hostapi"]]["name"]),
                channels=int(device["max_output_channels"]),
                default_samplerate=float(device["default_samplerate"]),
                is_default=index == default_out,
            )
        )
    return result


def _parse_device(device: str | int | None) -> str | int | None:
    """``"3"`` -> 3 (an index); a name (substring) stays a string; ``""`` -> default."""
    if isinstance(device, str):
        text = device.strip()
        if not text or text.lower() == "default":
            return None
        return int(text) if text.isdigit() else text
    return device


def make_player(device: str | int | None = None) -> Player:
    """A :class:`SoundDevicePlayer` on ``device``, else a :class:`NullPlayer` saying why."""
    try:
        return SoundDevicePlayer(device)
    except AudioUnavailable as exc:
        return NullPlayer(str(exc))


class _Notifier:
    """Delivers state callbacks on one daemon thread, in order, never on the caller's."""

    def __init__(self, name: str) -> None:
        self.callback: StateCallback | None = None
        self._name = name
        self._queue: queue.SimpleQueue[PlayerStatus | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None  # started on first use
        self._lock = threading.Lock()

    def emit(self, status: PlayerStatus) -> None:
        if self.callback is None:
            return
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                    self._thread.start()
        self._queue.put(status)

    def _run(self) -> None:
        while True:
            status = self._queue.get()
            if status is None:
                return
            callback = self.callback
            if callback is not None:
                with contextlib.suppress(Exception):  # a UI bug must not kill the thread
                    callback(status)

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)


class _Settings:
    """The user-facing settings both players share."""

    def __init__(self) -> None:
        self.loop = False
        self.volume_db = 0.0
        self.loudness_match = False
        self.target_lufs = DEFAULT_TARGET_LUFS


class NullPlayer:
    """A silent player that keeps time, used when there is no audio output.

    The playhead moves in real time, ends (or loops) at the sound's duration and fires the
    same state callbacks as the real player, so the UI behaves identically; ``device_name``
    and ``unavailable_reason`` say why there is no sound.
    """

    def __init__(self, reason: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._reason = reason
        self._clock = clock
        self._lock = threading.RLock()
        self._settings = _Settings()
        self._notifier = _Notifier("foley-null-player")
        self._state = PlayerState.STOPPED
        self._source: Source | None = None
        self._duration = 0.0
        self._base = 0.0  # position at _since
        self._since = 0.0
        self._error: str | None = None
        self._timer: threading.Timer | None = None
        self._durations: OrderedDict[str, float] = OrderedDict()

    # -- Player protocol -------------------------------------------------------------
    @property
    def available(self) -> bool:
        return False

    @property
    def device_name(self) -> str:
        return f"no audio: {self._reason}"

    @property
    def unavailable_reason(self) -> str | None:
        return self._reason

    def play(self, source: Source, start_s: float = 0.0) -> None:
        with self._lock:
            self._source = source
            self._error = None
            try:
                self._duration = self._duration_of(source)
            except DecodeError as exc:
                self._duration = 0.0
                self._error = str(exc)
                self._set(PlayerState.STOPPED, 0.0)
                return
            self._set(PlayerState.PLAYING, self._clamp(start_s))

    def stop(self) -> None:
        with self._lock:
            if self._state is not PlayerState.STOPPED:
                self._set(PlayerState.STOPPED, self._position())

    def pause(self) -> None:
        with self._lock:
            if self._state is PlayerState.PLAYING:
                self._set(PlayerState.PAUSED, self._position())

    def resume(self) -> None:
        with self._lock:
            if self._state is PlayerState.PAUSED:
                self._set(PlayerState.PLAYING, self._position())
            elif self._state is PlayerState.STOPPED and self._source is not None:
                position = self._position()
                self.play(self._source, 0.0 if position >= self._duration else position)

    def toggle_pause(self) -> None:
        with self._lock:
            if self._state is PlayerState.PLAYING:
                self.pause()
            else:
                self.resume()

    def seek(self, seconds: float, *, relative: bool = False) -> None:
        with self._lock:
            if self._source is None:
                return
            target = self._position() + seconds if relative else seconds
            self._set(self._state, self._clamp(target), notify=False)

    def set_loop(self, loop: bool) -> None:
        with self._lock:
            position = self._position()
            self._settings.loop = loop
            self._set(self._state, position, notify=False)

    def set_volume_db(self, volume_db: float) -> None:
        self._settings.volume_db = float(volume_db)

    def set_loudness_match(self, enabled: bool, target_lufs: float = DEFAULT_TARGET_LUFS) -> None:
        self._settings.loudness_match = enabled
        self._settings.target_lufs = float(target_lufs)

    def status(self) -> PlayerStatus:
        with self._lock:
            self._check_end()
            return self._status()

    def set_state_callback(self, callback: StateCallback | None) -> None:
        self._notifier.callback = callback

    def prefetch(self, source: Source) -> None:
        """Nothing to decode without a device; the duration is read at play time."""

    def close(self) -> None:
        with self._lock:
            self._cancel_timer()
            self._state = PlayerState.STOPPED
        self._notifier.close()

    # -- internals -------------------------------------------------------------------
    def _duration_of(self, source: Source) -> float:
        cached = self._durations.get(source.identity)
        if cached is None:
            cached = probe(source.path).duration_s
            self._durations[source.identity] = cached
            while len(self._durations) > 1024:
                self._durations.popitem(last=False)
        return cached

    def _clamp(self, seconds: float) -> float:
        if not math.isfinite(seconds):
            return 0.0
        return min(max(seconds, 0.0), self._duration)

    def _position(self) -> float:
        if self._state is not PlayerState.PLAYING:
            return self._base
        position = self._base + (self._clock() - self._since)
        if self._settings.loop and self._duration > 0:
            return position % self._duration
        return min(position, self._duration)

    def _status(self) -> PlayerStatus:
        return PlayerStatus(
            state=self._state,
            position_s=self._position(),
            duration_s=self._duration,
            source=self._source,
            loop=self._settings.loop,
            volume_db=self._settings.volume_db,
            loudness_match=self._settings.loudness_match,
            error=self._error,
        )

    def _set(self, state: PlayerState, position: float, *, notify: bool = True) -> None:
        self._cancel_timer()
        self._state = state
        self._base = position
        self._since = self._clock()
        if state is PlayerState.PLAYING and not self._settings.loop:
            remaining = max(self._duration - position, 0.0)
            self._timer = threading.Timer(remaining, self._on_timer)
            self._timer.daemon = True
            self._timer.start()
        if notify:
            self._notifier.emit(self._status())

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self) -> None:
        with self._lock:
            self._check_end(force=True)

    def _check_end(self, force: bool = False) -> None:
        if self._state is not PlayerState.PLAYING or self._settings.loop:
            return
        elapsed_end = self._base + (self._clock() - self._since) >= self._duration
        if elapsed_end or force:
            self._set(PlayerState.STOPPED, self._duration)


class _Ramp:
    """A per-frame linear ramp from ``value`` towards ``target`` at ``rate`` per frame."""

    __slots__ = ("rate", "target", "value")

    def __init__(self, value: float, target: float | None = None, rate: float = 1.0) -> None:
        self.value = value
        self.target = value if target is None else target
        self.rate = rate

    def go(self, target: float, seconds: float, out_rate: int) -> None:
        frames = max(seconds * out_rate, 1.0)
        self.rate = max(abs(target - self.value) / frames, 1e-12)
        self.target = target

    @property
    def steady(self) -> bool:
        return self.value == self.target

    def frames_left(self) -> int:
        """Frames until the ramp reaches its target (at least 1)."""
        return max(math.ceil(abs(self.target - self.value) / self.rate - 1e-9), 1)

    def take(self, frames: int) -> np.ndarray | float:
        """The multiplier for the next ``frames`` frames (a scalar when steady)."""
        if self.value == self.target:
            return self.value
        step = self.rate if self.target > self.value else -self.rate
        values = self.value + step * np.arange(1, frames + 1, dtype=np.float64)
        if step > 0:
            np.minimum(values, self.target, out=values)
        else:
            np.maximum(values, self.target, out=values)
        self.value = float(values[-1])
        return values.astype(np.float32)[:, None]


class _Voice:
    """One sound being played: chunks decoded by the feeder, consumed by the callback."""

    def __init__(
        self,
        source: Source,
        decoder: BlockDecoder | None,
        info: AudioInfo,
        out_rate: int,
        start_s: float,
        loop: bool,
    ) -> None:
        self.source = source
        # Owned by the feeder once play() returns; None until the feeder opens it (a play
        # served from a cached head touches no disk at all).
        self.decoder = decoder
        self.info = info
        self.out_rate = out_rate
        self.start_s = start_s
        self.duration = info.duration_s
        self.loop = loop
        self.chunks: deque[tuple[Frames, int]] = deque()  # (frames, output index of frame 0)
        self.head: Frames | None = None
        self.head_off = 0
        self.head_index = 0
        self.produced = 0  # output frames queued by the feeder
        self.consumed = 0  # output frames handed to the device
        self.skip = 0  # output frames the feeder must drop (already served from a head)
        self.eof = False  # the feeder queued the last frame
        self.finished = False  # the callback played the last frame
        self.reported = False
        self.position = start_s
        self.env = _Ramp(1.0)  # fades (switch, stop, pause)
        self.gain = _Ramp(1.0)  # volume x loudness
        self.paused = False  # callback stops consuming once env reaches 0
        self.pausing = False
        self.dying = False  # fading out for good
        self.error: str | None = None
        self.lock = threading.Lock()  # feeder vs close of the decoder

    @property
    def buffered(self) -> int:
        return self.produced - self.consumed

    def push(self, block: Frames) -> None:
        if len(block):
            self.chunks.append((block, self.produced))
            self.produced += len(block)

    def render(self, out: np.ndarray, frames: int) -> int:
        """Add up to ``frames`` frames of this voice into ``out``; returns frames written."""
        if self.paused:
            return 0
        written = 0
        while written < frames:
            if self.head is None or self.head_off >= len(self.head):
                if not self.chunks:
                    break
                self.head, self.head_index = self.chunks.popleft()
                self.head_off = 0
            take = min(frames - written, len(self.head) - self.head_off)
            if (self.pausing or self.dying) and not self.env.steady:
                take = min(take, self.env.frames_left())
            piece = self.head[self.head_off : self.head_off + take]
            multiplier = self._multiplier(take)
            if isinstance(multiplier, float) and multiplier == 1.0:
                out[written : written + take] += piece
            else:
                out[written : written + take] += piece * multiplier
            self.head_off += take
            written += take
            if self.pausing and self.env.value <= 0.0:
                self.paused = True
                self.pausing = False
                break
            if self.dying and self.env.value <= 0.0:
                break
        self.consumed += written
        if self.head is not None:
            self.position = self.position_of(self.head_index + self.head_off)
        if self.eof and not self.chunks and (self.head is None or self.head_off >= len(self.head)):
            self.finished = True
        return written

    def position_of(self, index: int) -> float:
        """The file position (seconds) of output frame ``index`` (wraps when looping)."""
        position = self.start_s + index / self.out_rate
        if self.loop and self.duration > 0 and position >= self.duration:
            position %= self.duration
        return min(position, self.duration)

    def close_decoder(self) -> None:
        with self.lock:
            if self.decoder is not None:
                self.decoder.close()

    def _multiplier(self, frames: int) -> np.ndarray | float:
        env = self.env.take(frames)
        gain = self.gain.take(frames)
        if isinstance(env, float) and isinstance(gain, float):
            return env * gain
        return env * gain


class SoundDevicePlayer:
    """The PortAudio player (see the module docstring for how it works)."""

    def __init__(self, device: str | int | None = None, *, read_ahead_s: float = READ_AHEAD_S):
        sd = _import_sounddevice()
        self._sd = sd
        self._device = _parse_device(device)
        try:
            info = sd.query_devices(self._device, "output")
            self.samplerate = round(float(info["default_samplerate"]))
            self._device_label = f"{info['name']} ({sd.query_hostapis(info['hostapi'])['name']})"
            self._stream = sd.OutputStream(
                samplerate=self.samplerate,
                channels=2,
                dtype="float32",
                latency="low",
                device=self._device,
                callback=self._callback,
            )
        except (sd.PortAudioError, ValueError) as exc:
            where = "the default device" if self._device is None else f"device {device!r}"
            raise AudioUnavailable(f"cannot open {where}: {exc}") from None
        self._read_ahead = max(int(read_ahead_s * self.samplerate), 4096)
        self._resamplers = ResamplerPool(self.samplerate)
        self._lock = threading.RLock()
        self._settings = _Settings()
        self._notifier = _Notifier("foley-player-notify")
        self._voice: _Voice | None = None
        self._fading: list[_Voice] = []
        self._last_source: Source | None = None
        self._last_position = 0.0
        self._last_duration = 0.0
        self._error: str | None = None
        self._closed = False
        self._heads: OrderedDict[tuple[str, int], tuple[Frames, AudioInfo]] = OrderedDict()
        self._heads_bytes = 0
        self._loudness = LoudnessCache()
        self._measuring: set[str] = set()
        self._measure_pool = ThreadPoolExecutor(1, thread_name_prefix="foley-loudness")
        self._ended: deque[_Voice] = deque()
        self._wake = threading.Event()
        self.underruns = 0
        self._kick = threading.Event()  # cuts an idle nap short (see _idle_nap)
        self._idle_due = 0.0
        self._stream_lock = threading.Lock()
        self._running = False
        self.frames_out = 0  # frames handed to the device (diagnostics, tests)
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._feeder = threading.Thread(target=self._feed_loop, name="foley-feeder", daemon=True)
        self._feeder.start()
        try:
            self._stream.start()
        except sd.PortAudioError as exc:
            self.close()
            raise AudioUnavailable(f"cannot start the output stream: {exc}") from None
        self._running = True

    # -- Player protocol -------------------------------------------------------------
    @property
    def available(self) -> bool:
        return not self._closed

    @property
    def device_name(self) -> str:
        return self._device_label

    @property
    def unavailable_reason(self) -> str | None:
        return "player closed" if self._closed else None

    @property
    def latency_s(self) -> float:
        """The output latency PortAudio reports for the open stream."""
        return float(self._stream.latency)

    def play(self, source: Source, start_s: float = 0.0) -> None:
        with self._lock:
            self._error = None
            self._last_source = source
            try:
                voice = self._new_voice(source, start_s)
            except DecodeError as exc:
                self._retire_current()
                self._error = str(exc)
                self._last_position = 0.0
                self._last_duration = 0.0
                self._notifier.emit(self._status())
                return
            self._swap(voice)
            if voice.buffered == 0:
                self._wake.set()
            # Otherwise the callback wakes the feeder after playing the first block, so the
            # feeder's decoding does not compete for the GIL with the very first callbacks.
        self._notifier.emit(self.status())

    def stop(self) -> None:
        with self._lock:
            if self._voice is not None:
                self._last_position = self._voice.position
                self._retire_current()
                self._notifier.emit(self._status())

    def pause(self) -> None:
        with self._lock:
            voice = self._voice
            if voice is not None and not (voice.paused or voice.pausing):
                voice.pausing = True
                voice.env.go(0.0, SWITCH_FADE_S, self.samplerate)
                self._notifier.emit(self._status())

    def resume(self) -> None:
        with self._lock:
            voice = self._voice
            if voice is not None and (voice.paused or voice.pausing):
                voice.pausing = False
                voice.env.go(1.0, ENTRY_FADE_S, self.samplerate)
                voice.paused = False
                self._notifier.emit(self._status())
            elif voice is None and self._last_source is not None:
                position = self._last_position
                if position >= self._last_duration - 1e-3:
                    position = 0.0
                self.play(self._last_source, position)

    def toggle_pause(self) -> None:
        with self._lock:
            voice = self._voice
            if voice is not None and not (voice.paused or voice.pausing):
                self.pause()
            else:
                self.resume()

    def seek(self, seconds: float, *, relative: bool = False) -> None:
        with self._lock:
            voice = self._voice
            if voice is None:
                if self._last_source is None:
                    return
                target = self._last_position + seconds if relative else seconds
                self._last_position = min(max(target, 0.0), self._last_duration)
                return
            target = voice.position + seconds if relative else seconds
            if not math.isfinite(target):
                return
            target = min(max(target, 0.0), voice.duration)
            was_paused = voice.paused or voice.pausing
            try:
                new = self._new_voice(voice.source, target, use_head=False)
            except DecodeError as exc:
                self._error = str(exc)
                return
            if target > 0:
                new.env = _Ramp(0.0)
                new.env.go(1.0, ENTRY_FADE_S, self.samplerate)
            if was_paused:
                new.paused = True
                new.env = _Ramp(0.0)
            self._swap(new)
        self._wake.set()

    def set_loop(self, loop: bool) -> None:
        with self._lock:
            self._settings.loop = loop
            voice = self._voice
            if voice is not None:
                # Read by the feeder at its next block; if the end is already queued this
                # pass ends and the setting applies to the next play.
                voice.loop = loop
        self._notifier.emit(self.status())

    def set_volume_db(self, volume_db: float) -> None:
        with self._lock:
            self._settings.volume_db = float(volume_db)
            voice = self._voice
            if voice is not None:
                voice.gain.go(self._gain_for(voice.source), GAIN_RAMP_S, self.samplerate)

    def set_loudness_match(self, enabled: bool, target_lufs: float = DEFAULT_TARGET_LUFS) -> None:
        with self._lock:
            self._settings.loudness_match = enabled
            self._settings.target_lufs = float(target_lufs)
            voice = self._voice
            if voice is not None:
                voice.gain.go(self._gain_for(voice.source), GAIN_RAMP_S, self.samplerate)
                self._maybe_measure(voice.source)

    def status(self) -> PlayerStatus:
        with self._lock:
            return self._status()

    def set_state_callback(self, callback: StateCallback | None) -> None:
        self._notifier.callback = callback

    def prefetch(self, source: Source) -> None:
        """Decode the head of ``source`` into the bounded cache so a later play() reads no
        disk (call it from a worker when the cursor lands on a row). Never raises: a
        source that cannot be decoded is not cached, and its play() reports why."""
        key = (source.identity, self.samplerate)
        if self._closed or key in self._heads:
            return
        try:
            decoder = BlockDecoder(source.path, self.samplerate, pool=self._resamplers)
        except Exception:  # a hint: any failure just means no warm head
            return
        try:
            head = decoder.read_first(min_out=int(HEAD_S * self.samplerate))
        except Exception:
            return
        finally:
            decoder.close()
        with self._lock:
            self._cache_head(key, head, decoder.info)
        if self._settings.loudness_match:
            self._maybe_measure(source)

    def clear_cache(self) -> None:
        """Forget cached heads (the benchmark uses this to time cold plays)."""
        with self._lock:
            self._heads.clear()
            self._heads_bytes = 0

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        with self._stream_lock, contextlib.suppress(Exception):
            # stop() (not abort) lets PortAudio play out what it holds: no cut tail.
            if self._running:
                self._stream.stop()
            self._running = False
        with contextlib.suppress(Exception):
            self._stream.close()
        self._wake.set()
        self._feeder.join(timeout=2)
        self._measure_pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            for voice in [self._voice, *self._fading, *self._ended]:
                if voice is not None:
                    voice.close_decoder()
            self._voice = None
            self._fading = []
        self._notifier.close()

    # -- internals (caller thread) ---------------------------------------------------
    def _status(self) -> PlayerStatus:
        voice = self._voice
        if voice is None:
            state = PlayerState.STOPPED
            position = self._last_position
            duration = self._last_duration
            error = self._error
        else:
            if voice.finished:  # played out; the feeder is about to report the end
                state = PlayerState.STOPPED
            elif voice.paused or voice.pausing:
                state = PlayerState.PAUSED
            else:
                state = PlayerState.PLAYING
            position = voice.position
            duration = voice.duration
            error = voice.error or self._error
        return PlayerStatus(
            state=state,
            position_s=position,
            duration_s=duration,
            source=self._last_source,
            loop=self._settings.loop,
            volume_db=self._settings.volume_db,
            loudness_match=self._settings.loudness_match,
            error=error,
        )

    def _gain_for(self, source: Source) -> float:
        db = self._settings.volume_db
        if self._settings.loudness_match:
            lufs = source.loudness_lufs
            if lufs is None:
                lufs = self._loudness.get(source.identity)
            db += match_gain_db(lufs, self._settings.target_lufs)
        return db_to_gain(db)

    def _new_voice(self, source: Source, start_s: float, *, use_head: bool = True) -> _Voice:
        """Queue the first block of ``source`` on a new voice: from the head cache (no
        disk access), else by opening the file and decoding one block."""
        key = (source.identity, self.samplerate)
        cached = self._heads.get(key) if use_head and start_s <= 0 else None
        loop = self._settings.loop
        if cached is not None:
            self._heads.move_to_end(key)
            head, info = cached
            voice = _Voice(source, None, info, self.samplerate, 0.0, loop)
            voice.push(head)
            voice.skip = len(head)  # the feeder decodes on from the start and drops these
        else:
            decoder = BlockDecoder(source.path, self.samplerate, start_s, self._resamplers)
            decoder.loop = loop
            try:
                first = decoder.read_first(min_out=FIRST_BLOCK_FRAMES)
            except DecodeError:
                decoder.close()
                raise
            voice = _Voice(source, decoder, decoder.info, self.samplerate, decoder.start_s, loop)
            voice.push(first)
            if decoder.start_s == 0 and decoder.emitted == len(first) and len(first):
                self._cache_head(key, first, decoder.info)
            if decoder.done:
                voice.eof = True
        voice.gain = _Ramp(self._gain_for(source))
        self._maybe_measure(source)
        return voice

    def _swap(self, voice: _Voice) -> None:
        self._retire_current()
        self._voice = voice
        self._last_duration = voice.duration
        self._kick.set()

    def _retire_current(self) -> None:
        old = self._voice
        self._voice = None
        if old is None:
            return
        old.dying = True
        if old.paused or old.env.value <= 0.0:
            self._ended.append(old)  # the feeder closes its decoder, off the caller's path
            self._wake.set()
            return
        old.pausing = False
        old.env.go(0.0, SWITCH_FADE_S, self.samplerate)
        self._fading.append(old)

    def _cache_head(self, key: tuple[str, int], head: Frames, info: AudioInfo) -> None:
        if key in self._heads or not len(head):
            return
        self._heads[key] = (head, info)
        self._heads_bytes += head.nbytes
        while self._heads_bytes > HEAD_CACHE_BYTES and self._heads:
            _, (dropped, _info) = self._heads.popitem(last=False)
            self._heads_bytes -= dropped.nbytes

    def _maybe_measure(self, source: Source) -> None:
        if not self._settings.loudness_match or source.loudness_lufs is not None:
            return
        if self._loudness.get(source.identity) is not None or source.identity in self._measuring:
            return
        self._measuring.add(source.identity)
        with contextlib.suppress(RuntimeError):  # pool shut down: closing
            self._measure_pool.submit(self._measure, source)

    def _measure(self, source: Source) -> None:
        """Worker: measure loudness, then ramp the playing voice to the matched gain."""
        try:
            lufs = measure_file(source.path)
        except (DecodeError, OSError, ValueError):
            lufs = float("nan")
        finally:
            self._measuring.discard(source.identity)
        self._loudness.put(source.identity, lufs)
        with self._lock:
            voice = self._voice
            if voice is not None and voice.source.identity == source.identity:
                voice.gain.go(self._gain_for(source), GAIN_RAMP_S * 3, self.samplerate)

    # -- audio callback (PortAudio thread) -------------------------------------------
    def _callback(self, outdata: np.ndarray, frames: int, _time: Any, status: Any) -> None:
        # Never touches disk or locks: reads the voice reference once, pops queued arrays.
        outdata.fill(0.0)
        self.frames_out += frames
        voice = self._voice
        if voice is None and not self._fading:
            if not self._idle_nap(frames):
                return
            voice = self._voice  # play() may have kicked us awake: start it right away
            if voice is None and not self._fading:
                return
        self._idle_due = 0.0
        try:
            self._mix(outdata, frames, voice, status)
        except Exception as exc:  # an exception here would abort the stream for good
            outdata.fill(0.0)
            if voice is not None and not voice.reported:
                voice.error = f"playback error: {exc!r}"
                voice.eof = voice.finished = voice.reported = True
                self._ended.append(voice)  # the feeder reports it stopped, with the error
            self._fading = []
            self._wake.set()

    def _idle_nap(self, frames: int) -> bool:
        """Pace idle silence on a sink that runs ahead of real time; True if we napped.

        A clocked device never gets IDLE_AHEAD_S ahead, so this only ever applies to an
        unpaced sink (an ALSA ``file`` PCM), where an idle stream would otherwise spin a
        CPU and the GIL. The nap is an Event wait that play() cuts short, so it adds no
        latency; naps are long enough (2 ms) that their wake-ups rarely interrupt play().
        """
        now = time.perf_counter()
        due = max(self._idle_due, now)
        self._idle_due = due + frames / self.samplerate
        if due - now <= IDLE_AHEAD_S:
            return False
        self._kick.wait(IDLE_NAP_S)
        self._kick.clear()
        return True

    def _mix(self, outdata: np.ndarray, frames: int, voice: _Voice | None, status: Any) -> None:
        if status.output_underflow:
            self.underruns += 1
        if voice is not None and not voice.finished:
            voice.render(outdata, frames)
            if voice.finished and not voice.reported:
                voice.reported = True
                self._ended.append(voice)
                self._wake.set()
            elif (
                not voice.eof
                and voice.buffered < self._read_ahead // 2
                and (voice.consumed >= FEEDER_GRACE_FRAMES or voice.buffered < FEEDER_GRACE_FRAMES)
            ):
                # Not on the very first callbacks: the feeder's decoding would compete
                # for the GIL with the callbacks that carry the first frames out.
                self._wake.set()
        if self._fading:
            for old in list(self._fading):
                # Nothing feeds a retired voice: when its buffer runs dry it is done.
                written = old.render(outdata, frames)
                if old.env.value <= 0.0 or old.finished or written < frames:
                    self._fading.remove(old)
                    self._ended.append(old)
                    self._wake.set()  # the feeder closes its decoder
        np.clip(outdata, -1.0, 1.0, out=outdata)

    # -- feeder thread ---------------------------------------------------------------
    def _feed_loop(self) -> None:
        while not self._closed:
            self._wake.wait(0.02)
            self._wake.clear()
            self._reap()
            voice = self._voice
            if voice is None:
                if not self._resamplers.refill():
                    self._wake.set()  # more to build: come straight back
                continue
            if voice.eof:
                continue
            with voice.lock:
                self._fill(voice)
            self._resamplers.refill(limit=1)  # replace the one this voice took

    def _fill(self, voice: _Voice) -> None:
        """Decode ahead until the voice holds ``read_ahead`` frames or the file ends."""
        if voice.decoder is None:
            try:
                voice.decoder = BlockDecoder(
                    voice.source.path, self.samplerate, voice.start_s, self._resamplers
                )
            except DecodeError as exc:
                voice.error = str(exc)
                voice.eof = True
                return
        decoder = voice.decoder
        while voice is self._voice and not voice.eof and voice.buffered < self._read_ahead:
            decoder.loop = voice.loop
            # Small while the voice is nearly dry (a quick top-up), then larger blocks.
            step = 4096 if voice.buffered < 2 * FEEDER_GRACE_FRAMES else 16384
            try:
                block = decoder.read(step)
            except (DecodeError, ValueError) as exc:  # ValueError: file closed under us
                voice.error = str(exc)
                voice.eof = True
                break
            if voice.skip:
                drop = min(voice.skip, len(block))
                voice.skip -= drop
                block = block[drop:]
            voice.push(block)
            if decoder.done:
                voice.eof = True
            if self._closed:
                break

    def _reap(self) -> None:
        """Close decoders of finished voices and report natural ends (feeder thread)."""
        while self._ended:
            voice = self._ended.popleft()
            voice.close_decoder()
            if voice.dying:
                continue
            with self._lock:
                if self._voice is voice:
                    self._voice = None
                    self._last_position = voice.duration
                    self._last_duration = voice.duration
                    if voice.error:
                        self._error = voice.error
                    status = self._status()
                else:
                    continue
            self._notifier.emit(status)
