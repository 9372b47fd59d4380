"""Session-store benchmark: ours against foley's own SessionStore.

Measured in the same run, each figure the median of several runs:

* a durable pick (atomic replace + fsync of file and folder + fsync'd journal append)
  through ``add_pick`` (which also counts the picks, as foley's does) and through
  ``set_layer`` (the app's path), interleaved with a bare stdlib fsync'd atomic write
  (ratios per run), and foley's ``add_pick`` (non-atomic, no fsync, walks the folder to
  count), over 1,000 picks;
* listing 1,000 picks (``list_picks``) against foley's;
* caching 10k candidates against foley's ``cache_candidates`` (same Candidate objects);
* a pick in a fresh process (``update_pick`` on a fresh store: the journal's tail read,
  the atomic write, the append) with an empty journal, a 100k-entry journal and 40k
  garbage lines, against a bare stdlib fsync'd atomic write; and undo availability
  (the one whole read of a 100k-entry journal);
* the rows of a 100k-candidate session (~3 KB files): our ``rows()`` with a valid index
  and the first time (no index), against foley's read-all (``candidates.items()``) and a
  plain ``scandir`` + ``json.loads`` + row extraction; each in a fresh child process so
  its max RSS is its own.

* the Redis store beside the file store, on a private redis-server (AOF, ``appendfsync
  always``) started for the run: durable pick p50/p99 (interleaved with the file store's),
  ``list_picks`` of 1,000, the rows of the big session against the file store's
  valid-index rows, the app's first paint of it (one screen from ``page()``, else the
  quick rows; then picks and rejects) and its whole list as the loader reads it (that
  first paint, then the exact rows), each in a fresh process, files and Redis interleaved, and live
  propagation between two processes (a pick in this process until a follower process's
  ``XREAD BLOCK`` returns it) p50/p99.

foley is driven with stores injected through ``foley.stores.make_session_store(...,
rootdir=...)``, so it writes the same layout without depending on FOLEY_DATA_DIR.
The 100k fixture is generated once and cached under $FOLEY_TUI_BENCH_CACHE (default
/tmp/foley_tui_bench_store). Runnable standalone: ``python tests/bench/bench_store.py
[--quick]``; writes tests/bench/results/bench_store.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from foley_tui.domain import Candidate, Layer  # noqa: E402
from foley_tui.store import SessionService  # noqa: E402
from foley_tui.store.local import license_record  # noqa: E402

CACHE = Path(os.environ.get("FOLEY_TUI_BENCH_CACHE", "/tmp/foley_tui_bench_store"))
BIG_SESSION = "bench100k"
LAYERS: tuple[Layer, ...] = ("voice", "sfx_fg", "ambience", "stinger", "music")


# ---------------------------------------------------------------------- fixtures
def make_candidate(i: int) -> dict[str, Any]:
    """A realistic foley candidate dict of about 3 KB (at indent=4)."""
    sid = f"freesound:{100000 + i}"
    return {
        "sound": {
            "id": sid,
            "content_sha256": f"{i:064x}",
            "hash_algo": "sha256",
            "uri": f"https://freesound.org/people/someone/sounds/{100000 + i}/",
            "storage_mode": "by_reference",
            "archive_format": None,
            "source_sample_rate": 48000,
            "source_bit_depth": 24,
            "license": license_record(
                source="freesound",
                source_id=str(100000 + i),
                source_url=f"https://freesound.org/s/{100000 + i}/",
                acquisition_method="api",
                retrieved_at="2026-11-01T10:00:00Z",
                adapter_version="1.2.0",
                license_id="CC0-1.0",
                license_name="Creative Commons Zero",
                license_version="1.0",
                license_url="https://creativecommons.org/publicdomain/zero/1.0/",
                creator_name=f"recordist{i % 97}",
                commercial_ok=True,
                redistribute_standalone_ok=True,
                modification_ok=True,
            ),
            "caption": f"heavy wooden door slams shut in a stone hallway, take {i}",
            "tags": ["door", "slam", "wood", "hallway", "reverb", f"take{i % 50}"],
            "ucs_category": "DOORS",
            "ucs_subcategory": "WOOD",
            "audioset_labels": ["Door", "Slam"],
            "duration_s": 1.0 + (i % 700) / 100,
            "sample_rate": 48000,
            "channels": 2,
            "loudness_lufs": -18.5,
            "format": "flac",
            "qc": None,
            "embedding_model": None,
            "embedding_dim": None,
            "embedding_ref": None,
            "named_cue": None,
            "schema_version": 1,
        },
        "origin": "retrieved",
        "event": {
            "query": "door slam",
            "layer": "sfx_fg",
            "diegetic": True,
            "salience": "high",
            "onset": "after:line-3",
            "loop": False,
            "ucs_catid": "DOORWood",
            "audioset": ["Door"],
            "era_place": None,
        },
        "clap_score": 0.31,
        "bm25_score": 7.2,
        "rrf_score": 0.032,
        "rerank_score": None,
        "verdict": {"match": True, "confidence": 0.9, "reason": "clear slam", "level": "clap"},
        "license_ok": True,
        "preview_uri": f"https://cdn.freesound.org/previews/{i}/{i}-hq.mp3",
        "notes": ["retrieved by the agent for the hallway scene"],
        "cost_estimate_usd": None,
        "cost_actual_usd": None,
    }


def ensure_big_fixture(n: int) -> Path:
    """A data dir holding one session of ``n`` candidate files, generated once and cached."""
    data = CACHE / f"data{n}"
    folder = data / "sessions" / BIG_SESSION / "candidates"
    marker = data / f".complete-{n}"
    if marker.exists():
        return data
    if data.exists():
        shutil.rmtree(data)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    from foley_tui.store.codec import dumps, encode_key

    for i in range(n):
        cand = make_candidate(i)
        with open(folder / encode_key(cand["sound"]["id"]), "wb") as fh:
            fh.write(dumps(cand))
    marker.write_text("ok")
    print(f"  generated {n} candidates in {time.perf_counter() - started:.1f} s", flush=True)
    return data


def foley_store(root: Path, session_id: str) -> Any:
    """foley's own SessionStore on the same layout under ``root``/sessions."""
    from foley.agent.session import SessionStore as FoleySessionStore
    from foley.stores import make_session_store

    sessions = root / "sessions"
    return FoleySessionStore(
        session_id,
        candidates=make_session_store(session_id, "candidates", rootdir=sessions),
        picks=make_session_store(session_id, "picks", rootdir=sessions),
        rejects=make_session_store(session_id, "rejects", rootdir=sessions),
    )


