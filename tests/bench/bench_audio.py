"""Key-to-sound benchmark: time from ``play()`` to the first frame written at the device.

The device is an ALSA ``file`` PCM (tests/alsa_capture.py): unpaced, so this measures our
software overhead, not a sound card's latency. A separate watcher process polls the capture
file and stamps (``perf_counter``, CLOCK_MONOTONIC, shared by processes) the moment the
first non-zero frame lands in it.

Measured in the same run:

* ``SoundDevicePlayer.play()`` on the long-lived stream, for WAV and FLAC, a short (1 s)
  and a 10-minute file, all at 48 kHz so the device (44.1 kHz) resamples: *cold* (head
  cache cleared before each play: open the file, decode the first block) and *warm*
  (the head was prefetched, as the UI does when the cursor lands on a row);
* ``wav_short_rested``: warm, after the player's idle stream has rested (stopped once
  nothing sounded for a while): play() starts the stream again, so this is key-to-sound
  after the app sat idle;
* spawning ``aplay`` per preview (alsa-utils, WAV only);
* spawning a Python player process: a tiny ``python -c`` sounddevice script, and our own
  ``foley-tui play FILE``.

Runnable standalone (``python tests/bench/bench_audio.py [--runs N]``) or via
``make bench``; prints a table and writes tests/bench/results/bench_audio.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repo root: tests.alsa_capture

from tests.alsa_capture import AlsaCapture, SoundWatcher  # noqa: E402

RUNS = 50
SPAWN_RUNS = 20
RATE = 48000
LONG_S = 600.0
SHORT_S = 1.0

TINY_PLAYER = (
    "import sys, soundfile as sf, sounddevice as sd\n"
    "data, rate = sf.read(sys.argv[1], dtype='float32')\n"
    "sd.play(data, rate); sd.wait()\n"
)


def write_signal(path: Path, seconds: float, fmt: str) -> Path:
    """A quiet offset sine (non-zero from its first frame), written block by block."""
    block = RATE * 10
    with sf.SoundFile(str(path), "w", RATE, 2, subtype="PCM_16", format=fmt) as out:
        done = 0
        total = int(seconds * RATE)
        while done < total:
            n = min(block, total - done)
            t = (np.arange(done, done + n) / RATE)[:, None]
            out.write((0.2 + 0.1 * np.sin(2 * np.pi * 220 * t)) * np.ones((1, 2)))
            done += n
    return path


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def _wait_silent(player: Any) -> None:
    """Until nothing plays (fades done) and the silence has been written out."""
    deadline = time.monotonic() + 2
    while not player.idle and time.monotonic() < deadline:
        time.sleep(0.001)
    time.sleep(0.005)


FILES = {
    "wav_short": "short.wav",
    "wav_10min": "long.wav",
    "flac_short": "short.flac",
    "flac_10min": "long.flac",
}
CASES = [f"{name}_{mode}" for name in FILES for mode in ("cold", "warm")] + ["wav_short_rested"]


def worker(folder: Path) -> None:
    """The player process (ALSA_CONFIG_PATH set before PortAudio starts): answers one
    ``case`` per stdin line with ``key_to_sound_s play_call_s``."""
    from foley_tui.audio.base import AudioFormat, Source
    from foley_tui.audio.player import SoundDevicePlayer

    capture = AlsaCapture(folder / "asound.conf", folder / "capture.raw")
    player = SoundDevicePlayer()
    sources: dict[str, Source] = {}
    for name, filename in FILES.items():
        path = folder / filename
        stat = path.stat()
        fmt = AudioFormat.FLAC if name.startswith("flac") else AudioFormat.WAV
        sources[name] = Source(path, fmt, "path", f"{path}|{stat.st_size}|{stat.st_mtime_ns}")
    print(json.dumps({"rate": player.samplerate, "latency_ms": player.latency_s * 1e3}))
    sys.stdout.flush()
    runs = 0
    with SoundWatcher(capture) as watcher:
        for line in sys.stdin:
            case = line.strip()
            if not case:
                break
            name, mode = case.rsplit("_", 1)
            source = sources[name]
            player.stop()
            _wait_silent(player)
            runs += 1
            if runs % 20 == 0:
                capture.truncate()  # bound disk use (the writer leaves a hole)
            if mode == "cold":
                player.clear_cache()
            else:
                player.prefetch(source)  # what the UI does when the cursor lands on a row
            if mode == "rested":  # the app sat idle: the stream rests
                deadline = time.monotonic() + 30
                while getattr(player, "output_running", False) and time.monotonic() < deadline:
                    time.sleep(0.01)
            watcher.arm()
            t0 = time.perf_counter()
            player.play(source)
            t1 = time.perf_counter()
            heard = watcher.wait()
            print(f"{heard - t0} {t1 - t0}", flush=True)
    print(json.dumps({"underruns": player.underruns}), flush=True)
    player.close()


class Worker:
    """The parent's handle on the player process."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(folder)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.info = json.loads(self._line())

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"bench worker died (status {self.proc.wait()})")
        return line

    def run(self, case: str) -> tuple[float, float]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(case + "\n")
        self.proc.stdin.flush()
        heard, call = self._line().split()
        return float(heard), float(call)

    def close(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        tail: dict[str, Any] = json.loads(self._line())
        self.proc.wait(timeout=30)
        return tail


def spawn_once(capture: AlsaCapture, watcher: SoundWatcher, argv: list[str]) -> float:
    """Seconds from spawning ``argv`` to its first frame at the device."""
    capture.truncate()  # each process truncates on open anyway; start the watch at 0
    watcher.arm(timeout_s=30)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=capture.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    heard = watcher.wait()
    proc.wait(timeout=60)
    return heard - t0


def main(runs: int = RUNS, spawn_runs: int = SPAWN_RUNS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="foley-bench-audio-") as tmp:
        folder = Path(tmp)
        print("writing test files (10-minute WAV and FLAC)...", flush=True)
        write_signal(folder / "short.wav", SHORT_S, "WAV")
        write_signal(folder / "long.wav", LONG_S, "WAV")
        write_signal(folder / "short.flac", SHORT_S, "FLAC")
        write_signal(folder / "long.flac", LONG_S, "FLAC")
        ours_capture = AlsaCapture.create(folder / "ours")
        base_capture = AlsaCapture.create(folder / "baseline")
        for filename in FILES.values():
            (folder / "ours" / filename).symlink_to(folder / filename)
        short_wav = str(folder / "short.wav")
        argv = {
            "aplay": ["aplay", "-q", short_wav],
            "python_sounddevice": [sys.executable, "-c", TINY_PLAYER, short_wav],
            "foley_tui_play": [sys.executable, "-m", "foley_tui", "play", short_wav],
        }
        load_before = os.getloadavg()[0]
        ours = Worker(folder / "ours", ours_capture.env())
        heard: dict[str, list[float]] = {case: [] for case in CASES}
        calls: dict[str, list[float]] = {case: [] for case in CASES}
        spawned: dict[str, list[float]] = {name: [] for name in argv}
        every = max(runs // max(spawn_runs, 1), 1)
        # Interleaved, so our player and the baselines see the same load on the machine
        # (others' work shares it): one run of every case, then one aplay, and every
        # few rounds one spawned Python player. Two warm-up rounds are not counted.
        with SoundWatcher(base_capture) as watcher:
            for round_ in range(runs + 2):
                for case in CASES:
                    t_heard, t_call = ours.run(case)
                    if round_ >= 2:
                        heard[case].append(t_heard)
                        calls[case].append(t_call)
                t_aplay = spawn_once(base_capture, watcher, argv["aplay"])
                if round_ >= 2:
                    spawned["aplay"].append(t_aplay)
                if round_ >= 2 and (round_ - 2) % every == 0:
                    for name in ("python_sounddevice", "foley_tui_play"):
                        if name == "foley_tui_play" and (round_ - 2) % (2 * every):
                            continue  # half as many of the slowest
                        spawned[name].append(spawn_once(base_capture, watcher, argv[name]))
        tail = ours.close()
        load_after = os.getloadavg()[0]

    player: dict[str, Any] = {
        "device_rate": ours.info["rate"],
        "stream_latency_ms": ours.info["latency_ms"],
        "underruns": tail["underruns"],
    }
    for case in CASES:
        player[case] = {
            "key_to_sound_ms": median_ms(heard[case]),
            "play_call_ms": median_ms(calls[case]),
            "p90_key_to_sound_ms": float(np.percentile(heard[case], 90) * 1e3),
            "p10_key_to_sound_ms": float(np.percentile(heard[case], 10) * 1e3),
            "min_key_to_sound_ms": float(min(heard[case]) * 1e3),
            "runs": len(heard[case]),
        }
    baselines = {
        name: {
            "key_to_sound_ms": median_ms(values),
            "p10_key_to_sound_ms": float(np.percentile(values, 10) * 1e3),
            "min_key_to_sound_ms": float(min(values) * 1e3),
            "runs": len(values),
        }
        for name, values in spawned.items()
    }
    # Paired: each aplay run over our runs of the same round (seconds apart), so a load
    # that drifts during the benchmark affects both sides of each ratio alike.
    paired = {
        case: statistics.median(a / o for a, o in zip(spawned["aplay"], heard[case], strict=True))
        for case in CASES
    }
    worst = max(player[f"{name}_cold"]["key_to_sound_ms"] for name in FILES)
    aplay = baselines["aplay"]["key_to_sound_ms"]
    python = baselines["python_sounddevice"]["key_to_sound_ms"]
    results: dict[str, Any] = {
        "player": player,
        "baselines": baselines,
        "loadavg_1min": [load_before, load_after],
        "cpus": os.cpu_count(),
        "ratio_aplay_vs_ours_worst_cold": aplay / worst,
        "ratio_python_vs_ours_worst_cold": python / worst,
        "paired_ratio_aplay_vs_ours": paired,
        "targets": {
            "key_to_sound_le_1ms": worst <= 1.0,
            "aplay_ratio_ge_2_5": aplay / worst >= 2.5,
            "python_ratio_ge_100": python / worst >= 100,
        },
    }
    report(results)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_audio.json").write_text(json.dumps(results, indent=2))
    return results


def report(results: dict[str, Any]) -> None:
    ours = results["player"]
    load = results["loadavg_1min"]
    print(
        f"device {ours['device_rate']} Hz, stream latency {ours['stream_latency_ms']:.1f} ms "
        f"(latency='low'), underruns {ours['underruns']}; load average {load[0]:.1f} -> "
        f"{load[1]:.1f} on {results['cpus']} CPUs"
    )
    print(
        f"{'key-to-sound, median ms':38} {'cold':>7} {'warm':>7} {'play() cold':>12}"
        f" {'cold p10':>9} {'cold min':>9}"
    )
    for name in FILES:
        cold, warm = ours[f"{name}_cold"], ours[f"{name}_warm"]
        print(
            f"  SoundDevicePlayer {name:19} {cold['key_to_sound_ms']:7.3f} "
            f"{warm['key_to_sound_ms']:7.3f} {cold['play_call_ms']:12.3f}"
            f" {cold['p10_key_to_sound_ms']:9.3f} {cold['min_key_to_sound_ms']:9.3f}"
        )
    rested = ours["wav_short_rested"]
    print(
        f"  SoundDevicePlayer {'wav_short, rested':19} {'':7} {rested['key_to_sound_ms']:7.3f} "
        f"{rested['play_call_ms']:12.3f}  (warm, the idle stream stopped; play() starts it)"
    )
    for name, label in (
        ("aplay", "spawn aplay (WAV)"),
        ("python_sounddevice", "spawn python -c sounddevice"),
        ("foley_tui_play", "spawn foley-tui play"),
    ):
        base = results["baselines"][name]
        print(
            f"  {label:37} {base['key_to_sound_ms']:7.2f} {'':7} {'':12}"
            f" {base['p10_key_to_sound_ms']:9.2f} {base['min_key_to_sound_ms']:9.2f}"
            f"  ({base['runs']} runs)"
        )
    paired = results["paired_ratio_aplay_vs_ours"]
    print(
        "paired aplay/ours ratio, median per round: "
        + ", ".join(f"{case} {ratio:.1f}x" for case, ratio in paired.items())
    )
    print(
        f"ratios (baseline / our worst cold median): aplay "
        f"{results['ratio_aplay_vs_ours_worst_cold']:.1f}x, python "
        f"{results['ratio_python_vs_ours_worst_cold']:.0f}x; targets {results['targets']}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--spawn-runs", type=int, default=SPAWN_RUNS)
    parser.add_argument("--worker", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(Path(args.worker))
    else:
        main(args.runs, args.spawn_runs)
