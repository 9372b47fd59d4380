"""Spectrogram of a file for the waveform pane: levels per (frequency band, column).

Headless: never imports textual. Like the peaks, a pure function of a file, safe in a
worker thread, cached in an LRU beside them (:data:`DEFAULT_CACHE`, keyed by the same
file identity plus the grid). Each column is the average power spectrum of up to
:data:`FRAMES_PER_COLUMN` windows spread over its time span (a 10-minute file is not
read whole: a few short reads per column), folded into log-spaced bands from
:data:`LOW_HZ` to the Nyquist frequency, in dB below the loudest cell, scaled to [0, 1]
over :data:`RANGE_DB`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from foley_tui.audio.base import AudioRef, Source
from foley_tui.audio.decode import DecodeError, open_sound
from foley_tui.audio.peaks import AnalysisCache, cache_key

N_FFT = 1024
FRAMES_PER_COLUMN = 4
LOW_HZ = 40.0
RANGE_DB = 80.0


@dataclass(frozen=True, slots=True)
class SpectrogramResult:
    """``levels[band][column]`` in [0, 1] (band 0 the lowest), and the file's length."""

    levels: tuple[tuple[float, ...], ...]
    duration_s: float

    @property
    def bands(self) -> int:
        return len(self.levels)

    @property
    def columns(self) -> int:
        return len(self.levels[0]) if self.levels else 0


@lru_cache(maxsize=16)
def _band_matrix(rate: int, bands: int) -> npt.NDArray[np.float64]:
    """(bands, N_FFT // 2 + 1): averages the FFT bins of each log-spaced band (a band
    narrower than a bin takes its nearest bin)."""
    freqs = np.fft.rfftfreq(N_FFT, 1.0 / rate)
    edges = np.geomspace(LOW_HZ, rate / 2, bands + 1)
    matrix = np.zeros((bands, len(freqs)))
    for band in range(bands):
        inside = (freqs >= edges[band]) & (freqs < edges[band + 1])
        if not inside.any():
            centre = np.sqrt(edges[band] * edges[band + 1])
            inside = np.arange(len(freqs)) == int(np.argmin(np.abs(freqs - centre)))
        matrix[band, inside] = 1.0 / inside.sum()
    return matrix


def spectrogram(path: AudioRef, columns: int, bands: int) -> SpectrogramResult:
    """The spectrogram of ``path`` on a ``bands`` x ``columns`` grid. Raises
    :class:`DecodeError` (or ``OSError``) when the file cannot be read."""
    columns, bands = max(int(columns), 1), max(int(bands), 1)
    window = np.hanning(N_FFT)
    with open_sound(path) as handle:
        frames, rate = int(handle.frames), int(handle.samplerate)
        power = np.zeros((columns, N_FFT // 2 + 1))
        try:
            for column in range(columns):
                start = frames * column // columns
                stop = max(frames * (column + 1) // columns, start + 1)
                span = stop - start
                count = max(1, min(FRAMES_PER_COLUMN, span // N_FFT))
                for index in range(count):
                    at = start + span * index // count
                    if at >= frames:
                        break
                    handle.seek(at)
                    block = handle.read(min(N_FFT, frames - at), dtype="float32", always_2d=True)
                    if len(block) == 0:
                        break
                    mono = np.zeros(N_FFT)
                    mono[: len(block)] = block.mean(axis=1)
                    power[column] += np.abs(np.fft.rfft(mono * window)) ** 2 / count
        except RuntimeError as exc:  # a truncated tail: keep what was read
            if not power.any():
                raise DecodeError(f"decode error in {path}: {exc}") from None
    grid = _band_matrix(rate, bands) @ power.T if rate else np.zeros((bands, columns))
    levels_db = 10 * np.log10(grid + 1e-20)
    loudest = float(levels_db.max()) if grid.any() else 0.0
    scaled = np.clip((levels_db - loudest + RANGE_DB) / RANGE_DB, 0.0, 1.0)
    if not grid.any():
        scaled = np.zeros_like(grid)
    levels = tuple(tuple(float(x) for x in row) for row in scaled)
    return SpectrogramResult(levels, frames / rate if rate else 0.0)


#: Spectrograms by (file identity, size, mtime, columns, bands).
DEFAULT_CACHE: AnalysisCache[SpectrogramResult] = AnalysisCache(capacity=64)


def cached_spectrogram(
    source: Source,
    columns: int,
    bands: int,
    cache: AnalysisCache[SpectrogramResult] | None = None,
) -> SpectrogramResult:
    """:func:`spectrogram` of ``source``, computed once per file and grid."""
    cache = DEFAULT_CACHE if cache is None else cache
    key = (*cache_key(source, columns), int(bands))
    found = cache.get(key)
    if found is None:
        found = spectrogram(source.path, columns, bands)
        cache.put(key, found)
    return found
