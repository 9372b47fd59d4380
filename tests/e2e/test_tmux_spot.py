"""End to end in a real terminal (tmux): the installed ``foley-tui demo`` spots its scene
from the timeline (``t``, then ``S``, Enter) and the summary appears on screen."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from tests.e2e.test_tmux_e2e import FOLEY_TUI, Tmux
from tests.e2e.test_tmux_e2e import tmux as tmux


def test_demo_spots_from_the_timeline(
    isolated_env: Path, tmp_path: Path, tmux: Callable[[], Tmux]
) -> None:
    assert FOLEY_TUI.exists(), f"foley-tui is not installed next to {sys.executable}"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8")
    term = tmux()
    term.start([str(FOLEY_TUI), "demo", "--no-audio"], env)
    term.wait_for(lambda s: "Heavy rain drumming" in s, "the demo list", timeout=30)
    term.keys("t")
    term.wait_for(lambda s: "Timeline" in s and "placed" in s, "the timeline")
    term.keys("S")
    term.wait_for(lambda s: "Spot the scene to an editor" in s, "the spot dialog")
    term.keys("Enter")
    screen = term.wait_for(lambda s: "spotted 5 pick(s)" in s, "the summary", timeout=60)
    bundles = [p for p in isolated_env.rglob("*spot") if p.is_dir()]
    assert len(bundles) == 1 and (bundles[0] / "scene.RPP").is_file()
    assert (bundles[0] / "cues.csv").is_file() and (bundles[0] / "mix.wav").is_file()
    term.keys("Escape")
    term.wait_for(lambda s: "Spot the scene" not in s and "Timeline" in s, "the timeline again")
    term.keys("t")
    term.wait_for(lambda s: "Timeline" not in s, "the list again")
    term.keys("q")
    term.wait_exit()
    if os.environ.get("FOLEY_TUI_TMUX_DEBUG"):
        print(screen)
