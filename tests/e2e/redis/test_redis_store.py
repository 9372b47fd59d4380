"""Contract tests of the Redis store against a real redis-server (no fake stands in)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from foley.agent import verbs
from foley.agent.session import SessionStore as FoleySessionStore
from foley.base import Candidate

from foley_tui.domain import Pick, Reject, Status
from foley_tui.store import SessionNotFoundError, dumps
from foley_tui.store.errors import UndoConflictError
from foley_tui.store.redis import namespaces
from foley_tui.store.redis.namespace import RedisBackend
from foley_tui.store.redis.service import RedisSessionService
from foley_tui.store.redis.session import RedisSessionStore
from tests.unit.store.helpers import ODD_IDS, candidate

from .server import RedisServer


@pytest.fixture
def foley_factory() -> Iterator[None]:
    """Restore foley's (private, 0.0.89) verb state after a test configured it."""
    saved = dict(verbs._STATE)
    yield
    verbs._STATE.clear()
    verbs._STATE.update(saved)


def _store(service: RedisSessionService, session_id: str) -> RedisSessionStore:
    store = service.get(session_id)
    assert isinstance(store, RedisSessionStore)
    return store


def test_foley_session_store_runs_on_our_namespaces(
    redis_server: RedisServer, foley_factory: None
) -> None:
    url = redis_server.url
    ns = namespaces(url, "shared", user="agent")
    foley = FoleySessionStore("shared", **ns)
    cands = [Candidate.from_dict(candidate(i)) for i in ODD_IDS[:4]]
    assert foley.cache_candidates(cands) == 4
    assert foley.add_pick(ODD_IDS[0], layer="sfx_fg", onset=1.5) == 1
    assert foley.add_pick(ODD_IDS[1], layer=None, onset=None) == 2
    assert foley.add_reject(ODD_IDS[2], reason="too bright") == 1
    assert sorted(p["sound_id"] for p in foley.list_picks()) == sorted(ODD_IDS[:2])
    assert foley.rejected_ids() == [ODD_IDS[2]]
    assert [c.sound.id for c in foley.rehydrate([ODD_IDS[3], "absent"])] == [ODD_IDS[3]]

    # The stored bytes are foley's exact file bytes (the file store writes the same).
    client = redis_server.client()
    raw = client.hget("foley:{shared}:picks", ODD_IDS[0])
    assert raw == dumps({"sound_id": ODD_IDS[0], "layer": "sfx_fg", "onset": 1.5})
    assert raw == json.dumps(foley.picks[ODD_IDS[0]], indent=4).encode()
    # Every write bumped the version and appended a change event; the session is listed.
    assert int(client.get("foley:{shared}:version") or 0) == 7
    events = client.xrange("foley:{shared}:changes")
    assert [(e[b"ns"], e[b"op"], e[b"by"]) for _, e in events][-1] == (
        b"rejects",
        b"set",
        b"agent",
    )
    assert client.smembers("foley:sessions") == {b"shared"}

    # foley's plan, through its own session-factory seam, on the Redis namespaces
    # (foley 0.0.89 has no public one: its private _configure is the only way in).
    verbs._configure(session_factory=lambda sid: FoleySessionStore(sid, **namespaces(url, sid)))
    plan = verbs.foley_plan("shared")
    placed = {item["clip_ref"]: (item["layer"], item["onset"]) for item in plan["items"]}
    assert set(placed) == set(ODD_IDS[:2])
    assert placed[ODD_IDS[0]][0] == "sfx_fg"

    # And our store reads what foley wrote.
    store = _store(RedisSessionService(url, user="ana"), "shared")
    assert store.picks()[ODD_IDS[0]] == Pick(ODD_IDS[0], "sfx_fg", 1.5)
    assert store.rejects() == {ODD_IDS[2]: Reject(ODD_IDS[2], "too bright")}
    assert [r.sound_id for r in store.rows()] == ODD_IDS[:4]


