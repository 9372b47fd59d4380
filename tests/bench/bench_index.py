"""SQLite index benchmark: first paint, verification, filter latency.

Measured in the same run, each figure the median of several runs in a fresh store (a
new SessionService, so nothing is cached in memory; the OS page cache is warm):

* **first paint**: ``SessionStore.page(limit=60)`` (the first screen straight from the
  index: picks and rejects read, the index checked, one query) at 1k/10k/100k
  candidates, with the 100k/1k ratio (the target is within 1.2x: size-independent), and
  ``quick_rows()`` (every row at once, the list's current first paint) beside it;
* **verification on a reopen**: ``rows()`` of a fresh store whose index is current (a
  scan of every file's (mtime, size) and the index loaded and checked), at each size;
* **the ``/`` filter at 100k**, per keystroke while typing "door slam" (every row
  matches), backspacing it, then "take 4242" (one row does):
  - ``list_ms``: the app's own path, ``Listing.apply`` (audition/filtering.py: cached
    search texts built by ``prepare_search()`` as the ``/`` key does, matches narrowed
    as the query grows, cache hits on backspace), each sequence typed into a fresh
    listing; ``list_sorted_ms`` the same under the caption sort;
  - ``plain_scan_ms``: the same-run baseline, the list's filter before the cache (a
    per-row ``all(term in text(sid) ...)`` over a dict of texts);
  - ``page_ms``: ``page(query=...)`` of the stored index (the trigram index's one-time
    build is ``search_index_build_s``; 1- and 2-character terms are a scan);
* **index write** at each size (rows of a first open, then ``save``).

Fixtures: ``ensure_big_fixture`` of bench_store (100k ~3 KB candidate files, cached
under $FOLEY_TUI_BENCH_CACHE); smaller sizes are sessions made of the first n files.
Runnable standalone: ``python tests/bench/bench_index.py [--quick]``; writes
tests/bench/results/bench_index.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from foley_tui.store import SessionService  # noqa: E402
from foley_tui.store.index_db import INDEX_FILE, load, save  # noqa: E402
from tests.bench.bench_store import BIG_SESSION, CACHE, ensure_big_fixture  # noqa: E402


def sized_fixture(n: int, big: Path) -> Path:
    """A data dir with one session of the first ``n`` files of the big fixture (hard links)."""
    if n >= len(os.listdir(big / "sessions" / BIG_SESSION / "candidates")):
        return big
    data = CACHE / f"index{n}"
    folder = data / "sessions" / BIG_SESSION / "candidates"
    marker = data / f".complete-{n}"
    if marker.exists():
        return data
    if data.exists():
        shutil.rmtree(data)
    folder.mkdir(parents=True)
    source = big / "sessions" / BIG_SESSION / "candidates"
    for name in sorted(os.listdir(source))[:n]:
        os.link(source / name, folder / name)
    marker.write_text("ok")
    return data


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def timed(func: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = func()
    return time.perf_counter() - started, value


def bench_size(data: Path, runs: int) -> dict[str, Any]:
    state = data / "sessions" / BIG_SESSION / ".foley-tui"
    (state / INDEX_FILE).unlink(missing_ok=True)
    first, rows = timed(lambda: SessionService(data).get(BIG_SESSION, touch=False).rows())
    index = load(str(state / INDEX_FILE), expected_rows=len(rows))
    assert index is not None
    writes = []
    for _ in range(max(1, runs // 2)):
        scratch = str(state / "bench-index.sqlite")
        writes.append(timed(lambda: save(scratch, index))[0])  # noqa: B023
        os.unlink(scratch)
    paint, quick, verify = [], [], []
    for _ in range(runs):
        elapsed, page = timed(
            lambda: SessionService(data).get(BIG_SESSION, touch=False).page(limit=60)
        )
        assert page is not None and len(page.rows) == min(60, len(rows))
        paint.append(elapsed)
        quick.append(
            timed(lambda: SessionService(data).get(BIG_SESSION, touch=False).quick_rows())[0]
        )
        verify.append(timed(lambda: SessionService(data).get(BIG_SESSION, touch=False).rows())[0])
    return {
        "candidates": len(rows),
        "first_open_rows_s": round(first, 2),
        "index_write_ms": median_ms(writes),
        "index_bytes": (state / INDEX_FILE).stat().st_size,
        "first_paint_page_ms": median_ms(paint),
        "first_paint_quick_rows_ms": median_ms(quick),
        "reopen_verify_rows_ms": median_ms(verify),
    }


def typed(text: str) -> list[str]:
    """Every query a user's keystrokes make while typing ``text``."""
    return [text[:end] for end in range(1, len(text) + 1)]


