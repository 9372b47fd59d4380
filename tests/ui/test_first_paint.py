"""First paint: a reopened session shows every column at once from the stored index;
a session without a usable index shows its ids first, and the columns follow."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.message import Message

from foley_tui.messages import IdsListed, RowsLoaded
from foley_tui.model import Row
from foley_tui.store import SessionStore
from tests.ui.conftest import IDS, SIZE, Session, ready


async def _first_messages(session: Session) -> tuple[IdsListed, RowsLoaded]:
    seen: list[Message] = []
    app = session.app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await ready(pilot)
    # A message is seen once per node it bubbles through: count distinct messages.
    listed = list({id(m): m for m in seen if isinstance(m, IdsListed)}.values())
    loaded = list({id(m): m for m in seen if isinstance(m, RowsLoaded)}.values())
    assert len(listed) == 1 and len(loaded) == 1
    return listed[0], loaded[0]


async def test_reopen_paints_full_rows_from_the_index(session: Session) -> None:
    # The seeded session was never listed: no index yet, so ids come first.
    listed, loaded = await _first_messages(session)
    assert listed.rows is None and sorted(listed.ids) == sorted(IDS)
    assert [r.sound_id for r in loaded.rows] == IDS

    # Reopened: the index matches the folder, so the first message carries every column.
    listed, loaded = await _first_messages(session)
    assert listed.rows is not None
    assert [r.sound_id for r in listed.rows] == IDS
    assert all(r.caption for r in listed.rows)
    assert [r.caption for r in listed.rows] == [r.caption for r in loaded.rows]


async def test_a_new_file_falls_back_to_ids_first(session: Session) -> None:
    await _first_messages(session)  # builds the index
    store = session.service.get(session.session_id)
    store.cache_candidates([{"sound": {"id": "new:1", "caption": "late arrival"}}])
    listed, loaded = await _first_messages(session)
    assert listed.rows is None  # the names no longer match the index
    assert "new:1" in {r.sound_id for r in loaded.rows}


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
        assert screen is not None and not screen._loaded
        assert set(screen.listing.rows) == set(IDS[:3])
        lines = [screen.candidate_list.render_line(y).text for y in range(1, 13)]
        caption = screen.listing.rows[IDS[0]].caption
        assert any(caption in line for line in lines)  # painted with its columns
        release.set()
        await ready(pilot)
        assert screen._loaded and len(screen.listing.rows) == len(IDS)
