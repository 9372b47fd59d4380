"""The Broadcast WAV writer, read back by ffprobe, wavinfo and libsndfile."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.spot.bwf import Bext, BwfWriter, ixml
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
