"""A paged listing (a library folder's list): the view is a query of the session's stored
index answered off the UI thread, the newest query winning, and the rows are read from
that index a screen at a time instead of all being held."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from foley_tui.audition.change import Change
from foley_tui.audition.filtering import search_text
from foley_tui.audition.listing import PAGE_IN
from foley_tui.audition.model import AuditionModel
from foley_tui.config import Settings
from foley_tui.store import SessionService, SessionStore

COUNT = 700
"""More candidates than a screen's page-in window on both sides of the cursor."""


def _caption(i: int) -> str:
    return ("door slam", "rain on tin", "wind")[i % 3] + f" take {i:03d}"


@pytest.fixture
def store(data_dir: Path) -> SessionStore:
    service = SessionService(data_dir)
    session_id = service.create("paged")
    store = service.get(session_id)
    store.cache_candidates(
        {
            "sound": {
                "id": f"lib:{i:03d}",
                "caption": _caption(i),
                "duration_s": float(COUNT - i),
                "tags": [f"folder {i // 100}"],
            }
        }
        for i in range(COUNT)
    )
    return store


def paged_model(store: SessionStore) -> AuditionModel:
    """Open and load the session as the screen's load worker does for a folder."""
    model = AuditionModel(store, Settings())
    model.page_rows()
    model.open()
    model.begin_load()
    assert store.verify() == COUNT
    ids = store.view_ids()
    assert ids is not None
    model.paged_loaded(ids, store.picks(), store.rejects(), [], model.generation)
    return model


def matching(store: SessionStore, query: str) -> list[str]:
    """What the in-memory list shows for ``query`` (every row held), in rank order."""
    terms = query.lower().split()
    return [
        row.sound_id
        for row in store.rows()
        if all(t in search_text(row, row.sound_id) for t in terms)
    ]


class HeldQueries:
    """A view runner that keeps each query until the test answers it, in any order."""

    def __init__(self) -> None:
        self.asked: list[tuple[Callable[[], list[str] | None], Callable[..., Change]]] = []

    def __call__(self, query: Callable[[], list[str] | None], done: Callable[..., Change]) -> None:
        self.asked.append((query, done))

    def answer(self, index: int) -> Change:
        query, done = self.asked[index]
        return done(query())


def test_the_view_and_sorts_come_from_the_index_with_no_row_held(store: SessionStore) -> None:
    model = paged_model(store)
    listing = model.listing
    assert listing.paged and len(listing.view) == COUNT
    assert listing.rows_held == 0  # no row read before one is shown
    model.set_query("door take")
    expected = [f"lib:{i:03d}" for i in range(0, COUNT, 3)]
    assert listing.view == expected == matching(store, "door take")
    assert model.toggles()[:2] == ['filter "door take"', f"{len(expected)} shown"]
    model.view.sort = "duration"  # ascending: the last candidates are the shortest
    model.set_query("")
    assert listing.view == [f"lib:{i:03d}" for i in reversed(range(COUNT))]
    # A screen's rows are read when shown, with the rows around them: not all of them.
    listing.page_in(0)
    row = listing.rows.get(listing.view[0])
    assert row is not None and row.caption == _caption(COUNT - 1)
    assert 0 < listing.rows_held <= PAGE_IN < COUNT


def test_the_newest_query_wins_and_a_late_answer_is_dropped(store: SessionStore) -> None:
    model = paged_model(store)
    held = HeldQueries()
    model.view_runner = held
    model.set_query("rain")
    model.set_query("rain take 00")  # typed on before the first answered
    assert model.view_pending
    before = list(model.listing.view)
    # The first query, started late, sees a newer one was asked for: it does nothing.
    assert held.answer(0) == Change() and model.listing.view == before
    change = held.answer(1)
    assert change.view and not model.view_pending
    newest = matching(store, "rain take 00")
    assert model.listing.view == newest and 0 < len(newest) < len(matching(store, "rain"))
    # An answer to an older query arriving after a newer one was shown is dropped too.
    model.set_query("rain take 0")
    model.set_query("")
    held.answer(3)
    assert len(model.listing.view) == COUNT
    assert held.answer(2) == Change() and len(model.listing.view) == COUNT


def test_backspace_an_empty_answer_and_the_counts(store: SessionStore) -> None:
    model = paged_model(store)
    model.set_query("door take 01")
    narrowed = matching(store, "door take 01")
    assert model.listing.view == narrowed and 3 < len(narrowed) < COUNT
    model.set_query("door take 01x")
    assert model.listing.view == []
    assert model.toggles()[:2] == ['filter "door take 01x"', "0 shown"]
    model.set_query("door take 01")  # a backspace
    assert model.listing.view == narrowed
    assert model.listing.counts() == (0, 0, COUNT, COUNT)


def test_a_decision_under_a_status_filter_asks_for_the_view_again(store: SessionStore) -> None:
    model = paged_model(store)
    model.cycle_status()  # undecided
    assert model.view.status_filter == "undecided" and len(model.listing.view) == COUNT
    first = model.listing.view[0]
    model.highlight(first, 0, by_user=True)
    model.pick()
    assert first not in model.listing.view and len(model.listing.view) == COUNT - 1
    assert store.picks().keys() == {first}
