"""Waveform peaks: min/max per bucket, a quick sampled overview, then exact peaks; cached.

Headless: never imports textual. Pure functions of a file, safe to call from a worker
thread (each call opens its own soundfile handle). Exact peaks read the file once, one
read per bucket, in order; the overview reads a short window at each bucket's start, so a
10-minute file gets a usable shape after ``buckets`` small reads. Min/max are taken over
all channels (a downmix could cancel out and hide a loud channel).

The exact pass also finds where the sound starts (:func:`first_sound`): the first sample
within :data:`SILENCE_DB` of the file's peak, which skip-silence previews from. It needs
the peak, so it is measured once, by that pass, and cached with the peaks.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import soundfile as sf

from foley_tui.audio.base import AudioRef, Source
from foley_tui.audio.blob import RemoteBlob
from foley_tui.audio.decode import DecodeError, open_sound, sanitise

Peak = tuple[float, float]
#: Frames read per bucket for the sampled overview.
OVERVIEW_WINDOW = 1024
#: Files with fewer frames than ``buckets * OVERVIEW_WINDOW * this`` skip the overview:
#: their exact peaks are about as quick.
OVERVIEW_MIN_RATIO = 8
#: The largest single read (frames); a longer bucket is read in pieces of this size.
MAX_READ_FRAMES = 1 << 20
#: A sample this far below the file's peak (dB) or quieter is leading silence.
SILENCE_DB = -40.0
#: Skip-silence starts this much before the first audible sample, so its attack is whole.
PREROLL_S = 0.005


@dataclass(frozen=True, slots=True)
class PeaksResult:
    """``peaks[i] = (min, max)`` of bucket ``i``; ``exact`` False for the sampled overview.

    ``first_sound_s`` is where the sound starts (see :func:`first_sound`); None when not
    measured (the overview), 0.0 for a file that starts at once or is silent throughout.
    ``nonfinite``: the non-finite samples read (NaN, inf: drawn, and played, as silence);
    every one of the file for exact peaks, those of the sampled windows for an overview.
    """

    peaks: tuple[Peak, ...]
    duration_s: float
    exact: bool
    first_sound_s: float | None = None
    nonfinite: int = 0


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
        nonfinite = 0
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
                    nonfinite += sanitise(block)
                    lo, hi = _minmax(block)
                    low, high = (lo, hi) if first else (min(low, lo), max(high, hi))
                    first = False
                peaks.append((low, high))
        except RuntimeError as exc:  # a truncated/corrupt tail: keep what was read
            if not peaks:
                raise DecodeError(f"decode error in {path.name}: {exc}") from None
            peaks.extend([(0.0, 0.0)] * (buckets - len(peaks)))
        start = _first_sound_frame(handle, peaks, bounds)
    start_s = max(start / rate - PREROLL_S, 0.0) if rate else 0.0
    return PeaksResult(
        tuple(peaks), frames / rate if rate else 0.0, True, start_s, nonfinite=nonfinite
    )


def _first_sound_frame(handle: sf.SoundFile, peaks: list[Peak], bounds: list[int]) -> int:
    """The first frame within :data:`SILENCE_DB` of the peak (0 when all silent): the
    peaks name its bucket; one read of that bucket finds the sample."""
    levels = [max(abs(low), abs(high)) for low, high in peaks]
    loudest = max(levels, default=0.0)
    if loudest <= 0.0:
        return 0
    threshold = loudest * 10 ** (SILENCE_DB / 20)
    bucket = next(index for index, level in enumerate(levels) if level >= threshold)
    position, stop = bounds[bucket], bounds[bucket + 1]
    try:
        handle.seek(position)
        while position < stop:
            block = handle.read(min(stop - position, MAX_READ_FRAMES), dtype="float32")
            if len(block) == 0:
                break
            sanitise(block)  # a NaN or inf is silence here too, never "the first sound"
            loud = np.flatnonzero(np.abs(block).reshape(len(block), -1).max(axis=1) >= threshold)
            if loud.size:
                return position + int(loud[0])
            position += len(block)
    except RuntimeError:  # a tail that cannot be re-read: the bucket's start is close
        pass
    return bounds[bucket]


def overview_peaks(path: AudioRef, buckets: int, window: int = OVERVIEW_WINDOW) -> PeaksResult:
    """Approximate peaks: a ``window``-frame read at the start of each bucket."""
    buckets = max(int(buckets), 1)
    with open_sound(path) as handle:
        frames, rate = int(handle.frames), int(handle.samplerate)
        bounds = _bucket_bounds(frames, buckets)
        peaks: list[Peak] = []
        nonfinite = 0
        try:
            for index in range(buckets):
                start = bounds[index]
                length = min(window, bounds[index + 1] - start)
                if length <= 0:
                    peaks.append((0.0, 0.0))
                    continue
                handle.seek(start)
                block = handle.read(length, dtype="float32")
                nonfinite += sanitise(block)
                peaks.append(_minmax(block))
        except RuntimeError as exc:
            if not peaks:
                raise DecodeError(f"decode error in {path.name}: {exc}") from None
            peaks.extend([(0.0, 0.0)] * (buckets - len(peaks)))
    return PeaksResult(tuple(peaks), frames / rate if rate else 0.0, False, nonfinite=nonfinite)


T = TypeVar("T")


class AnalysisCache(Generic[T]):
    """A thread-safe LRU of what was measured from a file, keyed by :func:`cache_key`
    (plus whatever else the measure depends on)."""

    def __init__(self, capacity: int = 256) -> None:
        self.capacity = capacity
        self._items: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> T | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Hashable, value: T) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def values_for(self, identity: str) -> list[T]:
        """The cached values whose key starts with ``identity`` (most recent last)."""
        with self._lock:
            return [
                value
                for key, value in self._items.items()
                if isinstance(key, tuple) and key and key[0] == identity
            ]


class PeakCache(AnalysisCache[PeaksResult]):
    """An LRU of exact peaks keyed by (source identity, size, mtime, buckets)."""

    def first_sound(self, identity: str) -> float | None:
        for result in reversed(self.values_for(identity)):
            if result.first_sound_s is not None:
                return result.first_sound_s
        return None


#: The process-wide cache used when none is passed.
DEFAULT_CACHE = PeakCache()


def cached_first_sound(source: Source, cache: PeakCache | None = None) -> float | None:
    """Where ``source`` starts, if its exact peaks (at any width) are cached; never reads
    the file (a play must not wait for the peaks)."""
    cache = DEFAULT_CACHE if cache is None else cache
    return cache.first_sound(source.identity)


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
