"""A streaming true-peak limiter for the master bus.

Look-ahead, linked stereo, brick-wall: the gain applied to each sample is already down
before the sample's true peak arrives, so the output's true peak (estimated by 4x
oversampling, as ITU-R BS.1770 does) never exceeds the ceiling; a final clip at the
ceiling catches the last fraction of a dB the interpolation estimate can miss.

How the gain is computed, per block and with state carried across blocks:

1. ``need[n]``: the gain sample ``n`` needs (``ceiling / true peak``, at most 1), from the
   sample itself and the four interpolated phases around it.
2. ``held[n]``: the minimum of ``need`` over the last ``lookahead + hold`` samples.
3. ``gain[n]``: the mean of ``held`` over the last ``ramp`` samples (a smooth attack).
4. Output ``n`` is input ``n - lookahead`` times ``gain[n]``: every term of that mean saw
   the need of the delayed sample (and of its interpolation neighbours), so the gain never
   exceeds it. The output is delayed by :attr:`TruePeakLimiter.delay` frames.

The ceiling is a guarantee, not an estimate: a non-finite input sample (NaN, inf, or an
overflowed sum) is silence before anything else sees it (one NaN in the interpolation
filters' state would otherwise disable the estimate for good), and every output sample is
clamped to the ceiling last.

Headless: never imports textual.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt
from scipy.ndimage import minimum_filter1d
from scipy.signal import firwin, lfilter

Frames = npt.NDArray[np.float32]

#: Oversampling factor of the true-peak estimate, and its interpolation filter length.
OVERSAMPLE = 4
TAPS = 48
#: How far (input samples) an interpolated peak may lie from the sample it is charged to.
_SPREAD = TAPS // OVERSAMPLE


#: The look-ahead (and so the output delay) of the master limiter.
LOOKAHEAD_S = 0.005


def db_to_gain(db: float) -> float:
    return float(10.0 ** (db / 20.0))


def lookahead_frames(rate: int, lookahead_s: float = LOOKAHEAD_S) -> int:
    """The delay (frames) of a :class:`TruePeakLimiter` at ``rate``."""
    return max(round(lookahead_s * int(rate)), 2 * _SPREAD + 2)


@functools.cache
def _phases() -> list[npt.NDArray[np.float64]]:
    """The interpolation filter's polyphase components (designed once: a limiter is made
    on every scene play, on the key-to-sound path)."""
    taps = firwin(TAPS, 1.0 / OVERSAMPLE) * OVERSAMPLE
    return [np.asarray(taps[k::OVERSAMPLE], dtype=np.float64) for k in range(OVERSAMPLE)]


def _all_finite(block: npt.NDArray[np.floating]) -> bool:
    """True when no sample is NaN or inf (one pass, no temporary array)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(np.add.reduce(block, axis=None, dtype=np.float64)))


