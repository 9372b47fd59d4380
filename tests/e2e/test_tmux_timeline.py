"""End to end in a real terminal (tmux): the installed ``foley-tui demo`` opens the demo's
timeline with ``t``, plays the scene with ``P`` through PortAudio into the ALSA file PCM
(the narration and the picks reach the capture file while the playhead moves), stops
with Esc and goes back with ``t``."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio
from tests.e2e.test_tmux_e2e import FOLEY_TUI, Tmux
from tests.e2e.test_tmux_e2e import tmux as tmux


def test_demo_timeline_plays_the_scene(tmp_path: Path, tmux: Callable[[], Tmux]) -> None:
    require_portaudio()
    assert FOLEY_TUI.exists(), f"foley-tui is not installed next to {sys.executable}"
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = {k: v for k, v in capture.env().items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8")
    term = tmux()
    term.start([str(FOLEY_TUI), "demo"], env)
    term.wait_for(lambda s: "Heavy rain drumming" in s, "the demo list", timeout=30)
    term.keys("t")
    screen = term.wait_for(lambda s: "Timeline" in s and "placed" in s, "the timeline")
    assert "narration" in screen and "ambience" in screen and "stinger" in screen
    assert "5 placed, 0 unplaced" in screen
    term.keys("P")
    # The scene reaches the device: the narration's first word is at 0.5 s.
    deadline = time.monotonic() + 30
    heard = np.zeros((0, 2), np.float32)
    while time.monotonic() < deadline:
        heard = strip_silence(capture.read_frames())
        if len(heard) > 48000:
            break
        time.sleep(0.1)
    assert len(heard) > 48000, "the scene never reached the capture file"
    assert np.abs(heard).max() <= 10 ** (-1.0 / 20) + 1e-6  # the limiter's ceiling
    term.wait_for(lambda s: "│" in s, "the playhead")
    term.keys("Escape")  # stops the scene, stays on the timeline
    term.wait_for(lambda s: "│" not in s and "Timeline" in s, "the scene stopped")
    term.keys("t")
    term.wait_for(lambda s: "Timeline" not in s, "the list again")
    term.keys("q")
    term.wait_exit()
    if os.environ.get("FOLEY_TUI_TMUX_DEBUG"):
        print(screen)
