"""The CLI verbs on every case of the hostile corpus, as real processes: no traceback,
no hang, no signal, no raw control character on the terminal, nothing changed outside."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.hostile.corpus import CASES, SID, build
from tests.unit.hostile.test_hostile_sessions import snapshot

VERBS: list[list[str]] = [
    ["sessions"],
    ["session", "show", SID],
    ["picks", SID],
    ["session", "export", SID, "{tmp}/out.json"],
    ["pick", SID, "c2", "--layer", "music", "--onset", "2"],
    ["undo", SID],
]
#: The cases every verb runs on (the in-process corpus test covers all of them): each
#: kind of file, link and value once, and the terminal escapes.
CLI_CASES = [
    "fifo-candidate",
    "fifo-pick",
    "fifo-journal",
    "fifo-meta",
    "dev-zero-candidate",
    "candidate-links-outside",
    "huge-candidate",
    "deep-nesting-candidate",
    "journal-garbage",
    "giant-int-onset",
    "nan-onset",
    "lone-surrogate-caption",
    "lone-surrogate-title",
    "date-out-of-range",
    "rejects-link-outside",
    "state-link-outside",
    "session-link-outside",
    "title-escapes",
    "id-escapes",
]
FOLEY_TUI = str(Path(sys.executable).with_name("foley-tui"))
#: Exit statuses a verb may end with: success, a refused operation, a usage error.
CLEAN_EXITS = {0, 1, 2}
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


def test_the_cli_cases_are_corpus_cases() -> None:
    assert set(CLI_CASES) <= set(CASES)


def run_cli(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [FOLEY_TUI, *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=120,  # generous: a verb takes under a second; a hang never ends
        env=env,
        check=False,
    )


@pytest.mark.parametrize("case", CLI_CASES)
def test_cli_verbs_on_a_hostile_session(case: str, tmp_path: Path) -> None:
    data_dir, outside = tmp_path / "data", tmp_path / "outside"
    build(case, data_dir, outside)
    before = snapshot(outside)
    for verb in VERBS:
        args = [part.replace("{tmp}", str(tmp_path)) for part in verb]
        proc = run_cli(args, data_dir)
        shown = f"{args}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        assert proc.returncode in CLEAN_EXITS, shown
        assert "Traceback" not in proc.stderr, shown
        for char in RAW_CONTROLS:
            assert char not in proc.stdout and char not in proc.stderr, shown
    assert snapshot(outside) == before
    export = tmp_path / "out.json"
    if export.exists():
        assert "TOP-SECRET" not in export.read_text()
