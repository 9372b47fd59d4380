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

import contextlib
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

# As the app runs in a terminal: Pilot's run_test turns tooltips and notifications off by
# default, and without its tooltip a screen raises (and formats) a NoMatches on every key
# Textual handles with a widget focused, a cost no real run has.
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
    async with app.run_test(size=(120, 30), tooltips=True, notifications=True) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        while True:
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

# The app in a terminal of its own (a pty), run as `foley-tui` runs it: the key is the
# byte written to the terminal, so the time includes the kernel's pty, Textual's input
# thread reading and parsing it and handing it to the app's loop (what Pilot skips).
_PTY_CHILD = """
import os, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from foley_tui.app.foley_app import FoleyApp
from foley_tui.audio.player import make_player
from foley_tui.store import SessionService

out = {fd}
service = SessionService(Path({data!r}))
player = make_player(None)
if not player.available:
    os.write(out, f"no-device {{player.unavailable_reason}}\\n".encode())
    sys.exit(0)
real_play = player.play

def timed_play(*args, **kwargs):
    stamp = time.perf_counter()
    real_play(*args, **kwargs)
    os.write(out, f"play {{stamp!r}}\\n".encode())

player.play = timed_play

class Bench(FoleyApp):
    CSS_PATH = str(Path(sys.modules[FoleyApp.__module__].__file__).with_name("app.tcss"))

    def on_mount(self) -> None:
        self.set_timer(1.0, self.ready)

    def ready(self) -> None:
        if any(w.is_running for w in self.workers):
            self.set_timer(0.2, self.ready)
        else:
            os.write(out, b"ready\\n")

Bench(service.get({session!r}), player, service=service).run()
"""


class _KeyChild:
    """One checkout's app, headless (Pilot) or in a pty, with its own ALSA capture."""

    def __init__(self, src: Path, data: Path, session_id: str, *, pty_mode: bool) -> None:
        from tests.alsa_capture import AlsaCapture, SoundWatcher

        self.pty_mode = pty_mode
        self.capture = AlsaCapture.create(Path(tempfile.mkdtemp(prefix="bench-ui-alsa-")))
        home = self.capture.config_path.parent / "home"
        home.mkdir()
        env = self.capture.env()
        env.update(HOME=str(home), FOLEY_DATA_DIR=str(data), TERM="xterm-256color")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.error: str | None = None
        self.proc: subprocess.Popen[str]
        if pty_mode:
            import fcntl
            import pty
            import struct
            import termios
            import threading

            self.master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
            read_end, write_end = os.pipe()
            code = _PTY_CHILD.format(
                root=str(src), data=str(data), session=session_id, fd=write_end
            )
            self.log = (self.capture.config_path.parent / "stderr.log").open("w")
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code],
                stdin=slave,
                stdout=slave,
                stderr=self.log,
                pass_fds=(write_end,),
                env=env,
                start_new_session=True,
                text=True,
            )
            os.close(slave)
            os.close(write_end)
            self.stamps = os.fdopen(read_end, "r", buffering=1)
            # The app's frames must be read or its writes to the terminal block.
            threading.Thread(target=self._drain, daemon=True).start()
            line = self.stamps.readline().strip()
            if line != "ready":
                self.proc.wait()
                tail = Path(self.log.name).read_text().strip().splitlines()[:8]
                self.error = line or "the app ended: " + " | ".join(tail)
        else:
            code = _KEY_CHILD.format(root=str(src), data=str(data), session=session_id)
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            self.watcher = SoundWatcher(self.capture)
            assert self.proc.stdout is not None
            line = self.proc.stdout.readline().strip()
            if line != "ready":
                self.error = line or "the app ended"

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            while os.read(self.master, 65536):
                pass

    def press(self, mode: str) -> tuple[float, float | None]:
        """(key to play() ms, key to first sound ms or None in a pty) for one press."""
        return self._press_pty(mode) if self.pty_mode else self._press_pilot(mode)

    def _press_pilot(self, mode: str) -> tuple[float, float | None]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.capture.truncate()
        self.watcher.arm()
        self.proc.stdin.write(f"go {mode.replace('_', '-')}\n")
        self.proc.stdin.flush()
        pressed = self.proc.stdout.readline().split()
        t_sound = self.watcher.wait()
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the app under test stopped")
        t_key, t_play = float(pressed[1]), float(pressed[2])
        return (t_play - t_key) * 1000, (t_sound - t_key) * 1000

    def _press_pty(self, mode: str) -> tuple[float, float | None]:
        import select

        if mode != "same":
            os.write(self.master, b"j")
            time.sleep(0.2)
        # A stamp left from an earlier press (none is expected) is not this one's.
        while select.select([self.stamps], [], [], 0)[0]:
            self.stamps.readline()
        t_key = time.perf_counter()
        os.write(self.master, b" ")
        line = self.stamps.readline().split()
        if not line or line[0] != "play":
            raise RuntimeError(f"no play from the app under test: {line}")
        os.write(self.master, b"\x1b")  # escape: stop
        time.sleep(0.25)
        return (float(line[1]) - t_key) * 1000, None

    def close(self) -> None:
        if self.pty_mode:
            os.write(self.master, b"\x11")  # ctrl+q
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            os.close(self.master)
            self.log.close()
        else:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
            self.watcher.close()
        shutil.rmtree(self.capture.config_path.parent, ignore_errors=True)


