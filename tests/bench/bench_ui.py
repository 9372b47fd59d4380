"""The audition screen at scale: first paint, all columns, RSS, key-to-sound.

Runs the installed ``foley-tui open SESSION --no-audio`` in a private tmux server
(120x30) on foley-made sessions (candidate files written exactly as foley writes them, no
foley-tui state) of 1k, 10k and 100k candidates, and polls the pane:

- ``first_paint_s``: from launching tmux until the list shows the session's rows (the
  status line's ``of N``: ids listed from file names);
- ``all_columns_s``: until the column-loading indicator (``⧗``) is gone. *First open*
  builds the index from every candidate file (the state dir is deleted before each run);
  *reopen* uses the index;
- ``responsive_ms``: during the first open at 100k, the time from a ``?`` key press to
  the help screen being on screen (the UI must answer while columns load);
- ``max_rss_mb``: ``VmHWM`` of the app process once every column is loaded.

Each is the median of several runs, next to a bare Textual app measured the same way in
the same run (``ratio`` = ours / bare).

Key-to-sound: a subprocess runs the app headless with the real SoundDevicePlayer on an
ALSA ``file`` PCM (``tests/alsa_capture.py``); it presses space and records
``perf_counter()``; a watcher process reports when the first non-zero sample reached the
file. Median of 30 presses per mode, interleaved: ``same`` (space on the row just
played), ``moved_warm`` (move to a row never played, wait 0.2 s as a user would, space:
the screen's prefetch worker warmed it) and ``moved_cold`` (the same, with the head cache
cleared just before space: the baseline without prefetch); ``key_to_play_call`` is the
UI's share (key event to ``Player.play()``). This is our software path (key event ->
action -> resolve -> player -> device), not the sound card's latency. ``--key-to-sound``
runs only this part (on a 1k session; no tmux needed).
"""

from __future__ import annotations

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
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"
# FOLEY_BENCH_UI_SIZES=1000 for a quick run.
SIZES = tuple(
    int(n) for n in os.environ.get("FOLEY_BENCH_UI_SIZES", "1000,10000,100000").split(",")
)
RUNS = 5
FIRST_OPEN_RUNS = {1_000: 5, 10_000: 5, 100_000: 3}
KEY_PRESSES = 30
BARE_APP = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("bare app is up")
Bare().run()
"""


class Pane:
    """One app in its own tmux server."""

    def __init__(self, command: str, env: dict[str, str], *, height: int = 30) -> None:
        self.tmux = ["tmux", "-L", f"bench-ui-{uuid.uuid4().hex[:10]}", "-f", "/dev/null"]
        self.started = time.monotonic()
        rows = str(height)
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-s", "b", "-x", "120", "-y", rows, command],
            env=env,
            check=True,
        )

    def text(self) -> str:
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True
        ).stdout

    def wait(self, predicate: Any, timeout: float = 120) -> float:
        """Seconds since launch when ``predicate(text)`` first held."""
        while time.monotonic() - self.started < timeout:
            if predicate(self.text()):
                return time.monotonic() - self.started
            time.sleep(0.005)
        raise RuntimeError(f"timed out; screen:\n{self.text()}")

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", "b", *keys], check=True)

    def pid(self) -> int:
        out = subprocess.run(
            [*self.tmux, "display", "-p", "-t", "b", "#{pane_pid}"],
            capture_output=True,
            text=True,
        ).stdout
        return int(out.strip())

    def close(self) -> None:
        """End the app and wait until its process is gone: the next run must not share
        the CPUs (two of them on CI) with this one saving its state and exiting."""
        try:
            pid: int | None = self.pid()
        except ValueError:  # the server is already gone
            pid = None
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)
        deadline = time.monotonic() + 10
        while pid is not None and Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.01)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _write_foley_session(data: Path, count: int) -> str:
    """A session as foley's agent leaves it: candidate files only (indent=4, quoted ids)."""
    from foley_tui.store import encode_key
    from tests.ui.seed import candidate, write_tone

    session_id = f"bench-{count}"
    folder = data / "sessions" / session_id / "candidates"
    if folder.exists():
        return session_id
    folder.mkdir(parents=True)
    tones = []
    for i in range(12):
        tone = data.parent / "audio-files" / f"tone-{i}.wav"
        if not tone.exists():
            write_tone(tone, freq=220.0 + 55 * i)
        tones.append(tone)
    for i in range(count):
        cand = candidate(i, tones[i % 12], big=True)
        (folder / encode_key(cand["sound"]["id"])).write_bytes(json.dumps(cand, indent=4).encode())
    return session_id


