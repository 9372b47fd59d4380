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
    assert page.candidates == 250
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
    assert store.page(query="take") is None


def test_status_pages_are_the_filtered_list(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    """picked (conflicts included), rejected (not picked), undecided: each page is the
    slice of the filtered full list, ranks included, centred on a saved cursor in it."""
    store = _big(service, 300)
    picked = {f"s{i:03d}" for i in range(0, 300, 7)}
    rejected = {f"s{i:03d}" for i in range(3, 300, 11)} | {"s014", "s021"}  # two conflicts
    for sid in sorted(picked):
        store.picks_ns[sid] = {"sound_id": sid, "layer": None, "onset": None}
    for sid in sorted(rejected):
        store.rejects_ns[sid] = {"sound_id": sid, "reason": None}
    store.picks_ns["ghost"] = {"sound_id": "ghost", "layer": None, "onset": None}  # uncached
    rows = store.rows()
    views = {
        "picked": [r for r in rows if r.sound_id in picked],
        "rejected": [r for r in rows if r.sound_id in rejected - picked],
        "undecided": [r for r in rows if r.sound_id not in picked | rejected],
    }
    for status, view in views.items():
        for offset in (0, 1, 5, 17, 40, len(view) - 3, len(view) + 5):
            for limit in (1, 7, 30):
                page = store.page(status=status, offset=offset, limit=limit)
                assert page is not None and page.total == len(view), status
                assert page.candidates == 300
                assert page.rows == view[offset : offset + limit], (status, offset, limit)
        middle = view[len(view) // 2]
        centred = store.page(status=status, limit=10, around=middle.sound_id)
        assert centred is not None and middle in centred.rows
        assert centred.rows == view[centred.offset : centred.offset + 10]
        assert centred.offset == max(0, len(view) // 2 - 5)
    # A cursor the view does not hold (a picked row in the undecided view): the top.
    page = store.page(status="undecided", limit=10, around="s007")
    assert page is not None and page.offset == 0 and page.rows == views["undecided"][:10]


def test_page_reads_only_the_screen(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    store = _big(service, 300)
    client = redis_server.client()
    calls_before = _calls(client)
    page = store.page(limit=20)
    assert page is not None and len(page.rows) == 20
    calls = _calls(client)
    # ZRANGE of 20 and a capped read of those 20 rows (in a script: each row's length,
    # then its bytes): never HGETALL/HSCAN of the session.
    assert calls.get("hgetall", 0) == calls_before.get("hgetall", 0)
    assert calls.get("hscan", 0) == calls_before.get("hscan", 0)
    assert calls.get("hget", 0) == calls_before.get("hget", 0) + 20
    assert calls.get("hstrlen", 0) == calls_before.get("hstrlen", 0) + 20
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


async def test_the_app_paints_a_redis_session_from_a_page(
    service: RedisSessionService, redis_server: RedisServer
) -> None:
    """The app's first paint of a Redis session is one page around the saved cursor (the
    saved view filtered to undecided rows), no list of ids; then the whole list."""
    from textual.message import Message

    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.screens.audition.reports import IdsListed, RowsLoaded
    from foley_tui.screens.audition.screen import AuditionScreen
    from tests.fakes import FakePlayer

    store = _big(service, 400)
    for i in range(0, 400, 3):
        store.add_pick(f"s{i:03d}")
    store.set_view({"status_filter": "undecided"})
    store.set_cursor("s301")
    store.flush()
    seen: list[Message] = []
    app = FoleyApp(service.get(store.session_id), FakePlayer())
    async with app.run_test(size=(120, 30), message_hook=seen.append) as pilot:
        for _ in range(300):  # the follow worker never ends: wait for the screen instead
            await pilot.pause(0.02)
            if any(isinstance(m, RowsLoaded) for m in seen):
                break
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AuditionScreen)
        assert screen.current_id == "s301"
        opening = screen.loader.opening.ready()
        await pilot.press("q")
    assert opening is not None and opening.page is not None
    assert not [m for m in seen if isinstance(m, IdsListed)]  # the page was the first paint
    page = opening.page
    assert page.candidates == 400 and page.total == 400 - 134
    assert "s301" in [r.sound_id for r in page.rows]
    assert all(int(r.sound_id[1:]) % 3 for r in page.rows)  # undecided only
