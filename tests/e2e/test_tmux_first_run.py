"""The README's promise, end to end: `foley-tui` on a fresh machine (empty HOME, no
FOLEY_DATA_DIR, no sound card) builds the demo session where foley looks and shows its list.

How fast is measured by tests/bench/bench_first_run.py (target: 3.0 s), not here: a
wall-clock deadline in the suite fails on a loaded machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foley_tui.demo import build as demo

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"
#: How long to wait for the list before failing: a bound for a stuck app, not a target.
PATIENCE_S = 60.0


@pytest.fixture
def tmux() -> Iterator[Callable[[], list[str]]]:
    """Makes private tmux servers (own socket, no user config); all killed afterwards.

    One server per launch: a tmux server gives every session the environment it was
    started with, so a second launch on the same server would not get its own HOME.
    """
    binary = shutil.which("tmux")
    if binary is None:
        if os.environ.get("FOLEY_TUI_REQUIRE_TMUX") == "1":
            pytest.fail("tmux is required here (FOLEY_TUI_REQUIRE_TMUX=1) but not installed")
        pytest.skip("tmux is not installed")
    servers: list[list[str]] = []

    def server() -> list[str]:
        servers.append([binary, "-L", f"foley-tui-test-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"])
        return servers[-1]

    yield server
    for base in servers:
        subprocess.run([*base, "kill-server"], capture_output=True, timeout=10)


def _first_run(tmux: list[str], home: Path, name: str) -> tuple[bool, str]:
    """Start `foley-tui` on ``home``; (whether the demo list showed, the last screen)."""
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8")
    captions = [s.caption for s in demo.SOUNDS]
    started = time.monotonic()
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", name, "-x", "120", "-y", "30", f"exec {FOLEY_TUI}"],
        env=env,
        check=True,
        timeout=10,
    )
    screen = ""
    try:
        while time.monotonic() - started < PATIENCE_S:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p", "-t", name],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout
            if demo.DEMO_TITLE in screen and sum(c[:20] in screen for c in captions) >= 10:
                return True, screen
            time.sleep(0.05)
        return False, screen
    finally:
        subprocess.run([*tmux, "send-keys", "-t", name, "q"], timeout=10)


def test_foley_tui_on_a_fresh_home_builds_and_shows_the_demo(
    tmp_path: Path, tmux: Callable[[], list[str]]
) -> None:
    home = tmp_path / "fresh-home"
    shown, screen = _first_run(tmux(), home, "first")
    assert shown, f"the demo list never appeared; the screen was:\n{screen}"
    # It was built where foley looks by default, under the fresh HOME.
    sessions = home / ".local" / "share" / "foley" / "sessions"
    assert len([p for p in sessions.iterdir() if p.is_dir()]) == 1