def _env(home: Path, data: Path) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE (set in some dev shells) would compile every foley_tui module
    # on every start, while the bare app's textual comes compiled from its wheel: an
    # installed foley-tui starts from bytecode too.
    skip = ("COLUMNS", "LINES", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if "XDG" not in k and k not in skip}
    env.update(HOME=str(home), FOLEY_DATA_DIR=str(data), TERM="xterm-256color", LANG="C.UTF-8")
    return env


def _bare(env: dict[str, str], script: Path) -> float:
    pane = Pane(f"exec {sys.executable} {script}", env)
    try:
        return pane.wait(lambda s: "bare app is up" in s)
    finally:
        pane.close()


def _open(
    env: dict[str, str], session_id: str, count: int, *, probe: bool = False
) -> dict[str, float]:
    pane = Pane(f"exec {FOLEY_TUI} open {session_id} --no-audio", env)
    try:
        marker = f"of {count}"
        paint = pane.wait(lambda s: marker in s)
        result = {"first_paint_s": paint}
        if probe and "⧗" in pane.text():
            asked = time.monotonic()
            pane.keys("?")
            pane.wait(lambda s: "remap by id" in s)
            result["responsive_ms"] = (time.monotonic() - asked) * 1000
            pane.keys("Escape")
            result["probe_during_load"] = 1.0
        result["all_columns_s"] = pane.wait(lambda s: marker in s and "⧗" not in s)
        result["max_rss_mb"] = _rss_mb(pane.pid())
        pane.keys("q")
        return result
    finally:
        pane.close()


def _median(runs: list[dict[str, float]], key: str) -> float | None:
    values = [r[key] for r in runs if key in r]
    return round(statistics.median(values), 4) if values else None


# -- key to sound ------------------------------------------------------------------------

_KEY_CHILD = """
import asyncio, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from foley_tui.app.foley_app import FoleyApp
from foley_tui.audio.player import make_player
from foley_tui.store import SessionService

async def main():
    service = SessionService(Path({data!r}))
    player = make_player(None)
    if not player.available:
        print("no-device", player.unavailable_reason, flush=True)
        return
    calls = []
    real_play = player.play

    def timed_play(*args, **kwargs):
        calls.append(time.perf_counter())
        real_play(*args, **kwargs)

    player.play = timed_play  # when the UI hands the sound to the player
    app = FoleyApp(service.get({session!r}), player, service=service)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        for _ in range({presses}):
            print("ready", flush=True)
            command = (await asyncio.to_thread(sys.stdin.readline)).split()
            if not command or command[0] != "go":
                break
            mode = command[1]
            if mode != "same":  # move to the next row first; its head is not cached yet
                player.clear_cache()
                await pilot.press("j")
                await pilot.pause(0.2)  # a user's pause: the prefetch worker runs here
                if mode == "moved-cold":
                    player.clear_cache()  # the same-run baseline: as if nothing prefetched
            t0 = time.perf_counter()
            await pilot.press("space")
            print(f"pressed {{t0!r}} {{calls[-1]!r}}", flush=True)
            await pilot.press("escape")
            await pilot.pause(0.15)
    print("done", flush=True)

asyncio.run(main())
"""


def key_to_sound(data: Path, session_id: str, presses: int = KEY_PRESSES * 3) -> dict[str, Any]:
    from tests.alsa_capture import AlsaCapture, SoundWatcher

    capture = AlsaCapture.create(Path(tempfile.mkdtemp(prefix="bench-ui-alsa-")))
    code = _KEY_CHILD.format(root=str(ROOT), data=str(data), session=session_id, presses=presses)
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        env=capture.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert child.stdin is not None and child.stdout is not None
    modes = ("same", "moved_warm", "moved_cold")
    latencies: dict[str, list[float]] = {mode: [] for mode in modes}
    to_play: dict[str, list[float]] = {mode: [] for mode in modes}
    press = 0
    try:
        with SoundWatcher(capture) as watcher:
            while True:
                line = child.stdout.readline().strip()
                if line.startswith("no-device"):
                    return {"error": line}
                if line != "ready":
                    break
                mode = modes[press % len(modes)]
                press += 1
                capture.truncate()
                watcher.arm()
                child.stdin.write(f"go {mode.replace('_', '-')}\n")
                child.stdin.flush()
                pressed = child.stdout.readline().split()
                t_sound = watcher.wait()
                latencies[mode].append((t_sound - float(pressed[1])) * 1000)
                to_play[mode].append((float(pressed[2]) - float(pressed[1])) * 1000)
    finally:
        child.stdin.close()
        child.wait(timeout=30)
        shutil.rmtree(capture.config_path.parent, ignore_errors=True)
    result: dict[str, Any] = {}
    for mode in modes:
        runs = latencies[mode]
        if not runs:
            continue
        result[mode] = {
            "key_to_play_call_median_ms": round(statistics.median(to_play[mode]), 3),
            "median_ms": round(statistics.median(runs), 3),
            "p90_ms": round(sorted(runs)[max(int(len(runs) * 0.9) - 1, 0)], 3),
            "runs": len(runs),
        }
    if "moved_warm" in result and "moved_cold" in result:
        result["cold_over_warm_ratio"] = round(
            result["moved_cold"]["median_ms"] / result["moved_warm"]["median_ms"], 2
        )
    return result


