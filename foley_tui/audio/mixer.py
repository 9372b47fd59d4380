"""The scene mixer: N voices placed sample-accurately on a scene clock, one master bus.

A :class:`Scene` says what to play: :class:`MixVoice` s (a file, its onset on the scene
clock, its gain, its lane, an optional length and loop) plus live controls the UI may
change while it plays (lane mute/solo, a loop region, the preview volume). Mixing is in
two stages:

* :class:`StemMix` sums each lane's voices into a stem, block by block. Each voice's file
  is decoded by the engine's :class:`~foley_tui.audio.decode.BlockDecoder` (downmix and
  streaming resampling to the output rate), opened only when the scene clock reaches it
  and closed when it ends, so memory stays flat whatever the files' length (a one-hour
  narration is read a block at a time). A voice whose onset is frame
  ``round(onset * rate)`` has its first sample at exactly that frame (no block
  quantisation): a pick at 1.000 s is heard at 1.000 s. This is the heavy part (disk,
  decoding, resampling); the real-time player runs it ahead in its feeder thread.
* :class:`~foley_tui.audio.bus.MasterBus` applies the lane gains (preview volume x lane
  mute/solo, read from the scene at every block, ramped over a few ms: never a click),
  sums the lanes and runs the true-peak limiter (ceiling -1 dBTP): the scene is never
  louder than the loudest single preview could be (a preview reaches the device clipped
  at 0 dBFS). The real-time player runs it in the audio callback, so a mute, solo or
  volume change is heard on the next audio block.

:class:`SceneMix` chains both for the offline bounce (``render-scene``) and tests; the
player (:mod:`foley_tui.audio.scene_voice`) runs the same stages on the same stems, so
both are the same mix. The limiter's look-ahead is compensated: the mix's frame 0 is the
scene's frame ``start``.

Headless: never imports textual.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from foley_tui.audio.base import SCENE_HOW, AudioFormat, MixVoice, Scene, Source
from foley_tui.audio.bus import CEILING_DB, MasterBus, Stems, StreamClock
from foley_tui.audio.decode import (
    AudioInfo,
    BlockDecoder,
    DecodeError,
    Frames,
    nonfinite_note,
    probe,
)
from foley_tui.audio.limiter import lookahead_frames

__all__ = [
    "CEILING_DB",
    "DECODE_BLOCK",
    "NARRATION_LANE",
    "SceneMix",
    "StemMix",
    "render",
    "scene_source",
]

#: Blocks read from each voice's decoder (at most; at least MIN_READ).
DECODE_BLOCK = 4096
MIN_READ = 512

NARRATION_LANE = "narration"


class _VoiceState:
    """A voice's place in the mix: its file's info, its decoder while it sounds."""

    __slots__ = (
        "decoder",
        "end",
        "fade_in",
        "fade_out",
        "info",
        "lane",
        "next_frame",
        "nonfinite",
        "pending",
        "start",
        "voice",
    )

    def __init__(self, voice: MixVoice, info: AudioInfo, rate: int, lane: int) -> None:
        self.voice = voice
        self.lane = lane  # its stem
        self.info = info
        placement = voice.placement
        self.start = placement.frame(rate)
        # The resampler's output length, rounded the same way as BlockDecoder's.
        file_frames = round(info.duration_s * rate)
        length = placement.length_frames(rate, file_frames)
        self.end = self.start + length
        # foley's declick: ramp lengths clamped to half the fitted clip.
        self.fade_in = min(int(voice.fade_in_s * rate), length // 2)
        self.fade_out = min(int(voice.fade_out_s * rate), length // 2)
        self.decoder: BlockDecoder | None = None
        self.pending: Frames | None = None
        self.next_frame = 0
        self.nonfinite = 0  # samples of closed decoders replaced by silence

    def nonfinite_total(self) -> int:
        """Non-finite samples of this voice's file replaced by silence so far."""
        open_count = self.decoder.nonfinite if self.decoder is not None else 0
        return self.nonfinite + open_count

    def close(self) -> None:
        if self.decoder is not None:
            self.nonfinite += self.decoder.nonfinite
            self.decoder.close()
            self.decoder = None
        self.pending = None


