"""End to end: the installed ``foley-tui open`` in a real terminal (tmux) on a seeded
session. Move, pick, set a layer and an onset, quit; check the foley files byte for byte;
restart and check the cursor came back."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foley_tui.store import encode_key
from tests.ui.seed import seed_session

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"


class Tmux:
    """A private tmux server (own socket, no user config) running one app."""

    def __init__(self, binary: str) -> None:
        self.base = [binary, "-L", f"foley-tui-e2e-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]

    def start(self, command: list[str], env: dict[str, str]) -> None:
        shell = " ".join(f"'{part}'" for part in command)
        # Size the pane first, then run the app in it: started directly, a loaded machine
        # can run the app before tmux applies -x/-y and the resize signal gets lost.
        subprocess.run(
            [*self.base, "new-session", "-d", "-s", "e2e", "-x", "110", "-y", "30", "cat"],
            env=env,
            check=True,
            timeout=10,
        )
        subprocess.run(
            [*self.base, "respawn-pane", "-k", "-t", "e2e", f"exec {shell}"],
            env=env,
            check=True,
            timeout=10,
        )

    def screen(self) -> str:
        done = subprocess.run(
            [*self.base, "capture-pane", "-p", "-t", "e2e"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return done.stdout

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", "-t", "e2e", *keys], check=True, timeout=10)

    def wait_for(self, predicate: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")

    def running(self) -> bool:
        done = subprocess.run([*self.base, "has-session", "-t", "e2e"], capture_output=True)
        return done.returncode == 0

    def wait_exit(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.running():
            if time.monotonic() > deadline:
                raise AssertionError(f"the app did not quit; the screen was:\n{self.screen()}")
            time.sleep(0.05)

    def kill(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def tmux() -> Iterator[Callable[[], Tmux]]:
    binary = shutil.which("tmux")
    if binary is None:
        if os.environ.get("FOLEY_TUI_REQUIRE_TMUX") == "1":
            pytest.fail("tmux is required here (FOLEY_TUI_REQUIRE_TMUX=1) but not installed")
        pytest.skip("tmux is not installed")
    servers: list[Tmux] = []

    def make() -> Tmux:
        servers.append(Tmux(binary))
        return servers[-1]

    yield make
    for server in servers:
        server.kill()


def test_pick_place_quit_and_resume_in_tmux(data_dir: Path, tmux: Callable[[], Tmux]) -> None:
    assert FOLEY_TUI.exists(), f"foley-tui is not installed next to {sys.executable}"
    _, session_id = seed_session(data_dir)
    picks = data_dir / "sessions" / session_id / "picks"
    # The isolated env of this test (HOME, XDG dirs, FOLEY_DATA_DIR from conftest).
    # COLUMNS/LINES (set by other tests' runners) would override the pane's real size.
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8")
    command = [str(FOLEY_TUI), "open", "Storm scene", "--no-audio"]

    first = tmux()
    first.start(command, env)
    first.wait_for(lambda s: "Storm scene" in s and "small bird chirp" in s, "the list")
    first.keys("j", "p")  # pick row 2, move on to row 3
    first.wait_for(lambda s: "✔ 1" in s, "the pick in the status line")
    first.keys("3", "o")  # layer ambience on row 3 (picks it), then edit its onset
    first.wait_for(lambda s: "Onset for" in s, "the onset modal")
    first.keys("1:05.5", "Enter")
    first.wait_for(lambda s: "Onset for" not in s and "1:05.5" in s, "the onset in the row")
    first.keys("q")
    first.wait_exit()

    def read(sound_id: str) -> bytes:
        return (picks / encode_key(sound_id)).read_bytes()

    # foley's exact file format: json.dumps(indent=4), no trailing newline.
    expected: dict[str, object] = {"sound_id": "bbc:1001", "layer": None, "onset": None}
    assert read("bbc:1001") == json.dumps(expected, indent=4).encode()
    expected = {"sound_id": "freesound:1002", "layer": "ambience", "onset": 65.5}
    assert read("freesound:1002") == json.dumps(expected, indent=4).encode()
    assert sorted(p.name for p in picks.iterdir() if not p.name.startswith(".")) == sorted(
        [encode_key("bbc:1001"), encode_key("freesound:1002")]
    )

    second = tmux()
    second.start([str(FOLEY_TUI), "open", session_id[:10], "--no-audio"], env)
    # The details pane ("id  <sound id>") shows the highlighted candidate: the cursor came
    # back to row 3 (while columns load the list itself shows ids, so wait for captions).
    restored = re.compile(r"\bid\s{2,}freesound:1002")
    second.wait_for(
        lambda s: "footsteps on gravel" in s and "✔ 2" in s and bool(restored.search(s)),
        "the restored cursor",
    )
    second.keys("q")
    second.wait_exit()
