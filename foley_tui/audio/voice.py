"""A voice (one sound being played) and the per-frame ramps behind its fades and gain.

The reader thread queues decoded blocks on a :class:`Voice`; the feeder renders them into the
output ring, multiplied by two :class:`Ramp` s: the envelope (fade in/out on switch, stop,
pause) and the gain (volume x loudness match), so no change ever clicks. A
:class:`HeadCache` keeps the decoded start of recently played or prefetched sounds, so
their next voice starts without touching the disk.

Headless: never imports textual.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict, deque

import numpy as np

from foley_tui.audio.base import Source
from foley_tui.audio.decode import AudioInfo, BlockDecoder, Frames, nonfinite_note


class Ramp:
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


class Voice:
    """One sound being played: chunks decoded by the reader, rendered by the feeder into the
    output ring ahead of the device."""

    #: Frames the reader keeps queued for this voice (None: the player's default).
    read_ahead: int | None = None
    #: The largest sample the device may receive while this voice sounds (0 dBFS).
    ceiling: float = 1.0

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
        # Owned by the reader once play() returns; None until the reader opens it (a play
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
        self.produced = 0  # output frames queued by the reader
        self.consumed = 0  # output frames rendered into the ring
        self.skip = 0  # output frames the reader must drop (already served from a head)
        self.eof = False  # the reader queued the last frame
        self.finished = False  # the callback played the last frame
        self.reported = False
        self.position = start_s
        self.env = Ramp(1.0)  # fades (switch, stop, pause)
        self.gain = Ramp(1.0)  # volume x loudness
        self.paused = False  # callback stops consuming once env reaches 0
        self.pausing = False
        self.dying = False  # fading out for good
        self.error: str | None = None
        self.warning: str | None = None  # set by the reader (see nonfinite_warning)
        self.lock = threading.Lock()  # a read vs a close of the decoder (reader, close())
        # (ring frame, output index of this voice) where its rendered stretches start:
        # which of its frames the device has been handed (its heard position).
        self.ring_marks: deque[tuple[int, int]] = deque()
        self.end_ring: int | None = None  # the ring frame after its last one

    @property
    def buffered(self) -> int:
        return self.produced - self.consumed

    @property
    def rendered(self) -> int:
        """Output frames of this voice mixed so far."""
        return self.consumed

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

    def nonfinite_warning(self) -> str | None:
        """What the decoder replaced by silence so far, as a warning (reader thread)."""
        decoder = self.decoder
        if decoder is None or not decoder.nonfinite:
            return None
        return nonfinite_note(self.source.path.name, decoder.nonfinite)

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


class HeadCache:
    """Decoded heads (first block of a sound, at the output rate) by (identity, rate),
    least recently used first, within a byte budget. Callers hold the player's lock."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget_bytes = budget_bytes
        self._heads: OrderedDict[tuple[str, int], tuple[Frames, AudioInfo]] = OrderedDict()
        self._bytes = 0

    def __contains__(self, key: object) -> bool:
        return key in self._heads

    def get(self, key: tuple[str, int]) -> tuple[Frames, AudioInfo] | None:
        """The cached head and its file's info (marked as recently used), or None."""
        cached = self._heads.get(key)
        if cached is not None:
            self._heads.move_to_end(key)
        return cached

    def put(self, key: tuple[str, int], head: Frames, info: AudioInfo) -> None:
        """Keep ``head`` (an empty or already cached one is ignored), evicting the least
        recently used heads beyond the budget."""
        if key in self._heads or not len(head):
            return
        self._heads[key] = (head, info)
        self._bytes += head.nbytes
        while self._bytes > self.budget_bytes and self._heads:
            _, (dropped, _info) = self._heads.popitem(last=False)
            self._bytes -= dropped.nbytes

    def clear(self) -> None:
        self._heads.clear()
        self._bytes = 0
