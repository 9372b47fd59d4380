"""The scene mixer: N voices placed sample-accurately on a scene clock, one master bus.

A :class:`Scene` says what to play: :class:`MixVoice` s (a file, its onset on the scene
clock, its gain, its lane, an optional length and loop) plus live controls the UI may
change while it plays (lane mute/solo, a loop region, the preview volume). A
:class:`SceneMix` renders it at one output rate, block by block:

* each voice's file is decoded by the engine's :class:`~foley_tui.audio.decode.BlockDecoder`
  (downmix and streaming resampling to the output rate), opened only when the scene clock
  reaches it and closed when it ends, so memory stays flat whatever the files' length (a
  one-hour narration is read a block at a time);
* a voice whose onset is frame ``round(onset * rate)`` has its first sample at exactly
  that output frame (no block quantisation): a pick at 1.000 s is heard at 1.000 s;
* gains (voice gain x preview volume x lane mute/solo) change at block boundaries with a
  short linear ramp, never a click;
* the master bus sums the voices and runs a :class:`~foley_tui.audio.limiter.TruePeakLimiter`
  (ceiling -1 dBTP): the scene is never louder than the loudest single preview could be
  (a preview reaches the device clipped at 0 dBFS). The limiter's look-ahead is
  compensated: the mix's frame 0 is the scene's frame ``start``.

The same :class:`SceneMix` feeds the real-time player (through
:class:`SceneDecoder`, which the player's feeder thread reads like a file decoder, so the
callback only copies premixed blocks) and the offline bounce (``render-scene``), so both
are the same mix.

Headless: never imports textual.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from foley_tui.audio.base import SCENE_HOW, AudioFormat, AudioRef, Source
from foley_tui.audio.decode import AudioInfo, BlockDecoder, DecodeError, Frames, probe
from foley_tui.audio.limiter import TruePeakLimiter, db_to_gain
from foley_tui.audio.voice import Voice

#: The master bus ceiling (dBTP): a single preview reaches the device clipped at 0 dBFS.
CEILING_DB = -1.0

#: Gain changes (mute, solo, volume) ramp over at most this long.
GAIN_RAMP_S = 0.010

#: Blocks read from each voice's decoder (at most; at least MIN_READ).
DECODE_BLOCK = 4096
MIN_READ = 512

NARRATION_LANE = "narration"


@dataclass(frozen=True, slots=True)
class MixVoice:
    """One sound on the scene clock.

    Attributes:
        path: The audio file (or a store's blob, read by range).
        onset_s: Scene time of its first sample (may be negative: starts cut).
        gain: Linear gain (loudness match x any per-pick gain).
        lane: The lane (a layer name, or ``narration``) for mute/solo.
        length_s: Play at most this long (a bed spanning a sentence); None = the file.
        loop: Loop the file to fill ``length_s`` (beds).
        key: An id for the caller (the pick's sound id).
    """

    path: AudioRef
    onset_s: float
    gain: float = 1.0
    lane: str = "sfx_fg"
    length_s: float | None = None
    loop: bool = False
    key: str = ""


@dataclass
class Scene:
    """What to play and the live controls (read by the mix at every block).

    Mutate the controls through the methods (each replaces an immutable value, so the
    mixing thread never sees a half-made change).
    """

    voices: list[MixVoice]
    muted: frozenset[str] = frozenset()
    soloed: frozenset[str] = frozenset()
    loop_region: tuple[float, float] | None = None
    volume_db: float = 0.0
    label: str = "scene"
    _revision: int = field(default=0, repr=False)

    def set_muted(self, lane: str, muted: bool) -> None:
        self.muted = self.muted | {lane} if muted else self.muted - {lane}

    def set_soloed(self, lane: str, soloed: bool) -> None:
        self.soloed = self.soloed | {lane} if soloed else self.soloed - {lane}

    def set_loop_region(self, region: tuple[float, float] | None) -> None:
        if region is not None:
            start, end = float(region[0]), float(region[1])
            if not (math.isfinite(start) and math.isfinite(end)) or end <= start:
                raise ValueError(f"a loop region needs start < end (got {region!r})")
            region = (max(start, 0.0), end)
        self.loop_region = region
        self._revision += 1

    def controls(self) -> tuple[object, ...]:
        """Everything a premixed block depends on besides the voices (a cache key)."""
        return (self.muted, self.soloed, self.loop_region, self.volume_db, self._revision)

    def audible(self, lane: str) -> bool:
        if lane in self.muted:
            return False
        return not self.soloed or lane in self.soloed

    def lanes(self) -> list[str]:
        return sorted({v.lane for v in self.voices})


class _VoiceState:
    """A voice's place in the mix: its file's info, its decoder while it sounds."""

    __slots__ = ("decoder", "end", "gain", "info", "next_frame", "pending", "start", "voice")

    def __init__(self, voice: MixVoice, info: AudioInfo, rate: int) -> None:
        self.voice = voice
        self.info = info
        self.start = round(voice.onset_s * rate)
        if voice.length_s is not None:
            length = round(max(voice.length_s, 0.0) * rate)
        elif voice.loop:
            length = round(info.duration_s * rate)
        else:
            # The resampler's output length, rounded the same way as BlockDecoder's.
            length = round(info.duration_s * rate)
        if not voice.loop and voice.length_s is not None:
            length = min(length, round(info.duration_s * rate))
        self.end = self.start + length
        self.decoder: BlockDecoder | None = None
        self.pending: Frames | None = None
        self.next_frame = 0
        self.gain: float | None = None  # last applied gain (None: never sounded)

    def close(self) -> None:
        if self.decoder is not None:
            self.decoder.close()
            self.decoder = None
        self.pending = None


class SceneMix:
    """Render a :class:`Scene` at ``rate`` from ``start_s`` to ``end_s`` (default: its end).

    :meth:`read` returns consecutive blocks of the limited master; :attr:`position_s` is the
    scene time of the next frame it returns. With a loop region the mix wraps from its end
    to its start for ever (until :meth:`close`). Not thread-safe: one thread reads it.
    """

    def __init__(
        self,
        scene: Scene,
        rate: int,
        *,
        start_s: float = 0.0,
        end_s: float | None = None,
        ceiling_db: float = CEILING_DB,
    ) -> None:
        self.scene = scene
        self.rate = int(rate)
        self.problems: list[str] = []
        self._states: list[_VoiceState] = []
        for voice in scene.voices:
            try:
                info = probe(voice.path)
            except DecodeError as exc:
                self.problems.append(str(exc))
                continue
            self._states.append(_VoiceState(voice, info, self.rate))
        self.length_frames = max((s.end for s in self._states), default=0)
        start = max(round(start_s * self.rate), 0) if math.isfinite(start_s) else 0
        stop = self.length_frames if end_s is None else round(end_s * self.rate)
        self.stop_frame = max(min(stop, self.length_frames), start)
        self.limiter = TruePeakLimiter(self.rate, ceiling_db=ceiling_db)
        self._ramp = max(int(GAIN_RAMP_S * self.rate), 1)
        self._region_rev = scene._revision
        self.peak = 0.0  # the loudest output sample so far (diagnostics, tests)
        self._emitted = 0  # output frames returned
        self._primed = False
        self._flushed = 0
        self.done = False
        self._seek_to(start)

    # -- clock ---------------------------------------------------------------------
    @property
    def duration_s(self) -> float:
        return self.length_frames / self.rate

    @property
    def position_s(self) -> float:
        """Scene time of the next frame :meth:`read` returns."""
        return self._out_frame / self.rate

    def _seek_to(self, frame: int) -> None:
        for state in self._states:
            state.close()
            state.gain = None
        self.limiter.reset()
        self._mix_frame = frame  # scene frame of the next frame mixed into the limiter
        self._out_frame = frame  # scene frame of the next frame returned
        self._primed = False
        self._flushed = 0

    def seek(self, seconds: float) -> None:
        """Continue from scene time ``seconds`` (clamped to the scene)."""
        if not math.isfinite(seconds):
            return
        self.done = False
        self._seek_to(min(max(round(seconds * self.rate), 0), self.length_frames))

    def _bounds(self) -> tuple[int, int, bool]:
        """(first, end, looping) scene frames of what plays now."""
        region = self.scene.loop_region
        if region is not None:
            first = round(region[0] * self.rate)
            end = min(round(region[1] * self.rate), max(self.length_frames, first + 1))
            if end > first:
                return first, end, True
        return 0, self.stop_frame, False

    # -- rendering -----------------------------------------------------------------
    def read(self, frames: int = DECODE_BLOCK) -> Frames:
        """The next ``frames`` frames of the master (fewer at the end; empty when done)."""
        if self.done or frames <= 0:
            return np.zeros((0, 2), dtype=np.float32)
        if self.scene._revision != self._region_rev:
            self._region_rev = self.scene._revision
            first, end, looping = self._bounds()
            if looping and not first <= self._out_frame < end:
                self._seek_to(first)
        if not self._primed:
            # Fill the limiter's look-ahead so output frame 0 is scene frame `start`.
            self.limiter.process(self._mix_block(self.limiter.delay))
            self._primed = True
        first, end, looping = self._bounds()
        if looping:
            if self._out_frame >= end:
                self._seek_to(first)
                return self.read(frames)
            frames = min(frames, end - self._out_frame)
            block = self._mix_block(frames)
        else:
            left = end - self._out_frame
            if left <= 0:
                self.done = True
                self.close()
                return np.zeros((0, 2), dtype=np.float32)
            frames = min(frames, left)
            block = self._mix_block(frames)
        out = self.limiter.process(block)
        self._out_frame += len(out)
        self._emitted += len(out)
        if len(out):
            peak = float(np.abs(out).max())
            if peak > self.peak:
                self.peak = peak
        return out

    def _mix_block(self, frames: int) -> Frames:
        f0 = self._mix_frame
        f1 = f0 + frames
        out = np.zeros((frames, 2), dtype=np.float32)
        scene = self.scene
        volume = db_to_gain(scene.volume_db)
        _first, end, looping = self._bounds()
        limit = end if looping else self.stop_frame
        for state in self._states:
            if state.end <= f0 or state.start >= f1 or f0 >= limit:
                if state.decoder is not None and state.end <= f0:
                    state.close()
                continue
            target = state.voice.gain * volume if scene.audible(state.voice.lane) else 0.0
            lo = max(f0, state.start)
            hi = min(f1, state.end, limit)
            if hi <= lo:
                continue
            piece = self._voice_frames(state, lo, hi - lo)
            if piece is None:
                continue
            n = len(piece)
            previous = target if state.gain is None else state.gain
            state.gain = target
            if previous == target:
                if target != 0.0:
                    out[lo - f0 : lo - f0 + n] += piece * np.float32(target)
            else:
                ramp = min(self._ramp, n)
                gains = np.full(n, target, dtype=np.float32)
                gains[:ramp] = np.linspace(previous, target, ramp + 1, dtype=np.float32)[1:]
                out[lo - f0 : lo - f0 + n] += piece * gains[:, None]
        self._mix_frame = f1
        return out

    def _voice_frames(self, state: _VoiceState, frame: int, count: int) -> Frames | None:
        """``count`` frames of ``state``'s voice from scene frame ``frame`` (zero-padded if
        the file ends early); None if its file cannot be read."""
        if state.decoder is None or state.next_frame != frame:
            state.close()
            offset_s = (frame - state.start) / self.rate
            duration = state.info.duration_s
            if state.voice.loop and duration > 0:
                offset_s %= duration
            try:
                state.decoder = BlockDecoder(state.voice.path, self.rate, offset_s)
            except DecodeError as exc:
                self.problems.append(str(exc))
                state.end = frame  # never again
                return None
            state.decoder.loop = state.voice.loop
            state.next_frame = frame
        decoder = state.decoder
        parts: list[Frames] = []
        got = 0
        if state.pending is not None:
            take = state.pending[:count]
            parts.append(take)
            got = len(take)
            rest = state.pending[count:]
            state.pending = rest if len(rest) else None
        while got < count and not decoder.done:
            # Read what this block needs (a short first block decodes little: a quick
            # start), at least MIN_READ and at most DECODE_BLOCK input frames at a time.
            want = min(max(count - got, MIN_READ), DECODE_BLOCK)
            try:
                block = decoder.read(want)
            except DecodeError as exc:
                self.problems.append(str(exc))
                break
            if not len(block):
                continue
            need = count - got
            parts.append(block[:need])
            got += min(need, len(block))
            if len(block) > need:
                state.pending = block[need:]
        state.next_frame = frame + count
        if got < count:
            parts.append(np.zeros((count - got, 2), dtype=np.float32))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def close(self) -> None:
        for state in self._states:
            state.close()

    def blocks(self, frames: int = DECODE_BLOCK) -> Iterator[Frames]:
        """Every remaining block (the offline bounce); stops at the end, or never with a
        loop region."""
        while True:
            block = self.read(frames)
            if not len(block):
                return
            yield block


class SceneDecoder:
    """A :class:`SceneMix` seen by the player's feeder as if it were a file decoder.

    The player's :class:`~foley_tui.audio.voice.Voice` machinery (read-ahead queue, fades,
    end reporting) then plays a scene exactly as it plays one sound.
    """

    def __init__(self, mix: SceneMix) -> None:
        self.mix = mix
        self.out_rate = mix.rate
        self.start_s = mix.position_s
        self.loop = False  # the mix loops its region itself
        self.info = AudioInfo(
            frames=mix.length_frames,
            samplerate=mix.rate,
            channels=2,
            format="SCENE",
            subtype="FLOAT",
        )
        self.emitted = 0
        self._lock = threading.Lock()

    @property
    def done(self) -> bool:
        return self.mix.done

    @property
    def duration_s(self) -> float:
        return self.mix.duration_s

    def read(self, in_frames: int = DECODE_BLOCK) -> Frames:
        with self._lock:
            block = self.mix.read(in_frames)
        self.emitted += len(block)
        return block

    def read_first(self, min_out: int = 1, max_in: int = 16384) -> Frames:
        return self.read(max(min_out, 1))

    def close(self) -> None:
        with self._lock:
            self.mix.close()


def render(
    scene: Scene,
    rate: int,
    *,
    start_s: float = 0.0,
    end_s: float | None = None,
    block: int = DECODE_BLOCK,
) -> Iterable[Frames]:
    """The whole mix, block by block (for the offline bounce and tests)."""
    mix = SceneMix(scene, rate, start_s=start_s, end_s=end_s)
    try:
        yield from mix.blocks(block)
    finally:
        mix.close()


def scene_source(scene: Scene) -> Source:
    """The :class:`Source` a player reports while it plays ``scene``."""
    first = scene.voices[0].path if scene.voices else Path(scene.label)
    return Source(
        path=first,
        format=AudioFormat.UNKNOWN,
        how=SCENE_HOW,
        identity=f"scene:{id(scene)}",
    )


class SceneVoice(Voice):
    """A player voice whose frames come premixed from a :class:`SceneMix`.

    Its chunks carry the scene frame of their first sample, so the playhead follows the
    scene clock even when a loop region wraps it.
    """

    def __init__(
        self, scene: Scene, mix: SceneMix, read_ahead: int, start_s: float | None = None
    ) -> None:
        decoder = SceneDecoder(mix)
        start = mix.position_s if start_s is None else start_s
        super().__init__(scene_source(scene), None, decoder.info, mix.rate, start, loop=False)
        self.scene = scene
        self.mix = mix
        self.scene_decoder = decoder
        self.decoder = decoder  # type: ignore[assignment]  # reads like a BlockDecoder
        self.read_ahead = read_ahead
        self.position = start

    def push(self, block: Frames) -> None:
        if len(block):
            start = round(self.mix.position_s * self.out_rate) - len(block)
            self.chunks.append((block, start))
            self.produced += len(block)

    def position_of(self, index: int) -> float:
        return min(index / self.out_rate, self.duration)
