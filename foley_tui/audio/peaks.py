"""Waveform peaks: min/max per bucket, a quick sampled overview, then exact peaks; cached.

Headless: never imports textual. Pure functions of a file, safe to call from a worker
thread (each call opens its own soundfile handle). Exact peaks read the file once, one
read per bucket, in order; the overview reads a short window at each bucket's start, so a
10-minute file gets a usable shape after ``buckets`` small reads. Min/max are taken over
all channels (a downmix could cancel out and hide a loud channel).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from foley_tui.audio.base import AudioRef, Source
from foley_tui.audio.blob import RemoteBlob
from foley_tui.audio.decode import DecodeError, open_sound

Peak = tuple[float, float]
#: Frames read per bucket for the sampled overview.
OVERVIEW_WINDOW = 1024
#: Files with fewer frames than ``buckets * OVERVIEW_WINDOW * this`` skip the overview:
#: their exact peaks are about as quick.
OVERVIEW_MIN_RATIO = 8
#: The largest single read (frames); a longer bucket is read in pieces of this size.
MAX_READ_FRAMES = 1 << 20


@dataclass(frozen=True, slots=True)
class PeaksResult:
    """``peaks[i] = (min, max)`` of bucket ``i``; ``exact`` False for the sampled overview."""

    peaks: tuple[Peak, ...]
    duration_s: float
    exact: bool


def _bucket_bounds(frames: int, buckets: int) -> list[int]:
    return [frames * index // buckets for index in range(buckets + 1)]


def _minmax(block: np.ndarray) -> Peak:
    if block.size == 0:
        return (0.0, 0.0)
    return (float(block.min()), float(block.max()))


def exact_peaks(path: AudioRef, buckets: int) -> PeaksResult:
    """Exact min/max of every bucket (one sequential read per bucket)."""
    buckets = max(int(buckets), 1)
    with open_sound(path) as handle:
        frames, rate = int(handle.frames), int(handle.samplerate)
        peaks: list[Peak] = []
        bounds = _bucket_bounds(frames, buckets)
        try:
            for index in range(buckets):
                want = bounds[index + 1] - bounds[index]
                low, high = 0.0, 0.0
                first = True
                while want > 0:
                    block = handle.read(min(want, MAX_READ_FRAMES), dtype="float32")
                    if len(block) == 0:
                        want = 0
                        break
                    want -= len(block)
                    lo, hi = _minmax(block)
                    low, high = (lo, hi) if first else (min(low, lo), max(high, hi))
                    first = False
                peaks.append((low, high))
        except RuntimeError as exc:  # a truncated/corrupt tail: keep what was read
            if not peaks:
                raise DecodeError(f"decode error in {path.name}: {exc}") from None
            peaks.extend([(0.0, 0.0)] * (buckets - len(peaks)))
    return PeaksResult(tuple(peaks), frames / rate if rate else 0.0, True)


def overview_peaks(path: AudioRef, buckets: int, window: int = OVERVIEW_WINDOW) -> PeaksResult:
    """Approximate peaks: a ``window``-frame read at the start of each bucket."""
    buckets = max(int(buckets), 1)
    with open_sound(path) as handle:
        frames, rate = int(handle.frames), int(handle.samplerate)
        bounds = _bucket_bounds(frames, buckets)
        peaks: list[Peak] = []
        try:
            for index in range(buckets):
                start = bounds[index]
                length = min(window, bounds[index + 1] - start)
                if length <= 0:
                    peaks.append((0.0, 0.0))
                    continue
                handle.seek(start)
                peaks.append(_minmax(handle.read(length, dtype="float32")))
        except RuntimeError as exc:
            if not peaks:
                raise DecodeError(f"decode error in {path.name}: {exc}") from None
            peaks.extend([(0.0, 0.0)] * (buckets - len(peaks)))
    return PeaksResult(tuple(peaks), frames / rate if rate else 0.0, False)


class PeakCache:
    """An LRU of exact peaks keyed by (source identity, size, mtime, buckets)."""

    def __init__(self, capacity: int = 256) -> None:
        self.capacity = capacity
        self._items: OrderedDict[tuple[str, int, int, int], PeaksResult] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: tuple[str, int, int, int]) -> PeaksResult | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, int, int, int], value: PeaksResult) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


#: The process-wide cache used when none is passed.
DEFAULT_CACHE = PeakCache()


def cache_key(source: Source, buckets: int) -> tuple[str, int, int, int]:
    """(identity, size, mtime_ns, buckets): a file changed since it was resolved misses."""
    if isinstance(source.path, RemoteBlob):  # content-addressed: its key says it all
        return (source.identity, source.path.size, 0, int(buckets))
    stat = os.stat(source.path)
    return (source.identity, stat.st_size, stat.st_mtime_ns, int(buckets))


def progressive_peaks(
    source: Source, buckets: int, cache: PeakCache | None = None
) -> Iterator[PeaksResult]:
    """Yield a quick overview (long files only), then the exact peaks (cached).

    A cached result is yielded alone. Raises :class:`DecodeError` (or ``OSError``) when
    the file cannot be read at all.
    """
    cache = DEFAULT_CACHE if cache is None else cache
    key = cache_key(source, buckets)
    cached = cache.get(key)
    if cached is not None:
        yield cached
        return
    with open_sound(source.path) as handle:
        frames = int(handle.frames)
    if frames > max(int(buckets), 1) * OVERVIEW_WINDOW * OVERVIEW_MIN_RATIO:
        yield overview_peaks(source.path, buckets)
    exact = exact_peaks(source.path, buckets)
    cache.put(key, exact)
    yield exact