def main_reopen(rounds: int = 3) -> dict[str, Any]:
    """``--reopen``: the first paint (first rows on screen, 120x40) of a reopened 1k and
    100k session, and of a first open of the 100k one (no index: as foley left it), each
    round interleaved with a bare Textual app; medians of ``rounds``. The sessions are
    written once under $FOLEY_TUI_BENCH_CACHE (default ~/.cache/foley-tui-bench)."""
    cache = Path(
        os.environ.get("FOLEY_TUI_BENCH_CACHE", Path.home() / ".cache" / "foley-tui-bench")
    )
    data = cache / "sessions-data"
    data.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    home = root / "home"
    home.mkdir()
    env = _env(home, data)
    bare_script = root / "bare.py"
    bare_script.write_text(BARE_APP)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "foley_tui")], check=True)
    small, big = _write_foley_session(data, 1_000), _write_foley_session(data, 100_000)
    state = data / "sessions" / big / ".foley-tui"

    def paint(session_id: str, count: int, *, whole: bool = False) -> float:
        pane = Pane(f"exec {FOLEY_TUI} open {session_id} --no-audio", env, height=40)
        try:
            seconds = pane.wait(lambda s: f"of {count:,}" in s or f"of {count}" in s)
            if whole:  # until every column is in: the index is written then
                pane.wait(lambda s: "⧗" not in s, timeout=600)
                time.sleep(1.0)
            pane.keys("q")
            return seconds
        finally:
            pane.close()

    runs: dict[str, list[float]] = {
        "bare": [],
        "reopen_1k": [],
        "reopen_100k": [],
        "first_100k": [],
    }
    try:
        paint(small, 1_000, whole=True)
        paint(big, 100_000, whole=True)
        for _ in range(rounds):
            runs["bare"].append(_bare(env, bare_script))
            runs["reopen_1k"].append(paint(small, 1_000))
            runs["reopen_100k"].append(paint(big, 100_000))
            shutil.rmtree(state, ignore_errors=True)  # as foley left it: no index
            runs["first_100k"].append(paint(big, 100_000))
            paint(big, 100_000, whole=True)  # the index back for the next reopen
    finally:
        shutil.rmtree(root, ignore_errors=True)
    medians = {key: statistics.median(values) for key, values in runs.items()}
    results: dict[str, Any] = {
        "runs": {key: [round(v, 4) for v in values] for key, values in runs.items()},
        "medians_s": {key: round(v, 4) for key, v in medians.items()},
        "reopen_100k_over_1k": round(medians["reopen_100k"] / medians["reopen_1k"], 3),
        "first_open_100k_over_bare": round(medians["first_100k"] / medians["bare"], 3),
        "reopen_100k_over_bare": round(medians["reopen_100k"] / medians["bare"], 3),
    }
    for key, values in runs.items():
        print(f"{key:12} median {medians[key]:.3f} s {[round(v, 3) for v in values]}", flush=True)
    print(
        f"reopen 100k / 1k: {results['reopen_100k_over_1k']}x; first open 100k / bare: "
        f"{results['first_open_100k_over_bare']}x",
        flush=True,
    )
    _write_results(results, "bench_ui_reopen.json")
    return results


def _write_results(results: dict[str, Any], name: str) -> None:
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / name).write_text(json.dumps(results, indent=2))


