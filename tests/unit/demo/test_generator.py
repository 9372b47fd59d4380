"""The demo sound generator: reproducible bytes, the committed FLACs are its output, and
each sound measures like what it claims to be (we cannot listen in CI, so we measure)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

ROOT = Path(__file__).resolve().parents[3]
GENERATOR = ROOT / "assets" / "generate_demo.py"
SOUNDS = ROOT / "assets" / "demo" / "sounds"


def _load(name: str) -> tuple[np.ndarray, int]:
    data, rate = sf.read(SOUNDS / f"{name}.flac", dtype="float64")
    return data, rate


def _mono(data: np.ndarray) -> np.ndarray:
    return data.mean(axis=1) if data.ndim == 2 else data


def _centroid(x: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    freqs = np.fft.rfftfreq(len(x), 1 / rate)
    return float((spectrum * freqs).sum() / spectrum.sum())


def _peak_freq(x: np.ndarray, rate: int, low: float, high: float) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x)), 1 << 16))
    freqs = np.fft.rfftfreq(1 << 16, 1 / rate)
    band = (freqs > low) & (freqs < high)
    return float(freqs[band][np.argmax(spectrum[band])])


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The generator run twice, as two separate processes in parallel (a fresh
    interpreter each, so hash seeds or import order cannot hide nondeterminism)."""
    first = tmp_path_factory.mktemp("gen-a")
    second = tmp_path_factory.mktemp("gen-b")
    procs = [
        subprocess.Popen(
            [sys.executable, str(GENERATOR), str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for out in (first, second)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    return first, second


def test_generator_is_byte_for_byte_reproducible(two_runs: tuple[Path, Path]) -> None:
    first, second = two_runs
    names = sorted(p.name for p in first.glob("*.flac"))
    assert names == sorted(p.name for p in second.glob("*.flac"))
    assert len(names) == 20
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_committed_sounds_are_the_generators_output(two_runs: tuple[Path, Path]) -> None:
    """Same files, same samples (to one LSB: another numpy's FFT may round differently)."""
    generated, _ = two_runs
    committed = sorted(p.name for p in SOUNDS.glob("*.flac"))
    assert committed == sorted(p.name for p in generated.glob("*.flac"))
    for name in committed:
        ours, _ = sf.read(SOUNDS / name, dtype="int16")
        fresh, _ = sf.read(generated / name, dtype="int16")
        assert ours.shape == fresh.shape, name
        assert np.max(np.abs(ours.astype(int) - fresh.astype(int))) <= 1, name


def test_format_size_and_levels() -> None:
    files = sorted(SOUNDS.glob("*.flac"))
    assert len(files) == 20
    assert sum(p.stat().st_size for p in files) < 3_000_000
    for path in files:
        info = sf.info(str(path))
        assert info.format == "FLAC" and info.subtype == "PCM_16", path.name
        assert info.samplerate == 44100, path.name
        assert 1.0 <= info.duration <= 6.0, path.name
        data, _ = sf.read(path, dtype="float64")
        peak = float(np.max(np.abs(data)))
        assert 0.1 < peak < 1.0, f"{path.name}: peak {peak}"  # audible, never clipped
        assert abs(_mono(data)[0]) < 0.02 and abs(_mono(data)[-1]) < 0.02, path.name


def test_licence_is_cc0() -> None:
    text = (ROOT / "assets" / "demo" / "LICENSE").read_text()
    assert "CC0" in text and "generate_demo.py" in text


def test_low_sounds_are_low_and_bright_sounds_bright() -> None:
    centroids = {}
    for name in ("thunder_distant", "heartbeat", "electric_hum", "rain_roof", "bird_chirp"):
        data, rate = _load(name)
        centroids[name] = _centroid(_mono(data), rate)
    assert centroids["thunder_distant"] < 250
    assert centroids["heartbeat"] < 250
    assert centroids["electric_hum"] < 400
    assert centroids["rain_roof"] > 2500
    assert centroids["bird_chirp"] > 3000


def test_hum_is_mains_and_bell_rings_at_its_prime() -> None:
    hum, rate = _load("electric_hum")
    assert _peak_freq(hum, rate, 30, 80) == pytest.approx(50, abs=1)
    bell, rate = _load("bell")
    assert _peak_freq(bell[: rate // 2], rate, 250, 400) == pytest.approx(330, abs=3)


def test_car_pitch_drops_as_it_passes_left_to_right() -> None:
    car, rate = _load("car_pass")
    mono = _mono(car)
    approach = _peak_freq(mono[int(0.8 * rate) : 2 * rate], rate, 80, 200)
    recede = _peak_freq(mono[int(4.5 * rate) : int(5.7 * rate)], rate, 80, 200)
    # Doppler at 22 m/s: (c + v) / (c - v) ~ 1.14 between approach and recession.
    assert 1.08 < approach / recede < 1.2
    left, right = car[:, 0], car[:, 1]
    early, late = slice(0, 2 * rate), slice(4 * rate, None)
    assert np.sum(left[early] ** 2) > 3 * np.sum(right[early] ** 2)
    assert np.sum(right[late] ** 2) > 3 * np.sum(left[late] ** 2)


def test_whoosh_sweeps_up_then_down() -> None:
    whoosh, rate = _load("whoosh")
    at = [_centroid(whoosh[int(t * rate) : int(t * rate) + 4096], rate) for t in (0.3, 0.6, 1.2)]
    assert at[1] > 2 * at[0] and at[1] > 2 * at[2]


def test_drip_pitch_rises_like_a_bubble() -> None:
    drip, rate = _load("water_drip")
    start = int(0.15 * rate)
    early = _peak_freq(drip[start : start + 512], rate, 300, 4000)
    later = _peak_freq(drip[start + 1200 : start + 1712], rate, 300, 4000)
    assert later > 1.3 * early


def test_impacts_decay_and_textures_sustain() -> None:
    def envelope(name: str) -> np.ndarray:
        data, _ = _load(name)
        frames = np.array_split(_mono(data), 10)
        return np.array([np.sqrt(np.mean(f**2)) + 1e-9 for f in frames])

    slam = envelope("door_slam")
    assert slam[0] > 100 * slam[-2]  # a hit, then a fast-dying room tail
    for texture in ("rain_roof", "wind", "fire_crackle", "electric_hum"):
        env = envelope(texture)[1:-1]
        assert env.max() < 4 * env.min(), texture  # a steady bed, no gaps
    ticks = envelope("clock_tick")
    assert ticks.min() < ticks.max() / 100  # silence between ticks
