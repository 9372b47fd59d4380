"""Block decoding (formats, rates, channels, broken files), loudness, peaks."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf

from foley_tui.audio.base import AudioFormat, Source
from foley_tui.audio.decode import BlockDecoder, DecodeError, probe, to_stereo
from foley_tui.audio.loudness import LoudnessMeter, match_gain_db, measure_file
from foley_tui.audio.peaks import (
    PeakCache,
    exact_peaks,
    overview_peaks,
    progressive_peaks,
)

from .conftest import SPECS, tone

OUT = 44100


def decode_all(path: Path, out_rate: int = OUT, start_s: float = 0.0) -> np.ndarray:
    decoder = BlockDecoder(path, out_rate, start_s)
    blocks = []
    while not decoder.done:
        block = decoder.read(4096)
        assert block.dtype == np.float32 and block.ndim == 2 and block.shape[1] == 2
        assert len(block) <= 4096 * out_rate / decoder.info.samplerate + 4096
        blocks.append(block)
    decoder.close()
    return np.concatenate(blocks)


def dominant_hz(signal: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(signal * np.hanning(len(signal))))
    return float(np.argmax(spectrum) * rate / len(signal))


@pytest.mark.parametrize("name", list(SPECS))
def test_every_format_rate_and_layout_decodes_to_device_rate_stereo(
    audio_files: dict[str, Path], name: str
) -> None:
    _fmt, _sub, rate, channels, seconds = SPECS[name]
    info = probe(audio_files[name])
    assert (info.samplerate, info.channels) == (rate, channels)
    out = decode_all(audio_files[name])
    # Length within codec padding (MP3/Opus add a little) and resampler rounding.
    assert abs(len(out) - seconds * OUT) < 0.03 * OUT
    # The tone survives: 440 Hz on the left for mono/stereo (both sides for mono).
    middle = out[len(out) // 4 : 3 * len(out) // 4]
    if channels <= 2:
        assert dominant_hz(middle[:, 0], OUT) == pytest.approx(440, abs=5)
    if channels == 1:
        np.testing.assert_array_equal(out[:, 0], out[:, 1])
    assert np.abs(out).max() <= 1.0


def test_same_rate_passes_through_bit_exact(tmp_path: Path) -> None:
    signal = tone(OUT, 2, 0.3)
    path = tmp_path / "x"
    sf.write(str(path), signal, OUT, format="WAV", subtype="FLOAT")
    np.testing.assert_array_equal(decode_all(path), signal)


def test_resampling_8k_mono_keeps_pitch_and_duration(audio_files: dict[str, Path]) -> None:
    out = decode_all(audio_files["mono8k"], 48000)
    assert abs(len(out) - 24000) <= 2
    assert dominant_hz(out[6000:18000, 0], 48000) == pytest.approx(440, abs=5)
    # The tail is flushed from the resampler, not cut: the last 10 ms still carry the tone.
    assert np.abs(out[-480:-48, 0]).max() > 0.3


def test_six_channels_use_the_51_downmix(tmp_path: Path) -> None:
    frames = np.zeros((4800, 6), np.float32)
    frames[:, 0] = 0.3  # L
    frames[:, 3] = 0.9  # LFE: dropped
    frames[:, 5] = 0.2  # Rs
    out = to_stereo(frames)
    scale = 1 + 2 * 0.7071067811865476
    np.testing.assert_allclose(out[0], [0.3 / scale, 0.2 * 0.7071067811865476 / scale], rtol=1e-6)
    odd = to_stereo(np.full((10, 3), 0.6, np.float32))
    np.testing.assert_allclose(odd, 0.6, rtol=1e-6)


def test_start_position_and_loop(tmp_path: Path) -> None:
    ramp = np.repeat((np.arange(OUT, dtype=np.float32) / OUT)[:, None], 2, axis=1)
    path = tmp_path / "ramp"
    sf.write(str(path), ramp, OUT, format="WAV", subtype="FLOAT")
    decoder = BlockDecoder(path, OUT, 0.5)
    first = decoder.read(100)
    assert first[0, 0] == pytest.approx(0.5, abs=1e-4)
    assert decoder.start_s == pytest.approx(0.5)
    decoder.close()
    looped = BlockDecoder(path, OUT, 0.9)
    looped.loop = True
    got = np.concatenate([looped.read(4410) for _ in range(3)])  # crosses the end
    assert not looped.done
    assert got[4410, 0] == 0.0 and got[4411, 0] == pytest.approx(1 / OUT)
    assert looped.position_of(4410 + 10) == pytest.approx(10 / OUT)
    looped.close()


@pytest.mark.parametrize("name", ["empty", "not_audio", "no_frames"])
def test_undecodable_files_raise_decode_error(audio_files: dict[str, Path], name: str) -> None:
    with pytest.raises(DecodeError):
        probe(audio_files[name])
    with pytest.raises(DecodeError):
        BlockDecoder(audio_files[name], OUT)


@pytest.mark.parametrize("name", ["truncated", "truncated_flac"])
def test_truncated_files_play_what_is_there(audio_files: dict[str, Path], name: str) -> None:
    decoder = BlockDecoder(audio_files[name], OUT)
    total = 0
    try:
        while not decoder.done:
            total += len(decoder.read(4096))
    except DecodeError:
        pass  # a corrupt tail is reported, after the good part was returned
    finally:
        decoder.close()
    assert 0 < total < 0.5 * OUT * 1.01


def test_unsupported_rate(tmp_path: Path) -> None:
    path = tmp_path / "x"
    sf.write(str(path), np.zeros((100, 1), np.float32), 4000, format="WAV")
    with pytest.raises(DecodeError, match="sample rate 4000"):
        probe(path)


def test_first_block_is_small_on_a_long_file(tmp_path: Path) -> None:
    """read_first() decodes only what is needed to get sound out, not the whole file."""
    path = tmp_path / "long"
    sf.write(str(path), np.zeros((48000 * 60, 2), np.float32), 48000, format="FLAC")
    decoder = BlockDecoder(path, OUT)
    first = decoder.read_first()
    assert 0 < len(first) < 8192
    assert decoder.read_position <= 4096  # read position: a few blocks in
    decoder.close()


# -- loudness -------------------------------------------------------------------------


@pytest.mark.parametrize(("rate", "channels"), [(8000, 1), (44100, 2), (48000, 5), (96000, 2)])
def test_meter_matches_pyloudnorm(rate: int, channels: int) -> None:
    rng = np.random.default_rng(rate + channels)
    t = np.arange(int(rate * 2.3)) / rate
    gains = np.linspace(0.2, 1.0, channels)[None, :]
    signal = 0.3 * np.sin(2 * np.pi * 300 * t)[:, None] * gains
    signal = signal + 0.05 * rng.standard_normal((len(t), channels))
    signal[: rate // 3] *= 0.001  # a quiet lead-in the gate must drop
    reference = pyloudnorm.Meter(rate).integrated_loudness(signal.copy())
    meter = LoudnessMeter(rate, channels)
    for start in range(0, len(signal), 5000):  # odd block size: state crosses blocks
        meter.feed(signal[start : start + 5000])
    assert meter.integrated() == pytest.approx(reference, abs=0.5)


def test_measure_file_and_gain(audio_files: dict[str, Path], tmp_path: Path) -> None:
    data, rate = sf.read(str(audio_files["wav"]))
    reference = pyloudnorm.Meter(rate).integrated_loudness(data)
    assert measure_file(audio_files["wav"]) == pytest.approx(reference, abs=0.5)
    six = measure_file(audio_files["six"])
    assert np.isfinite(six)
    silent = tmp_path / "silent"
    sf.write(str(silent), np.zeros((48000, 2), np.float32), 48000, format="WAV")
    assert measure_file(silent) == float("-inf")
    assert match_gain_db(-30.0, -23.0) == pytest.approx(7.0)
    assert match_gain_db(-60.0, -23.0) == 15.0  # boost is bounded
    assert match_gain_db(None, -23.0) == 0.0
    assert match_gain_db(float("-inf"), -23.0) == 0.0


# -- peaks ------------------------------------------------------------------------------


def _peak_file(tmp_path: Path, seconds: float = 4.0) -> tuple[Path, np.ndarray]:
    rng = np.random.default_rng(7)
    data = (rng.standard_normal((int(8000 * seconds), 2)) * 0.2).astype(np.float32)
    data[1000, 1] = 0.99  # a spike on the right channel only
    data[20000, 0] = -0.97
    path = tmp_path / "noise"
    sf.write(str(path), data, 8000, format="WAV", subtype="FLOAT")
    return path, data


def test_exact_peaks_are_min_max_per_bucket(tmp_path: Path) -> None:
    path, data = _peak_file(tmp_path)
    result = exact_peaks(path, 10)
    assert result.exact and result.duration_s == pytest.approx(4.0) and len(result.peaks) == 10
    for index, (low, high) in enumerate(result.peaks):
        bucket = data[index * 3200 : (index + 1) * 3200]
        assert (low, high) == (pytest.approx(bucket.min()), pytest.approx(bucket.max()))
    assert result.peaks[0][1] == pytest.approx(0.99)
    assert result.peaks[6][0] == pytest.approx(-0.97)


def test_overview_samples_each_bucket(tmp_path: Path) -> None:
    path, data = _peak_file(tmp_path)
    result = overview_peaks(path, 10, window=100)
    assert not result.exact and len(result.peaks) == 10
    for index, (low, high) in enumerate(result.peaks):
        window = data[index * 3200 : index * 3200 + 100]
        assert (low, high) == (pytest.approx(window.min()), pytest.approx(window.max()))


def source_of(path: Path) -> Source:
    stat = path.stat()
    return Source(path, AudioFormat.WAV, "path", f"{path}|{stat.st_size}|{stat.st_mtime_ns}")


def test_progressive_overview_then_exact_then_cached(tmp_path: Path) -> None:
    path, _ = _peak_file(tmp_path, seconds=60.0)
    cache = PeakCache(capacity=2)
    results = list(progressive_peaks(source_of(path), 20, cache))
    assert [r.exact for r in results] == [False, True]
    assert list(progressive_peaks(source_of(path), 20, cache)) == [results[1]]
    # A file changed in place (same identity string) misses the cache: size/mtime differ.
    data = np.zeros((8000, 2), np.float32)
    sf.write(str(path), data, 8000, format="WAV", subtype="FLOAT")
    os.utime(path, ns=(1, 1))
    fresh = list(progressive_peaks(source_of(path), 20, cache))
    assert fresh[-1].peaks[0] == (0.0, 0.0)
    # LRU: capacity 2 keeps the two most recent keys.
    list(progressive_peaks(source_of(path), 30, cache))
    assert len(cache) == 2


def test_short_files_skip_the_overview(tmp_path: Path, audio_files: dict[str, Path]) -> None:
    results = list(progressive_peaks(source_of(audio_files["wav"]), 50, PeakCache()))
    assert [r.exact for r in results] == [True]


def test_peaks_of_a_truncated_file(audio_files: dict[str, Path]) -> None:
    result = exact_peaks(audio_files["truncated"], 8)
    assert len(result.peaks) == 8 and max(high for _, high in result.peaks) > 0.4


def test_resampler_pool_hands_out_fresh_streams(audio_files: dict[str, Path]) -> None:
    from foley_tui.audio.decode import ResamplerPool

    pool = ResamplerPool(OUT)
    assert not pool.refill(limit=1)  # more than one common rate to build
    while not pool.refill(limit=3):
        pass
    assert pool.ready(48000)
    pooled = BlockDecoder(audio_files["flac"], OUT, pool=pool)  # 48 kHz: from the pool
    assert not pool.ready(48000)
    plain = BlockDecoder(audio_files["flac"], OUT)
    a = np.concatenate([pooled.read(4096) for _ in range(8)])
    b = np.concatenate([plain.read(4096) for _ in range(8)])
    np.testing.assert_array_equal(a, b)  # a pooled stream is as good as a new one
    pooled.close()
    plain.close()
    pool.take(12345)  # an unusual rate is remembered and kept ready from now on
    assert not pool.ready(12345)
    assert pool.refill() and pool.ready(12345)
