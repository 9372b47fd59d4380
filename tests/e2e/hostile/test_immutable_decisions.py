"""The report's case for real: ``chattr +i`` on a namespace folder or on the journal
between two decisions, through the CLI. The refused decision is rolled back whole (the
sound keeps its one verdict; before, ``reject`` after ``chattr +i picks`` left the reject
written and the sound a conflict nobody journaled), or what it leaves is said.

chattr needs root and a file system with the immutable flag (ext4, xfs, btrfs); without
them the same steps are covered by injected failures in
``tests/unit/store/test_refused_decisions.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from foley_tui.store import SessionService

A = "freesound:1"
FILE = "freesound%3A1.json"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "foley_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )


def _chattr(flag: str, path: Path) -> bool:
    tool = shutil.which("chattr")
    if tool is None:
        return False
    return subprocess.run([tool, flag, str(path)], capture_output=True).returncode == 0


@pytest.fixture
def immutable() -> Iterator[list[Path]]:
    """Paths made immutable by the test, made mutable again whatever happens."""
    made: list[Path] = []
    yield made
    for path in made:
        _chattr("-i", path)


def _session(data_dir: Path) -> tuple[str, Path]:
    service = SessionService(data_dir)
    session_id = service.create("immutable")
    service.get(session_id).cache_candidates([{"sound": {"id": A, "caption": "door"}}])
    root = data_dir / "sessions" / session_id
    for name in ("picks", "rejects"):
        (root / name).mkdir(exist_ok=True)
    return session_id, root


@pytest.mark.parametrize(
    ("first", "frozen", "then", "kept"),
    [
        (["pick"], "picks", ["reject", "--reason", "hiss"], ("picks",)),
        (["reject"], "rejects", ["pick"], ("rejects",)),
        (["pick"], "rejects", ["reject"], ("picks",)),
        (["pick"], ".foley-tui/journal.jsonl", ["reject"], ("picks",)),
    ],
    ids=["picks-then-reject", "rejects-then-pick", "rejects-refuse-the-reject", "journal"],
)
def test_a_decision_refused_by_an_immutable_folder_is_rolled_back(
    data_dir: Path,
    immutable: list[Path],
    first: list[str],
    frozen: str,
    then: list[str],
    kept: tuple[str, ...],
) -> None:
    session_id, root = _session(data_dir)
    done = _run(first[0], session_id, A, *first[1:])
    assert done.returncode == 0, done.stderr
    target = root / frozen
    if not _chattr("+i", target):
        pytest.skip("chattr +i is not available here (needs root and ext4/xfs/btrfs)")
    immutable.append(target)
    journal = root / ".foley-tui" / "journal.jsonl"
    entries = journal.read_bytes().count(b"\n")
    refused = _run(then[0], session_id, A, *then[1:])
    assert refused.returncode == 2, (refused.stdout, refused.stderr)
    assert "could not" in refused.stderr and "Operation not permitted" in refused.stderr
    assert "Traceback" not in refused.stderr
    held = tuple(name for name in ("picks", "rejects") if (root / name / FILE).exists())
    assert held == kept, refused.stderr
    assert journal.read_bytes().count(b"\n") == entries  # nothing happened: nothing to undo
    listed = _run("picks", session_id)
    assert (A in listed.stdout) == ("picks" in kept)
