"""The README's promise, end to end: `foley-tui` on a fresh machine (empty HOME, no
FOLEY_DATA_DIR, no sound card) shows the demo session's list within 3 seconds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from foley_tui import demo

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"
DEADLINE_S = 3.0  # the acceptance figure, not a tuning threshold


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    """A private tmux server (own socket, no user config), killed afterwards."""
    binary = shutil.which("tmux")
    if binary is None:
        if os.environ.get("FOLEY_TUI_REQUIRE_TMUX") == "1":
            pytest.fail("tmux is required here (FOLEY_TUI_REQUIRE_TMUX=1) but not installed")
        pytest.skip("tmux is not installed")
    base = [binary, "-L", f"foley-tui-test-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]
    yield base
    subprocess.run([*base, "kill-server"], capture_output=True, timeout=10)


def test_foley_tui_shows_the_demo_within_3_seconds(tmp_path: Path, tmux: list[str]) -> None:
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8")
    command = f"exec {FOLEY_TUI}"
    captions = [s.caption for s in demo.SOUNDS]
    started = time.monotonic()
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "first", "-x", "120", "-y", "30", command],
        env=env,
        check=True,
        timeout=10,
    )
    screen = ""
    shown_at = None
    while time.monotonic() - started < DEADLINE_S + 5:  # look a little longer, to report
        screen = subprocess.run(
            [*tmux, "capture-pane", "-p", "-t", "first"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
        if demo.DEMO_TITLE in screen and sum(c[:20] in screen for c in captions) >= 10:
            shown_at = time.monotonic() - started
            break
        time.sleep(0.05)
    assert shown_at is not None, f"the demo list never appeared; the screen was:\n{screen}"
    print(f"demo list on screen after {shown_at:.2f} s")
    assert shown_at <= DEADLINE_S, f"the demo list took {shown_at:.2f} s:\n{screen}"
    # It was built where foley looks by default, under the fresh HOME.
    sessions = home / ".local" / "share" / "foley" / "sessions"
    assert len([p for p in sessions.iterdir() if p.is_dir()]) == 1
    subprocess.run([*tmux, "send-keys", "-t", "first", "q"], timeout=10)
