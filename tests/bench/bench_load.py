"""Playback under load: a 32-voice scene on a paced device while the CPUs are busy.

A PulseAudio null sink (a clocked device, float32 at 48 kHz) is the output; ``parec``
records its monitor. Four busy-loop processes at nice 0 keep both CPUs busy ("a load of
4", what a designer's machine running a DAW and a browser looks like). A player process
plays the 32-voice scene of ``bench_scene`` (its narration never exactly zero) for
``--seconds`` (60 by default) through the default ALSA device (the pulse plugin), three
runs in a row, and reports per run:

- ``underruns``: what the player counted (PortAudio's output-underflow flag);
- ``alsa_lines``: "underrun occurred" lines ALSA wrote to the player's stderr;
- ``gaps``: every silent stretch over :data:`GAP_MS` ms in the recording between the
  first and the last sound (the narration is never silent, so any is a dropout), with
  their total length.

The sound server runs real-time: once it is up, every thread of the bench's
``pulseaudio`` is put on SCHED_RR (:data:`SERVER_PRIORITY`), as the audio path of a
desktop's sound server runs (PipeWire's data threads get a real-time priority from
rtkit). Started as root, PulseAudio itself makes only its sink's IO thread real-time and
runs its main thread at nice -11, which still competes with the busy loops: the main
thread takes each block our client sends off the socket, so when busy processes delay
it the sink runs dry (the underruns PortAudio then reports). ``--server-as-is`` leaves
the daemon as it sets itself up, for the figure both ways.

The bench's files (the scene's sounds, the recording, the server's socket) live in
``/dev/shm`` where it exists: the bench measures playback under CPU load, and on a
machine whose disk other work saturates, a read of a sound that has left the page cache
blocks the player's feeder (it decodes on the thread that fills the ring) for as long as
the disk takes, which is another bench's subject. ``--tmp DIR`` puts them elsewhere.

``--baseline DIR`` runs the player from another checkout's ``foley_tui`` first (a
same-run baseline of an older engine); with ``--interleave`` its runs alternate with ours
under one server and one set of busy loops, so a load that drifts (others' work on a
shared machine) affects both alike. ``--trace`` stamps every callback and runs a
real-time canary in a process of its own, and says for each underrun whether the
callback waited for the GIL, its thread woke late, or every real-time thread on the
machine did. ``--busy N`` sets the busy loops. Needs ``pulseaudio``,
``pulseaudio-utils`` and ``libasound2-plugins`` (skipped without them). Runnable
standalone (``python tests/bench/bench_load.py [--runs N] [--seconds S]``); writes
tests/bench/results/bench_load.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.bench_scene import PULSE_CONF, make_scene, write_long  # noqa: E402

# After bench_scene, which puts the repo root first on the path.
if os.environ.get("FOLEY_BENCH_SRC"):  # a baseline: the player from another checkout
    sys.path.insert(0, os.environ["FOLEY_BENCH_SRC"])
    assert "foley_tui" not in sys.modules

RATE = 48000
RUNS = 3
SECONDS = 60.0
BUSY = 4
#: A silent stretch longer than this in the recording is a dropout.
GAP_MS = 5.0
#: The bench's sound server's real-time priority (PulseAudio's own IO thread's).
SERVER_PRIORITY = 5
ALSA_LIB = Path("/usr/lib/x86_64-linux-gnu/alsa-lib")
SHM = Path("/dev/shm")


#: Callbacks a traced run keeps (a minute of 5 ms periods, with room).
TRACE_SLOTS = 1 << 16


def _traced_player() -> Any:
    """A SoundDevicePlayer whose callback stamps every call (``--trace``): when it ran
    (``time.monotonic``), when PortAudio's thread woke for it (``time_info.currentTime``,
    the same clock on Linux), the frames, whether the device flagged an underflow and
    whether the player counted one. The difference between the two times is how long
    the callback waited for the GIL; a long interval between two wake-ups is the
    callback's thread scheduled late."""
    from foley_tui.audio.player import SoundDevicePlayer

    class Traced(SoundDevicePlayer):
        def __init__(self) -> None:
            self.trace = np.zeros((TRACE_SLOTS, 5), dtype=np.float64)
            self.traced = 0
            super().__init__()

        def pull(
            self, outdata: np.ndarray, frames: int, time_info: Any = None, status: Any = None
        ) -> None:
            entered = time.monotonic()
            counted = self.underruns
            super().pull(outdata, frames, time_info, status)
            slot = self.traced
            if slot < TRACE_SLOTS:
                row = self.trace[slot]
                row[0] = entered
                row[1] = getattr(time_info, "currentTime", 0.0) or 0.0
                row[2] = frames
                row[3] = bool(status is not None and status.output_underflow)
                row[4] = self.underruns - counted
                self.traced = slot + 1

    return Traced()