# ---------------------------------------------------------------------- helpers
def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def stdlib_atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- measurements
def bench_picks(n: int, work: Path) -> dict[str, Any]:
    """One run: n durable picks (ours), n foley add_pick, n stdlib atomic writes, listing."""
    root = work / f"picks-{secrets.token_hex(3)}"
    service = SessionService(root)
    store = service.get(service.create("bench"))
    ui_store = service.get(service.create("bench-ui"))
    plain_dir = root / "plain"
    plain_dir.mkdir()
    # Interleaved, so load drifting during the run hits ours and the baseline alike:
    # add_pick (foley's API: also counts the picks, a listdir), set_layer on a new sound
    # (the app's path: the same durable pick + journal, no count) and the stdlib write.
    ours: list[float] = []
    ours_ui: list[float] = []
    plain: list[float] = []
    for i in range(n):
        t0 = time.perf_counter()
        store.add_pick(f"freesound:{i}", layer=LAYERS[i % 5], onset=i * 0.5)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ui_store.set_layer(f"freesound:{i}", LAYERS[i % 5])
        ours_ui.append(time.perf_counter() - t0)
        data = json.dumps({"sound_id": f"x{i}", "layer": "voice", "onset": 1.0}, indent=4)
        t0 = time.perf_counter()
        stdlib_atomic_write(plain_dir / f"x{i}.json", data.encode())
        plain.append(time.perf_counter() - t0)

    fstore = foley_store(root, "foley-picks")
    theirs: list[float] = []
    for i in range(n):
        t0 = time.perf_counter()
        fstore.add_pick(f"freesound:{i}", layer=LAYERS[i % 5], onset=i * 0.5)
        theirs.append(time.perf_counter() - t0)

    time.sleep(0.1)  # let the picks age past the racy window, as in real use
    # Listing: a fresh store (cold: parse every file) and the same store again (warm cache).
    cold_store = SessionService(root).get(store.session_id)
    t0 = time.perf_counter()
    listed = cold_store.list_picks()
    list_cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    cold_store.list_picks()
    list_warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    flisted = fstore.list_picks()
    list_foley = time.perf_counter() - t0
    assert len(listed) == len(flisted) == n, (len(listed), len(flisted))
    tail = max(1, n // 10)
    result = {
        "ours_p50_ms": ms(statistics.median(ours)),
        "ours_p99_ms": ms(pct(ours, 99)),
        "ours_last10pct_p50_ms": ms(statistics.median(ours[-tail:])),
        "foley_p50_ms": ms(statistics.median(theirs)),
        "foley_p99_ms": ms(pct(theirs, 99)),
        "foley_last10pct_p50_ms": ms(statistics.median(theirs[-tail:])),
        "ours_ui_p50_ms": ms(statistics.median(ours_ui)),
        "ours_ui_p99_ms": ms(pct(ours_ui, 99)),
        "stdlib_p50_ms": ms(statistics.median(plain)),
        "stdlib_p99_ms": ms(pct(plain, 99)),
        "ratio_ours_over_stdlib_p50": round(statistics.median(ours) / statistics.median(plain), 2),
        "ratio_ours_over_stdlib_p99": round(pct(ours, 99) / pct(plain, 99), 2),
        "ratio_ui_over_stdlib_p50": round(statistics.median(ours_ui) / statistics.median(plain), 2),
        "ratio_ui_over_stdlib_p99": round(pct(ours_ui, 99) / pct(plain, 99), 2),
        "list_ours_cold_ms": ms(list_cold),
        "list_ours_warm_ms": ms(list_warm),
        "list_foley_ms": ms(list_foley),
    }
    shutil.rmtree(root, ignore_errors=True)
    return result


def _journal_lines(record: bytes, entries: int, garbage: int) -> bytes:
    lines = [record.replace(b'"seq":1,', f'"seq":{n},'.encode(), 1) for n in range(1, entries + 1)]
    lines += [b"\x00garbage, not a record"] * garbage
    return b"\n".join(lines) + b"\n" if lines else b""


def bench_journal(work: Path, samples: int, entries: int, garbage: int) -> dict[str, Any]:
    """A first pick of a fresh store (what one ``foley-tui pick`` costs) per journal size."""
    data = work / f"journal-{secrets.token_hex(3)}"
    service = SessionService(data)
    sid = service.create("journal")
    store = service.get(sid)
    store.cache_candidates([make_candidate(i) for i in range(samples)])
    store.update_pick(make_candidate(0)["sound"]["id"])
    journal = data / "sessions" / sid / ".foley-tui" / "journal.jsonl"
    record = journal.read_bytes().rstrip(b"\n")
    shapes = {"empty": (0, 0), "100k": (entries, 0), "40k-garbage": (1, garbage)}
    out: dict[str, Any] = {}
    for name, (n_entries, n_garbage) in shapes.items():
        journal.write_bytes(_journal_lines(record, n_entries, n_garbage))
        cost, plain = [], []
        for i in range(1, samples):
            fresh = SessionService(data).get(sid, touch=False)
            started = time.perf_counter()
            fresh.update_pick(make_candidate(i)["sound"]["id"], layer=LAYERS[i % 5])
            cost.append(time.perf_counter() - started)
            started = time.perf_counter()
            stdlib_atomic_write(work / f"plain-{i}.json", b"{}")
            plain.append(time.perf_counter() - started)
        for i in range(1, samples):  # undecided again for the next shape
            store.clear(make_candidate(i)["sound"]["id"])
        journal.write_bytes(_journal_lines(record, n_entries, n_garbage))
        fresh = SessionService(data).get(sid, touch=False)
        started = time.perf_counter()
        fresh.can_undo()
        full_read = time.perf_counter() - started
        out[name] = {
            "first_pick_p50_ms": ms(statistics.median(cost)),
            "stdlib_write_p50_ms": ms(statistics.median(plain)),
            "ratio_pick_over_stdlib": round(statistics.median(cost) / statistics.median(plain), 2),
            "can_undo_full_read_ms": ms(full_read),
        }
    out["ratio_100k_over_empty"] = round(
        out["100k"]["first_pick_p50_ms"] / out["empty"]["first_pick_p50_ms"], 2
    )
    out["ratio_garbage_over_empty"] = round(
        out["40k-garbage"]["first_pick_p50_ms"] / out["empty"]["first_pick_p50_ms"], 2
    )
    return out


def bench_cache(n: int, work: Path) -> dict[str, Any]:
    """One run: cache n candidates with ours and with foley (the same Candidate objects)."""
    from foley.base import Candidate as FoleyCandidate

    objects = [FoleyCandidate.from_dict(make_candidate(i)) for i in range(n)]
    root = work / f"cache-{secrets.token_hex(3)}"
    service = SessionService(root)
    store = service.get(service.create("bench"))
    t0 = time.perf_counter()
    count = store.cache_candidates(objects)
    ours = time.perf_counter() - t0
    fstore = foley_store(root, "foley-cache")
    t0 = time.perf_counter()
    fcount = fstore.cache_candidates(objects)
    theirs = time.perf_counter() - t0
    assert count == fcount == n
    shutil.rmtree(root, ignore_errors=True)
    return {"ours_s": round(ours, 3), "foley_s": round(theirs, 3)}


#: Rows of the first screen (a tall terminal).
PAINT_ROWS = 60


def first_paint(store: Any) -> int:
    """What the app reads before its first frame of the list: one screen from ``page()``
    when the store can give it, else the quick rows (the loader's fallback); then the
    picks and rejects (the status column). Returns the session's row count."""
    page = store.page(limit=PAINT_ROWS)
    if page is not None:
        count = int(page.total)
    else:
        rows = store.quick_rows()
        count = len(rows) if rows is not None else len(store.candidate_ids())
    store.picks()
    store.rejects()
    return count


def whole_list(store: Any) -> int:
    """The loader's reads until every row is in: the first paint, then the exact rows."""
    first_paint(store)
    return len(store.rows())


def _open_big(op: str, data: str) -> Any:
    if op.endswith("-redis"):
        from foley_tui.store.redis.service import RedisSessionService

        url, sid = data.split("|")
        return RedisSessionService(url, user="bench").get(sid)
    return SessionService(Path(data)).get(BIG_SESSION)


def peak_rss_mb() -> float:
    """This process's own peak RSS: VmHWM belongs to its memory map, made anew at exec.
    (getrusage's ru_maxrss survives the exec on Linux, so a child spawned by a big
    parent would report at least the parent's size at the fork.)"""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(op: str, data: str) -> dict[str, Any]:
    """One 100k measurement in this (fresh) process."""
    if op in ("paint", "paint-redis", "list", "list-redis"):
        store = _open_big(op, data)
        t0 = time.perf_counter()
        count = first_paint(store) if op.startswith("paint") else whole_list(store)
        seconds = time.perf_counter() - t0
        rss_mb = peak_rss_mb()
        return {"seconds": seconds, "rss_mb": rss_mb, "count": count}
    root = Path(data)
    folder = root / "sessions" / BIG_SESSION
    t0 = time.perf_counter()
    if op in ("ours-first", "ours-valid"):
        if op == "ours-first":
            (folder / ".foley-tui" / "index.sqlite").unlink(missing_ok=True)
        store = SessionService(root).get(BIG_SESSION)
        t0 = time.perf_counter()
        count = len(store.rows())
    elif op == "foley-readall":
        fstore = foley_store(root, BIG_SESSION)
        t0 = time.perf_counter()
        everything = dict(fstore.candidates.items())
        count = len(everything)
    elif op == "scandir-json":
        rows = []
        with os.scandir(folder / "candidates") as it:
            for entry in it:
                if entry.name.startswith("."):
                    continue
                with open(entry.path, "rb") as fh:
                    rows.append(Candidate(json.loads(fh.read())).to_row())
        count = len(rows)
    elif op == "names-only":
        count = sum(1 for _ in os.scandir(folder / "candidates"))
    else:
        raise SystemExit(f"unknown op {op}")
    seconds = time.perf_counter() - t0
    rss_mb = peak_rss_mb()
    return {"seconds": seconds, "rss_mb": rss_mb, "count": count}


def run_child(op: str, data: Path | str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", op, str(data)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_big(
    n: int, runs: int, slow_runs: int, only: tuple[str, ...] | None = None
) -> dict[str, Any]:
    data = ensure_big_fixture(n)
    result: dict[str, Any] = {"n": n}
    plan = [
        ("names-only", runs),
        ("ours-first", slow_runs),
        ("ours-valid", runs),
        ("scandir-json", slow_runs),
        ("foley-readall", slow_runs),
    ]
    if only is not None:
        plan = [(op, count) for op, count in plan if op in only]
    for op, count in plan:
        samples = []
        for _ in range(count):
            index = data / "sessions" / BIG_SESSION / ".foley-tui" / "index.sqlite"
            if op == "ours-valid" and not index.exists():
                run_child("ours-first", data)  # make the index this measurement validates
            samples.append(run_child(op, data))
            assert samples[-1]["count"] >= n, samples[-1]
        result[op] = {
            "median_s": round(statistics.median(s["seconds"] for s in samples), 3),
            "max_rss_mb": round(max(s["rss_mb"] for s in samples), 1),
            "runs": count,
        }
        print(f"  rows {n}: {op:<14} {result[op]}", flush=True)
    return result


FOLLOW = """
import sys, time
from foley_tui.store.redis.service import RedisSessionService
store = RedisSessionService(sys.argv[1], user="follower").get(sys.argv[2])
feed = store.change_feed(block_ms=1000)
feed.wait()
print("ready", flush=True)
seen = 0
while seen < int(sys.argv[3]):
    change = feed.wait()
    now = time.time_ns()
    for event in change.events:
        if event.get("op") == "decide":
            print(event["key"], now, flush=True)
            seen += 1
"""


def bench_redis(n: int, big_n: int, runs: int, work: Path) -> dict[str, Any]:
    """The Redis store beside the file store, on a private server started here."""
    from foley_tui.store.redis.service import RedisSessionService
    from foley_tui.store.redis.session import RedisSessionStore
    from tests.e2e.redis.server import RedisServer

    server = RedisServer(work / "redis", appendfsync="always")
    server.start()
    try:
        files = SessionService(work / "files")
        redis_service = RedisSessionService(server.url, user="bench")
        ours_file: list[float] = []
        ours_redis: list[float] = []
        list_file: list[float] = []
        list_redis: list[float] = []
        for _ in range(runs):
            fstore = files.get(files.create("bench"))
            rstore = redis_service.get(redis_service.create("bench"))
            for i in range(n):  # interleaved: load drift hits both alike
                t0 = time.perf_counter()
                fstore.add_pick(f"freesound:{i}", layer=LAYERS[i % 5], onset=i * 0.5)
                ours_file.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                rstore.add_pick(f"freesound:{i}", layer=LAYERS[i % 5], onset=i * 0.5)
                ours_redis.append(time.perf_counter() - t0)
            time.sleep(0.1)
            cold_file = SessionService(work / "files").get(fstore.session_id)
            cold_redis = RedisSessionService(server.url).get(rstore.session_id)
            t0 = time.perf_counter()
            assert len(cold_file.list_picks()) == n
            list_file.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            assert len(cold_redis.list_picks()) == n
            list_redis.append(time.perf_counter() - t0)

        # Live propagation: a pick here until the follower process has it.
        sid = redis_service.create("live")
        live_store = redis_service.get(sid)
        count = 200
        follower = subprocess.Popen(
            [sys.executable, "-c", FOLLOW, server.url, sid, str(count)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert follower.stdout is not None
        assert follower.stdout.readline().strip() == "ready"
        sent: dict[str, int] = {}
        for i in range(count):
            key = f"live:{i}"
            sent[key] = time.time_ns()
            live_store.add_pick(key)
            time.sleep(0.01)
        out, _ = follower.communicate()
        delays = []
        for line in out.splitlines():
            key, at = line.split()
            delays.append((int(at) - sent[key]) / 1e9)

        # First paint of a big session: the rows index against the file store's.
        big = redis_service.get(redis_service.create("big"))
        assert isinstance(big, RedisSessionStore)
        t0 = time.perf_counter()
        big.cache_candidates(make_candidate(i) for i in range(big_n))
        cache_s = time.perf_counter() - t0
        rows_times = []
        for _ in range(3):
            fresh = RedisSessionService(server.url).get(big.session_id)
            t0 = time.perf_counter()
            rows = fresh.rows()
            rows_times.append(time.perf_counter() - t0)
            assert len(rows) == big_n
        # The app's reads, each in a fresh process, files and Redis interleaved: the first
        # screen, and the whole list as the loader reads it.
        files_big = str(ensure_big_fixture(big_n))
        on_redis = f"{server.url}|{big.session_id}"
        fresh_runs: dict[str, list[float]] = {}
        for _ in range(runs):
            for op, where in (
                ("paint", files_big),
                ("paint-redis", on_redis),
                ("list", files_big),
                ("list-redis", on_redis),
            ):
                sample = run_child(op, Path(where) if "|" not in where else where)
                assert sample["count"] >= big_n, (op, sample)
                fresh_runs.setdefault(op, []).append(sample["seconds"])
        paint = {op: statistics.median(v) for op, v in fresh_runs.items()}
        return {
            "n": n,
            "runs": runs,
            "appendfsync": "always",
            "pick_file_p50_ms": ms(statistics.median(ours_file)),
            "pick_file_p99_ms": ms(pct(ours_file, 99)),
            "pick_redis_p50_ms": ms(statistics.median(ours_redis)),
            "pick_redis_p99_ms": ms(pct(ours_redis, 99)),
            "ratio_redis_over_file_pick_p50": round(
                statistics.median(ours_redis) / statistics.median(ours_file), 2
            ),
            "list_picks_file_ms": ms(statistics.median(list_file)),
            "list_picks_redis_ms": ms(statistics.median(list_redis)),
            "live_p50_ms": ms(statistics.median(delays)),
            "live_p99_ms": ms(pct(delays, 99)),
            "live_n": len(delays),
            "big_n": big_n,
            "big_cache_s": round(cache_s, 2),
            "rows_redis_s": round(statistics.median(rows_times), 3),
            "first_paint_file_s": round(paint["paint"], 4),
            "first_paint_redis_s": round(paint["paint-redis"], 4),
            "ratio_first_paint_redis_over_file": round(paint["paint-redis"] / paint["paint"], 2),
            "whole_list_file_s": round(paint["list"], 3),
            "whole_list_redis_s": round(paint["list-redis"], 3),
            "ratio_whole_list_redis_over_file": round(paint["list-redis"] / paint["list"], 2),
            "load_average": os.getloadavg(),
        }
    finally:
        server.stop()


def _redis_figures(picks_n: int, big_n: int, runs: int, big: dict[str, Any]) -> dict[str, Any]:
    """The Redis figures, with the big session's rows against the file store's (``big``)."""
    work = Path(tempfile.mkdtemp(prefix="redis-", dir=CACHE))
    try:
        result = bench_redis(picks_n, big_n, runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["rows_file_valid_s"] = big["ours-valid"]["median_s"]
    result["ratio_rows_redis_over_file_valid"] = round(
        result["rows_redis_s"] / big["ours-valid"]["median_s"], 2
    )
    print(f"  redis: {result}", flush=True)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=2, metavar=("OP", "DATA"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--journal-only", action="store_true", help="only the pick-cost-by-journal-size figure"
    )
    parser.add_argument(
        "--redis-only",
        action="store_true",
        help="only the Redis figures (with their file-store baselines from the same run)",
    )
    args = parser.parse_args(argv if argv is not None else [])
    if args.child:
        print(json.dumps(child(*args.child)))
        return {}
    picks_n, cache_n, big_n = (200, 1000, 5000) if args.quick else (1000, 10_000, 100_000)
    runs = 2 if args.quick else args.runs
    slow_runs = 1 if args.quick else 3
    CACHE.mkdir(parents=True, exist_ok=True)
    if args.redis_only:
        big = bench_big(big_n, runs, slow_runs, only=("ours-valid",))
        return {"redis": _redis_figures(picks_n, big_n, runs, big)}
    work = Path(tempfile.mkdtemp(prefix="work-", dir=CACHE))
    results: dict[str, Any] = {}
    try:
        journal_runs = [
            bench_journal(work, 21 if args.quick else 41, 100_000, 40_000)
            for _ in range(max(1, runs - 2))
        ]
        results["journal"] = journal_runs[len(journal_runs) // 2]
        print(f"  journal: {results['journal']}", flush=True)
        if args.journal_only:
            print(json.dumps(results, indent=2))
            return results
        pick_runs = [bench_picks(picks_n, work) for _ in range(runs)]
        picks = {k: round(statistics.median(r[k] for r in pick_runs), 3) for k in pick_runs[0]}
        picks["n"] = picks_n
        picks["runs"] = runs
        picks["ratio_foley_over_ours_p50"] = round(picks["foley_p50_ms"] / picks["ours_p50_ms"], 1)
        picks["ratio_foley_over_ours_at_n"] = round(
            picks["foley_last10pct_p50_ms"] / picks["ours_last10pct_p50_ms"], 1
        )
        picks["ratio_list_foley_over_ours_cold"] = round(
            picks["list_foley_ms"] / picks["list_ours_cold_ms"], 1
        )
        results["picks"] = picks
        print(f"  picks: {picks}", flush=True)
        cache_runs = [bench_cache(cache_n, work) for _ in range(max(1, runs - 2))]
        cache = {k: round(statistics.median(r[k] for r in cache_runs), 3) for k in cache_runs[0]}
        cache["n"] = cache_n
        cache["ratio_foley_over_ours"] = round(cache["foley_s"] / cache["ours_s"], 2)
        results["cache"] = cache
        print(f"  cache: {cache}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    big = bench_big(big_n, runs, slow_runs)
    big["ratio_foley_readall_over_ours_first"] = round(
        big["foley-readall"]["median_s"] / big["ours-first"]["median_s"], 2
    )
    big["ratio_scandir_over_ours_first"] = round(
        big["scandir-json"]["median_s"] / big["ours-first"]["median_s"], 2
    )
    big["ratio_foley_readall_over_ours_valid"] = round(
        big["foley-readall"]["median_s"] / big["ours-valid"]["median_s"], 1
    )
    results["rows"] = big
    results["redis"] = _redis_figures(picks_n, big_n, runs, big)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_store.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
