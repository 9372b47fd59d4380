"""The conversation and ledger on the Redis store, on a real redis-server:
gap-free message seq and exact usage with 4 processes at once (compare-and-swap instead
of a file lock), export/import and delete carrying them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from foley_tui.store import SessionNotFoundError
from foley_tui.store.redis.service import RedisSessionService

from .server import RedisServer

WORKERS = 4
PER_WORKER = 20

WORKER = """
import os, sys, time
from foley_tui.store.redis.service import RedisSessionService
url, sid, go = sys.argv[1], sys.argv[2], sys.argv[4]
worker, per = int(sys.argv[3]), int(sys.argv[5])
service = RedisSessionService(url, user=f"w{worker}")
service.get(sid, touch=False)
while not os.path.exists(go):
    time.sleep(0.005)
for i in range(per):
    service.append_message(sid, "agent", f"w{worker}:{i}", {"worker": worker, "i": i})
    service.update_token_usage(sid, 3, 1 + worker, 0.1)
"""


def test_four_processes_tell_and_count_at_once_on_redis(
    service: RedisSessionService, redis_server: RedisServer, tmp_path: Path
) -> None:
    sid = service.create("busy")
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, redis_server.url, sid, str(w), str(go), str(PER_WORKER)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for w in range(WORKERS)
    ]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    reader = RedisSessionService(redis_server.url, user="ana")
    messages = reader.messages(sid)
    total = WORKERS * PER_WORKER
    assert [m.seq for m in messages] == list(range(1, total + 1))
    for w in range(WORKERS):
        assert [m.metadata["i"] for m in messages if m.metadata["worker"] == w] == list(
            range(PER_WORKER)
        )
    usage = reader.usage(sid)
    assert usage.input_tokens == 3 * total
    assert usage.output_tokens == sum((1 + w) * PER_WORKER for w in range(WORKERS))
    assert usage.cost_micro_usd == 100_000 * total


def test_messages_and_usage_travel_with_a_redis_session(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create("door scene")
    service.append_message(sid, "user", "heavier door", {"sound_id": "door"})
    service.update_token_usage(sid, 41_000, 900, 0.62)
    other = RedisSessionService(redis_server.url, user="ben")
    assert [m.content for m in other.messages(sid)] == ["heavier door"]
    assert other.append_message(sid, "agent", "on it").seq == 2
    assert [m.seq for m in service.messages(sid)] == [1, 2]  # incremental read of ben's
    assert [i.text for i in service.history_window(sid, 5)] == ["heavier door", "on it"]
    doc = service.export_session(sid)
    assert [m["seq"] for m in doc["messages"]] == [1, 2]
    service.delete(sid)
    with pytest.raises(SessionNotFoundError):
        service.get(sid)
    client = redis_server.client()
    assert not list(client.scan_iter(match=f"foley:{{{sid}}}*"))
    assert service.import_session(doc) == sid
    fresh = RedisSessionService(redis_server.url, user="ana")
    assert [(m.seq, m.content, m.sound_id) for m in fresh.messages(sid)] == [
        (1, "heavier door", "door"),
        (2, "on it", None),
    ]
    assert fresh.usage(sid).cost_micro_usd == 620_000
    assert fresh.append_message(sid, "user", "after import").seq == 3


def test_the_history_window_names_who_decided_on_redis(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create()
    store = service.get(sid)
    store.cache_candidates([{"sound": {"id": "door"}}])
    service.append_message(sid, "agent", "try this door", {"sound_id": "door"})
    ben = RedisSessionService(redis_server.url, user="ben")
    ben.get(sid).add_pick("door", layer="sfx_fg")
    items = service.history_window(sid, 5)
    assert [(i.source, i.author, i.kind) for i in items] == [
        ("message", "agent", "agent"),
        ("decision", "ben", "pick"),
    ]
