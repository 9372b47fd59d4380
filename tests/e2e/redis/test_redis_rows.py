"""The first paint of a Redis session: one screen from the rows index (``page``), and
the full rows read once (the loader's quick read is reused by its exact read)."""

from __future__ import annotations

from typing import Any

from foley_tui.store import dumps
from foley_tui.store.redis.service import RedisSessionService
from foley_tui.store.redis.session import RedisSessionStore
from tests.unit.store.helpers import candidate

from .server import RedisServer


def _big(service: RedisSessionService, n: int) -> RedisSessionStore:
    sid = service.create("big")
    store = service.get(sid)
    assert isinstance(store, RedisSessionStore)
    store.cache_candidates([candidate(f"s{i:03d}", caption=f"take {i}") for i in range(n)])
    return store


def test_page_is_one_screen_in_list_order(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    store = _big(service, 250)
    rows = store.rows()
    page = store.page(offset=100, limit=30)
    assert page is not None and page.total == 250 and page.offset == 100 and page.verified
    assert page.rows == rows[100:130]  # the same rows, ranks included
    tail = store.page(offset=240, limit=30)
    assert tail is not None and [r.sound_id for r in tail.rows] == [
        f"s{i:03d}" for i in range(240, 250)
    ]
    # Around the saved cursor: the screen centred on it (the list's top for an unknown id).
    centred = store.page(limit=30, around="s200")
    assert centred is not None and centred.offset == 185 and centred.rows == rows[185:215]
    near_top = store.page(limit=30, around="s003")
    assert near_top is not None and near_top.offset == 0
    unknown = store.page(limit=30, around="gone")
    assert unknown is not None and unknown.offset == 0
    # Views that need every row are not paged here: the caller reads rows().
    assert store.page(sort="caption") is None
    assert store.page(status="picked") is None
    assert store.page(query="take") is None


def test_page_reads_only_the_screen(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    store = _big(service, 300)
    client = redis_server.client()
    calls_before = _calls(client)
    page = store.page(limit=20)
    assert page is not None and len(page.rows) == 20
    calls = _calls(client)
    # ZRANGE of 20 and HMGET of 20: never HGETALL/HSCAN of the session.
    assert calls.get("hgetall", 0) == calls_before.get("hgetall", 0)
    assert calls.get("hscan", 0) == calls_before.get("hscan", 0)
    assert calls.get("hmget", 0) == calls_before.get("hmget", 0) + 1
    assert store.page(limit=20, around="s150") is not None
    assert _calls(client).get("hgetall", 0) == calls_before.get("hgetall", 0)


def test_page_defers_to_rows_when_the_index_lags(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    store = _big(service, 5)
    client = redis_server.client()
    client.hset(f"foley:{{{store.session_id}}}:candidates", "direct", dumps(candidate("direct")))
    assert store.page() is None  # written around our namespace: not indexed yet
    assert "direct" in [r.sound_id for r in store.rows()]  # rows() indexes it
    page = store.page()
    assert page is not None and page.total == 6


def test_the_loaders_second_read_reuses_the_first_unless_written_between(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    store = _big(service, 50)
    client = redis_server.client()
    quick = store.quick_rows()
    before = _calls(client).get("hgetall", 0)
    assert store.rows() is quick  # nothing written: no second fetch of every row
    assert _calls(client).get("hgetall", 0) == before
    quick = store.quick_rows()
    store.cache_candidates([candidate("late", caption="written meanwhile")])
    rows = store.rows()
    assert rows is not quick and rows[-1].sound_id == "late"
    assert store.rows() is not rows  # reused once only


def _calls(client: Any) -> dict[str, int]:
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}