def _trace_report(trace: np.ndarray, started: float, returned: float) -> dict[str, Any]:
    """Where the underruns of a traced run fell, and what the callback looked like then."""
    if not len(trace):
        return {}
    entered, woke = trace[:, 0], trace[:, 1]
    # PortAudio's ALSA host stamps with the wall clock: brought onto time.monotonic.
    woke = woke - (time.time() - time.monotonic())
    interval = np.diff(entered, prepend=entered[0]) * 1e3
    woke_interval = np.diff(woke, prepend=woke[0]) * 1e3
    gil_wait = (entered - woke) * 1e3 if trace[:, 1].any() else np.zeros(len(trace))
    events = []
    for i in np.flatnonzero(trace[:, 4] > 0):
        events.append(
            {
                "at_s": round(float(entered[i] - started), 3),
                "device_flag": bool(trace[i, 3]),
                "counted": int(trace[i, 4]),
                "frames": int(trace[i, 2]),
                "interval_ms": round(float(interval[i]), 2),
                "woke_interval_ms": round(float(woke_interval[i]), 2),
                "gil_wait_ms": round(float(gil_wait[i]), 2),
                "worst_gil_wait_before_ms": round(float(gil_wait[max(i - 8, 0) : i + 1].max()), 2),
                "worst_woke_interval_before_ms": round(
                    float(woke_interval[max(i - 8, 0) : i + 1].max()), 2
                ),
            }
        )
    return {
        "play_scene_ms": round((returned - started) * 1e3, 2),
        "callbacks": len(trace),
        "longest_interval_ms": round(float(interval.max()), 2),
        "longest_woke_interval_ms": round(float(woke_interval.max()), 2),
        "gil_wait_p99_ms": round(float(np.percentile(gil_wait, 99)), 3),
        "gil_wait_max_ms": round(float(gil_wait.max()), 2),
        "underrun_events": events,
    }


def worker(folder: Path, seconds: float, trace: bool = False) -> None:
    """The player process: play the scene for ``seconds``, print the counters."""
    import foley_tui
    from foley_tui.audio.player import SoundDevicePlayer

    scene = make_scene(folder, folder / "narration.flac")
    player: Any = _traced_player() if trace else SoundDevicePlayer()
    # The stream runs idle first, as in the app when a scene is about to play (its
    # prefetch starts a resting stream): what is measured is the scene on a running
    # stream, not a stream's start.
    time.sleep(0.5)
    before = player.underruns
    started = time.monotonic()
    player.play_scene(scene, 0.0, seconds)
    returned = time.monotonic()
    time.sleep(seconds + 0.5)
    out: dict[str, Any] = {
        "underruns": player.underruns - before,
        "rate": player.samplerate,
        "latency_ms": player.latency_s * 1e3,
        "code": str(Path(foley_tui.__file__).parent),
    }
    if trace:
        out["trace"] = _trace_report(player.trace[: player.traced], started, returned)
        out["trace"]["started"] = started
    for name in ("ring_ms", "realtime"):
        value = getattr(player, name, None)
        if value is not None:
            out[name] = value
    player.close()
    print(json.dumps(out), flush=True)


