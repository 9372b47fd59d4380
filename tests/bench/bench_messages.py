"""Conversation and ledger benchmark.

Measured in the same run, each figure the median of several runs:

* a durable ``append_message`` (flock, incremental read of what others appended, one
  fdatasync'd line) against a durable decision (``add_pick``) in the same session: the
  ratio says a message costs about what a decision does;
* a durable ``update_token_usage`` (flock, read, atomic fsync'd replace);
* ``history_window(n=20)`` on a session with 10k messages and 1k decisions: the first
  call of a fresh service (reads the whole log once) and a call after one more message
  (reads only the new line);
* the conversation panel's idle poll (``HistoryFeed.poll`` when nothing changed).

Runnable standalone: ``python tests/bench/bench_messages.py [--quick]``; writes
tests/bench/results/bench_messages.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from foley_tui.store import SessionService  # noqa: E402
from foley_tui.store.history import HistoryFeed  # noqa: E402


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def _timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer runs and messages")
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    runs = 50 if args.quick else 200
    big = 2_000 if args.quick else 10_000
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-messages-") as tmp:
        service = SessionService(Path(tmp))
        sid = service.create("bench")
        store = service.get(sid)
        store.cache_candidates([{"sound": {"id": f"s{i}"}} for i in range(runs)])
        message_s: list[float] = []
        pick_s: list[float] = []
        usage_s: list[float] = []
        for i in range(runs):  # interleaved, so both see the same disk state
            message_s.append(_timed(partial(service.append_message, sid, "user", f"note {i}")))
            pick_s.append(_timed(partial(store.add_pick, f"s{i}", layer="sfx_fg")))
            usage_s.append(_timed(lambda: service.update_token_usage(sid, 100, 10, 0.001)))
        out["append_message_ms"] = _median_ms(message_s)
        out["add_pick_ms"] = _median_ms(pick_s)
        out["message_vs_pick"] = round(statistics.median(message_s) / statistics.median(pick_s), 2)
        out["update_token_usage_ms"] = _median_ms(usage_s)

        big_sid = service.create("big")
        big_store = service.get(big_sid)
        big_store.cache_candidates([{"sound": {"id": f"d{i}"}} for i in range(1000)])
        conversation = service.conversation(big_sid)
        for i in range(big):
            conversation.append("agent" if i % 2 else "user", f"message {i} " + "x" * 80)
        for i in range(1000):
            big_store.add_reject(f"d{i}", reason="bench")
        first: list[float] = []
        incremental: list[float] = []
        idle: list[float] = []
        for _ in range(5 if args.quick else 9):
            fresh = SessionService(Path(tmp))
            first.append(_timed(partial(fresh.history_window, big_sid, 20)))
            service.append_message(big_sid, "user", "one more")
            incremental.append(_timed(partial(fresh.history_window, big_sid, 20)))
            feed = HistoryFeed(fresh.get(big_sid, touch=False))
            feed.poll()
            idle.append(_timed(feed.poll))
        out["messages_in_big_session"] = big + len(first)
        out["history_window_first_ms"] = _median_ms(first)
        out["history_window_incremental_ms"] = _median_ms(incremental)
        out["history_feed_idle_poll_ms"] = _median_ms(idle)
    for key, value in out.items():
        print(f"{key:32} {value}")
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    (results / "bench_messages.json").write_text(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
