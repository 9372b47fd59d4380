"""Speech ducking of the beds, block by block: foley's ``speech_duck_gain``, in closed form.

foley's render (``foley.weave.mix.speech_duck_gain``) builds one gain envelope for a whole
bus: a target of ``duck`` inside every speech span and 1 elsewhere, smoothed by a one-pole
follower (``acc = target + coef * (acc - target)``, the attack coefficient while the gain
falls, the release one while it rises), in a Python loop over every sample. Between two
span edges the target is constant and the follower never crosses it, so the envelope
there is ``target + (acc0 - target) * coef ** (k + 1)``: :class:`DuckEnvelope` keeps the
follower's value at each edge and computes any block from it with one vectorised power,
the same envelope to float rounding (a test compares it with foley's, sample by sample).

Headless: never imports textual.
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_right
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt


class _Segments:
    """The envelope at one rate: where each constant-target segment starts, its target,
    its coefficient and the follower's value when it starts."""

    def __init__(
        self,
        spans: list[tuple[float, float]],
        rate: int,
        length: int,
        duck: float,
        attack: float,
        release: float,
    ) -> None:
        # The speech frames, as foley marks them: [int(start*sr), min(n, int(end*sr))).
        marked: list[tuple[int, int]] = []
        for start, end in spans:
            a = max(0, int(start * rate))
            b = min(length, int(end * rate))
            if b > a:
                marked.append((a, b))
        marked.sort()
        merged: list[list[int]] = []
        for a, b in marked:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        starts = [0]
        targets = [1.0]
        for a, b in merged:
            if a == starts[-1]:
                targets[-1] = duck
            else:
                starts.append(a)
                targets.append(duck)
            starts.append(b)
            targets.append(1.0)
        ca = math.exp(-1.0 / max(1e-9, attack * rate))
        cr = math.exp(-1.0 / max(1e-9, release * rate))
        self.starts = starts
        self.targets = targets
        self.coefs: list[float] = []
        self.values: list[float] = []  # the follower before each segment's first frame
        acc = 1.0
        for index, target in enumerate(targets):
            coef = ca if target < acc else cr
            self.coefs.append(coef)
            self.values.append(acc)
            if index + 1 < len(starts):
                span = starts[index + 1] - starts[index]
                acc = target + (acc - target) * coef**span

    def block(self, first: int, count: int) -> npt.NDArray[np.float32]:
        out = np.empty(count, dtype=np.float64)
        frame, end = first, first + count
        index = max(bisect_right(self.starts, frame) - 1, 0)
        while frame < end:
            seg_start = self.starts[index]
            seg_end = self.starts[index + 1] if index + 1 < len(self.starts) else end
            stop = min(seg_end, end)
            target, coef, acc0 = self.targets[index], self.coefs[index], self.values[index]
            k = np.arange(frame - seg_start + 1, stop - seg_start + 1, dtype=np.float64)
            out[frame - first : stop - first] = target + (acc0 - target) * np.power(coef, k)
            frame = stop
            index += 1
        return out.astype(np.float32)


class DuckEnvelope:
    """The beds' gain under the words, for any block at any rate (see the module
    docstring). Thread-safe: the per-rate segments are built once, under a lock.

    Args:
        spans: Speech spans ``(start_s, end_s)`` (the words of the narration).
        length_s: The bus length foley ducks over (the narration's length).
        depth_db: The gain inside speech (negative dB).
        attack_s: The follower's time constant while the gain falls.
        release_s: Its time constant while the gain rises.
    """

    def __init__(
        self,
        spans: Iterable[tuple[float, float]],
        *,
        length_s: float,
        depth_db: float,
        attack_s: float,
        release_s: float,
    ) -> None:
        self.spans = [(float(a), float(b)) for a, b in spans]
        self.length_s = float(length_s)
        self.depth = float(np.float32(10.0 ** (depth_db / 20.0)))  # foley's float32 target
        self.attack_s = float(attack_s)
        self.release_s = float(release_s)
        self._by_rate: dict[int, _Segments] = {}
        self._lock = threading.Lock()

    def _segments(self, rate: int) -> _Segments:
        with self._lock:
            found = self._by_rate.get(rate)
            if found is None:
                found = _Segments(
                    self.spans,
                    rate,
                    round(self.length_s * rate),
                    self.depth,
                    self.attack_s,
                    self.release_s,
                )
                self._by_rate[rate] = found
            return found

    def block(self, first: int, count: int, rate: int) -> npt.NDArray[np.float32]:
        """The gain of frames ``[first, first + count)`` at ``rate``."""
        if count <= 0:
            return np.zeros(0, dtype=np.float32)
        return self._segments(int(rate)).block(max(int(first), 0), int(count))

    def key(self) -> tuple[object, ...]:
        return (tuple(self.spans), self.length_s, self.depth, self.attack_s, self.release_s)