def test_our_decisions_are_foley_picks(service: RedisSessionService, foley_factory: None) -> None:
    sid = service.create("scene 4")
    store = _store(service, sid)
    store.cache_candidates([candidate(i) for i in ODD_IDS[:3]])
    store.add_pick(ODD_IDS[0], layer="stinger", onset=12.0)
    store.set_onset(ODD_IDS[1], 3)
    store.add_reject(ODD_IDS[2], reason="hum")
    foley = FoleySessionStore(sid, **namespaces(service.backend, sid))
    assert sorted(foley.picked_ids()) == sorted(ODD_IDS[:2])
    assert foley.picks[ODD_IDS[0]] == {"sound_id": ODD_IDS[0], "layer": "stinger", "onset": 12.0}
    assert foley.list_rejects() == [{"sound_id": ODD_IDS[2], "reason": "hum"}]
    # foley's private seam: its CLI offers no public way to set the session factory.
    verbs._configure(
        session_factory=lambda s: FoleySessionStore(s, **namespaces(service.backend, s))
    )
    items = verbs.foley_plan(sid)["items"]
    assert {i["clip_ref"] for i in items} == set(ODD_IDS[:2])


def test_decision_lands_with_its_journal_entry_and_change_event(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create()
    store = _store(service, sid)
    before = store.change_token()
    entry = store.add_pick("a", layer="voice")
    assert store.change_token() != before
    [journal] = store.journal()
    assert (journal.seq, journal.sound_id, journal.author, journal.kind) == (1, "a", "ana", "do")
    assert journal.after == {
        "status": "picked",
        "pick": {"sound_id": "a", "layer": "voice", "onset": None},
    }
    client = redis_server.client()
    [(_, fields)] = client.xrange(f"foley:{{{sid}}}:journal")
    assert fields[b"by"] == b"ana" and fields[b"seq"] == b"1"
    assert json.loads(fields[b"rec"])["id"] == journal.entry_id
    last = client.xrevrange(f"foley:{{{sid}}}:changes", count=1)[0][1]
    assert (last[b"op"], last[b"key"], last[b"seq"]) == (b"decide", b"a", b"1")
    assert entry == 1  # add_pick returns the pick count, as foley's does
    # Picking a rejected sound removes the reject in the same step.
    store.add_reject("a", reason="late")
    assert store.status("a") is Status.REJECTED and "a" not in store.picks_ns
    # Nothing to change: no journal entry.
    store.add_reject("a", reason="late")
    assert len(store.journal()) == 2


def test_undo_is_per_user(service: RedisSessionService, redis_server: RedisServer) -> None:
    sid = service.create()
    ana = _store(service, sid)
    ben = _store(RedisSessionService(redis_server.url, user="ben"), sid)
    ana.add_pick("a", layer="voice")
    ben.add_reject("b", reason="noise")
    ana.add_pick("c")
    assert ana.undo() is not None and ana.status("c") is Status.UNDECIDED
    undone = ana.undo()
    assert undone is not None and undone.sound_id == "a"
    assert ana.undo() is None  # ben's reject is not ana's to undo
    assert ben.status("b") is Status.REJECTED
    top = ben.undo_target()
    assert top is not None and top.sound_id == "b"
    done = ben.undo()
    assert done is not None and done.sound_id == "b" and ben.status("b") is Status.UNDECIDED
    redone = ana.redo()
    assert redone is not None and redone.sound_id == "a" and ana.status("a") is Status.PICKED
    authors = [(e.author, e.kind) for e in ana.journal()]
    assert authors == [
        ("ana", "do"),
        ("ben", "do"),
        ("ana", "do"),
        ("ana", "undo"),
        ("ana", "undo"),
        ("ben", "undo"),
        ("ana", "redo"),
    ]


def test_undo_is_compare_and_swap(service: RedisSessionService, redis_server: RedisServer) -> None:
    sid = service.create()
    ana = _store(service, sid)
    ana.add_pick("a", layer="voice", onset=1.0)
    # foley's agent changes the pick through the plain namespace.
    agent = namespaces(redis_server.url, sid, user="agent")
    agent["picks"]["a"] = {"sound_id": "a", "layer": "stinger", "onset": 12.0}
    version = ana.change_token()
    with pytest.raises(UndoConflictError, match=r"now picked, stinger at 12\.0"):
        ana.undo()
    assert ana.change_token() == version  # nothing written
    assert ana.picks()["a"] == Pick("a", "stinger", 12.0)
    skipped = ana.skip()
    assert skipped is not None and skipped.sound_id == "a"
    assert ana.undo() is None and ana.picks()["a"] == Pick("a", "stinger", 12.0)
    # force applies anyway
    ana.add_reject("a", reason="x")
    agent["rejects"]["a"] = {"sound_id": "a", "reason": "changed"}
    with pytest.raises(UndoConflictError):
        ana.undo()
    undone = ana.undo(force=True)
    assert undone is not None and ana.picks()["a"] == Pick("a", "stinger", 12.0)


def test_unknown_pick_fields_are_kept(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create()
    store = _store(service, sid)
    agent = namespaces(redis_server.url, sid)
    agent["picks"]["a"] = {"sound_id": "a", "layer": "voice", "onset": 2, "gain_db": -3}
    store.set_layer("a", "music")
    assert agent["picks"]["a"] == {"sound_id": "a", "layer": "music", "onset": 2, "gain_db": -3}


def test_rows_come_from_the_index(service: RedisSessionService, redis_server: RedisServer) -> None:
    sid = service.create()
    store = _store(service, sid)
    store.cache_candidates([candidate(i, caption=f"cap {n}") for n, i in enumerate(ODD_IDS[:5])])
    rows = store.rows()
    assert [r.sound_id for r in rows] == ODD_IDS[:5]
    assert [r.caption for r in rows] == [f"cap {n}" for n in range(5)]
    # A candidate written straight into the hash (not through our namespace) is indexed.
    client = redis_server.client()
    client.hset(f"foley:{{{sid}}}:candidates", "direct", dumps(candidate("direct")))
    client.hset(f"foley:{{{sid}}}:candidates", "broken", b"{not json")
    rows = store.rows()
    assert [r.sound_id for r in rows][:5] == ODD_IDS[:5]
    by_id = {r.sound_id: r for r in rows}
    assert by_id["direct"].caption == "caption of direct" and by_id["direct"].unreadable is None
    assert by_id["broken"].unreadable and "invalid JSON" in by_id["broken"].unreadable
    assert any(p.key == "broken" for p in store.problems())
    del store.candidates[ODD_IDS[0]]
    assert ODD_IDS[0] not in [r.sound_id for r in store.rows()]


def test_service_contract(service: RedisSessionService, redis_server: RedisServer) -> None:
    first = service.create("door scene")
    second = service.create()
    assert [i.session_id for i in service.list()] == [first, second]
    assert service.resolve("door scene") == first
    service.rename(second, "street")
    assert service.info(second).title == "street"
    store = _store(service, first)
    store.cache_candidates([candidate(i) for i in ODD_IDS[:3]])
    store.add_pick(ODD_IDS[0], layer="voice", onset=0.5)
    store.add_reject(ODD_IDS[1])
    store.set_cursor(ODD_IDS[1])
    store.flush()
    info = service.info(first)
    assert (info.picked, info.rejected, info.total) == (1, 1, 3)
    doc = service.export_session(first)
    service.delete(first)
    with pytest.raises(SessionNotFoundError):
        service.get(first)
    client = redis_server.client()
    assert not [k for k in client.scan_iter(match=f"foley:{{{first}}}*")]
    assert service.import_session(doc) == first
    again = _store(service, first)
    assert again.picks() == {ODD_IDS[0]: Pick(ODD_IDS[0], "voice", 0.5)}
    assert [e.sound_id for e in again.journal()] == [ODD_IDS[0], ODD_IDS[1]]
    assert again.meta().cursor == ODD_IDS[1]
    assert again.meta().title == "door scene"
    # Cursor and view are per user.
    ben = _store(RedisSessionService(redis_server.url, user="ben"), first)
    assert ben.meta().cursor is None
    ben.set_cursor(ODD_IDS[2])
    ben.flush()
    assert (
        _store(RedisSessionService(redis_server.url, user="ana"), first).meta().cursor == ODD_IDS[1]
    )


def test_no_key_scans(service: RedisSessionService, redis_server: RedisServer) -> None:
    client = redis_server.client()
    client.config_resetstat()
    sid = service.create("x")
    store = _store(service, sid)
    store.cache_candidates([candidate(i) for i in ODD_IDS])
    store.add_pick(ODD_IDS[0])
    store.rows()
    store.list_picks()
    store.undo()
    service.list()
    service.export_session(sid)
    service.delete(sid)
    stats: dict[str, Any] = client.info("commandstats")
    assert "cmdstat_keys" not in stats and "cmdstat_scan" not in stats
    assert "cmdstat_evalsha" in stats or "cmdstat_eval" in stats


def test_backend_user_defaults_to_the_os_user(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FOLEY_TUI_USER", raising=False)
    import getpass

    assert RedisBackend.from_url(redis_server.url).user == getpass.getuser()
    monkeypatch.setenv("FOLEY_TUI_USER", "mia")
    assert RedisBackend.from_url(redis_server.url).user == "mia"


def test_per_key_stamps_tell_writes_apart(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    """What a watcher compares on Redis: a version per pick/reject key (as (mtime, size)
    per file on disk) and a version per namespace for the candidates."""
    sid = service.create()
    store = _store(service, sid)
    picks, rejects, cands = store.raw["picks"], store.raw["rejects"], store.raw["candidates"]
    assert picks.stamps() == {} and cands.token() == 0
    store.cache_candidates([candidate("a"), candidate("b")])
    after_cache = cands.token()
    assert after_cache > 0
    store.add_pick("a")
    store.add_pick("b")
    first = picks.stamps()
    assert set(first) == {"a", "b"}
    # foley rewrites one pick through the plain namespace: only its stamp moves.
    namespaces(redis_server.url, sid)["picks"]["b"] = {"sound_id": "b", "layer": "music"}
    second = picks.stamps()
    assert second["a"] == first["a"] and second["b"] != first["b"]
    store.add_reject("a")
    assert set(picks.stamps()) == {"b"} and set(rejects.stamps()) == {"a"}
    assert cands.token() == after_cache  # decisions do not touch the candidates
    with pytest.raises(TypeError):
        cands.stamps()


def test_messages_carry_their_author(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create("talk")
    ben = RedisSessionService(redis_server.url, user="ben")
    service.append_message(sid, "user", "quieter doors please")
    ben.append_message(sid, "user", "and a louder storm")
    ben.append_message(sid, "agent", "on it", {"author": "foley-agent"})
    got = [(m.seq, m.author) for m in RedisSessionService(redis_server.url).messages(sid)]
    assert got == [(1, "ana"), (2, "ben"), (3, "foley-agent")]


def test_a_nan_onset_foley_wrote_is_journaled_as_bytes_and_restored_verbatim(
    service: RedisSessionService,
) -> None:
    sid = service.create("nan")
    store = _store(service, sid)
    nan_pick = json.dumps({"sound_id": "door", "layer": "voice", "onset": float("nan")}, indent=4)
    store.raw["picks"]["door"] = nan_pick.encode()  # as foley's own store writes it
    store.add_reject("door", reason="no")
    assert store.status("door") is Status.REJECTED
    record = store.journal()[-1].to_record()
    assert "NaN" not in json.dumps(record, allow_nan=False) and "pick_raw" in record["before"]
    store.undo()
    assert store.raw["picks"]["door"] == nan_pick.encode()
    assert store.status("door") is Status.PICKED
