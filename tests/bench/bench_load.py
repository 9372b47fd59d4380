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
same-run baseline of an older engine); ``--busy N`` sets the busy loops. Needs ``pulseaudio``,
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


def worker(folder: Path, seconds: float) -> None:
    """The player process: play the scene for ``seconds``, print the counters."""
    import foley_tui
    from foley_tui.audio.player import SoundDevicePlayer

    player = SoundDevicePlayer()
    scene = make_scene(folder, folder / "narration.flac")
    time.sleep(0.5)  # the stream runs idle first, as in the app
    before = player.underruns
    player.play_scene(scene, 0.0, seconds)
    time.sleep(seconds + 0.5)
    out: dict[str, Any] = {
        "underruns": player.underruns - before,
        "rate": player.samplerate,
        "latency_ms": player.latency_s * 1e3,
        "code": str(Path(foley_tui.__file__).parent),
    }
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


def one_run(folder: Path, env: dict[str, str], seconds: float, src: Path | None) -> dict[str, Any]:
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
    try:
        time.sleep(0.5)
        worker_env = dict(env)
        if src is not None:
            worker_env["FOLEY_BENCH_SRC"] = str(src)
        done = subprocess.run(
            [sys.executable, __file__, "--worker", str(folder), "--seconds", str(seconds)],
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
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
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
) -> dict[str, Any] | None:
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
            results = [one_run(folder, env, seconds, src) for _ in range(runs)]
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
    }


def report(result: dict[str, Any]) -> None:
    print(
        f"{result['label']}: {result['busy_processes']} busy loops, {result['seconds']:.0f} s "
        f"per run, load {result['load_before']:.1f} before -> {result['load_after']:.1f}; "
        f"sound server: {result['server']}; files in {result['files']}"
    )
    for i, r in enumerate(result["runs"], 1):
        extra = f", ring {r['ring_ms']:.1f} ms" if "ring_ms" in r else ""
        if "realtime" in r:
            extra += ", real-time callback" if r["realtime"] else ", normal-priority callback"
        print(
            f"  run {i}: {r['underruns']} underruns, {r['alsa_lines']} ALSA lines, "
            f"{r['gaps']} gaps > {GAP_MS:g} ms ({r['gap_total_ms']:.0f} ms in all, longest "
            f"{r['longest_gap_ms']:.1f} ms) in {r['recorded_s']:.1f} s; device latency "
            f"{r['latency_ms']:.1f} ms{extra} ({r['code']})"
        )


def main(
    runs: int = RUNS,
    seconds: float = SECONDS,
    baseline: Path | None = None,
    busy: int = BUSY,
    realtime_server: bool = True,
    tmp: Path | None = None,
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    if baseline is not None:
        base = run(
            runs,
            seconds,
            src=baseline,
            busy=busy,
            label="baseline",
            realtime_server=realtime_server,
            tmp=tmp,
        )
        if base is not None:
            report(base)
            results["baseline"] = base
    ours = run(runs, seconds, busy=busy, realtime_server=realtime_server, tmp=tmp)
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
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.seconds)
    else:
        main(args.runs, args.seconds, args.baseline, args.busy, not args.server_as_is, args.tmp)
