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
* spawning ``aplay`` per preview (alsa-utils, WAV only);
* spawning a Python player process: a tiny ``python -c`` sounddevice script, and our own
  ``foley-tui play FILE``.

Runnable standalone (``python tests/bench/bench_audio.py [--runs N]``) or via
``make bench``; prints a table and writes tests/bench/results/bench_audio.json.
"""

from __future__ import annotations

import argparse
import json
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
sys.path.insert(0, str(HERE.parent))  # tests/: alsa_capture

from alsa_capture import AlsaCapture, SoundWatcher  # noqa: E402

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
    while (player._voice is not None or player._fading) and time.monotonic() < deadline:
        time.sleep(0.001)
    time.sleep(0.01)


def bench_player(capture: AlsaCapture, files: dict[str, Path], runs: int) -> dict[str, Any]:
    """Runs inside the worker process (ALSA_CONFIG_PATH already set)."""
    from foley_tui.audio.base import AudioFormat, Source
    from foley_tui.audio.player import SoundDevicePlayer

    player = SoundDevicePlayer()
    results: dict[str, Any] = {
        "device_rate": player.samplerate,
        "stream_latency_ms": player.latency_s * 1e3,
    }
    watcher = SoundWatcher(capture)
    try:
        for name, path in files.items():
            fmt = AudioFormat.FLAC if name.startswith("flac") else AudioFormat.WAV
            stat = path.stat()
            source = Source(path, fmt, "path", f"{path}|{stat.st_size}|{stat.st_mtime_ns}")
            for mode in ("cold", "warm"):
                sound: list[float] = []
                call: list[float] = []
                for run in range(runs + 2):  # two warm-up runs, not counted
                    player.stop()
                    _wait_silent(player)
                    if run % 10 == 0:
                        capture.truncate()  # bound disk use (the writer leaves a hole)
                    if mode == "cold":
                        player.clear_cache()
                    else:
                        player.prefetch(source)
                    watcher.arm()
                    t0 = time.perf_counter()
                    player.play(source)
                    t1 = time.perf_counter()
                    heard = watcher.wait()
                    if run >= 2:
                        call.append(t1 - t0)
                        sound.append(heard - t0)
                results[f"{name}_{mode}"] = {
                    "key_to_sound_ms": median_ms(sound),
                    "play_call_ms": median_ms(call),
                    "p90_key_to_sound_ms": float(np.percentile(sound, 90) * 1e3),
                    "runs": len(sound),
                }
        player.stop()
        results["underruns"] = player.underruns
    finally:
        watcher.close()
        player.close()
    return results


def bench_spawn(capture: AlsaCapture, argv: list[str], runs: int) -> dict[str, Any]:
    """Time from spawning ``argv`` to its first frame at the device, per run."""
    env = capture.env()
    sound: list[float] = []
    with SoundWatcher(capture) as watcher:
        for run in range(runs + 1):  # one warm-up (page cache)
            capture.truncate()
            watcher.arm(timeout_s=30)
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            heard = watcher.wait()
            proc.wait(timeout=60)
            if run >= 1:
                sound.append(heard - t0)
    return {"key_to_sound_ms": median_ms(sound), "runs": len(sound)}


def worker(folder: Path, runs: int) -> dict[str, Any]:
    capture = AlsaCapture(folder / "asound.conf", folder / "capture.raw")
    files = {
        "wav_short": folder / "short.wav",
        "wav_10min": folder / "long.wav",
        "flac_short": folder / "short.flac",
        "flac_10min": folder / "long.flac",
    }
    return bench_player(capture, files, runs)


def main(runs: int = RUNS, spawn_runs: int = SPAWN_RUNS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="foley-bench-audio-") as tmp:
        folder = Path(tmp)
        print("writing test files (10-minute WAV and FLAC)...", flush=True)
        write_signal(folder / "short.wav", SHORT_S, "WAV")
        write_signal(folder / "long.wav", LONG_S, "WAV")
        write_signal(folder / "short.flac", SHORT_S, "FLAC")
        write_signal(folder / "long.flac", LONG_S, "FLAC")
        capture = AlsaCapture.create(folder)

        # Our player, in a fresh process so ALSA_CONFIG_PATH precedes PortAudio's start.
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", str(folder), "--runs", str(runs)],
            env=capture.env(),
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"bench worker failed:\n{proc.stderr}")
        ours = json.loads(proc.stdout.strip().splitlines()[-1])

        # Baselines, same run, same capture device, with our stream closed.
        aplay = bench_spawn(capture, ["aplay", "-q", str(folder / "short.wav")], runs)
        tiny = bench_spawn(
            capture, [sys.executable, "-c", TINY_PLAYER, str(folder / "short.wav")], spawn_runs
        )
        cli = bench_spawn(
            capture,
            [sys.executable, "-m", "foley_tui", "play", str(folder / "short.wav")],
            max(spawn_runs // 2, 3),
        )

    cold = [
        ours[f"{n}_cold"]["key_to_sound_ms"]
        for n in ("wav_short", "wav_10min", "flac_short", "flac_10min")
    ]
    worst = max(cold)
    wav_short = ours["wav_short_cold"]["key_to_sound_ms"]
    results: dict[str, Any] = {
        "player": ours,
        "aplay_spawn": aplay,
        "python_spawn_sounddevice": tiny,
        "python_spawn_foley_tui_play": cli,
        "ratio_aplay_vs_ours_wav_short": aplay["key_to_sound_ms"] / wav_short,
        "ratio_aplay_vs_ours_worst": aplay["key_to_sound_ms"] / worst,
        "ratio_python_vs_ours_worst": tiny["key_to_sound_ms"] / worst,
        "targets": {
            "play_le_1ms": worst <= 1.0,
            "aplay_ratio_ge_2_5": aplay["key_to_sound_ms"] / worst >= 2.5,
            "python_ratio_ge_100": tiny["key_to_sound_ms"] / worst >= 100,
        },
    }
    report(results)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_audio.json").write_text(json.dumps(results, indent=2))
    return results


def report(results: dict[str, Any]) -> None:
    ours = results["player"]
    print(
        f"device {ours['device_rate']} Hz, stream latency {ours['stream_latency_ms']:.1f} ms "
        f"(latency='low'), underruns {ours['underruns']}"
    )
    print(f"{'key-to-sound (median)':34} {'cold ms':>8} {'warm ms':>8} {'play() ms':>10}")
    for name in ("wav_short", "wav_10min", "flac_short", "flac_10min"):
        cold, warm = ours[f"{name}_cold"], ours[f"{name}_warm"]
        print(
            f"  SoundDevicePlayer {name:15} {cold['key_to_sound_ms']:8.3f} "
            f"{warm['key_to_sound_ms']:8.3f} {cold['play_call_ms']:10.3f}"
        )
    print(f"  spawn aplay (WAV)                {results['aplay_spawn']['key_to_sound_ms']:8.3f}")
    tiny = results["python_spawn_sounddevice"]["key_to_sound_ms"]
    print(f"  spawn python sounddevice script  {tiny:8.1f}")
    cli = results["python_spawn_foley_tui_play"]["key_to_sound_ms"]
    print(f"  spawn foley-tui play             {cli:8.1f}")
    print(
        f"ratios (baseline / our worst cold median): aplay "
        f"{results['ratio_aplay_vs_ours_worst']:.1f}x, python "
        f"{results['ratio_python_vs_ours_worst']:.0f}x; targets {results['targets']}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--spawn-runs", type=int, default=SPAWN_RUNS)
    parser.add_argument("--worker", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(Path(args.worker), args.runs)))
    else:
        main(args.runs, args.spawn_runs)
