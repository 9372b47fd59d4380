"""Nothing the audio libraries say reaches the user's terminal: ALSA's own lines during
``play``/``play-scene`` go to the stderr log, and quitting the app after playing leaves
no leak report of soxr's native resamplers (they are released when the player closes).
Each runs the real thing in a subprocess on the ALSA ``file`` PCM and reads its stderr."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from tests.alsa_capture import strip_silence
from tests.e2e.test_scene_output import _tones_on_the_capture
from tests.e2e.test_tmux_e2e import FOLEY_TUI, Tmux
from tests.e2e.test_tmux_e2e import tmux as tmux

#: ``foley-tui`` with a real ALSA error line on the way: while the scene plays, ALSA's
#: own error handler reports a PCM that is not there (what "underrun occurred" goes
#: through too), from the C library, on file descriptor 2.
ALSA_SAYS = textwrap.dedent(
    """
    import ctypes, sys
    from foley_tui.audio import sounddevice_player
    from foley_tui.cli import main

    asound = ctypes.CDLL("libasound.so.2")
    real = sounddevice_player.SoundDevicePlayer.play_scene

    def play_scene(self, *args, **kwargs):
        handle = ctypes.c_void_p()
        asound.snd_pcm_open(ctypes.byref(handle), b"no_such_pcm", 0, 0)
        return real(self, *args, **kwargs)

    sounddevice_player.SoundDevicePlayer.play_scene = play_scene
    sys.exit(main(sys.argv[1:]))
    """
)


def test_alsa_lines_go_to_the_log_and_the_summary_counts_underruns(tmp_path: Path) -> None:
    capture, env, _rate, tones = _tones_on_the_capture(tmp_path)
    state = tmp_path / "state"
    env["XDG_STATE_HOME"] = str(state)
    result = subprocess.run(
        [sys.executable, "-c", ALSA_SAYS, "play-scene", tones.session_id, "--to", "0.5"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "ALSA lib" not in result.stderr and "no_such_pcm" not in result.stderr
    log = (state / "foley-tui" / "stderr.log").read_text()
    assert "Unknown PCM no_such_pcm" in log  # it was said, to the log
    summary = re.search(r"^foley-tui: played the scene: (.*)$", result.stderr, re.MULTILINE)
    assert summary, result.stderr
    assert re.fullmatch(r"no underruns|\d+ underruns? \(the output fell behind.*\)", summary[1])
    assert capture.size() > 0


def test_quitting_after_playing_leaves_no_leak_report_on_the_terminal(
    tmp_path: Path, tmux: Callable[[], Tmux]
) -> None:
    """The installed app in a terminal, a sound played, then quit: what the terminal
    shows after the app has gone holds no report of soxr objects left alive."""
    capture, env, _rate, tones = _tones_on_the_capture(tmp_path)
    term = tmux()
    app = f"'{FOLEY_TUI}' open '{tones.session_id}'; echo the-app-has-quit; sleep 60"
    term.start(["sh", "-c", app], env)
    term.wait_for(lambda s: "♪" in s and "of " in s, "the device open", timeout=120)
    term.keys("space")
    for _ in range(6000):  # until the sound reached the output
        if len(strip_silence(capture.read_frames())):
            break
        time.sleep(0.01)
    assert len(strip_silence(capture.read_frames())), "nothing played"
    term.keys("q")
    screen = term.wait_for(lambda s: "the-app-has-quit" in s, "the app to quit", timeout=60)
    assert "nanobind" not in screen and "leaked" not in screen, screen
