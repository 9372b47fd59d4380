"""The listing verbs behave as Unix tools in a pipeline: when the reader stops early
(`foley-tui candidates S | head`), they end quietly, with no error and no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from foley_tui.store import SessionService
from tests.ui.seed import candidate

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"


@pytest.fixture
def big_session(data_dir: Path) -> str:
    """Enough candidates that a listing overflows a pipe's buffer (64 KiB on Linux)."""
    service = SessionService(data_dir)
    session_id = service.create("a long list")
    service.get(session_id).cache_candidates(candidate(i, None) for i in range(2500))
    return session_id


@pytest.mark.parametrize("verb", [["candidates"], ["sessions"], ["candidates", "--json"]])
def test_a_reader_that_stops_early_ends_the_listing_quietly(
    big_session: str, data_dir: Path, verb: list[str]
) -> None:
    argv = [str(FOLEY_TUI), verb[0], *([big_session] if verb[0] == "candidates" else []), *verb[1:]]
    if verb[0] == "sessions":  # a long list of sessions
        service = SessionService(data_dir)
        for i in range(400):
            service.create(f"session {i:04d} " + "with a title long enough to fill a pipe " * 5)
    done = subprocess.run(
        ["bash", "-c", '"$@" | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"', "bash", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "FOLEY_DATA_DIR": str(data_dir)},
    )
    assert done.stderr == ""  # no "Broken pipe" error, no traceback
    assert done.stdout.strip() == "141"  # as a Unix tool the reader stopped: SIGPIPE's status