def bench_filter(data: Path, runs: int) -> dict[str, Any]:
    from foley_tui.audition.filtering import search_text
    from foley_tui.audition.listing import Listing, ViewSettings

    store = SessionService(data).get(BIG_SESSION, touch=False)
    rows = store.rows()
    build_s = timed(store.prepare_filter)[0]
    door = typed("door slam")
    keystrokes = [*door, *reversed(door[:-1]), "", *typed("take 4242")]
    # The list's filter without the cache (a scan of every row), for the same-run ratio.
    texts = {r.sound_id: search_text(r, r.sound_id) for r in rows}
    ids = [r.sound_id for r in rows]

    def plain(query: str) -> list[str]:
        terms = query.lower().split()
        return [sid for sid in ids if all(term in texts[sid] for term in terms)]

    samples: dict[str, dict[str, list[float]]] = {
        q: {"list": [], "sorted": [], "plain": [], "page": []} for q in keystrokes
    }
    matches: dict[str, int] = {}
    prepare = []
    for _ in range(runs):
        for sort, key in (("rank", "list"), ("caption", "sorted")):
            listing = Listing()
            listing.set_rows(rows)
            listing.apply(ViewSettings(sort=sort))  # the view before "/" (sorts once)
            prepare.append(timed(listing.prepare_search)[0])
            for query in keystrokes:
                elapsed, view = timed(lambda: listing.apply(ViewSettings(query=query, sort=sort)))  # noqa: B023
                samples[query][key].append(elapsed)
                matches[query] = len(view)
        for query in keystrokes:
            samples[query]["plain"].append(timed(lambda: plain(query))[0])  # noqa: B023
            samples[query]["page"].append(timed(lambda: store.page(query=query, limit=60))[0])  # noqa: B023
    per_key: list[dict[str, Any]] = [
        {
            "query": query,
            "matches": matches[query],
            "list_ms": median_ms(samples[query]["list"]),
            "list_sorted_ms": median_ms(samples[query]["sorted"]),
            "plain_scan_ms": median_ms(samples[query]["plain"]),
            "page_ms": median_ms(samples[query]["page"]),
        }
        for query in dict.fromkeys(keystrokes)  # a backspace repeats a query: one line
    ]
    worst = max(per_key, key=lambda k: k["list_ms"])
    return {
        "search_index_build_s": round(build_s, 2),
        "prepare_search_ms": median_ms(prepare),
        "keystrokes": per_key,
        "worst_list_ms": worst["list_ms"],
        "worst_list_sorted_ms": max(k["list_sorted_ms"] for k in per_key),
        "worst_plain_scan_ms": max(k["plain_scan_ms"] for k in per_key),
        "worst_page_ms": max(k["page_ms"] for k in per_key),
        "load_average": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k max, fewer runs")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    top = 10_000 if args.quick else 100_000
    runs = 3 if args.quick else args.runs
    big = ensure_big_fixture(top)
    sizes = [1_000, 10_000, 100_000] if top >= 100_000 else [1_000, 10_000]
    results: dict[str, Any] = {"sizes": {}}
    for n in sizes:
        print(f"  {n} candidates…", flush=True)
        results["sizes"][str(n)] = bench_size(sized_fixture(n, big), runs)
    small, large = results["sizes"]["1000"], results["sizes"][str(sizes[-1])]
    results["first_paint_ratio_large_to_1k"] = round(
        large["first_paint_page_ms"] / small["first_paint_page_ms"], 2
    )
    results["filter_at_largest"] = bench_filter(
        big if top >= 100_000 else sized_fixture(top, big), runs
    )
    out = HERE / "results" / "bench_index.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
