"""``weave`` (foley's woven mix, written whole) and ``scene --foley-timeline`` write through
the same partial files as ``render-scene``: ``.<output>.<pid>.foley-tui-partial``, so one
killed mid-write leaves a file the next write to that folder sweeps."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from foley_tui.cli import main
from foley_tui.scene.bounce import PARTIAL_SUFFIX
from tests.woven_fixtures import make_woven_session

RATE = 48000
ROOT = Path(__file__).resolve().parents[3]

#: A weave killed once its file is written, before it is renamed into place.
KILLED_WEAVE = """
import os, sys
import soundfile
real = soundfile.write
def write(*args, **kwargs):
    real(*args, **kwargs)
    os._exit(9)  # SIGKILL-like: no finally, no cleanup
soundfile.write = write
from foley_tui.cli import main
main(["weave", sys.argv[1], "-o", sys.argv[2]])
"""


def _partials(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(PARTIAL_SUFFIX))


def test_a_killed_weave_leaves_a_partial_the_next_sweeps(data_dir: Path, tmp_path: Path) -> None:
    woven = make_woven_session(data_dir, tmp_path / "audio", RATE)
    out = tmp_path / "out"
    out.mkdir()
    killed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(KILLED_WEAVE), woven.session_id, str(out / "a.wav")],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert killed.returncode == 9, killed.stderr[-2000:]
    [left] = _partials(out)
    assert left.startswith(".a.wav.")  # ours, named with the pid of the weave that died
    assert not (out / "a.wav").exists()
    assert main(["weave", woven.session_id, "-o", str(out / "b.wav")]) == 0
    assert _partials(out) == []
    assert sorted(p.name for p in out.iterdir()) == ["b.wav"]
    timeline = out / "tl.json"
    assert main(["scene", woven.session_id, "--foley-timeline", "-o", str(timeline)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["b.wav", "tl.json"]