def gaps_of(recording: np.ndarray, rate: int, gap_ms: float = GAP_MS) -> list[float]:
    """Lengths (ms) of the silent stretches over ``gap_ms`` between the first and the
    last sound of ``recording`` (``(frames, 2)``)."""
    loud = np.any(np.abs(recording) > 1e-7, axis=1)
    where = np.flatnonzero(loud)
    if len(where) < 2:
        return []
    # Distances between consecutive sounding frames; a gap of k silent frames is k + 1.
    steps = np.diff(where) - 1
    shortest = gap_ms * rate / 1e3
    return [float(k) * 1e3 / rate for k in steps[steps > shortest]]


def one_run(
    folder: Path, env: dict[str, str], seconds: float, src: Path | None, trace: bool = False
) -> dict[str, Any]:
    record = folder / "record.raw"
    parec = subprocess.Popen(
        [
            "parec",
            "--device=bench.monitor",
            "--format=float32le",
            f"--rate={RATE}",
            "--channels=2",
            "--raw",
            "--latency-msec=20",
            str(record),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    canary_log = folder / "canary.log"
    canary = _canary(canary_log) if trace else None
    try:
        time.sleep(0.5)
        worker_env = dict(env)
        if src is not None:
            worker_env["FOLEY_BENCH_SRC"] = str(src)
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--worker",
                str(folder),
                "--seconds",
                str(seconds),
                *(["--trace"] if trace else []),
            ],
            env=worker_env,
            capture_output=True,
            text=True,
            timeout=seconds + 120,
            check=True,
        )
        time.sleep(0.5)
    finally:
        parec.terminate()
        parec.wait(timeout=10)
        if canary is not None:
            canary.kill()
            canary.wait(timeout=10)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if canary is not None and "trace" in result:
        late = _canary_late(canary_log)
        started = result["trace"]["started"]
        result["trace"]["canary_late"] = [
            (round(t - started, 3), late_ms) for t, late_ms in late if late_ms > 10.0
        ]
        result["trace"]["canary_worst_ms"] = max((ms for _, ms in late), default=0.0)
        canary_log.unlink()
    result["alsa_lines"] = done.stderr.count("underrun occurred")
    data = np.fromfile(record, dtype=np.float32)
    data = data[: len(data) - len(data) % 2].reshape(-1, 2)
    gaps = gaps_of(data, RATE)
    result["recorded_s"] = len(data) / RATE
    result["gaps"] = len(gaps)
    result["gap_total_ms"] = sum(gaps)
    result["longest_gap_ms"] = max(gaps, default=0.0)
    record.unlink()
    return result


def _server_scheduling(pid: int, realtime: bool) -> str:
    """Put every thread of the sound server ``pid`` on SCHED_RR (``realtime``, where
    allowed); say how its threads run."""
    tasks = Path(f"/proc/{pid}/task")
    if realtime:
        for task in tasks.iterdir():
            try:
                os.sched_setscheduler(int(task.name), os.SCHED_RR, os.sched_param(SERVER_PRIORITY))
            except OSError:  # not allowed: the server runs as it set itself up
                break
    states = []
    for task in sorted(tasks.iterdir()):
        tid = int(task.name)
        name = (task / "comm").read_text().strip()
        policy = os.sched_getscheduler(tid)
        if policy in (os.SCHED_RR, os.SCHED_FIFO):
            states.append(f"{name} SCHED_RR {os.sched_getparam(tid).sched_priority}")
        else:
            nice = int((task / "stat").read_text().rsplit(")", 1)[1].split()[16])
            states.append(f"{name} nice {nice}")
    return ", ".join(states)