class TruePeakLimiter:
    """Limit a stream of float32 ``(frames, channels)`` blocks to ``ceiling_db`` dBTP."""

    def __init__(
        self,
        rate: int,
        *,
        ceiling_db: float = -1.0,
        lookahead_s: float = LOOKAHEAD_S,
        hold_s: float = 0.050,
        channels: int = 2,
        fast_path: bool = True,
    ) -> None:
        """``fast_path=False`` estimates every block (the reference the fast path is
        checked against: both return the same samples)."""
        self.rate = int(rate)
        self.fast_path = fast_path
        self.ceiling = db_to_gain(ceiling_db)
        self.delay = lookahead_frames(self.rate, lookahead_s)
        self._ramp = self.delay - _SPREAD  # >= _SPREAD + 2
        self._window = self.delay + max(round(hold_s * self.rate), 0)
        self.channels = channels
        self._phases = _phases()
        self._zi = [np.zeros((len(p) - 1, channels)) for p in self._phases]
        # The largest true peak any interpolated phase can reach per unit of sample peak.
        self._reach = max(float(np.abs(p).sum()) for p in self._phases)
        self._memory = max(len(p) for p in self._phases) - 1
        # Histories carried between blocks.
        self._need = np.ones(self._window, dtype=np.float64)
        self._held = np.ones(self._ramp, dtype=np.float64)
        self._audio = np.zeros((self.delay, channels), dtype=np.float32)
        self._recent = np.zeros((self._memory, channels), dtype=np.float32)
        self._quiet = True  # no gain reduction pending: a quiet block may take the fast path
        self._zi_stale = False  # the filter states lag behind fast-path blocks
        self.min_gain = 1.0  # the deepest gain reduction so far (diagnostics, tests)
        self.fast_blocks = 0  # blocks that took the fast path (diagnostics, tests)

    def reset(self) -> None:
        """Forget all state (a seek): silence in the delay line, no gain reduction."""
        for z in self._zi:
            z.fill(0.0)
        self._need.fill(1.0)
        self._held.fill(1.0)
        self._audio.fill(0.0)
        self._recent.fill(0.0)
        self._quiet = True
        self._zi_stale = False

    def _remember(self, block: Frames) -> None:
        """Keep the last inputs the interpolation filters' state depends on."""
        if len(block) >= self._memory:
            self._recent = block[-self._memory :]
        else:
            self._recent = np.concatenate([self._recent, block])[-self._memory :]

    def _restore_filters(self) -> None:
        """The filters' state after the inputs the fast path skipped: an FIR's state is a
        function of its last ``taps - 1`` inputs alone, so running those through from
        silence gives exactly the state continuous filtering would have."""
        for k, taps in enumerate(self._phases):
            zero = np.zeros((len(taps) - 1, self.channels))
            _, self._zi[k] = lfilter(taps, [1.0], self._recent, axis=0, zi=zero)
        self._zi_stale = False

    def _fast(self, block: Frames) -> Frames | None:
        """Below the ceiling with no gain reduction pending, the limiter is a pure delay:
        if no interpolated peak of this block can reach the ceiling (bounded by the sample
        peak times the filters' largest absolute sum), return the delayed audio without
        estimating (bit for bit what the full path returns: every gain is exactly 1)."""
        if not (self._quiet and self.fast_path):
            return None
        level = max(float(np.abs(block).max()), float(np.abs(self._recent).max()))
        if level * self._reach > self.ceiling:
            return None
        n = len(block)
        audio = np.concatenate([self._audio, block])
        self._audio = audio[n:]
        self._remember(block)
        self._zi_stale = True
        self.fast_blocks += 1
        return audio[:n]

    def _true_peak(self, block: Frames) -> npt.NDArray[np.float64]:
        peak = np.abs(block).max(axis=1).astype(np.float64)
        for k, taps in enumerate(self._phases):
            out, self._zi[k] = lfilter(taps, [1.0], block, axis=0, zi=self._zi[k])
            np.maximum(peak, np.abs(out).max(axis=1), out=peak)
        return peak

    def process(self, block: Frames) -> Frames:
        """Limit ``block``; returns as many frames, delayed by :attr:`delay`."""
        n = len(block)
        if n == 0:
            return block
        if not _all_finite(block):
            block = np.where(np.isfinite(block), block, np.float32(0.0)).astype(np.float32)
        fast = self._fast(block)
        if fast is not None:
            return fast
        if self._zi_stale:
            self._restore_filters()
        peak = self._true_peak(block)
        need = np.ones(n, dtype=np.float64)
        over = peak > self.ceiling
        need[over] = self.ceiling / peak[over]
        need_all = np.concatenate([self._need, need])
        held = minimum_filter1d(need_all, size=self._window + 1, origin=self._window // 2)
        held = held[-n:]
        self._need = need_all[-self._window :]
        held_all = np.concatenate([self._held, held])
        sums = np.cumsum(np.concatenate([[0.0], held_all]))
        gain = (sums[self._ramp + 1 :] - sums[: -self._ramp - 1]) / (self._ramp + 1)
        gain = gain[-n:]
        self._held = held_all[-self._ramp :]
        audio = np.concatenate([self._audio, block])
        out = audio[:n] * gain[:, None].astype(np.float32)
        self._audio = audio[n:]
        if n and gain.min() < self.min_gain:
            self.min_gain = float(gain.min())
        np.clip(out, -self.ceiling, self.ceiling, out=out)
        self._remember(block)
        self._quiet = bool(self._need.min() == 1.0 and self._held.min() == 1.0)
        return out.astype(np.float32, copy=False)
