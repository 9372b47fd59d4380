"""What a shared session must survive on a real server: deleted while open (never
recreated as an empty ghost), and a key of the wrong type (named, never "Redis down")."""

from __future__ import annotations

import pytest

from foley_tui.cli import main
from foley_tui.store import SessionDeletedError
from foley_tui.store.redis.service import RedisSessionService
from tests.unit.store.helpers import candidate

from .server import RedisServer


def test_a_session_deleted_while_open_is_never_recreated(redis_server: RedisServer) -> None:
    url = redis_server.url
    ana = RedisSessionService(url, user="ana")
    session_id = ana.create("going away")
    store = ana.get(session_id)
    store.cache_candidates([candidate("a:1"), candidate("b:2")])
    store.add_pick("a:1")
    RedisSessionService(url, user="ben").delete(session_id)  # another machine
    # The app quitting: its cursor and view save, then a late decision.
    with pytest.raises(SessionDeletedError, match="deleted"):
        store.set_cursor("b:2")
        store.flush()
    with pytest.raises(SessionDeletedError, match="deleted"):
        store.add_pick("b:2")
    assert ana.list() == []
    client = redis_server.client()
    assert client.keys(f"foley:{{{session_id}}}*") == []
    assert not client.sismember("foley:sessions", session_id)


def test_a_wrong_type_changes_key_is_named_not_redis_down(
    redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = redis_server.url
    service = RedisSessionService(url, user="ana")
    session_id = service.create("typed")
    store = service.get(session_id)
    store.cache_candidates([candidate("a:1")])
    changes = f"foley:{{{session_id}}}:changes"
    client = redis_server.client()
    client.delete(changes)
    client.set(changes, "not a stream")
    code = main(["sessions", "--store", url])
    out, err = capsys.readouterr()
    assert code == 0
    assert session_id in out  # listed, not "no sessions"
    assert "unreachable" not in err
    fresh = RedisSessionService(url, user="ana").get(session_id)
    fresh.meta()
    assert any(changes in str(p) and "wrong" in str(p) for p in fresh.problems())
    feed = fresh.change_feed(block_ms=50)
    assert feed is not None
    update = feed.wait()
    feed.close()
    assert update.kind == "broken"
    assert update.error is not None and changes in update.error
    assert "unreachable" not in update.error