#: A canary (``--trace``): a thread in a process of its own, at the callback's real-time
#: priority, that sleeps 2 ms at a time and notes every wake-up later than
#: CANARY_LATE_MS. When it is late at the moment the callback is, the machine (the
#: kernel, the hypervisor) held real-time threads off, not anything in the player.
CANARY_PRIORITY = 10
CANARY_LATE_MS = 5.0
_CANARY = """
import os, sys, time
try:
    os.sched_setscheduler(0, os.SCHED_RR, os.sched_param({priority}))
except OSError:
    print("normal", flush=True)
out = open(sys.argv[1], "w", buffering=1)
while True:
    t = time.monotonic()
    time.sleep(0.002)
    late = (time.monotonic() - t - 0.002) * 1e3
    if late > {late}:
        out.write(f"{{t:.6f}} {{late:.2f}}\\n")
"""


def _canary(path: Path) -> subprocess.Popen[bytes]:
    script = _CANARY.format(priority=CANARY_PRIORITY, late=CANARY_LATE_MS)
    return subprocess.Popen([sys.executable, "-c", script, str(path)])


def _canary_late(path: Path) -> list[tuple[float, float]]:
    """(monotonic time, ms late) of each late wake-up of the canary."""
    if not path.exists():
        return []
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(float(t), float(late)) for t, late in rows]


