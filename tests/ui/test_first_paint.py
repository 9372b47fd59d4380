"""First paint: a reopened session paints one screen from the stored index (around the
saved cursor, the same work at any size) and the whole list follows with every file
checked; a session without a usable index shows its ids first, and the columns follow."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from foley_tui.app.foley_app import FoleyApp
from foley_tui.audition.events import PENDING
from foley_tui.audition.opening import FIRST_PAGE_ROWS, Opening, OpeningRead
from foley_tui.domain import Row
from foley_tui.screens.audition.reports import IdsListed, RowsLoaded, SessionOpened
from foley_tui.store import SessionStore
from foley_tui.store.index_db import Page
from foley_tui.widgets.filter_input import FilterInput
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, ready
from tests.ui.seed import seed_session


async def _first_messages(session: Session) -> tuple[IdsListed | Page, RowsLoaded]:
    """What the first paint showed (the opening's page, or the ids the load worker
    listed) and the checked rows that followed."""
    seen: list[Message] = []
    app = session.app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await ready(pilot)
        opening = screen.loader.opening.ready()
    # A message is seen once per node it bubbles through: count distinct messages.
    listed = list({id(m): m for m in seen if isinstance(m, IdsListed)}.values())
    loaded = list({id(m): m for m in seen if isinstance(m, RowsLoaded)}.values())
    assert len(loaded) == 1 and opening is not None
    if opening.page is not None:
        assert not listed  # the page was the first paint: no list of ids
        return opening.page, loaded[0]
    assert len(listed) == 1
    return listed[0], loaded[0]


async def test_reopen_paints_a_page_from_the_index(session: Session) -> None:
    # The seeded session was never listed: no index yet, so ids come first.
    listed, loaded = await _first_messages(session)
    assert isinstance(listed, IdsListed)
    assert listed.rows is None and sorted(listed.ids) == sorted(IDS)
    assert [r.sound_id for r in loaded.rows] == IDS

    # Reopened: the first paint is a page of the index, every column in it (unverified
    # in a new process); the checked rows that follow are the same.
    page, loaded = await _first_messages(session)
    assert isinstance(page, Page)
    assert page.offset == 0 and page.candidates == len(IDS)
    assert [r.sound_id for r in page.rows] == IDS
    assert all(r.caption for r in page.rows)
    assert [r.caption for r in page.rows] == [r.caption for r in loaded.rows]


async def test_first_paint_of_a_big_session_is_the_page_around_the_saved_cursor(
    data_dir: Path,
) -> None:
    count = FIRST_PAGE_ROWS * 3
    service, session_id = seed_session(data_dir, count)
    store = service.get(session_id)
    ids = [row.sound_id for row in store.rows()]  # builds the index
    saved = ids[count - 100]
    store.set_cursor(saved)
    store.set_view({"sort": "rank", "status_filter": "all", "filter": ""})
    big = Session(data_dir, service, session_id)

    release = threading.Event()
    real_rows = SessionStore.rows

    def held_rows(self: SessionStore, progress: Any = None, partial: Any = None) -> list[Row]:
        release.wait(10)  # the whole list is still being checked
        return real_rows(self, progress=progress, partial=partial)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SessionStore, "rows", held_rows)
        app = big.app()
        async with app.run_test(size=SIZE) as pilot:
            screen = None
            for _ in range(200):
                await pilot.pause(0.02)
                screen = app.audition
                if screen is not None and screen.listing.provisional:
                    break
            assert screen is not None and screen.listing.provisional
            await pilot.pause()
            # The saved cursor is highlighted and on screen before the list is in; the
            # status line counts the whole session.
            assert screen.current_id == saved
            view = screen.listing.view
            assert len(view) == count and view[0] == PENDING
            assert screen.listing.counts()[3] == count
            cl = screen.candidate_list
            top = round(cl.scroll_offset.y)
            assert top <= cl.cursor < top + cl.size.height - 1
            lines = [cl.render_line(y).text for y in range(1, cl.size.height)]
            caption = screen.listing.rows[saved].caption
            assert any(caption in line for line in lines)
            release.set()
            await ready(pilot)
            assert not screen.listing.provisional and screen.current_id == saved
            assert screen.listing.view == ids


async def test_a_new_file_shows_once_the_page_is_checked(session: Session) -> None:
    await _first_messages(session)  # builds the index
    store = session.service.get(session.session_id)
    store.cache_candidates([{"sound": {"id": "new:1", "caption": "late arrival"}}])
    listed, loaded = await _first_messages(session)
    # The page is the index as it was (unverified); the checked rows have the new file.
    assert isinstance(listed, Page)
    assert "new:1" not in {r.sound_id for r in listed.rows}
    assert "new:1" in {r.sound_id for r in loaded.rows}


async def test_without_an_index_page_the_ids_come_first(session: Session) -> None:
    await _first_messages(session)  # builds the index
    store = session.service.get(session.session_id)
    store.set_view({"status_filter": "events without a pick"})  # the index cannot page it
    listed, loaded = await _first_messages(session)
    assert isinstance(listed, IdsListed) and listed.rows is not None
    assert [r.sound_id for r in loaded.rows] == IDS


async def test_columns_fill_in_while_the_session_loads(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches the store hands over while parsing show in the list before loading ends."""
    release = threading.Event()
    real_rows = SessionStore.rows

    def slow_rows(self: SessionStore, progress: Any = None, partial: Any = None) -> list[Row]:
        rows = real_rows(self, progress=progress)
        partial(rows[:3])  # the first batch, as the parser hands it over
        release.wait(10)  # the rest of a big session is still being parsed
        return rows

    monkeypatch.setattr(SessionStore, "rows", slow_rows)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = None
        for _ in range(100):
            await pilot.pause(0.02)
            screen = app.audition
            if screen is not None and len(screen.listing.rows) == 3:
                break
        assert screen is not None and not screen.model.loaded
        assert set(screen.listing.rows) == set(IDS[:3])
        lines = [screen.candidate_list.render_line(y).text for y in range(1, 13)]
        caption = screen.listing.rows[IDS[0]].caption
        assert any(caption in line for line in lines)  # painted with its columns
        release.set()
        await ready(pilot)
        assert screen.model.loaded and len(screen.listing.rows) == len(IDS)


