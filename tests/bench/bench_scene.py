"""Scene benchmarks: key to scene sound vs a single preview, the mixer's cost with 32
voices at 48 kHz, and the memory a one-hour narration adds.

1. **Key to sound** through the ALSA ``file`` PCM (tests/alsa_capture.py; unpaced, so it
   measures our software path): ``play()`` of one cold sound (head cache cleared: open,
   decode the first block) and ``play_scene()`` of a scene of 32 picks over a 10-minute
   narration, interleaved in one player process, stamped by a watcher process when the
   first non-zero frame lands in the capture file. Cold: nothing prefetched. Warm: what
   the user gets once the cursor has rested (the list prefetches the row's head, the
   timeline premixes the scene's first stems in a worker): the prefetch, then a rest of
   REST_S with nothing else running, then the key. Reported: medians and their ratio.
2. **Mixing cost**, in-process with a fake output stream: the feeder's time to premix
   one 1024-frame block of stems of 32 voices plus the narration at 48 kHz (decoding and
   placing, off the audio thread), and the audio callback's time per 1024-frame block
   while that scene plays (lane gains, sum and true-peak limiter: what makes mute, solo
   and volume land on the next block), against a single preview's callback.
3. **Memory**: the RSS a one-hour narration (mono FLAC) adds to a process that mixes
   its first minute, then its last: blocks are decoded as they play, never the file.

Runnable standalone (``python tests/bench/bench_scene.py [--runs N]``) or via
``make bench``; prints a table and writes tests/bench/results/bench_scene.json.
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

RUNS = 30
RATE = 48000
VOICES = 32
BLOCK = 1024
#: The user's rest between the cursor landing (prefetch) and the key, in warm runs.
REST_S = 0.2


def write_tone(
    path: Path, seconds: float, freq: float, rate: int = RATE, channels: int = 2
) -> Path:
    t = np.arange(round(seconds * rate)) / rate
    data = 0.05 + 0.02 * np.sin(2 * np.pi * freq * t)
    sf.write(
        str(path),
        np.repeat(data[:, None], channels, 1).astype(np.float32),
        rate,
        subtype="PCM_16",
        format="WAV" if path.suffix == ".wav" else "FLAC",
    )
    return path


def write_long(path: Path, seconds: float, rate: int = 22050) -> Path:
    """A long mono FLAC, written a block at a time."""
    with sf.SoundFile(str(path), "w", rate, 1, subtype="PCM_16", format="FLAC") as out:
        done = 0
        rng = np.random.default_rng(5)
        while done < seconds * rate:
            n = min(rate * 30, round(seconds * rate) - done)
            t = (done + np.arange(n)) / rate
            out.write(0.1 * np.sin(2 * np.pi * 180 * t) + 0.01 * rng.standard_normal(n))
            done += n
    return path


def make_scene(folder: Path, narration: Path, *, woven: bool = False) -> Any:
    """32 picks over the narration. ``woven``: the same voices as the woven mix plays
    them (mono, foley's fades, a quarter of them beds ducked under a word every half
    second, a master gain): what the mixer does more per block in that mix."""
    from foley_tui.audio.base import MixVoice, Scene

    voices = [MixVoice(narration, 0.0, lane="narration", mono=woven)]
    fades = (0.008, 0.012) if woven else (0.0, 0.0)
    for i in range(VOICES):
        path = folder / f"v{i}.wav"
        if not path.exists():
            write_tone(path, 2.0, 200.0 + 37 * i)
        lane = "ambience" if woven and i % 4 == 0 else "sfx_fg"
        voices.append(
            MixVoice(
                path,
                0.0 if i < 16 else 0.5 * (i - 15),
                gain=0.03,
                lane=lane,
                mono=woven,
                fade_in_s=fades[0],
                fade_out_s=fades[1],
            )
        )
    scene = Scene(voices, mix="woven" if woven else "flat")
    if woven:
        from foley_tui.scene.woven import duck_envelope, ducked_layers

        seconds = sf.info(str(narration)).duration
        words = [
            {"word": "w", "start": t * 0.5, "end": t * 0.5 + 0.3} for t in range(int(seconds * 2))
        ]
        scene.duck = duck_envelope(words, seconds)
        scene.ducked = ducked_layers()
        scene.master_gain_db = -2.0
    return scene


def woven_prepare(folder: Path) -> dict[str, Any]:
    """What a first woven ``P`` costs before it plays (the worker's analysis): each
    pick's woven gain measured (every file read whole), then the master analysis (the
    whole scene mixed once at 48 kHz); the second time both come from the caches."""
    from foley_tui.audio.placement import ClipPlacement
    from foley_tui.scene.contract import woven_gain
    from foley_tui.scene.woven import master_gain

    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {"load_average": os.getloadavg()[0]}
    for seconds in (30.0, 600.0):
        narration = write_long(folder / f"narration{int(seconds)}.flac", seconds)
        scene = make_scene(folder, narration, woven=True)
        t0 = time.perf_counter()
        for v in scene.voices[1:]:
            woven_gain(v.path, v.lane, ClipPlacement(v.onset_s))
        t1 = time.perf_counter()
        master_gain(scene)
        t2 = time.perf_counter()
        master_gain(scene)
        t3 = time.perf_counter()
        key = f"{int(seconds)}s"
        out[f"gains_{key}_ms"] = (t1 - t0) * 1e3
        out[f"master_{key}_ms"] = (t2 - t1) * 1e3
        out[f"cached_{key}_ms"] = (t3 - t2) * 1e3
    return out


def _wait_silent(player: Any) -> None:
    deadline = time.monotonic() + 2
    while not player.idle and time.monotonic() < deadline:
        time.sleep(0.001)
    time.sleep(0.005)


def worker(folder: Path) -> None:
    """The player process: answers ``preview`` / ``scene`` per stdin line with
    ``key_to_sound_s call_s``."""
    from foley_tui.audio.base import AudioFormat, Source
    from foley_tui.audio.player import SoundDevicePlayer

    capture = AlsaCapture(folder / "asound.conf", folder / "capture.raw")
    player = SoundDevicePlayer()
    path = folder / "preview.wav"
    stat = path.stat()
    source = Source(path, AudioFormat.WAV, "path", f"{path}|{stat.st_size}|{stat.st_mtime_ns}")
    scenes = {
        "scene": make_scene(folder, folder / "narration.flac"),
        "woven": make_scene(folder, folder / "narration.flac", woven=True),
    }
    print(json.dumps({"rate": player.samplerate}), flush=True)
    runs = 0
    with SoundWatcher(capture) as watcher:
        for line in sys.stdin:
            case = line.strip()
            if not case:
                break
            player.stop()
            _wait_silent(player)
            runs += 1
            if runs % 20 == 0:
                capture.truncate()
            player.clear_cache()
            kind, mode = case.split("_")
            if mode == "warm":  # what the UI does when a row or the timeline is shown
                if kind in scenes:
                    player.prefetch_scene(scenes[kind])
                else:
                    player.prefetch(source)
                time.sleep(REST_S)  # the cursor rests; the key comes later
            watcher.arm()
            t0 = time.perf_counter()
            if kind in scenes:
                player.play_scene(scenes[kind])
            else:
                player.play(source)
            t1 = time.perf_counter()
            heard = watcher.wait()
            print(f"{heard - t0} {t1 - t0}", flush=True)
    player.close()


def key_to_sound(folder: Path, runs: int) -> dict[str, Any]:
    capture = AlsaCapture.create(folder)
    write_tone(folder / "preview.wav", 1.0, 440.0)
    write_long(folder / "narration.flac", 600.0)
    proc = subprocess.Popen(
        [sys.executable, __file__, "--worker", str(folder)],
        env=capture.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    info = json.loads(proc.stdout.readline())
    cases = [
        "preview_cold",
        "scene_cold",
        "woven_cold",
        "preview_warm",
        "scene_warm",
        "woven_warm",
    ]
    times: dict[str, list[float]] = {case: [] for case in cases}
    calls: dict[str, list[float]] = {case: [] for case in cases}
    for i in range(runs * len(cases)):
        case = cases[i % len(cases)]
        proc.stdin.write(case + "\n")
        proc.stdin.flush()
        heard, call = proc.stdout.readline().split()
        times[case].append(float(heard))
        calls[case].append(float(call))
    proc.stdin.write("\n")
    proc.stdin.flush()
    proc.wait(timeout=30)
    out: dict[str, Any] = {
        "device_rate": info["rate"],
        "runs": runs,
        "load_average": os.getloadavg()[0],
    }
    for case in cases:
        out[f"{case}_ms"] = statistics.median(times[case]) * 1e3
        out[f"{case}_call_ms"] = statistics.median(calls[case]) * 1e3
    for mode in ("cold", "warm"):
        pairs = zip(times[f"preview_{mode}"], times[f"scene_{mode}"], strict=True)
        out[f"ratio_{mode}"] = statistics.median([s / p for p, s in pairs])
        out[f"ratio_of_medians_{mode}"] = out[f"scene_{mode}_ms"] / out[f"preview_{mode}_ms"]
        woven = zip(times[f"preview_{mode}"], times[f"woven_{mode}"], strict=True)
        out[f"woven_ratio_{mode}"] = statistics.median([s / p for p, s in woven])
    return out


def mixing_cost(folder: Path) -> dict[str, Any]:
    """The feeder's premix per block and the callback per block (fake stream)."""

    folder.mkdir(parents=True, exist_ok=True)
    write_long(folder / "narration10.flac", 600.0)
    scene = make_scene(folder, folder / "narration10.flac")
    premix = _premix(scene)
    woven = _premix(make_scene(folder, folder / "narration10.flac", woven=True))
    block_ms = BLOCK / RATE * 1e3
    callback = _callback_cost(folder, scene)
    return {
        "voices": VOICES + 1,
        "block_frames": BLOCK,
        "block_ms": block_ms,
        "premix_median_ms": statistics.median(premix) * 1e3,
        "premix_mean_ms": statistics.fmean(premix) * 1e3,
        "premix_p99_ms": float(np.percentile(premix, 99)) * 1e3,
        "premix_realtime_x": block_ms / (statistics.fmean(premix) * 1e3),
        "woven_premix_mean_ms": statistics.fmean(woven) * 1e3,
        "woven_premix_p99_ms": float(np.percentile(woven, 99)) * 1e3,
        "load_average": os.getloadavg()[0],
        **callback,
    }