def key_to_sound(
    data: Path,
    session_id: str,
    presses: int = KEY_PRESSES,
    *,
    baseline: Path | None = None,
    pty_mode: bool = False,
) -> dict[str, Any]:
    """``presses`` per mode, modes interleaved; with ``baseline``, the same app from that
    checkout too, one press each in turn (the same load for both)."""
    sources = {"ours": ROOT} if baseline is None else {"baseline": baseline, "ours": ROOT}
    modes = ("same", "moved_warm") if pty_mode else ("same", "moved_warm", "moved_cold")
    children: dict[str, _KeyChild] = {}
    to_play: dict[str, dict[str, list[float]]] = {k: {m: [] for m in modes} for k in sources}
    to_sound: dict[str, dict[str, list[float]]] = {k: {m: [] for m in modes} for k in sources}
    loads = [os.getloadavg()[0]]
    try:
        for label, src in sources.items():
            children[label] = child = _KeyChild(src, data, session_id, pty_mode=pty_mode)
            if child.error is not None:
                return {"error": f"{label}: {child.error}"}
        for press in range(presses * len(modes)):
            mode = modes[press % len(modes)]
            order = list(children.items())
            if press % 2:
                order.reverse()
            for label, child in order:
                play_ms, sound_ms = child.press(mode)
                to_play[label][mode].append(play_ms)
                if sound_ms is not None:
                    to_sound[label][mode].append(sound_ms)
        loads.append(os.getloadavg()[0])
    finally:
        for child in children.values():
            child.close()
    result: dict[str, Any] = {
        "start": "the byte written to the app's pty" if pty_mode else "Pilot's press()",
        "load_1min": [round(x, 2) for x in loads],
    }
    for label in sources:
        figures: dict[str, Any] = {}
        for mode in modes:
            plays, sounds = to_play[label][mode], to_sound[label][mode]
            if not plays:
                continue
            row: dict[str, Any] = {
                "key_to_play_call_median_ms": round(statistics.median(plays), 3),
                "runs": len(plays),
            }
            if sounds:
                row["median_ms"] = round(statistics.median(sounds), 3)
                row["p90_ms"] = round(sorted(sounds)[max(int(len(sounds) * 0.9) - 1, 0)], 3)
            figures[mode] = row
        warm, cold = figures.get("moved_warm", {}), figures.get("moved_cold", {})
        if "median_ms" in warm and "median_ms" in cold:
            figures["cold_over_warm_ratio"] = round(cold["median_ms"] / warm["median_ms"], 2)
        result[label] = figures
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


def main_key_to_sound(baseline: Path | None = None, *, pty_mode: bool = False) -> dict[str, Any]:
    """Only the key-to-sound part (``--key-to-sound``; ``--pty``: in a terminal)."""
    root = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    data = root / "data"
    data.mkdir(parents=True)
    try:
        session_id = _write_foley_session(data, SIZES[0])
        sound = key_to_sound(data, session_id, baseline=baseline, pty_mode=pty_mode)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("key to sound (space -> play() and the first non-zero frame at the ALSA file PCM):")
    print(json.dumps(sound, indent=2))
    results = {"key_to_sound": sound}
    _write_results(
        results, "bench_ui_key_to_sound_pty.json" if pty_mode else "bench_ui_key_to_sound.json"
    )
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
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--key-to-sound", action="store_true", help="only key-to-sound")
    parser.add_argument(
        "--pty", action="store_true", help="key-to-sound with the app in a pty, not Pilot"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="key-to-sound: also the app from this checkout, press for press (first)",
    )
    parser.add_argument("--reopen", action="store_true", help="only reopen and first open")
    args = parser.parse_args()
    if args.key_to_sound or args.pty or args.baseline:
        main_key_to_sound(args.baseline, pty_mode=args.pty)
    elif args.reopen:
        main_reopen()
    else:
        main()