def _busy(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def run(
    runs: int = RUNS,
    seconds: float = SECONDS,
    *,
    src: Path | None = None,
    busy: int = BUSY,
    label: str = "ours",
    realtime_server: bool = True,
    tmp: Path | None = None,
    trace: bool = False,
    alternate: Path | None = None,
) -> dict[str, Any] | None:
    """``alternate``: another checkout's engine, run before ours in every round (one
    server, one set of busy loops: both see the same machine)."""
    if (
        shutil.which("pulseaudio") is None
        or shutil.which("parec") is None
        or not (ALSA_LIB / "libasound_module_pcm_pulse.so").exists()
    ):
        print("load: pulseaudio, parec or libasound2-plugins missing, skipped")
        return None
    scratch = tmp if tmp is not None else SHM if SHM.is_dir() else None
    with tempfile.TemporaryDirectory(prefix="foley-bench-load-", dir=scratch) as name:
        folder = Path(name)
        socket = folder / "native"
        env = {**os.environ, "XDG_RUNTIME_DIR": str(folder), "HOME": str(folder)}
        server = subprocess.Popen(
            [
                "pulseaudio",
                "-n",
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--disable-shm=yes",
                "-L",
                f"module-null-sink sink_name=bench format=float32le rate={RATE} channels=2",
                "-L",
                f"module-native-protocol-unix socket={socket} auth-anonymous=1",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        hogs: list[subprocess.Popen[bytes]] = []
        try:
            deadline = time.monotonic() + 10
            while not socket.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            server_note = _server_scheduling(server.pid, realtime_server)
            conf = folder / "asound.conf"
            conf.write_text(PULSE_CONF.format(lib=ALSA_LIB, socket=socket))
            env["ALSA_CONFIG_PATH"] = str(conf)
            env["PULSE_SERVER"] = f"unix:{socket}"
            write_long(folder / "narration.flac", seconds + 5)
            make_scene(folder, folder / "narration.flac")  # writes the voices' files
            load_before = os.getloadavg()[0]
            hogs = _busy(busy)
            time.sleep(2.0)  # the load is there before the scene starts
            results = []
            alternated = []
            for _ in range(runs):
                if alternate is not None:
                    alternated.append(one_run(folder, env, seconds, alternate, trace))
                results.append(one_run(folder, env, seconds, src, trace))
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
            server.terminate()
            server.wait(timeout=10)
    return {
        "label": label,
        "busy_processes": busy,
        "seconds": seconds,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "server": server_note,
        "files": str(folder.parent),
        "runs": results,
        **({"baseline_runs": alternated} if alternate is not None else {}),
    }


def report(result: dict[str, Any]) -> None:
    print(
        f"{result['label']}: {result['busy_processes']} busy loops, {result['seconds']:.0f} s "
        f"per run, load {result['load_before']:.1f} before -> {result['load_after']:.1f}; "
        f"sound server: {result['server']}; files in {result['files']}"
    )
    runs = result["runs"]
    if "baseline_runs" in result:  # interleaved: the baseline's run, then ours, per round
        runs = [r for pair in zip(result["baseline_runs"], runs, strict=True) for r in pair]
    for i, r in enumerate(runs, 1):
        extra = f", ring {r['ring_ms']:.1f} ms" if "ring_ms" in r else ""
        if "realtime" in r:
            extra += ", real-time callback" if r["realtime"] else ", normal-priority callback"
        print(
            f"  run {i}: {r['underruns']} underruns, {r['alsa_lines']} ALSA lines, "
            f"{r['gaps']} gaps > {GAP_MS:g} ms ({r['gap_total_ms']:.0f} ms in all, longest "
            f"{r['longest_gap_ms']:.1f} ms) in {r['recorded_s']:.1f} s; device latency "
            f"{r['latency_ms']:.1f} ms{extra} ({r['code']})"
        )
        trace = r.get("trace")
        if trace:
            print(
                f"    trace: play_scene {trace['play_scene_ms']:.1f} ms, {trace['callbacks']} "
                f"callbacks, longest interval {trace['longest_interval_ms']:.1f} ms (woken "
                f"{trace['longest_woke_interval_ms']:.1f} ms), GIL wait p99 "
                f"{trace['gil_wait_p99_ms']:.2f} ms, max {trace['gil_wait_max_ms']:.1f} ms"
            )
            for event in trace["underrun_events"]:
                print(f"    underrun: {json.dumps(event)}")
            print(
                f"    canary (a real-time thread in another process): worst wake-up "
                f"{trace.get('canary_worst_ms', 0.0):.1f} ms late; over 10 ms late at "
                f"{trace.get('canary_late', [])}"
            )


def main(
    runs: int = RUNS,
    seconds: float = SECONDS,
    baseline: Path | None = None,
    busy: int = BUSY,
    realtime_server: bool = True,
    tmp: Path | None = None,
    trace: bool = False,
    interleave: bool = False,
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    if baseline is not None and interleave:
        both = run(
            runs,
            seconds,
            busy=busy,
            label="interleaved, baseline then ours",
            realtime_server=realtime_server,
            tmp=tmp,
            trace=trace,
            alternate=baseline,
        )
        if both is not None:
            report(both)
            results["interleaved"] = both
        baseline = None
    elif baseline is not None:
        base = run(
            runs,
            seconds,
            src=baseline,
            busy=busy,
            label="baseline",
            realtime_server=realtime_server,
            tmp=tmp,
            trace=trace,
        )
        if base is not None:
            report(base)
            results["baseline"] = base
    ours = (
        None
        if interleave and results
        else run(runs, seconds, busy=busy, realtime_server=realtime_server, tmp=tmp, trace=trace)
    )
    if ours is not None:
        report(ours)
        results["ours"] = ours
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_load.json").write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--busy", type=int, default=BUSY, help="busy-loop processes")
    parser.add_argument(
        "--baseline", type=Path, help="also run the player from this checkout (first)"
    )
    parser.add_argument(
        "--server-as-is",
        action="store_true",
        help="leave the sound server's scheduling as it sets it up (not real-time)",
    )
    parser.add_argument("--tmp", type=Path, help="where the bench's files go (/dev/shm)")
    parser.add_argument(
        "--interleave",
        action="store_true",
        help="with --baseline: alternate its runs with ours under one server and load",
    )
    parser.add_argument(
        "--trace", action="store_true", help="stamp every callback; say where underruns fell"
    )
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.seconds, args.trace)
    else:
        main(
            args.runs,
            args.seconds,
            args.baseline,
            args.busy,
            not args.server_as_is,
            args.tmp,
            args.trace,
            args.interleave,
        )