def _premix(scene: Any) -> list[float]:
    from foley_tui.audio.mixer import StemMix

    mix = StemMix(scene, RATE)  # the feeder's share; the bus runs in the callback
    mix.read(BLOCK)
    premix = []
    for _ in range(400):
        t0 = time.perf_counter()
        mix.read(BLOCK)
        premix.append(time.perf_counter() - t0)
    mix.close()
    return premix


def _callback_cost(folder: Path, scene: Any) -> dict[str, float]:
    import types

    from foley_tui.audio.base import AudioFormat, Source

    streams: list[Any] = []

    class Stream:
        def __init__(self, **kwargs: Any) -> None:
            self.callback = kwargs["callback"]
            self.latency = 0.01
            streams.append(self)

        def start(self) -> None: ...
        def stop(self) -> None: ...
        def close(self) -> None: ...

    class Flags:
        output_underflow = False

    fake = types.ModuleType("sounddevice")
    fake.query_devices = lambda device=None, kind=None: {  # type: ignore[attr-defined]
        "name": "bench",
        "hostapi": 0,
        "max_output_channels": 2,
        "default_samplerate": RATE,
    }
    fake.query_hostapis = lambda index=None: {"name": "fake"}  # type: ignore[attr-defined]
    fake.OutputStream = Stream  # type: ignore[attr-defined]
    fake.PortAudioError = RuntimeError  # type: ignore[attr-defined]
    sys.modules["sounddevice"] = fake
    from foley_tui.audio.player import SoundDevicePlayer

    player = SoundDevicePlayer(read_ahead_s=0.5)
    stream = streams[-1]
    out = np.zeros((BLOCK, 2), np.float32)
    results: dict[str, float] = {}
    path = folder / "preview10.wav"  # longer than the blocks measured: never idle
    write_tone(path, 10.0, 440.0)
    stat = path.stat()
    source = Source(path, AudioFormat.WAV, "path", f"{path}|{stat.st_size}|{stat.st_mtime_ns}")
    for name, start in (
        ("preview", lambda: player.play(source)),
        ("scene", lambda: player.play_scene(scene)),
    ):
        start()
        costs = []
        for _ in range(300):
            # The feeder mixes ahead; a real device would not wait.
            want = min(BLOCK, player.ring_target_frames)
            while player.rendering and player.queued_frames < want:
                time.sleep(0.0005)
            t0 = time.perf_counter()
            stream.callback(out, want, None, Flags())
            costs.append(time.perf_counter() - t0)
        results[f"callback_{name}_us"] = statistics.median(costs) * 1e6
        # What moved out of the callback: the feeder's mix of one block (every voice,
        # the lane gains, the limiter), timed with the feeder held off.
        mixes = []
        for _ in range(100):
            with player.held():
                while player.queued_frames:
                    stream.callback(out, min(BLOCK, player.queued_frames), None, Flags())
                t0 = time.perf_counter()
                player.mix(512)
                mixes.append(time.perf_counter() - t0)
            time.sleep(0.002)
        results[f"mix_{name}_us"] = statistics.median(mixes) * 1e6
        player.stop()
        _wait_silent(player)
    player.close()
    return results


