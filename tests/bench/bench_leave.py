"""Leaving: how long until ``foley-tui`` is gone once its terminal is.

Runs ``foley-tui demo`` under ``make`` in a private tmux server (as ``make demo`` does),
waits for the list, then measures, each the median of several runs:

- ``hangup``: ``tmux kill-server`` (the terminal disappears; under make the app gets no
  SIGHUP, only a hung-up tty) until the process has exited, cursor saved;
- ``sighup``: SIGHUP sent to the app itself until it has exited;
- ``baseline``: the user presses ``q`` until the process has exited (a normal quit).

Target: under 2 s after the terminal goes. Ratios are to the baseline.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

RUNS = 5
TARGET_S = 2.0
FOLEY_TUI = Path(sys.executable).parent / "foley-tui"
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.procs import alive, find_below  # noqa: E402


def _app_pid(tmux: list[str]) -> int:
    pane = int(
        subprocess.run(
            [*tmux, "display-message", "-p", "-t", "b", "#{pane_pid}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    for _ in range(200):
        found = find_below(pane, b"foley-tui")
        if found:
            return found[0]
        time.sleep(0.05)
    raise RuntimeError("foley-tui never started under make")


def _one(how: str, tmp: Path, i: int) -> float:
    from foley_tui.demo import build as demo

    home = tmp / f"{how}-{i}"
    home.mkdir()
    makefile = tmp / "Makefile"
    makefile.write_text(f"demo:\n\t{FOLEY_TUI} demo\n")
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8")
    tmux = ["tmux", "-L", f"bench-{uuid.uuid4().hex[:10]}", "-f", "/dev/null"]
    command = f"exec make -f {makefile} demo"
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "b", "-x", "120", "-y", "30", command],
        env=env,
        check=True,
    )
    try:
        deadline = time.monotonic() + 60
        while (
            demo.DEMO_TITLE
            not in subprocess.run(
                [*tmux, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True
            ).stdout
        ):
            if time.monotonic() > deadline:
                raise RuntimeError("the demo never showed")
            time.sleep(0.05)
        pid = _app_pid(tmux)
        time.sleep(0.5)  # let start-up work (audio, waveform) finish: measure leaving only
        started = time.monotonic()
        if how == "hangup":
            subprocess.run([*tmux, "kill-server"], capture_output=True)
        elif how == "sighup":
            os.kill(pid, signal.SIGHUP)
        else:
            subprocess.run([*tmux, "send-keys", "-t", "b", "q"], check=True)
        while alive(pid):
            if time.monotonic() - started > 30:
                os.kill(pid, signal.SIGKILL)
                raise RuntimeError(f"{how}: foley-tui did not exit within 30 s")
            time.sleep(0.005)
        return time.monotonic() - started
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def main() -> dict[str, object]:
    if shutil.which("tmux") is None or shutil.which("make") is None:
        print("tmux or make is not installed: skipped")
        return {"skipped": "no tmux/make"}
    times: dict[str, list[float]] = {"hangup": [], "sighup": [], "baseline": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(RUNS):
            for how in times:
                times[how].append(_one(how, Path(tmp), i))
    base = statistics.median(times["baseline"])
    result: dict[str, object] = {f"{how}_s": statistics.median(t) for how, t in times.items()}
    result.update(
        hangup_ratio=statistics.median(times["hangup"]) / base,
        sighup_ratio=statistics.median(times["sighup"]) / base,
        target_s=TARGET_S,
        within_target=max(statistics.median(times["hangup"]), statistics.median(times["sighup"]))
        <= TARGET_S,
        runs=RUNS,
    )
    print(f"{'case':<36}{'median':>9}{'x baseline':>12}")
    for how, label in (
        ("hangup", "terminal killed (tmux kill-server)"),
        ("sighup", "SIGHUP to the app"),
        ("baseline", "baseline: q pressed"),
    ):
        median = statistics.median(times[how])
        print(f"{label:<36}{median:>8.2f}s{median / base:>12.2f}")
    print(f"leaving: {'within' if result['within_target'] else 'OVER'} the {TARGET_S:.1f} s target")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "leave.json").write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
