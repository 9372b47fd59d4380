"""Audio fixtures, generated here (no binary files in the repo): each format, odd rates,
channel counts, and broken files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

# name -> (format, subtype, rate, channels, seconds)
SPECS: dict[str, tuple[str, str, int, int, float]] = {
    "wav": ("WAV", "PCM_16", 44100, 2, 0.5),
    "flac": ("FLAC", "PCM_16", 48000, 2, 0.5),
    "ogg": ("OGG", "VORBIS", 44100, 2, 0.5),
    "opus": ("OGG", "OPUS", 48000, 2, 0.5),
    "mp3": ("MP3", "MPEG_LAYER_III", 44100, 2, 0.5),
    "mono8k": ("WAV", "PCM_16", 8000, 1, 0.5),
    "stereo96k": ("FLAC", "PCM_24", 96000, 2, 0.5),
    "six": ("WAV", "FLOAT", 48000, 6, 0.5),
}


def tone(rate: int, channels: int, seconds: float, freq: float = 440.0) -> np.ndarray:
    """A sine per channel (channel k at freq*(k+1)), amplitude 0.5, float32."""
    t = np.arange(int(rate * seconds)) / rate
    cols = [0.5 * np.sin(2 * np.pi * freq * (k + 1) * t) for k in range(channels)]
    return np.stack(cols, axis=1).astype(np.float32)


def write(path: Path, name: str) -> Path:
    fmt, subtype, rate, channels, seconds = SPECS[name]
    sf.write(str(path), tone(rate, channels, seconds), rate, format=fmt, subtype=subtype)
    return path


@pytest.fixture(scope="session")
def audio_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every fixture file, written once per session, with no file extension (blobs have
    none; the format must be sniffed)."""
    folder = tmp_path_factory.mktemp("audio-fixtures")
    files = {name: write(folder / name, name) for name in SPECS}
    files["empty"] = folder / "empty"
    files["empty"].write_bytes(b"")
    files["not_audio"] = folder / "not_audio"
    files["not_audio"].write_bytes(b"<html><body>this is a web page, not audio</body></html>")
    # A WAV whose data chunk is cut short: the header promises more than is there.
    whole = files["wav"].read_bytes()
    files["truncated"] = folder / "truncated"
    files["truncated"].write_bytes(whole[: len(whole) // 3])
    # A FLAC cut mid-stream.
    flac = files["flac"].read_bytes()
    files["truncated_flac"] = folder / "truncated_flac"
    files["truncated_flac"].write_bytes(flac[: len(flac) // 2])
    # A valid WAV header with no frames at all.
    files["no_frames"] = folder / "no_frames"
    sf.write(str(files["no_frames"]), np.zeros((0, 2), np.float32), 44100, format="WAV")
    return files