PULSE_CONF = """\
pcm_type.pulse {{ lib "{lib}/libasound_module_pcm_pulse.so" }}
ctl_type.pulse {{ lib "{lib}/libasound_module_ctl_pulse.so" }}
pcm.!default {{ type pulse server "unix:{socket}" }}
ctl.!default {{ type pulse server "unix:{socket}" }}
"""


def paced_worker(folder: Path, seconds: float) -> None:
    """Play a 32-voice scene on the (paced) default device; time every callback."""
    from foley_tui.audio.player import SoundDevicePlayer

    costs: list[float] = []

    class Timed(SoundDevicePlayer):
        def pull(
            self, outdata: Any, frames: int, time_info: Any = None, status: Any = None
        ) -> None:
            t0 = time.perf_counter()
            super().pull(outdata, frames, time_info, status)
            costs.append(time.perf_counter() - t0)

    from foley_tui.audio.base import AudioFormat, Source

    player = Timed()
    scene = make_scene(folder, folder / "narration.flac")
    path = write_tone(folder / "preview.wav", seconds + 5, 440.0)
    stat = path.stat()
    source = Source(path, AudioFormat.WAV, "path", f"{path}|{stat.st_size}|{stat.st_mtime_ns}")
    out: dict[str, Any] = {"rate": player.samplerate, "latency_ms": player.latency_s * 1e3}
    time.sleep(0.5)
    for name in ("preview", "scene"):
        costs.clear()
        before = player.underruns
        if name == "scene":
            player.play_scene(scene)
        else:
            player.play(source)
        time.sleep(seconds)
        out[f"{name}_underruns"] = player.underruns - before
        out[f"{name}_callbacks"] = len(costs)
        out[f"{name}_callback_median_us"] = statistics.median(costs) * 1e6
        out[f"{name}_callback_p99_us"] = float(np.percentile(costs, 99)) * 1e6
        player.stop()
        time.sleep(0.3)
    player.close()
    print(json.dumps(out), flush=True)