def main_key_to_sound() -> dict[str, Any]:
    """Only the key-to-sound part (``--key-to-sound``)."""
    root = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    data = root / "data"
    data.mkdir(parents=True)
    try:
        sound = key_to_sound(data, _write_foley_session(data, SIZES[0]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"key to sound (space -> first non-zero frame at the ALSA file PCM): {sound}")
    results = {"key_to_sound": sound}
    _write_results(results, "bench_ui_key_to_sound.json")
    return results


def main() -> dict[str, Any]:
    if shutil.which("tmux") is None:
        raise SystemExit("bench_ui needs tmux")
    root = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    data = root / "data"
    home = root / "home"
    home.mkdir(parents=True)
    data.mkdir()
    env = _env(home, data)
    bare_script = root / "bare.py"
    bare_script.write_text(BARE_APP)
    results: dict[str, Any] = {"sizes": {}}
    # As an installed tool runs: byte-compiled (pip compiles a wheel's modules; an editable
    # install in a shell with PYTHONDONTWRITEBYTECODE would compile ours on every start).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "foley_tui")], check=True)
    try:
        # Twice as many baseline runs as ours: every ratio divides by this one median.
        bare = [_bare(env, bare_script) for _ in range(2 * RUNS)]
        bare_s = statistics.median(bare)
        results["bare_textual_first_paint_s"] = round(bare_s, 4)
        print(f"bare Textual app: first paint {bare_s:.3f} s (median of {len(bare)})", flush=True)
        smallest = SIZES[0]
        for count in SIZES:
            started = time.perf_counter()
            session_id = _write_foley_session(data, count)
            print(f"{count:>7,} candidates written in {time.perf_counter() - started:.1f} s")
            state = data / "sessions" / session_id / ".foley-tui"
            first: list[dict[str, float]] = []
            for _ in range(FIRST_OPEN_RUNS.get(count, 3)):
                shutil.rmtree(state, ignore_errors=True)  # as foley left it: no index
                first.append(_open(env, session_id, count, probe=count == SIZES[-1]))
            reopen = [_open(env, session_id, count) for _ in range(RUNS)]
            paints = [r["first_paint_s"] for r in first + reopen]
            reopen_paint = statistics.median(r["first_paint_s"] for r in reopen)
            row = {
                "first_paint_s": round(statistics.median(paints), 4),
                "first_paint_ratio_to_bare": round(statistics.median(paints) / bare_s, 2),
                "first_paint_first_open_s": _median(first, "first_paint_s"),
                "first_paint_reopen_s": round(reopen_paint, 4),
                "first_paint_reopen_ratio_to_bare": round(reopen_paint / bare_s, 2),
                "first_open_all_columns_s": _median(first, "all_columns_s"),
                "reopen_all_columns_s": _median(reopen, "all_columns_s"),
                "first_open_max_rss_mb": _median(first, "max_rss_mb"),
                "reopen_max_rss_mb": _median(reopen, "max_rss_mb"),
                "responsive_during_load_ms": _median(first, "responsive_ms"),
                "runs": {"first_open": len(first), "reopen": len(reopen)},
            }
            results["sizes"][count] = row
            print(
                f"{count:>7,}: first paint {row['first_paint_s']:.3f} s "
                f"({row['first_paint_ratio_to_bare']}x bare; first open "
                f"{row['first_paint_first_open_s']} s, reopen {row['first_paint_reopen_s']} s "
                f"= {row['first_paint_reopen_ratio_to_bare']}x bare); all columns: first open "
                f"{row['first_open_all_columns_s']} s, reopen {row['reopen_all_columns_s']} s; "
                f"max RSS {row['first_open_max_rss_mb']:.0f} MB (first open), "
                f"{row['reopen_max_rss_mb']:.0f} MB (reopen)"
                + (
                    f"; help opened in {row['responsive_during_load_ms']:.0f} ms while loading"
                    if row["responsive_during_load_ms"]
                    else ""
                ),
                flush=True,
            )
        sizes = results["sizes"]
        if len(sizes) > 1:
            largest = SIZES[-1]
            ratio = sizes[largest]["first_paint_reopen_s"] / sizes[smallest]["first_paint_reopen_s"]
            results["reopen_first_paint_largest_over_smallest"] = round(ratio, 2)
            print(f"reopen first paint, {largest:,} over {smallest:,}: {ratio:.2f}x", flush=True)
        sound = key_to_sound(data, f"bench-{SIZES[0]}")
        results["key_to_sound"] = sound
        print(f"key to sound (space -> first non-zero frame at the ALSA file PCM): {sound}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    _write_results(results, "bench_ui.json")
    return results


if __name__ == "__main__":
    if "--key-to-sound" in sys.argv[1:]:
        main_key_to_sound()
    elif "--reopen" in sys.argv[1:]:
        main_reopen()
    else:
        main()