async def test_an_opening_read_before_mount_is_the_first_frame(session: Session) -> None:
    """The app starts reading the session with Textual's start-up; when that is done by
    the time the screen mounts, the mount applies it: no message round trip."""
    await _first_messages(session)  # builds the index
    seen: list[Message] = []
    store = session.service.get(session.session_id)
    opening = OpeningRead(store)  # what the command line starts before Textual
    assert opening.wait(10) is not None
    app = FoleyApp(store, FakePlayer(), service=session.service, opening=opening)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await pilot.pause()
        screen = app.audition
        assert screen is not None and screen.listing.rows  # rows in the first frame
        await ready(pilot)
    assert not [m for m in seen if isinstance(m, SessionOpened)]


async def test_an_opening_still_being_read_at_mount_arrives_as_a_message(
    session: Session,
) -> None:
    await _first_messages(session)  # builds the index
    store = session.service.get(session.session_id)
    store.set_view({"filter": "rain"})
    release = threading.Event()
    real_read = Opening.read

    def slow_read(store: SessionStore) -> Opening:
        release.wait(10)
        return real_read(store)

    seen: list[Message] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Opening, "read", slow_read)
        app = session.app()
        async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
            await pilot.pause()
            screen = app.audition
            assert screen is not None and not screen.listing.rows
            assert screen.model.view.query == ""  # not read yet
            release.set()
            screen = await ready(pilot)
            assert screen.model.view.query == "rain"  # the saved filter, applied late
            assert screen.query_one(FilterInput).value == "rain"
            assert all("rain" in screen.listing.rows[s].caption for s in screen.listing.view)
    assert [m for m in seen if isinstance(m, SessionOpened)]


async def test_undo_is_offered_once_the_worker_read_the_journal(session: Session) -> None:
    """Undo availability is not part of the opening (a long journal is read whole): the
    load worker reads it after the first paint and the footer then offers undo."""
    store = session.service.get(session.session_id)
    store.add_pick(IDS[0])
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.model.can_undo and not screen.model.can_redo
        assert screen.check_action("undo", ()) is True
        await pilot.press("u")
        await ready(pilot)
        assert session.pick_file(IDS[0]) is None
