"""Every case of the hostile corpus, opened in a child process the way the app and the
CLI read a session: no traceback, no hang, no signal, nothing outside the data dir
read into an export or changed, and a clear message naming what is wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .corpus import CASES, SECRET_TEXT, SID, build

PROBE = Path(__file__).with_name("probe.py")
#: Generous: a healthy probe takes well under a second; a hang never ends.
TIMEOUT_S = 120


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder`` (links by their target, files by their bytes)."""
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes()
        elif path.is_dir():
            out[rel] = "dir"
    return out


def run_probe(data_dir: Path, other: Path) -> dict[str, Any]:
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir), "PYTHONPATH": str(Path.cwd())}
    proc = subprocess.run(
        [sys.executable, str(PROBE), str(data_dir), SID, str(other)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, f"exit {proc.returncode} (a signal if negative)\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_session(case: str, tmp_path: Path) -> None:
    data_dir, outside, other = tmp_path / "data", tmp_path / "outside", tmp_path / "other"
    build(case, data_dir, outside)
    before = snapshot(outside)
    result = run_probe(data_dir, other)
    # Nothing outside the data dir was changed, deleted or created...
    assert snapshot(outside) == before
    # ...or read into a backup.
    if result["export"] is not None:
        assert SECRET_TEXT not in result["export"]
    text = " ".join(result["messages"]).lower()
    for word in CASES[case][1]:
        assert word.lower() in text, f"{word!r} not in {result['messages']}"
    # One bad file is a problem of that file: the session and the list keep working.
    if case != "session-link-outside":
        assert SID in result["listed"]
        assert {"c0", "c1", "c2"} <= set(result["rows"]) or "link-outside" in case
    else:
        assert SID not in result["listed"]
    # Hearing safety: a saved volume is never above what the keys allow, and no
    # decoded sample is non-finite (NaN > x is False: compare the other way round).
    assert result.get("volume_db") is None or -40 <= result["volume_db"] <= 12
    for sound_id, worst in result.get("peaks", {}).items():
        assert 0.0 <= worst <= 1.0, (sound_id, worst)


def test_a_nan_onset_foley_wrote_is_exported_and_restored_verbatim(tmp_path: Path) -> None:
    data_dir, outside, other = tmp_path / "data", tmp_path / "outside", tmp_path / "other"
    root = build("nan-onset", data_dir, outside)
    raw = (root / "picks" / "c0.json").read_bytes()
    result = run_probe(data_dir, other)
    assert result.get("reimported"), result["messages"]
    doc = json.loads(result["export"])
    assert doc["schema_version"] == 2 and "c0" in doc["raw"]["picks"]
    assert (other / "sessions" / SID / "picks" / "c0.json").read_bytes() == raw


def test_an_imported_volume_is_clamped(tmp_path: Path) -> None:
    data_dir, outside, other = tmp_path / "data", tmp_path / "outside", tmp_path / "other"
    build("volume-too-loud", data_dir, outside)
    result = run_probe(data_dir, other)
    assert result["volume_db"] == 12.0
