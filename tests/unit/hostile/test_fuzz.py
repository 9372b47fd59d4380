"""A seeded fuzz run over the hostile corpus' healthy session (see fuzz_run.py): a few
hundred mutations of the JSON files and of the SQLite index, each opened every way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("fuzz_run.py")
#: Cases per seed (three seeds: 240 mutated sessions in all).
CASES = 80


@pytest.mark.parametrize("seed", [1000, 2000, 3000])
def test_fuzzed_sessions_never_crash_hang_or_leak(seed: int, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(tmp_path), str(seed), str(CASES)],
        capture_output=True,
        text=True,
        timeout=900,  # generous: well under a second a case; a hang never ends
        env=env,
        check=False,
    )
    assert proc.returncode == 0, f"exit {proc.returncode} (a signal if negative)\n{proc.stderr}"
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["cases"] == CASES
    assert result["failures"] == [], "\n".join(result["failures"])
