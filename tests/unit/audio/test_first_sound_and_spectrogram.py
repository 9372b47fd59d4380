"""Where a sound starts (skip-silence) and the spectrogram: measured with the peaks,
cached beside them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.audio.base import AudioFormat, Source
from foley_tui.audio.peaks import (
    PREROLL_S,
    AnalysisCache,
    PeakCache,
    cached_first_sound,
    exact_peaks,
    overview_peaks,
    progressive_peaks,
)
from foley_tui.audio.spectrogram import (
    SpectrogramResult,
    cached_spectrogram,
    spectrogram,
)

RATE = 44100


def source_of(path: Path) -> Source:
    stat = path.stat()
    return Source(path, AudioFormat.WAV, "path", f"{path}|{stat.st_size}|{stat.st_mtime_ns}")


def silence_then_tone(path: Path, silence_s: float, hiss: float = 0.0) -> int:
    """``silence_s`` of (optionally faint) noise, then a 0.5 s tone; returns its first
    frame."""
    lead = int(silence_s * RATE)
    rng = np.random.default_rng(1)
    t = np.arange(int(0.5 * RATE)) / RATE
    data = np.concatenate([hiss * rng.uniform(-1, 1, lead), 0.8 * np.sin(2 * np.pi * 440 * t)])
    data[lead] = 0.8  # the tone's first sample is audible (sin(0) would be 0)
    sf.write(str(path), np.stack([data, data], axis=1).astype(np.float32), RATE, subtype="FLOAT")
    return lead


@pytest.mark.parametrize("buckets", [1, 7, 80, 400])
def test_first_sound_is_the_first_audible_sample_whatever_the_width(
    tmp_path: Path, buckets: int
) -> None:
    path = tmp_path / "lead.wav"
    first = silence_then_tone(path, 1.5, hiss=0.001)  # -58 dB under the tone: silence
    result = exact_peaks(path, buckets)
    assert result.first_sound_s == pytest.approx(first / RATE - PREROLL_S, abs=1e-9)


def test_all_silent_and_immediate_files_start_at_zero(tmp_path: Path) -> None:
    silent = tmp_path / "silent.wav"
    sf.write(str(silent), np.zeros((RATE, 2), np.float32), RATE)
    assert exact_peaks(silent, 40).first_sound_s == 0.0
    at_once = tmp_path / "at_once.wav"
    silence_then_tone(at_once, 0.0)
    assert exact_peaks(at_once, 40).first_sound_s == 0.0
    # The sampled overview does not measure it.
    assert overview_peaks(at_once, 40).first_sound_s is None


def test_the_first_sound_is_read_from_the_cache_only(tmp_path: Path) -> None:
    path = tmp_path / "lead.wav"
    silence_then_tone(path, 1.5)
    source = source_of(path)
    cache = PeakCache()
    assert cached_first_sound(source, cache) is None  # never measured: no read here
    list(progressive_peaks(source, 60, cache))
    assert cached_first_sound(source, cache) == pytest.approx(1.5 - PREROLL_S)


def test_spectrogram_shows_a_tone_in_its_band_and_silence_as_nothing(tmp_path: Path) -> None:
    path = tmp_path / "lead.wav"
    silence_then_tone(path, 1.0)
    result = spectrogram(path, 30, 16)
    assert (result.bands, result.columns) == (16, 30)
    assert result.duration_s == pytest.approx(1.5)
    levels = np.array(result.levels)
    assert levels.max() == 1.0 and levels.min() >= 0.0
    assert levels[:, :19].max() == 0.0  # the silent first second is black
    tone = levels[:, 21:]
    edges = np.geomspace(40.0, RATE / 2, 17)
    band = int(np.searchsorted(edges, 440.0)) - 1
    assert (tone.argmax(axis=0) == band).all()


def test_spectrogram_of_silence_and_the_cache(tmp_path: Path) -> None:
    silent = tmp_path / "silent.wav"
    sf.write(str(silent), np.zeros(RATE // 10, np.float32), RATE)
    assert np.array(spectrogram(silent, 10, 8).levels).max() == 0.0
    cache: AnalysisCache[SpectrogramResult] = AnalysisCache()
    first = cached_spectrogram(source_of(silent), 10, 8, cache)
    assert cached_spectrogram(source_of(silent), 10, 8, cache) is first
    assert cached_spectrogram(source_of(silent), 10, 4, cache) is not first
    assert len(cache) == 2
