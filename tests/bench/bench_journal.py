"""Journal benchmark: ``session show``, ``undo`` and ``redo`` over the biggest journal the
cap admits (about a million entries in 256 MiB, 40 candidates), each in a fresh process
(wall time and max RSS), the median of several runs.

The journal is generated once and cached under $FOLEY_TUI_BENCH_CACHE (default
/tmp/foley_tui_bench_journal). ``--code DIR`` runs the commands against another checkout
of foley-tui (its ``foley_tui`` package first on the children's path): the same journal,
the same machine, for a before/after pair. Runnable standalone: ``python
tests/bench/bench_journal.py [--runs N] [--code DIR]``; prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.cli_rss import CHILD  # noqa: E402
from tests.journal_fixture import write_journal  # noqa: E402

CACHE = Path(os.environ.get("FOLEY_TUI_BENCH_CACHE", "/tmp/foley_tui_bench_journal"))


def _fixture() -> tuple[Path, str]:
    data = CACHE / "data"
    marker = CACHE / "session-id"
    if marker.exists():
        return data, marker.read_text().strip()
    shutil.rmtree(CACHE, ignore_errors=True)
    CACHE.mkdir(parents=True)
    session_id, _ = write_journal(data)
    marker.write_text(session_id)
    return data, session_id


def _run(data: Path, code: Path | None, *args: str) -> tuple[float, int]:
    env = {**os.environ, "FOLEY_DATA_DIR": str(data)}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *args], capture_output=True, text=True, env=env, check=True
    )
    wall = time.perf_counter() - started
    result = json.loads(done.stdout.splitlines()[-1])
    return wall, int(result["rss_kb"])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, help="another checkout to run the commands from")
    args = parser.parse_args(argv if argv is not None else [])
    data, session_id = _fixture()
    size = (data / "sessions" / session_id / ".foley-tui" / "journal.jsonl").stat().st_size
    figures: dict[str, Any] = {"journal_mb": round(size / 1e6, 1), "runs": args.runs}
    for name, command in (
        ("show", ("session", "show", session_id, "--json")),
        ("undo", ("undo", session_id)),
        ("redo", ("redo", session_id)),
    ):
        walls, rss = [], []
        for _ in range(args.runs):
            if name == "redo":  # undone first, so every redo run redoes it
                _run(data, args.code, "undo", session_id)
            wall, peak = _run(data, args.code, *command)
            walls.append(wall)
            rss.append(peak)
            if name == "undo":  # put the decision back, so every undo run undoes it
                _run(data, args.code, "redo", session_id)
        figures[name] = {
            "median_s": round(statistics.median(walls), 3),
            "max_rss_mb": round(max(rss) / 1024, 1),
        }
        print(f"  {name}: {figures[name]}", flush=True)
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
