"""A machine without an output device: the app says so plainly and how to choose one,
through the real PortAudio (ALSA pointed at a card that does not exist)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.e2e.test_tmux_first_run import FOLEY_TUI, PATIENCE_S
from tests.e2e.test_tmux_first_run import tmux as tmux

#: ALSA's default PCM and control on card 99: PortAudio finds no default output.
NO_CARD = "pcm.!default { type hw card 99 }\nctl.!default { type hw card 99 }\n"


def _screen(server: list[str], name: str) -> str:
    return subprocess.run(
        [*server, "capture-pane", "-p", "-t", name], capture_output=True, text=True, timeout=10
    ).stdout


def _wait(server: list[str], name: str, shows: Callable[[str], bool]) -> str:
    started, screen = time.monotonic(), ""
    while time.monotonic() - started < PATIENCE_S:
        screen = _screen(server, name)
        if shows(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"never shown; the last screen:\n{screen}")


def test_no_output_device_is_said_plainly_with_how_to_choose_one(
    tmux: Callable[[], list[str]],
    tmp_path: Path,
) -> None:
    home = tmp_path / "fresh-home"
    home.mkdir()
    alsa = tmp_path / "no-card.conf"
    alsa.write_text(NO_CARD)
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8", ALSA_CONFIG_PATH=str(alsa))
    server = tmux()
    subprocess.run(
        [*server, "new-session", "-d", "-s", "t", "-x", "120", "-y", "30", f"exec {FOLEY_TUI}"],
        env=env,
        check=True,
        timeout=10,
    )
    try:
        # The notice (a toast, wrapped) names the way out; no PortAudio internals.
        screen = _wait(server, "t", lambda s: "No audio" in s and "--device NAME" in s)
        notice = " ".join(
            line.split("▌", 1)[1].rstrip(" ▁▂▃▄▅▆▇█▔").strip()  # the toast, not what is under it
            for line in screen.splitlines()
            if "▌" in line
        )
        assert "no audio output device; running silent" in notice
        assert "choose one with --device N" in notice and "foley-tui devices" in notice
        assert "Error querying" not in screen and "device -1" not in screen
        # Once the notice is gone, the status line says the same, briefly.
        screen = _wait(server, "t", lambda s: "No audio" not in s)
        status = screen.splitlines()[-2]
        assert "⊘ no audio output device; running silent" in status
    finally:
        subprocess.run([*server, "send-keys", "-t", "t", "q"], timeout=10)
