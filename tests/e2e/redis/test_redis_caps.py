"""The file store's per-value caps hold for every value read from Redis: a value over
its cap is reported (its length, never its bytes, crosses the wire) and the rest of the
session reads as usual, as an oversized file does on the file store."""

from __future__ import annotations

import json
from pathlib import Path

from foley_tui.domain import Status
from foley_tui.safe_io import MAX_RECORD_BYTES, MAX_STATE_BYTES
from foley_tui.store.redis.service import RedisSessionService
from tests.cli_rss import cli_rss
from tests.unit.store.helpers import candidate

from .server import RedisServer

#: Over the record cap by half: read whole, it would cost its size several times over.
HUGE = MAX_RECORD_BYTES + (MAX_RECORD_BYTES >> 1)


def _huge_candidate(sound_id: str) -> bytes:
    return json.dumps({"sound": {"id": sound_id, "caption": "x" * HUGE}}).encode()


def test_an_oversized_candidate_is_reported_and_never_read(
    service: RedisSessionService, redis_server: RedisServer, tmp_path: Path
) -> None:
    small = service.create(title="small")
    big = service.create(title="big")
    for sid in (small, big):
        service.get(sid).cache_candidates([candidate("a"), candidate("b")])
    keys = service.backend.keys
    # Written straight into the hash (any client can), as foley's agent could.
    service.backend.client.hset(keys.ns(big, "candidates"), "huge", _huge_candidate("huge"))

    data_dir = tmp_path / "data"
    baseline = cli_rss(data_dir, "candidates", small, "--json", "--store", redis_server.url)
    listed = cli_rss(data_dir, "candidates", big, "--json", "--store", redis_server.url)
    assert baseline["rc"] == 0 and listed["rc"] == 0
    rows = {row["sound_id"]: row for row in json.loads(listed["out"])}
    assert set(rows) == {"a", "b", "huge"} and rows["a"]["caption"] == "caption of a"
    # The reply that was never sent: the child grew by far less than the value's size.
    assert listed["rss_kb"] - baseline["rss_kb"] < (MAX_RECORD_BYTES >> 10) // 2

    shown = cli_rss(data_dir, "session", "show", big, "--json", "--store", redis_server.url)
    problems = json.loads(shown["out"])["problems"]
    assert [(p["namespace"], p["key"]) for p in problems] == [("candidates", "huge")]
    assert "too large" in problems[0]["reason"]

    store = service.get(big)
    assert store.candidate("huge") is None and store.candidate("a") is not None
    assert any(p.key == "huge" and "too large" in p.reason for p in store.problems())


def test_oversized_decisions_meta_and_journal_entries_are_reported(
    service: RedisSessionService,
) -> None:
    sid = service.create(title="scene")
    store = service.get(sid)
    store.cache_candidates([candidate("a"), candidate("door")])
    store.add_pick("a", layer="voice")
    keys, client = service.backend.keys, service.backend.client
    huge_pick = json.dumps({"sound_id": "door", "layer": None, "x": "y" * HUGE}).encode()
    client.hset(keys.ns(sid, "picks"), "door", huge_pick)
    client.hset(keys.meta(sid), "title", json.dumps("t" * (MAX_STATE_BYTES + 1)))
    client.xadd(keys.journal(sid), {"seq": 99, "rec": "z" * HUGE})

    fresh = RedisSessionService(service.url, user="ana").get(sid)
    assert list(fresh.picks()) == ["a"]  # the oversized pick is reported, not read
    assert fresh.meta().title is None  # defaults apply, as for a damaged meta.json
    assert [e.sound_id for e in fresh.journal()] == ["a"]
    reasons = {(p.namespace, p.key): p.reason for p in fresh.problems()}
    assert "too large" in reasons[("picks", "door")]
    assert any("title" in r and "too large" in r for r in reasons.values())
    assert any("unreadable entry" in r for r in reasons.values())
    # A decision replaces the record it could not read (as on files), compare-and-swap
    # on its length: the reject lands, the oversized pick goes.
    fresh.set_reject("door", "too big")
    assert fresh.status("door") is Status.REJECTED
    assert client.hget(keys.ns(sid, "picks"), "door") is None
