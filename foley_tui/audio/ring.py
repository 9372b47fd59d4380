"""The output ring: mixed frames waiting for the device, allocated once.

The player's feeder thread mixes every voice (lane gains, the limiter, fades) into the
ring ahead of the device; the PortAudio callback only copies frames out of it. One
writer side (the feeder, or ``play()`` while it holds the player's mix lock) and one
reader (the callback): positions are plain counters of frames ever written and read,
each changed by one side only, so the callback takes no lock. The writer never touches
frames the reader may be copying (see :meth:`OutputRing.fade_out`): those before
``read + guard``.

Headless: never imports textual.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Frames = npt.NDArray[np.float32]


class OutputRing:
    """``capacity`` stereo float32 frames; :attr:`read` and :attr:`write` count frames
    handed out and mixed in since the start (the ring index is ``count % capacity``)."""

    def __init__(self, capacity: int, channels: int = 2) -> None:
        self.capacity = int(capacity)
        self.buffer: Frames = np.zeros((self.capacity, channels), dtype=np.float32)
        self.read = 0  # advanced by the reader (the audio callback) only
        self.write = 0  # moved by the writer only

    @property
    def queued(self) -> int:
        """Frames mixed and not yet handed to the device."""
        return max(self.write - self.read, 0)

    @property
    def free(self) -> int:
        return self.capacity - self.queued

    # -- reader (audio callback) -----------------------------------------------------
    def read_into(self, out: Frames, frames: int) -> int:
        """Copy up to ``frames`` queued frames into ``out`` (the rest of ``out`` is
        silence); returns how many were queued. Allocates no sample memory."""
        start = self.read
        count = min(frames, max(self.write - start, 0))
        index = start % self.capacity
        first = min(count, self.capacity - index)
        if first:
            out[:first] = self.buffer[index : index + first]
        if count > first:
            out[first:count] = self.buffer[: count - first]
        if count < frames:
            out[count:frames] = 0.0
        self.read = start + count
        return count

    # -- writer (feeder, or play() under the mix lock) -------------------------------
    def _spans(self, start: int, count: int) -> list[tuple[int, int, int]]:
        """``(ring index, offset in the stretch, length)`` pieces of the stretch of
        ``count`` frames from frame ``start`` (two when it wraps)."""
        index = start % self.capacity
        first = min(count, self.capacity - index)
        spans = [(index, 0, first)] if first else []
        if count > first:
            spans.append((0, first, count - first))
        return spans

    def push(self, block: Frames) -> None:
        """Append ``block`` (the caller made room: at most :attr:`free` frames)."""
        count = min(len(block), self.free)
        for index, offset, length in self._spans(self.write, count):
            self.buffer[index : index + length] = block[offset : offset + length]
        self.write += count

    def add(self, start: int, block: Frames) -> None:
        """Mix ``block`` into the queued frames from frame ``start`` (within the queue)."""
        count = min(len(block), max(self.write - start, 0))
        for index, offset, length in self._spans(start, count):
            self.buffer[index : index + length] += block[offset : offset + length]

    def clip(self, start: int, count: int, ceiling: float) -> None:
        for index, _offset, length in self._spans(start, count):
            piece = self.buffer[index : index + length]
            np.clip(piece, -ceiling, ceiling, out=piece)

    def fade_out(self, start: int, fade: int) -> float:
        """Fade the queued frames from ``start`` to silence over ``fade`` frames (linear,
        as a voice's own fades), silence after; returns the gain reached at the last
        queued frame (0 when the fade ended within the queue)."""
        count = max(self.write - start, 0)
        if count == 0:
            return 1.0
        steps = np.arange(1, count + 1, dtype=np.float32)
        env = np.maximum(np.float32(1.0) - steps / np.float32(max(fade, 1)), np.float32(0.0))
        for index, offset, length in self._spans(start, count):
            self.buffer[index : index + length] *= env[offset : offset + length, None]
        return float(env[-1])

    def truncate(self, end: int) -> None:
        """Forget queued frames from frame ``end`` on (never before :attr:`read`)."""
        self.write = max(min(end, self.write), self.read)
