"""Spot benchmark: a 200-pick scene of 5-second clips (mixed rates and formats) spotted to
a bundle, against a plain soundfile read-and-write of the same files in the same run.

1. **Throughput**: ``spot`` (every pick converted to a 48 kHz 24-bit Broadcast WAV with
   its bext and iXML; for the bundle also its woven clip gain, the RPP, AAF, OTIO and cue
   sheet; no reference mix) against, for each source file, ``sf.read`` of the whole file
   and ``sf.write`` of it as 24-bit WAV at its own rate (no conversion, no metadata). All
   are reported as MB/s of decoded audio (frames x channels x 4 bytes of float32), so
   their ratio is the ratio of times; the goal is >= 0.7x. See VARIANTS.
2. **Memory**: the peak RSS of a process that spots the whole bundle of 50 picks
   against one that spots 200 (the same clips): the copies stream a block at a time and
   a gain reads one sound, so the peak must not grow with the scene. The AAF's worker
   process holds pyaaf2's object model of the composition (which grows with the clips,
   a few hundred bytes each): its peak is reported beside.
3. **CPU**: each variant's CPU seconds (its own and its worker processes'), which the
   machine's load inflates far less than wall time, and the load average before and
   after the runs.

Runnable standalone (``python tests/bench/bench_spot.py [--runs N]``) or via
``make bench``; prints a table and writes tests/bench/results/bench_spot.json.
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
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

RUNS = 3
PICKS = 200
SECONDS = 5.0
#: (rate, channels, container, subtype) cycled over the picks.
KINDS = [
    (44100, 2, "WAV", "PCM_16"),
    (48000, 2, "WAV", "PCM_24"),
    (96000, 1, "FLAC", "PCM_24"),
    (48000, 1, "FLAC", "PCM_16"),
    (44100, 2, "AIFF", "PCM_16"),
]


def make_files(folder: Path, count: int) -> list[Path]:
    rng = np.random.default_rng(7)
    paths = []
    for i in range(count):
        rate, channels, container, subtype = KINDS[i % len(KINDS)]
        frames = round(SECONDS * rate)
        t = np.arange(frames) / rate
        data = 0.1 * np.sin(2 * np.pi * (200 + 7 * i) * t)[:, None] + 0.02 * rng.standard_normal(
            (frames, channels)
        )
        ext = {"WAV": "wav", "FLAC": "flac", "AIFF": "aiff"}[container]
        path = folder / f"clip{i:03d}.{ext}"
        sf.write(str(path), data.astype(np.float32), rate, subtype=subtype, format=container)
        paths.append(path)
    return paths


def make_session(data_dir: Path, paths: list[Path]) -> str:
    from foley_tui.store import SessionService
    from foley_tui.store.local import candidate_from_audio

    service = SessionService(data_dir)
    session = service.create("bench spot")
    store = service.get(session)
    candidates = [candidate_from_audio(p) for p in paths]
    store.cache_candidates(candidates)
    layers = ["sfx_fg", "ambience", "stinger", "music"]
    for i, candidate in enumerate(candidates):
        sid = candidate["sound"]["id"]
        store.picks_ns[sid] = {"sound_id": sid, "layer": layers[i % 4], "onset": round(i * 0.7, 3)}
    return session


def decoded_mb(paths: list[Path]) -> float:
    return sum(sf.info(str(p)).frames * sf.info(str(p)).channels * 4 for p in paths) / 1e6


def _cpu() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def baseline(paths: list[Path], out: Path) -> tuple[float, float]:
    """(seconds, CPU seconds) of the plain read-and-write."""
    out.mkdir()
    cpu = _cpu()
    started = time.perf_counter()
    for path in paths:
        data, rate = sf.read(str(path), dtype="float32", always_2d=True)
        sf.write(str(out / f"{path.stem}.wav"), data, rate, subtype="PCM_24")
    return time.perf_counter() - started, _cpu() - cpu


#: What is spotted: the copies alone (the decode-and-write path the baseline does); the
#: whole bundle in a fresh process with an empty cache dir, every clip gain measured (a
#: first spot ever: the scene contract measures each sound with foley's loudness code);
#: the whole bundle in a fresh process whose cache dir holds the gains (a second spot
#: from the command line); and the whole bundle once the gains are known in the process
#: (in the app after the woven mix has played).
COPIES = frozenset({"bwf"})
BUNDLE = frozenset({"bwf", "rpp", "aaf", "otio", "csv"})
VARIANTS = ("copies", "bundle_cold", "bundle_second", "bundle_warm")


def ours(data_dir: Path, session: str, out: Path, formats: frozenset[str]) -> tuple[float, float]:
    """(seconds, CPU seconds, the AAF worker's included) of one spot in this process."""
    from foley_tui.scene.build import build_scene
    from foley_tui.spot.bundle import spot
    from foley_tui.spot.plan import SpotOptions
    from foley_tui.store import SessionService

    cpu = _cpu()
    started = time.perf_counter()
    store = SessionService(data_dir).get(session)
    options = SpotOptions(formats=formats)
    spot(store, build_scene(store), out, options)
    return time.perf_counter() - started, _cpu() - cpu


_CHILD = """
import os, resource, sys, time
sys.path.insert(0, {root!r})
os.environ["FOLEY_DATA_DIR"] = {data!r}
from pathlib import Path
import aaf2, opentimelineio, scipy.signal, foley.level, foley.weave.mix  # imports: not timed
from foley_tui.scene.build import build_scene
from foley_tui.spot.bundle import spot
from foley_tui.spot.plan import SpotOptions
from foley_tui.store import SessionService
def cpu(who):
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime
before = cpu(resource.RUSAGE_SELF)
started = time.perf_counter()
store = SessionService(Path({data!r})).get({session!r})
options = SpotOptions(formats=frozenset({formats!r}))
spot(store, build_scene(store), Path({out!r}), options)
print(time.perf_counter() - started)
print(cpu(resource.RUSAGE_SELF) - before)
print(cpu(resource.RUSAGE_CHILDREN))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def in_child(
    data_dir: Path, session: str, out: Path, formats: frozenset[str], cache: Path
) -> tuple[float, float, int, int, float]:
    """(seconds, CPU seconds, peak RSS in KiB, its AAF worker's peak RSS in KiB, the AAF
    worker's CPU seconds) of one spot in a fresh process (its own caches empty) whose
    user cache dir is ``cache``."""
    code = _CHILD.format(
        root=str(ROOT), data=str(data_dir), session=session, out=str(out), formats=set(formats)
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    seconds, own, worker, rss, worker_rss = done.stdout.strip().splitlines()[-5:]
    return float(seconds), float(own) + float(worker), int(rss), int(worker_rss), float(worker)


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-spot-") as tmp:
        root = Path(tmp)
        data_dir = root / "data"
        data_dir.mkdir()
        os.environ["FOLEY_DATA_DIR"] = str(data_dir)
        cache = root / "cache"  # the gains the warm-up measures are kept here
        os.environ["XDG_CACHE_HOME"] = str(cache)
        (root / "src").mkdir()
        paths = make_files(root / "src", PICKS)
        session = make_session(data_dir, paths)
        small = make_session(data_dir, paths[:50])
        mb = decoded_mb(paths)
        # The first spot imports scipy (foley's loudness meter) and pyaaf2, and measures
        # every gain (cached in this process from then on): not a run.
        ours(data_dir, session, root / "warm", BUNDLE)
        base_t: list[float] = []
        base_cpu: list[float] = []
        our_t: dict[str, list[float]] = {name: [] for name in VARIANTS}
        our_cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}

        worker_cpu: dict[str, list[float]] = {"bundle_cold": [], "bundle_second": []}

        def note(name: str, got: tuple[float, ...]) -> None:
            our_t[name].append(got[0])
            our_cpu[name].append(got[1])
            if name in worker_cpu:
                worker_cpu[name].append(got[4])

        for run in range(args.runs):  # interleaved: all see the same machine load
            wall, cpu = baseline(paths, root / f"base{run}")
            base_t.append(wall)
            base_cpu.append(cpu)
            note("copies", ours(data_dir, session, root / f"copies{run}", COPIES))
            note(
                "bundle_cold",
                in_child(data_dir, session, root / f"cold{run}", BUNDLE, root / f"c{run}"),
            )
            note("bundle_second", in_child(data_dir, session, root / f"second{run}", BUNDLE, cache))
            note("bundle_warm", ours(data_dir, session, root / f"warm{run}", BUNDLE))
        small_run = in_child(data_dir, small, root / "rss50", BUNDLE, root / "rss-a")
        big_run = in_child(data_dir, session, root / "rss200", BUNDLE, root / "rss-b")
    base_med = statistics.median(base_t)
    base_cpu_med = statistics.median(base_cpu)
    result: dict[str, Any] = {
        "picks": PICKS,
        "decoded_mb": round(mb, 1),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "baseline_s": [round(t, 3) for t in base_t],
        "baseline_cpu_s": [round(t, 3) for t in base_cpu],
        "baseline_mb_s": round(mb / base_med, 1),
        "peak_rss_mb_50": round(small_run[2] / 1024, 1),
        "peak_rss_mb_200": round(big_run[2] / 1024, 1),
        "aaf_worker_peak_rss_mb_50": round(small_run[3] / 1024, 1),
        "aaf_worker_peak_rss_mb_200": round(big_run[3] / 1024, 1),
    }
    print(f"decoded audio: {result['decoded_mb']} MB in {PICKS} clips")
    print(
        f"load average before {result['load_average_before']}, after {result['load_average_after']}"
    )
    print(
        f"plain soundfile read+write: {result['baseline_mb_s']} MB/s "
        f"(median {base_med:.2f} s, {base_cpu_med:.2f} CPU s)"
    )
    for name, times in our_t.items():
        med = statistics.median(times)
        cpu_med = statistics.median(our_cpu[name])
        result[f"{name}_s"] = [round(t, 3) for t in times]
        result[f"{name}_cpu_s"] = [round(t, 3) for t in our_cpu[name]]
        result[f"{name}_mb_s"] = round(mb / med, 1)
        result[f"{name}_ratio"] = round(base_med / med, 3)
        result[f"{name}_cpu_ratio"] = round(base_cpu_med / cpu_med, 3)
        print(
            f"spot {name}: {result[f'{name}_mb_s']} MB/s "
            f"(median {med:.2f} s), {result[f'{name}_ratio']}x the baseline; "
            f"{cpu_med:.2f} CPU s, {result[f'{name}_cpu_ratio']}x the baseline's CPU"
        )
        if name in worker_cpu:
            aaf = statistics.median(worker_cpu[name])
            result[f"{name}_aaf_worker_cpu_s"] = [round(t, 3) for t in worker_cpu[name]]
            print(f"  of which the AAF worker: {aaf:.2f} CPU s, the spot's own process the rest")
    print(
        f"peak RSS: 50 picks {result['peak_rss_mb_50']} MB, "
        f"200 picks {result['peak_rss_mb_200']} MB; the AAF worker "
        f"{result['aaf_worker_peak_rss_mb_50']} MB and {result['aaf_worker_peak_rss_mb_200']} MB"
    )
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_spot.json").write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
