"""The Broadcast WAV writer, read back by ffprobe, wavinfo and libsndfile."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.spot.bwf import Bext, BwfWriter, ixml, wave_summary
from tests.spot_check import ffprobe, ixml_user


@pytest.mark.parametrize(
    ("fmt", "channels", "codec"),
    [("PCM_16", 1, "pcm_s16le"), ("PCM_24", 2, "pcm_s24le"), ("FLOAT", 6, "pcm_f32le")],
)
def test_chunks_read_back(tmp_path: Path, fmt: str, channels: int, codec: str) -> None:
    rng = np.random.default_rng(1)
    data = (rng.random((4801, channels), dtype=np.float32) - 0.5).astype(np.float32)
    path = tmp_path / "x.wav"
    text = ixml({"PROJECT": "p", "SCENE": "a door <slams> & shuts"}, {"LAYER": "sfx_fg"}, ["a"])
    with BwfWriter(
        path, 48000, channels, sample_format=fmt, bext=Bext("Door", 2**33 + 5), ixml_text=text
    ) as writer:
        for block in np.array_split(data, 7):
            writer.write(block)
    probe = ffprobe(path)
    assert probe["streams"][0]["codec_name"] == codec
    assert probe["streams"][0]["channels"] == channels
    assert probe["format"]["tags"]["time_reference"] == str(2**33 + 5)
    assert probe["format"]["tags"]["comment"] == "Door"
    assert ixml_user(path)["@SCENE"] == "a door <slams> & shuts"
    back, rate = sf.read(str(path), dtype="float32", always_2d=True)
    assert rate == 48000 and back.shape == data.shape
    tolerance = {"PCM_16": 2.0 / 32768, "PCM_24": 1.0 / 8388608, "FLOAT": 0.0}[fmt]
    assert np.max(np.abs(back - data)) <= tolerance + 1e-9
    assert path.stat().st_size % 2 == 0


def test_sixteen_bit_is_dithered_and_reproducible(tmp_path: Path) -> None:
    quiet = np.full((48000, 1), 0.3 / 32768, dtype=np.float32)  # a third of an LSB
    out = []
    for name in ("a.wav", "b.wav"):
        path = tmp_path / name
        with BwfWriter(path, 48000, 1, sample_format="PCM_16", bext=Bext("q", 0)) as writer:
            writer.write(quiet)
        out.append(sf.read(str(path), dtype="int16")[0])
    assert np.array_equal(out[0], out[1])
    # Rounding would give all zeros; TPDF dither keeps the level on average.
    assert out[0].mean() == pytest.approx(0.3, abs=0.05) and set(np.unique(out[0])) > {0}


def test_twenty_four_bit_samples_are_rounded_to_the_nearest_step_and_clipped(
    tmp_path: Path,
) -> None:
    """Each 24-bit sample is the float scaled by 2**23, rounded half to even and clipped
    to the format's range (what libsndfile reads back, as 32-bit integers, shifted)."""
    step = 1.0 / 8388608
    edges = [0.0, 0.5 * step, 1.5 * step, -0.5 * step, -1.5 * step, 2.5 * step, step / 3]
    edges += [1.0, -1.0, 1.5, -1.5, 1.0 - step, -1.0 + step, 0.999, -0.999, np.inf, -np.inf]
    rng = np.random.default_rng(3)
    noise = (rng.standard_normal((3000, 2)) * 0.4).astype(np.float32)
    data = np.concatenate([np.array(edges, dtype=np.float32).reshape(-1, 1).repeat(2, 1), noise])
    path = tmp_path / "x.wav"
    with BwfWriter(path, 48000, 2, sample_format="PCM_24", bext=Bext("e", 0)) as writer:
        writer.write(data[:5])
        writer.write(data[5:])
    back = sf.read(str(path), dtype="int32")[0] >> 8
    want = np.clip(np.rint(data.astype(np.float64) * 8388608.0), -8388608, 8388607)
    assert np.array_equal(back, want.astype(np.int64))


@pytest.mark.parametrize("fmt", ["PCM_16", "PCM_24", "FLOAT"])
@pytest.mark.parametrize("channels", [1, 2, 6])
@pytest.mark.parametrize("frames", [0, 1, 4801])
def test_the_summary_known_beforehand_is_the_written_files_header(
    tmp_path: Path, fmt: str, channels: int, frames: int
) -> None:
    """What the AAF's WAVEDescriptor keeps of a copy before it is written is what
    pyaaf2 reads from the file once it is (odd sizes padded, iXML in UTF-8)."""
    from aaf2.ama import get_wave_fmt

    bext = Bext("Door é", 48000 * 3600, coding_history="A=PCM,F=48000,W=24,M=mono")
    text = ixml({"PROJECT": "p", "NOTE": "a door <slams>"}, {"LAYER": "sfx_fg"}, ["é"] * channels)
    path = tmp_path / "x.wav"
    with BwfWriter(path, 44100, channels, sample_format=fmt, bext=bext, ixml_text=text) as w:
        w.write(np.zeros((frames, channels), dtype=np.float32))
    expected = wave_summary(44100, channels, frames, sample_format=fmt, bext=bext, ixml_text=text)
    assert bytes(get_wave_fmt(str(path))) == expected
