"""A decision over several sounds on Redis (one pick per scene event: pick a sound and drop
its event's other picks): one atomic script, one journal entry, undone in one step."""

from __future__ import annotations

import contextlib

import pytest
from foley.agent.session import SessionStore as FoleySessionStore

from foley_tui.domain import Status
from foley_tui.store import StoreWriteError
from foley_tui.store.decisions import Current, Planned
from foley_tui.store.errors import UndoConflictError
from foley_tui.store.records import JournalEntry, Verdicts
from foley_tui.store.redis import namespaces
from foley_tui.store.redis.service import RedisSessionService

from .server import RedisServer
from .test_redis_store import _store


def _hashes(server: RedisServer, sid: str) -> dict[str, dict[bytes, bytes]]:
    client = server.client()
    return {ns: client.hgetall(f"foley:{{{sid}}}:{ns}") for ns in ("picks", "rejects")}


def _agent(server: RedisServer, sid: str) -> FoleySessionStore:
    return FoleySessionStore(sid, **namespaces(server.url, sid, user="agent"))


def test_pick_and_drop_is_one_entry_undone_in_one_step(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create()
    agent = _agent(redis_server, sid)
    agent.add_pick("door", layer="stinger", onset="on 'slammed'")
    agent.add_pick("glass", layer="sfx_fg")
    agent.add_reject("glass", reason="clipped")
    original = _hashes(redis_server, sid)
    store = _store(service, sid)
    client = redis_server.client()
    changes_before = client.xlen(f"foley:{{{sid}}}:changes")

    entry = store.pick_and_drop("rain", ["door", "glass", "bell"], layer="ambience")

    assert entry is not None and entry.author == "ana"
    assert [s for s, _, _ in entry.changes()] == ["rain", "door", "glass"]  # bell: unchanged
    assert agent.list_picks() == [{"sound_id": "rain", "layer": "ambience", "onset": None}]
    assert agent.list_rejects() == [{"sound_id": "glass", "reason": "clipped"}]  # kept
    [journaled] = [e for e in store.journal() if e.seq == entry.seq]
    assert len(journaled.changes()) == 3
    # One journal entry for the group; a change event per sound it changed.
    assert client.xlen(f"foley:{{{sid}}}:journal") == 1
    events = client.xrange(f"foley:{{{sid}}}:changes")[changes_before:]
    assert sorted(f[b"key"] for _, f in events) == [b"door", b"glass", b"rain"]
    assert {f[b"seq"] for _, f in events} == {b"1"}

    # Another process sees the group and undoes it in one step, byte for byte.
    other = _store(RedisSessionService(redis_server.url, user="ana"), sid)
    target = other.undo_target()
    assert target is not None and len(target.changes()) == 3
    assert other.undo() is not None
    assert _hashes(redis_server, sid) == original
    assert other.redo() is not None
    assert agent.list_picks() == [{"sound_id": "rain", "layer": "ambience", "onset": None}]


def test_a_group_undo_refused_for_one_sound_writes_nothing(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create()
    agent = _agent(redis_server, sid)
    agent.add_pick("door", layer="stinger")
    store = _store(service, sid)
    store.pick_and_drop("rain", ["door"])
    agent.add_pick("door", layer="music")  # the agent picks the door again
    before = _hashes(redis_server, sid)
    token = store.change_token()
    with pytest.raises(UndoConflictError, match=r"'door'.*now picked, music"):
        store.undo()
    assert _hashes(redis_server, sid) == before and store.change_token() == token
    assert store.status("rain") is Status.PICKED  # not half undone
    assert store.undo(force=True) is not None
    assert store.status("rain") is Status.UNDECIDED
    assert agent.list_picks() == [{"sound_id": "door", "layer": "stinger", "onset": None}]


def test_a_group_refused_by_a_stopped_server_writes_nothing(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    sid = service.create()
    store = _store(service, sid)
    store.add_pick("door", layer="stinger")
    redis_server.kill()
    with pytest.raises(StoreWriteError, match="unreachable"):
        store.pick_and_drop("rain", ["door"])
    redis_server.start()
    assert store.status("door") is Status.PICKED and store.status("rain") is Status.UNDECIDED
    assert len(store.journal()) == 1
    assert store.pick_and_drop("rain", ["door"]) is not None  # reconnected by itself
    assert store.status("door") is Status.UNDECIDED


def test_a_write_between_read_and_script_is_retried_not_lost(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    """The compare-and-swap: a sound that changed after we read it makes the script
    refuse the whole group; the store re-reads and applies the group to what is there."""
    sid = service.create()
    agent = _agent(redis_server, sid)
    agent.add_pick("door", layer="stinger")
    store = _store(service, sid)
    real = store.decisions.commit
    calls = 0

    class Racing:
        """The store's own commit, with the agent writing after our first read."""

        def session(self) -> contextlib.AbstractContextManager[None]:
            return real.session()

        def read(self, sound_ids: list[str]) -> list[Current]:
            nonlocal calls
            calls += 1
            seen = real.read(sound_ids)
            if calls == 1:  # the agent writes after our read, before our script
                agent.add_reject("door", reason="late")
            return seen

        def unchanged(self, before: Verdicts, after: Verdicts) -> bool:
            return real.unchanged(before, after)

        def apply(
            self, planned: list[Planned], kind: str, target: int | None
        ) -> JournalEntry | None:
            return real.apply(planned, kind, target)

    store.decisions.commit = Racing()
    entry = store.pick_and_drop("rain", ["door"])
    assert calls == 2 and entry is not None
    assert agent.list_rejects() == [{"sound_id": "door", "reason": "late"}]
    assert agent.picked_ids() == ["rain"]
    assert entry.changes()[1][2] == {
        "status": "rejected",
        "reject": {"sound_id": "door", "reason": "late"},
    }
