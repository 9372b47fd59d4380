"""Integrated loudness (ITU-R BS.1770-4, gated), measured in blocks; loudness-match gain.

Headless: never imports textual. pyloudnorm is the reference implementation, but it needs
the whole signal in memory (460 MB as float64 for 10 minutes of 48 kHz stereo), loops in
Python per gating block, refuses clips shorter than 400 ms and more than 5 channels. This
meter uses pyloudnorm's own K-weighting coefficients, filters block by block with scipy
(state carried across blocks) and accumulates 100 ms energies, then gates exactly as
BS.1770 does; the tests check it against pyloudnorm within 0.5 LU.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from threading import Lock

import numpy as np
import numpy.typing as npt

from foley_tui.audio.base import AudioRef
from foley_tui.audio.decode import DecodeError, open_sound, sanitise

#: Channel weights (BS.1770): L, R, C at 1.0, surrounds at 1.41; pyloudnorm's for <= 5
#: channels. For 6 channels (5.1: L R C LFE Ls Rs) the LFE is excluded.
_WEIGHTS_UP_TO_5 = (1.0, 1.0, 1.0, 1.41, 1.41)
_WEIGHTS_51 = (1.0, 1.0, 1.0, 0.0, 1.41, 1.41)
ABSOLUTE_GATE_LUFS = -70.0
#: Upper bound of the boost loudness matching may apply (a quiet room tone must not be
#: raised by 40 dB into the listener's ears).
MAX_BOOST_DB = 15.0
MAX_CUT_DB = 40.0


def channel_weights(channels: int) -> npt.NDArray[np.float64]:
    if channels == 6:
        return np.array(_WEIGHTS_51)
    if channels <= 5:
        return np.array(_WEIGHTS_UP_TO_5[:channels])
    return np.ones(channels)


class LoudnessMeter:
    """Streaming BS.1770 integrated loudness: feed ``(frames, channels)`` blocks, then read."""

    def __init__(self, rate: int, channels: int) -> None:
        self.rate = int(rate)
        self.channels = int(channels)
        # Imported here: pyloudnorm and scipy are slow to import, and most sessions
        # declare loudness or never turn matching on.
        import pyloudnorm

        meter = pyloudnorm.Meter(self.rate)
        self._stages: list[tuple[np.ndarray, np.ndarray, float]] = [
            (np.asarray(stage.b), np.asarray(stage.a), float(stage.passband_gain))
            for stage in meter._filters.values()
        ]
        self._state: list[np.ndarray] = [
            np.zeros((max(len(a), len(b)) - 1, self.channels)) for b, a, _ in self._stages
        ]
        self._step = max(round(0.1 * self.rate), 1)  # 100 ms sub-blocks
        self._partial = np.zeros(self.channels)
        self._partial_n = 0
        self._subblocks: list[np.ndarray] = []  # per-channel energy sums per 100 ms
        self.frames = 0

    def feed(self, block: npt.NDArray[np.floating]) -> None:
        if block.ndim == 1:
            block = block[:, None]
        if len(block) == 0:
            return
        import scipy.signal

        filtered = block.astype(np.float64, copy=False)
        for index, (b, a, gain) in enumerate(self._stages):
            filtered, self._state[index] = scipy.signal.lfilter(
                b, a, filtered, axis=0, zi=self._state[index]
            )
            if gain != 1.0:
                filtered = filtered * gain
        squares = np.square(filtered)
        self.frames += len(squares)
        start = 0
        while start < len(squares):
            take = min(self._step - self._partial_n, len(squares) - start)
            self._partial += squares[start : start + take].sum(axis=0)
            self._partial_n += take
            start += take
            if self._partial_n == self._step:
                self._subblocks.append(self._partial)
                self._partial = np.zeros(self.channels)
                self._partial_n = 0

    def integrated(self) -> float:
        """Gated integrated loudness in LUFS (``-inf`` for silence)."""
        weights = channel_weights(self.channels)
        window = 4 * self._step  # 400 ms blocks, 75 % overlap
        if len(self._subblocks) >= 4:
            sub = np.array(self._subblocks)  # (n, channels)
            cumulative = np.vstack([np.zeros(self.channels), np.cumsum(sub, axis=0)])
            z = (cumulative[4:] - cumulative[:-4]) / window  # (blocks, channels)
        else:
            # Shorter than one gating block: use the mean square of what there is.
            total = sum(self._subblocks, np.zeros(self.channels)) + self._partial
            count = len(self._subblocks) * self._step + self._partial_n
            if count == 0:
                return -math.inf
            z = (total / count)[None, :]
        with np.errstate(divide="ignore"):
            block_loudness = -0.691 + 10.0 * np.log10(z @ weights)
        gated = z[block_loudness >= ABSOLUTE_GATE_LUFS]
        if len(gated) == 0:
            return -math.inf
        relative = -0.691 + 10.0 * math.log10(float(gated.mean(axis=0) @ weights)) - 10.0
        keep = z[(block_loudness > relative) & (block_loudness >= ABSOLUTE_GATE_LUFS)]
        if len(keep) == 0:
            return -math.inf
        return -0.691 + 10.0 * math.log10(float(keep.mean(axis=0) @ weights))


def measure_file(
    path: AudioRef, block_frames: int = 65536, max_seconds: float | None = None
) -> float:
    """Integrated loudness of a file (its own channels), read block by block."""
    with open_sound(path) as handle:
        meter = LoudnessMeter(handle.samplerate, handle.channels)
        budget = int(max_seconds * handle.samplerate) if max_seconds else None
        try:
            while budget is None or meter.frames < budget:
                block = handle.read(block_frames, dtype="float32", always_2d=True)
                if len(block) == 0:
                    break
                sanitise(block)  # measured as played: a non-finite sample is silence
                meter.feed(block)
        except RuntimeError as exc:
            raise DecodeError(f"decode error in {path.name}: {exc}") from None
    return meter.integrated()


def match_gain_db(loudness_lufs: float | None, target_lufs: float) -> float:
    """The gain (dB) bringing ``loudness_lufs`` to ``target_lufs``, bounded; 0 if unknown."""
    if loudness_lufs is None or not math.isfinite(loudness_lufs):
        return 0.0
    return float(min(max(target_lufs - loudness_lufs, -MAX_CUT_DB), MAX_BOOST_DB))


def db_to_gain(db: float) -> float:
    return float(10.0 ** (db / 20.0))


class LoudnessCache:
    """A small LRU of measured loudness by source identity (path + size + mtime)."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, float] = OrderedDict()
        self._lock = Lock()

    def get(self, identity: str) -> float | None:
        with self._lock:
            value = self._items.get(identity)
            if value is not None:
                self._items.move_to_end(identity)
            return value

    def put(self, identity: str, value: float) -> None:
        with self._lock:
            self._items[identity] = value
            self._items.move_to_end(identity)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