class StemMix:
    """The voices of a :class:`Scene` summed per lane (stems), from ``start_s`` to
    ``end_s`` (default: its end), block by block at ``rate``.

    :meth:`read` returns consecutive ``(frames, lanes, 2)`` blocks; :attr:`last_start` is
    the scene frame of the first frame of the last block. With a loop region the stream
    jumps from its end back to its start (a block never spans the jump) for ever; without,
    ``tail`` frames of silence follow the end (they flush the master bus's look-ahead).
    Not thread-safe: one thread reads it.
    """

    def __init__(
        self,
        scene: Scene,
        rate: int,
        *,
        start_s: float = 0.0,
        end_s: float | None = None,
        tail: int = 0,
    ) -> None:
        self.scene = scene
        self.rate = int(rate)
        self._problems: list[str] = []
        self.lanes = scene.lanes()
        lane_index = {lane: i for i, lane in enumerate(self.lanes)}
        self._states: list[_VoiceState] = []
        for voice in scene.voices:
            try:
                info = probe(voice.path)
            except DecodeError as exc:
                self._problems.append(str(exc))
                continue
            self._states.append(_VoiceState(voice, info, self.rate, lane_index[voice.lane]))
        self.length_frames = max((s.end for s in self._states), default=0)
        if scene.end_s is not None:
            self.length_frames = min(self.length_frames, max(round(scene.end_s * self.rate), 0))
        self._ducked = [lane_index[lane] for lane in scene.ducked if lane in lane_index]
        start = max(round(start_s * self.rate), 0) if math.isfinite(start_s) else 0
        stop = self.length_frames if end_s is None else round(end_s * self.rate)
        self.stop_frame = max(min(stop, self.length_frames), start)
        self.tail = max(int(tail), 0)
        self._region_rev = scene._revision
        self.done = False
        self._seek_to(start)

    @property
    def duration_s(self) -> float:
        return self.length_frames / self.rate

    @property
    def problems(self) -> list[str]:
        """What could not be played as it is: unreadable files, and files whose
        non-finite samples were replaced by silence (with their count so far)."""
        return self._problems + self.nonfinite_notes()

    def nonfinite_notes(self) -> list[str]:
        """One note per file whose non-finite samples were replaced by silence so far."""
        notes = []
        for state in self._states:
            count = state.nonfinite_total()
            if count:
                notes.append(nonfinite_note(state.voice.path.name, count))
        return notes

    def open_decoders(self) -> list[bool]:
        """Per readable voice of the scene, in its order: whether its file is open now
        (a voice's file is open only while it sounds)."""
        return [state.decoder is not None for state in self._states]

    @property
    def position_s(self) -> float:
        """Scene time of the next frame :meth:`read` returns."""
        return self._frame / self.rate

    def _seek_to(self, frame: int) -> None:
        for state in self._states:
            state.close()
        self._frame = frame  # scene frame of the next stem frame
        self.last_start = frame
        self._tail_left = self.tail

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

    def _empty(self) -> Stems:
        return np.zeros((0, len(self.lanes), 2), dtype=np.float32)

    def read(self, frames: int = DECODE_BLOCK) -> Stems:
        """The next ``frames`` stem frames (fewer at a loop's end and at the end; empty
        when done)."""
        if self.done or frames <= 0:
            return self._empty()
        if self.scene._revision != self._region_rev:
            self._region_rev = self.scene._revision
            first, end, looping = self._bounds()
            if looping and not first <= self._frame < end:
                self._seek_to(first)
        first, end, looping = self._bounds()
        if looping and self._frame >= end:
            self._seek_to(first)
        left = end - self._frame
        if left <= 0:
            if self._tail_left <= 0:
                self.done = True
                self.close()
                return self._empty()
            count = min(frames, self._tail_left)
            self._tail_left -= count
            block = np.zeros((count, len(self.lanes), 2), dtype=np.float32)
        else:
            count = min(frames, left)
            block = self._mix_block(count, end)
        self.last_start = self._frame
        self._frame += count
        return block

    # A voice of huge (finite) samples may overflow to inf; the bus silences it.
    @np.errstate(over="ignore", invalid="ignore")
    def _mix_block(self, frames: int, limit: int) -> Stems:
        f0 = self._frame
        f1 = f0 + frames
        out = np.zeros((frames, len(self.lanes), 2), dtype=np.float32)
        for state in self._states:
            if state.end <= f0 or state.start >= f1:
                if state.decoder is not None and state.end <= f0:
                    state.close()
                continue
            lo = max(f0, state.start)
            hi = min(f1, state.end, limit)
            if hi <= lo:
                continue
            piece = self._voice_frames(state, lo, hi - lo)
            if piece is None:
                continue
            voice = state.voice
            if voice.mono:
                # The mean of the two sides (foley's to_mono), exactly, in float32.
                folded = (piece[:, 0] + piece[:, 1]) * np.float32(0.5)
                piece = np.repeat(folded[:, None], 2, axis=1)
            if state.fade_in or state.fade_out:
                piece = piece * _fades(state, lo - state.start, len(piece))[:, None]
            gain = voice.gain
            into = out[lo - f0 : lo - f0 + len(piece), state.lane]
            if gain == 1.0:
                into += piece
            elif gain != 0.0:
                into += piece * np.float32(gain)
        duck = self.scene.duck
        if duck is not None and self._ducked:
            env = duck.block(f0, frames, self.rate)[:, None]
            for lane in self._ducked:
                out[:, lane] *= env
        return out

    def _voice_frames(self, state: _VoiceState, frame: int, count: int) -> Frames | None:
        """``count`` frames of ``state``'s voice from scene frame ``frame`` (zero-padded if
        the file ends early); None if its file cannot be read."""
        if state.decoder is None or state.next_frame != frame:
            state.close()
            offset_s = (frame - state.start) / self.rate + state.voice.in_point_s
            duration = state.info.duration_s
            if state.voice.loop and duration > 0:
                offset_s %= duration
            try:
                state.decoder = BlockDecoder(state.voice.path, self.rate, offset_s)
            except DecodeError as exc:
                self._problems.append(str(exc))
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
                self._problems.append(str(exc))
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


