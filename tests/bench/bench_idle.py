"""Idle: the CPU an app left open and untouched takes, on a 5,000-row session.

Runs ``foley-tui --no-audio open SESSION`` in a private tmux server (120x30), waits for
the list, lets it settle, then reads the process's CPU time (user + system, all threads,
from ``/proc/PID/stat``) over a window in which no key is pressed. Reported as % of one
core, the median of several windows, for:

- ``audition``: the list on screen (the session poll, the ledger poll, nothing playing);
- ``timeline``: the timeline open over it, no scene playing;
- ``after_play``: the list after a preview played and ended (the playhead timer rests).

Then the same app with the real player open on an ALSA ``null`` PCM (``ALSA_CONFIG_PATH``),
nothing playing: ``audio_open`` (the list, nothing played since the start) and
``audio_after_play`` (a preview played and ended). ``--baseline DIR`` also runs the app
from another checkout's ``foley_tui`` (``PYTHONPATH``) in the same run, for those two.

Goal: below 1 % of a core in every state.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROWS = 5000
WINDOW_S = 10.0
WINDOWS = 3
SETTLE_S = 4.0
TARGET_PCT = 1.0
FOLEY_TUI = Path(sys.executable).parent / "foley-tui"
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.procs import find_below  # noqa: E402
from tests.ui.seed import seed_session  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")

#: The default PCM discards what it is given (PortAudio opens it as a real device).
NULL_ALSA = """\
pcm.!default {
    type null
}
ctl.!default {
    type hw
    card 0
}
"""


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _screen(tmux: list[str]) -> str:
    return subprocess.run(
        [*tmux, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True, check=True
    ).stdout


def _wait_for(tmux: list[str], text: str, patience_s: float = 60.0) -> None:
    started = time.monotonic()
    while time.monotonic() - started < patience_s:
        if text in _screen(tmux):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{text!r} never showed:\n{_screen(tmux)}")


def _idle_pct(pid: int) -> float:
    before = _cpu_s(pid)
    time.sleep(WINDOW_S)
    return 100.0 * (_cpu_s(pid) - before) / WINDOW_S


def _run(
    data_dir: Path,
    session_id: str,
    home: Path,
    *,
    alsa: Path | None = None,
    src: Path | None = None,
) -> dict[str, float]:
    """The idle states, without audio or (``alsa``: an ALSA config) with the real player;
    ``src``: run another checkout's ``foley_tui``."""
    binary = shutil.which("tmux")
    if binary is None:
        raise RuntimeError("tmux is needed")
    tmux = [binary, "-L", f"foley-idle-{uuid.uuid4().hex[:10]}", "-f", "/dev/null"]
    env = {k: v for k, v in os.environ.items() if "XDG" not in k}
    env.update(HOME=str(home), FOLEY_DATA_DIR=str(data_dir), TERM="xterm-256color", LANG="C.UTF-8")
    if alsa is not None:
        env["ALSA_CONFIG_PATH"] = str(alsa)
    # This checkout's foley_tui (or ``src``'s), whichever the venv's install points at.
    env["PYTHONPATH"] = str(src if src is not None else ROOT)
    flag = "" if alsa is not None else "--no-audio "
    command = f"exec {FOLEY_TUI} {flag}open {session_id}"
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "b", "-x", "120", "-y", "30", command],
        env=env,
        check=True,
    )
    out: dict[str, float] = {}
    try:
        _wait_for(tmux, f"of {ROWS}")
        pane = int(
            subprocess.run(
                [*tmux, "display-message", "-p", "-t", "b", "#{pane_pid}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        pid = (find_below(pane, b"foley-tui") or [pane])[0]
        time.sleep(SETTLE_S)
        prefix = "audio_" if alsa is not None else ""
        out[prefix + ("open" if alsa is not None else "audition")] = statistics.median(
            _idle_pct(pid) for _ in range(WINDOWS)
        )
        if alsa is None:
            subprocess.run([*tmux, "send-keys", "-t", "b", "t"], check=True)
            _wait_for(tmux, "Play scene")
            time.sleep(SETTLE_S)
            out["timeline"] = statistics.median(_idle_pct(pid) for _ in range(WINDOWS))
            subprocess.run([*tmux, "send-keys", "-t", "b", "t"], check=True)
            time.sleep(1.0)
        subprocess.run([*tmux, "send-keys", "-t", "b", "Space"], check=True)
        time.sleep(SETTLE_S)  # the seeded tones are 0.5 s long: played and ended
        out[prefix + "after_play"] = statistics.median(_idle_pct(pid) for _ in range(WINDOWS))
    finally:
        subprocess.run([*tmux, "send-keys", "-t", "b", "q"], capture_output=True)
        time.sleep(1.0)
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    return out


def main(baseline: Path | None = None, audio_only: bool = False) -> dict[str, object]:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data_dir = root / "data"
        home = root / "home"
        home.mkdir()
        alsa = root / "asound.conf"
        alsa.write_text(NULL_ALSA)
        _, session_id = seed_session(data_dir, ROWS, title="Idle", audio_count=20, events=True)
        figures = {} if audio_only else _run(data_dir, session_id, home)
        if baseline is not None:
            base = _run(data_dir, session_id, home, alsa=alsa, src=baseline)
            figures.update({f"baseline_{k}": v for k, v in base.items()})
        figures.update(_run(data_dir, session_id, home, alsa=alsa))
    result: dict[str, object] = {
        "rows": ROWS,
        "window_s": WINDOW_S,
        "idle_cpu_pct": {k: round(v, 2) for k, v in figures.items()},
        "target_pct": TARGET_PCT,
        "baseline": None if baseline is None else str(baseline),
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--baseline", type=Path, help="also run this checkout's app, with audio (first)"
    )
    parser.add_argument(
        "--audio-only", action="store_true", help="only the states with the player open"
    )
    args = parser.parse_args()
    main(args.baseline, args.audio_only)
