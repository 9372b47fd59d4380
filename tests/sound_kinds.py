"""Takes of three kinds of sound, each take varied, for the find-similar tests and bench.

Pink noise (a 1/f spectrum), sines (a steady tone with a slow decay) and click trains
(short impulses at a steady rate): each take differs in level, length, pitch or rate and
seed, so a query must find its kind, not its twin.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import soundfile as sf

RATE = 44100
KINDS = ("pink", "sine", "clicks")


def pink(rng: np.random.Generator, seconds: float) -> npt.NDArray[np.float32]:
    n = int(RATE * seconds)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / RATE)
    spectrum[1:] /= np.sqrt(freqs[1:])
    spectrum[0] = 0
    signal = np.fft.irfft(spectrum, n)
    return (signal / np.max(np.abs(signal)) * rng.uniform(0.3, 0.9)).astype(np.float32)


def sine(rng: np.random.Generator, seconds: float) -> npt.NDArray[np.float32]:
    t = np.arange(int(RATE * seconds)) / RATE
    freq = rng.uniform(220, 880)
    decay = np.exp(-t * rng.uniform(0.2, 1.0))
    return (rng.uniform(0.3, 0.9) * decay * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def clicks(rng: np.random.Generator, seconds: float) -> npt.NDArray[np.float32]:
    n = int(RATE * seconds)
    signal = np.zeros(n)
    period = int(RATE / rng.uniform(4, 12))
    click = np.exp(-np.arange(64) / 8.0) * rng.choice([-1.0, 1.0], 64)
    for start in range(int(rng.uniform(0, period)), n - 64, period):
        signal[start : start + 64] += click
    return (signal * rng.uniform(0.3, 0.9)).astype(np.float32)


MAKERS = {"pink": pink, "sine": sine, "clicks": clicks}


def write_take(path: Path, kind: str, seed: int, seconds: float | None = None) -> Path:
    rng = np.random.default_rng(seed)
    length = rng.uniform(1.0, 3.0) if seconds is None else seconds
    sf.write(str(path), MAKERS[kind](rng, length), RATE, subtype="PCM_16")
    return path


def write_takes(folder: Path, per_kind: int, seconds: float | None = None) -> dict[Path, str]:
    """``per_kind`` takes of every kind in ``folder``: {path: kind}."""
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[Path, str] = {}
    for k, kind in enumerate(KINDS):
        for take in range(per_kind):
            path = folder / f"{kind}_{take:04d}.wav"
            out[write_take(path, kind, seed=1000 * k + take, seconds=seconds)] = kind
    return out
