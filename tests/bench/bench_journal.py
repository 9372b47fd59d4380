"""Journal benchmark: ``session show``, ``undo`` and ``redo`` over the biggest journal the
cap admits (about a million entries in 256 MiB, 40 candidates), each in a fresh process
(wall time and max RSS), the median of several runs.

The journal is generated once and cached under $FOLEY_TUI_BENCH_CACHE (default
/tmp/foley_tui_bench_journal). ``--code DIR`` runs the commands against another checkout
of foley-tui (its ``foley_tui`` package first on the children's path): the same journal,
the same machine, for a before/after pair. The same run measures two baselines the same
way: a bare interpreter (``python -c pass``) and ``foley-tui --version`` (the CLI with
every verb's parser built), and records the load average it ran at. Runnable standalone:
``python tests/bench/bench_journal.py [--runs N] [--code DIR]``; prints JSON.
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


def _env(data: Path, code: Path | None) -> dict[str, str]:
    env = {**os.environ, "FOLEY_DATA_DIR": str(data)}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def _run(data: Path, code: Path | None, *args: str) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        capture_output=True,
        text=True,
        env=_env(data, code),
        check=True,
    )
    wall = time.perf_counter() - started
    result = json.loads(done.stdout.splitlines()[-1])
    return wall, int(result["rss_kb"])


def _timed(data: Path, code: Path | None, argv: list[str]) -> float:
    """Wall time of ``argv`` in a fresh process (a baseline, timed as :func:`_run`)."""
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=_env(data, code), check=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--code",
        type=Path,
        action="append",
        help="another checkout to run the commands from; twice or more: each run goes "
        "through every checkout in turn (interleaved, so a load that changes meanwhile "
        "weighs on each alike)",
    )
    args = parser.parse_args(argv if argv is not None else [])
    codes: list[Path | None] = args.code or [None]
    data, session_id = _fixture()
    size = (data / "sessions" / session_id / ".foley-tui" / "journal.jsonl").stat().st_size
    figures: dict[str, Any] = {
        "journal_mb": round(size / 1e6, 1),
        "runs": args.runs,
        "load_before": [round(x, 1) for x in os.getloadavg()],
    }
    version = [sys.executable, "-c", "from foley_tui.cli import main; main(['--version'])"]
    walls: dict[tuple[str, str], list[float]] = {}
    rss: dict[tuple[str, str], list[int]] = {}
    for _ in range(args.runs):
        for code in codes:
            label = str(code) if code is not None else "this checkout"
            # The redo puts back what the undo took: every run starts from the same state.
            for name, command in (
                ("show", ("session", "show", session_id, "--json")),
                ("undo", ("undo", session_id)),
                ("redo", ("redo", session_id)),
            ):
                wall, peak = _run(data, code, *command)
                walls.setdefault((label, name), []).append(wall)
                rss.setdefault((label, name), []).append(peak)
            for name, baseline in (
                ("baseline python -c pass", [sys.executable, "-c", "pass"]),
                ("baseline --version", version),
            ):
                walls.setdefault((label, name), []).append(_timed(data, code, baseline))
    for (label, name), times in walls.items():
        entry: dict[str, Any] = {"median_s": round(statistics.median(times), 3)}
        if (label, name) in rss:
            entry["max_rss_mb"] = round(max(rss[label, name]) / 1024, 1)
        figures.setdefault(label, {})[name] = entry
    figures["load_after"] = [round(x, 1) for x in os.getloadavg()]
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