def paced(folder: Path, seconds: float = 20.0) -> dict[str, Any] | None:
    """32 voices on a PulseAudio null sink (a clocked device): underruns and callback CPU.
    Skipped (None) when pulseaudio or its ALSA plugin is not installed."""
    import shutil

    lib = Path("/usr/lib/x86_64-linux-gnu/alsa-lib")
    if shutil.which("pulseaudio") is None or not (lib / "libasound_module_pcm_pulse.so").exists():
        print("paced: pulseaudio or libasound2-plugins missing, skipped")
        return None
    folder.mkdir(parents=True, exist_ok=True)
    socket = folder / "native"
    server = subprocess.Popen(
        [
            "pulseaudio",
            "-n",
            "--daemonize=no",
            "--exit-idle-time=-1",
            "--disable-shm=yes",
            "-L",
            "module-null-sink sink_name=bench",
            "-L",
            f"module-native-protocol-unix socket={socket} auth-anonymous=1",
        ],
        env={**os.environ, "XDG_RUNTIME_DIR": str(folder), "HOME": str(folder)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        conf = folder / "asound.conf"
        conf.write_text(PULSE_CONF.format(lib=lib, socket=socket))
        write_long(folder / "narration.flac", 60.0)
        done = subprocess.run(
            [sys.executable, __file__, "--paced-worker", str(folder), "--seconds", str(seconds)],
            env={**os.environ, "ALSA_CONFIG_PATH": str(conf)},
            capture_output=True,
            text=True,
            timeout=seconds + 120,
            check=True,
        )
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        result["seconds"] = seconds
        result["load_average"] = os.getloadavg()[0]
        return result
    finally:
        server.terminate()
        server.wait(timeout=10)


def memory(folder: Path) -> dict[str, Any]:
    """RSS added by mixing a one-hour narration (a child process per case)."""
    folder.mkdir(parents=True, exist_ok=True)
    long = write_long(folder / "hour.flac", 3600.0)
    short = write_long(folder / "short.flac", 60.0)
    script = (
        "import resource, sys, numpy as np\n"
        "from pathlib import Path\n"
        "from foley_tui.audio.base import MixVoice, Scene\n"
        "from foley_tui.audio.mixer import SceneMix\n"
        "path = Path(sys.argv[1])\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "mix = SceneMix(Scene([MixVoice(path, 0.0, lane='narration')]), 48000)\n"
        "for _ in range(60 * 48000 // 4096): mix.read(4096)\n"
        "mix.seek(max(mix.duration_s - 61, 0))\n"
        "for _ in range(60 * 48000 // 4096): mix.read(4096)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(before, after)\n"
    )
    out = {}
    for name, path in (("one_minute", short), ("one_hour", long)):
        done = subprocess.run(
            [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
        )
        before, after = (int(x) for x in done.stdout.split())
        out[f"{name}_peak_rss_mb"] = after / 1024
        out[f"{name}_added_mb"] = (after - before) / 1024
    out["hour_file_mb"] = long.stat().st_size / 1e6
    out["hour_minus_minute_mb"] = out["one_hour_peak_rss_mb"] - out["one_minute_peak_rss_mb"]
    return out


def main(runs: int = RUNS, seconds: float = 20.0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="foley-bench-scene-") as tmp:
        folder = Path(tmp)
        results = {
            "key_to_sound": key_to_sound(folder / "k2s", runs),
            "mixing": mixing_cost(folder / "mix"),
            "woven_prepare": woven_prepare(folder / "prep"),
            "memory": memory(folder / "mem"),
            "paced": paced(folder / "paced", seconds),
        }
    report(results)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_scene.json").write_text(json.dumps(results, indent=2))
    return results


def report(results: dict[str, Any]) -> None:
    k = results["key_to_sound"]
    print(
        f"key to sound (ALSA file PCM, {k['device_rate']} Hz, median of {k['runs']}, "
        f"load average {k['load_average']:.1f}):"
    )
    for mode in ("cold", "warm"):
        print(f"  single preview ({mode})          {k[f'preview_{mode}_ms']:7.2f} ms")
        print(f"  scene, 32 picks + narr. ({mode}) {k[f'scene_{mode}_ms']:7.2f} ms")
        print(
            f"  ratio scene/preview ({mode})     {k[f'ratio_{mode}']:7.2f} median of ratios, "
            f"{k[f'ratio_of_medians_{mode}']:.2f} ratio of medians"
        )
        print(
            f"  woven scene ({mode})             {k[f'woven_{mode}_ms']:7.2f} ms "
            f"(woven/preview {k[f'woven_ratio_{mode}']:.2f} median of ratios)"
        )
    m = results["mixing"]
    print(
        f"mixing {m['voices']} voices at 48 kHz, {m['block_frames']}-frame blocks "
        f"({m['block_ms']:.1f} ms of sound):"
    )
    print(
        f"  feeder premix per block         {m['premix_mean_ms']:7.3f} ms mean, "
        f"{m['premix_p99_ms']:.3f} ms p99 ({m['premix_realtime_x']:.1f}x real time; "
        f"load average {m['load_average']:.1f})"
    )
    print(
        f"  feeder premix, woven            {m['woven_premix_mean_ms']:7.3f} ms mean, "
        f"{m['woven_premix_p99_ms']:.3f} ms p99"
    )
    print(f"  audio callback, scene           {m['callback_scene_us']:7.1f} us (a copy)")
    print(f"  feeder mix of 512 frames, scene {m['mix_scene_us']:7.1f} us (bus, limiter)")
    w = results["woven_prepare"]
    print(f"woven analysis of 32 picks (load average {w['load_average']:.1f}):")
    for key in ("30s", "600s"):
        print(
            f"  over a {key} narration: gains {w[f'gains_{key}_ms']:.0f} ms, master "
            f"{w[f'master_{key}_ms']:.0f} ms; cached {w[f'cached_{key}_ms']:.2f} ms"
        )
    print(f"  audio callback, one preview     {m['callback_preview_us']:7.1f} us")
    print(f"  feeder mix of 512 frames, one preview {m['mix_preview_us']:7.1f} us")
    p = results.get("paced")
    if p is not None:
        print(
            f"paced (PulseAudio null sink, {p['rate']} Hz, {p['seconds']:.0f} s each, "
            f"load average {p['load_average']:.1f}):"
        )
        for name in ("preview", "scene"):
            print(
                f"  {name:<8} {p[f'{name}_underruns']} underruns in "
                f"{p[f'{name}_callbacks']} callbacks; callback "
                f"{p[f'{name}_callback_median_us']:.0f} us median, "
                f"{p[f'{name}_callback_p99_us']:.0f} us p99"
            )
    r = results["memory"]
    print("memory (peak RSS, mixing the first and the last minute):")
    print(f"  one-minute narration            {r['one_minute_peak_rss_mb']:7.1f} MB")
    print(
        f"  one-hour narration              {r['one_hour_peak_rss_mb']:7.1f} MB "
        f"(+{r['hour_minus_minute_mb']:.1f} MB; file {r['hour_file_mb']:.0f} MB)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", type=Path)
    parser.add_argument("--paced-worker", type=Path)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker)
    elif args.paced_worker is not None:
        paced_worker(args.paced_worker, args.seconds)
    else:
        main(args.runs, args.seconds)
