"""Find-similar benchmark: features for 3,000 two-second files, and a query at 10k.

Measured in the same run:

* *features, cold*: :func:`describe_all` over N two-second 44.1 kHz mono WAV takes (pink
  noise, sines, click trains) with an empty cache, per file; its baseline is decoding the
  same files alone (``soundfile.read``), so the ratio is what the analysis adds;
* *features, cached*: the same call again (every vector from the SQLite cache);
* *query at 10k*: one query over 10,000 candidates' raw vectors (the 3,000 measured ones,
  jittered, repeated): reading them from the cache, normalising and ranking (numpy, brute
  force), against the same ranking done with a plain Python loop.

Runnable standalone (``python tests/bench/bench_similar.py [--files N] [--runs N]``) or
via ``make bench``; prints a table and writes tests/bench/results/bench_similar.json.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repo root: tests.sound_kinds

from foley_tui.audio.features import (  # noqa: E402
    FeatureCache,
    Sound,
    content_key,
    describe_all,
    nearest,
)
from tests.sound_kinds import KINDS, write_take  # noqa: E402

FILES = 3000
CANDIDATES = 10_000
RUNS = 20


def write_files(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"take_{index:05d}.wav"
        if not path.exists():
            write_take(path, KINDS[index % len(KINDS)], seed=index, seconds=2.0)
        paths.append(path)
    return paths


def python_rank(query: list[float], rows: list[list[float]], k: int) -> list[int]:
    """Cosine ranking without numpy: the baseline of the query."""
    qn = math.sqrt(math.fsum(x * x for x in query)) or 1.0
    scores = []
    for index, row in enumerate(rows):
        dot = math.fsum(a * b for a, b in zip(query, row, strict=True))
        rn = math.sqrt(math.fsum(x * x for x in row)) or 1.0
        scores.append((1 - dot / (qn * rn), index))
    scores.sort()
    return [index for _, index in scores[:k]]


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--candidates", type=int, default=CANDIDATES)
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-similar-") as tmp:
        root = Path(tmp)
        paths = write_files(root / "takes", args.files)

        started = time.perf_counter()
        for path in paths:
            sf.read(str(path), dtype="float32")
        decode_s = time.perf_counter() - started

        cache = FeatureCache(root / "features.sqlite")
        sounds = [Sound(path.stem, path) for path in paths]
        started = time.perf_counter()
        cold = describe_all(sounds, cache)
        cold_s = time.perf_counter() - started
        assert cold.analysed == len(paths) and not cold.errors
        started = time.perf_counter()
        warm = describe_all(sounds, cache)
        warm_s = time.perf_counter() - started
        assert warm.analysed == 0

        # 10k candidates: the measured vectors, jittered, stored under fresh keys.
        rng = np.random.default_rng(7)
        measured = np.stack([cold.vectors[path.stem] for path in paths])
        picks = rng.integers(0, len(measured), args.candidates)
        big = measured[picks] * rng.normal(1.0, 0.02, (args.candidates, measured.shape[1]))
        keys = [f"{index:064x}" for index in range(args.candidates)]
        big_cache = FeatureCache(root / "big.sqlite")
        big_cache.put_many({key: big[i].astype(np.float32) for i, key in enumerate(keys)})

        numpy_runs: list[float] = []
        read_runs: list[float] = []
        for run in range(args.runs):
            t0 = time.perf_counter()
            vectors = big_cache.get_many(keys)
            t1 = time.perf_counter()
            nearest(keys[run], vectors, k=10)
            t2 = time.perf_counter()
            read_runs.append(t1 - t0)
            numpy_runs.append(t2 - t0)
        rows = [list(map(float, row)) for row in big]
        python_runs: list[float] = []
        for run in range(max(3, args.runs // 5)):
            t0 = time.perf_counter()
            python_rank(rows[run], rows, 10)
            python_runs.append(time.perf_counter() - t0)
        hash_t0 = time.perf_counter()
        for path in paths[:200]:
            content_key(path)
        hash_per_file = (time.perf_counter() - hash_t0) / min(200, len(paths))

    per_file_ms = cold_s / len(paths) * 1e3
    decode_ms = decode_s / len(paths) * 1e3
    results = {
        "files": len(paths),
        "features_cold_total_s": cold_s,
        "features_cold_per_file_ms": per_file_ms,
        "decode_only_per_file_ms": decode_ms,
        "features_vs_decode": per_file_ms / decode_ms if decode_ms else None,
        "features_cached_total_s": warm_s,
        "hash_per_file_ms": hash_per_file * 1e3,
        "candidates": args.candidates,
        "query_median_ms": statistics.median(numpy_runs) * 1e3,
        "query_cache_read_median_ms": statistics.median(read_runs) * 1e3,
        "query_python_baseline_median_ms": statistics.median(python_runs) * 1e3,
    }
    print(f"features, cold: {len(paths)} files in {cold_s:.1f} s ({per_file_ms:.2f} ms/file)")
    print(f"  baseline decode only: {decode_ms:.2f} ms/file (x{results['features_vs_decode']:.1f})")
    print(f"features, cached: {warm_s:.2f} s (hashing {hash_per_file * 1e3:.2f} ms/file)")
    print(
        f"query at {args.candidates}: {results['query_median_ms']:.1f} ms median"
        f" (cache read {results['query_cache_read_median_ms']:.1f} ms);"
        f" python loop {results['query_python_baseline_median_ms']:.0f} ms"
    )
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_similar.json").write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
