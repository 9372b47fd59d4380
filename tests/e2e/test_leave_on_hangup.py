"""Closing the terminal leaves cleanly: the app runs under `make` in tmux (as `make demo`
does), the tmux server is killed, and the process must be gone (not spinning on a hung-up
tty) with its cursor saved. How fast it goes is measured by tests/bench/bench_leave.py."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from foley_tui.demo import build as demo
from foley_tui.store import SessionService
from tests.procs import alive, find_below

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"
#: Bounds for a stuck app, not targets.
PATIENCE_S = 60.0

DETAILS_ID = re.compile(r"▏ id\s+(\S+)")


def _tmux() -> list[str]:
    binary = shutil.which("tmux")
    if binary is None:
        if os.environ.get("FOLEY_TUI_REQUIRE_TMUX") == "1":
            pytest.fail("tmux is required here (FOLEY_TUI_REQUIRE_TMUX=1) but not installed")
        pytest.skip("tmux is not installed")
    return [binary, "-L", f"foley-tui-leave-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]


def _wait(condition: object, what: str, screen: object = None) -> None:
    assert callable(condition)
    deadline = time.monotonic() + PATIENCE_S
    while not condition():
        if time.monotonic() > deadline:
            shown = screen() if callable(screen) else ""
            raise AssertionError(f"timed out waiting for {what}; the screen was:\n{shown}")
        time.sleep(0.05)


def settle(read: Callable[[], str | None]) -> str | None:
    """What ``read()`` shows once it has stopped changing (three equal reads 0.3 s apart)."""
    seen: list[str | None] = [read()]

    def stable() -> bool:
        time.sleep(0.3)
        seen.append(read())
        return len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]

    _wait(stable, "the screen to settle")
    return seen[-1]


@pytest.mark.parametrize("how", ["kill-server", "sighup"])
def test_losing_the_terminal_under_make_saves_the_cursor_and_exits(
    tmp_path: Path, how: str
) -> None:
    """``kill-server``: the terminal disappears and no signal reaches the app (make is
    between it and the shell); ``sighup``: the app itself gets SIGHUP."""
    tmux = _tmux()
    home = tmp_path / "fresh-home"
    home.mkdir()
    makefile = tmp_path / "Makefile"
    makefile.write_text(f"demo:\n\t{FOLEY_TUI} demo\n")
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8")

    def screen() -> str:
        done = subprocess.run(
            [*tmux, "capture-pane", "-p", "-t", "leave"], capture_output=True, text=True
        )
        return done.stdout

    def shown_id() -> str | None:
        match = DETAILS_ID.search(screen())
        return match.group(1) if match else None

    command = f"exec make -f {makefile} demo"
    size = ["-x", "120", "-y", "30", "-c", str(tmp_path)]
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "leave", *size, command],
        env=env,
        check=True,
        timeout=30,
    )
    try:
        _wait(lambda: demo.DEMO_TITLE in screen() and shown_id(), "the demo list", screen)
        # Loaded and settled: the start-up cursor (restored once the rows are in) is the
        # one the keys move from.
        _wait(lambda: "⧗" not in screen(), "the session to finish loading", screen)
        first = settle(shown_id)
        make_pid = int(
            subprocess.run(
                [*tmux, "display-message", "-p", "-t", "leave", "#{pane_pid}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        apps = find_below(make_pid, b"foley-tui")
        assert len(apps) == 1, f"expected one foley-tui under make, found {apps}"
        subprocess.run([*tmux, "send-keys", "-t", "leave", "j", "j", "j"], check=True)
        _wait(lambda: shown_id() not in (None, first), "the cursor to move", screen)
        where = settle(shown_id)
        app = apps[0]
        if how == "sighup":
            os.kill(app, signal.SIGHUP)
            _wait(lambda: not alive(app), "foley-tui to exit on SIGHUP", screen)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)
    try:
        _wait(lambda: not alive(app), "foley-tui to exit after its terminal was killed")
    finally:
        if alive(app):  # do not leave a spinning process behind a failed test
            os.kill(app, signal.SIGKILL)
    service = SessionService(home / ".local" / "share" / "foley")
    (info,) = service.list()
    assert service.get(info.session_id, touch=False).meta().cursor == where
    assert where != first


def test_stdin_at_its_end_leaves_at_once(tmp_path: Path) -> None:
    """No input can ever come (``< /dev/null``): the app leaves instead of spinning."""
    tmux = _tmux()
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8")
    script = f"{FOLEY_TUI} demo < /dev/null; echo EXIT=$?; sleep 60"
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "eof", "-x", "120", "-y", "30", "sh", "-c", script],
        env=env,
        check=True,
        timeout=30,
    )

    def screen() -> str:
        done = subprocess.run(
            [*tmux, "capture-pane", "-p", "-t", "eof"], capture_output=True, text=True
        )
        return done.stdout

    try:
        _wait(lambda: "EXIT=" in screen(), "foley-tui to leave", screen)
        shown = screen()
        assert "EXIT=129" in shown and "foley-tui: left: end of input" in shown, shown
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)