def _fades(state: _VoiceState, first: int, count: int) -> Frames:
    """foley's declick envelope (linear ramps, ``np.linspace(0, 1, n)`` in and its reverse
    out) over frames ``[first, first + count)`` of a voice."""
    k = np.arange(first, first + count, dtype=np.float64)
    env = np.ones(count, dtype=np.float64)
    n_in, n_out = state.fade_in, state.fade_out
    length = state.end - state.start
    if n_in > 0:
        ramp = k < n_in
        env[ramp] = k[ramp] / (n_in - 1) if n_in > 1 else 0.0
    if n_out > 0:
        left = length - 1 - k
        ramp = left < n_out
        env[ramp] = left[ramp] / (n_out - 1) if n_out > 1 else 0.0
    return env.astype(np.float32)


class SceneMix:
    """The limited master of a :class:`Scene` at ``rate`` from ``start_s`` to ``end_s``
    (default: its end): its :class:`StemMix` through a :class:`~foley_tui.audio.bus.MasterBus`.

    :meth:`read` returns consecutive blocks; :attr:`position_s` is the scene time of the
    next frame it returns. With a loop region the mix wraps for ever (until
    :meth:`close`). The offline bounce and the real-time player run the same stems through
    the same bus, so both are the same mix. Not thread-safe: one thread reads it.
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
        tail = lookahead_frames(self.rate)
        self.stems = StemMix(scene, self.rate, start_s=start_s, end_s=end_s, tail=tail)
        self.bus = MasterBus(scene, self.stems.lanes, self.rate, ceiling_db=ceiling_db)
        self.clock = StreamClock()
        self._taken = 0  # stem frames read
        self._emitted = 0  # output frames returned
        self._start = self.stems._frame
        self.done = False

    # -- what the stems know -------------------------------------------------------
    @property
    def problems(self) -> list[str]:
        return self.stems.problems

    @property
    def duration_s(self) -> float:
        return self.stems.duration_s

    @property
    def peak(self) -> float:
        return self.bus.peak

    @property
    def position_s(self) -> float:
        """Scene time of the next frame :meth:`read` returns."""
        if self._emitted == 0 and self._taken == 0:
            return self._start / self.rate
        return self.clock.scene_frame(self._emitted) / self.rate

    def seek(self, seconds: float) -> None:
        """Continue from scene time ``seconds`` (clamped to the scene)."""
        if not math.isfinite(seconds):
            return
        self.stems.seek(seconds)
        self.bus.reset()
        self.clock.clear()
        self._taken = self._emitted = 0
        self._start = self.stems._frame
        self.done = False

    def read(self, frames: int = DECODE_BLOCK) -> Frames:
        """The next ``frames`` frames of the master (fewer at the end; empty when done)."""
        while not self.done and frames > 0:
            stems = self.stems.read(frames + self.bus.discard)
            if not len(stems):
                self.done = True
                self.close()
                break
            self.clock.add(self._taken, self.stems.last_start)
            self._taken += len(stems)
            out = self.bus.process(stems)
            self._emitted += len(out)
            if len(out):
                return out
        return np.zeros((0, 2), dtype=np.float32)

    def close(self) -> None:
        self.stems.close()

    def blocks(self, frames: int = DECODE_BLOCK) -> Iterator[Frames]:
        """Every remaining block (the offline bounce); stops at the end, or never with a
        loop region."""
        while True:
            block = self.read(frames)
            if not len(block):
                return
            yield block


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
