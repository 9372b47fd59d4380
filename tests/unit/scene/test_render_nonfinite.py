"""``render-scene`` of picks whose files hold NaN, inf or DOUBLE 1e300: the file written
holds no non-finite sample and nothing above the ceiling, its peak is the peak the verb
reports, and each such file is named in a warning."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.audio.bus import CEILING_DB
from foley_tui.cli import main
from foley_tui.store import SessionService
from foley_tui.store.local import candidate_from_audio

RATE = 48000


def _session(data_dir: Path, folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    service = SessionService(data_dir)
    session_id = service.create("hostile audio")
    store = service.get(session_id)
    second = np.arange(RATE)[:, None]
    files = {
        "allnan": (np.full((RATE, 2), np.nan, np.float32), "FLOAT"),
        "huge": (np.full((RATE, 2), 1e300), "DOUBLE"),
        "square": (np.where((second // 24) % 2 == 0, 1.0, -1.0).repeat(2, 1), "FLOAT"),
        "sprinkled": (
            np.where(second % 7 == 0, np.inf, 0.5 * np.sin(second / 9.0)).repeat(2, 1),
            "FLOAT",
        ),
    }
    for i, (name, (data, subtype)) in enumerate(files.items()):
        path = folder / f"{name}.wav"
        sf.write(str(path), data, RATE, subtype=subtype)
        candidate = candidate_from_audio(path)
        store.cache_candidates([candidate])
        sid = candidate["sound"]["id"]
        store.picks_ns[sid] = {"sound_id": sid, "layer": "sfx_fg", "onset": 0.25 * i}
    return session_id


@pytest.mark.parametrize("subtype", ["PCM_24", "FLOAT"])
def test_render_of_non_finite_picks_holds_the_ceiling_and_reports_the_file_peak(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], subtype: str
) -> None:
    session_id = _session(data_dir, tmp_path / "audio")
    out = tmp_path / "mix.wav"
    args = ["render-scene", session_id, "-o", str(out), "--rate", str(RATE)]
    assert main([*args, "--float"] if subtype == "FLOAT" else args) == 0
    captured = capsys.readouterr()
    mix, _ = sf.read(str(out), dtype="float64")
    assert sf.info(str(out)).subtype == subtype
    assert np.isfinite(mix).all()
    file_peak = float(np.abs(mix).max())
    ceiling = 10 ** (CEILING_DB / 20)
    assert file_peak <= ceiling
    match = re.search(r"peak (-?[\d.]+) dBFS", captured.out)
    assert match, captured.out
    assert float(match.group(1)) == pytest.approx(20 * math.log10(file_peak), abs=0.05)
    for name in ("allnan.wav", "huge.wav", "sprinkled.wav"):
        assert re.search(rf"non-finite samples in {name}: \d+ replaced by silence", captured.err), (
            captured.err
        )
    assert "square.wav" not in captured.err
