"""The list's cached filter and sort orders give exactly the plain scan's view: while
typing, backspacing, changing sort and status filter, deciding and loading rows."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foley_tui.audition import filtering
from foley_tui.audition.events import grouped
from foley_tui.audition.filtering import ViewCache, search_text
from foley_tui.audition.listing import SORTS, Listing, ViewSettings
from foley_tui.domain import Pick, Reject, Row, Status
from foley_tui.store.index_db import search_text as stored_search_text

WORDS = ["door", "Door", "slam", "do", "or", "rain", "ÄB", "take 1", "x"]


def reference(listing: Listing, view: ViewSettings) -> list[str]:
    """The view as the list computed it before the cache: scan, filter, sort."""
    rows, decisions = listing.rows, listing.decisions
    ids = list(listing.ids)
    wanted = view.status_filter
    if wanted != "all":
        statuses = {Status(wanted)}
        if wanted in ("picked", "rejected"):
            statuses.add(Status.CONFLICT)
        ids = [sid for sid in ids if decisions.status(sid) in statuses]
    terms = view.query.lower().split()
    ids = [sid for sid in ids if all(t in search_text(rows.get(sid), sid) for t in terms)]
    if view.sort != "rank" and rows:
        pending = Row("", rank=len(rows), complete=False)
        key = listing.sort_key(view.sort)
        ids = sorted(ids, key=lambda sid: key(rows.get(sid) or pending))
    out = grouped(ids, listing.events)
    if wanted in ("all", "picked"):
        out += [g for g in listing.ghosts() if all(t in g.lower() for t in terms)]
    return out


def make_rows(spec: list[tuple[str, str, int, float | None]]) -> list[Row]:
    return [
        Row(f"src:{i}", i, caption, duration, "freesound" if i % 2 else "bbc", "", (tag,), score)
        for i, (caption, tag, _, score) in enumerate(spec)
        for duration in [None if i % 3 == 0 else float(i % 4)]
    ]


row_specs = st.lists(
    st.tuples(
        st.sampled_from(["", "door slam", "Rain", "ÄBC door", "take 12", "slammed"]),
        st.sampled_from(WORDS),
        st.integers(0, 3),
        st.none() | st.floats(0, 1),
    ),
    min_size=2,
    max_size=25,
)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("type"), st.sampled_from([" door", " do", "or", "s", " ", "1", "r"])),
        st.tuples(st.just("query"), st.sampled_from(["", *WORDS, "door s", "do slam", "src"])),
        st.tuples(st.just("back"), st.integers(1, 3)),
        st.tuples(st.just("sort"), st.sampled_from(SORTS)),
        st.tuples(st.just("status"), st.sampled_from(["all", "undecided", "picked", "rejected"])),
        st.tuples(st.just("pick"), st.integers(0, 8), st.sampled_from(["voice", "music", None])),
        st.tuples(st.just("reject"), st.integers(0, 8)),
        st.tuples(st.just("rows"), st.integers(0, 30)),
    ),
    min_size=4,
    max_size=30,
)


@settings(max_examples=500, deadline=None)
@given(row_specs, steps)
def test_the_cached_view_is_the_plain_scan(spec: list[Any], script: list[Any]) -> None:
    listing = Listing()
    rows = make_rows(spec)
    if len(rows) % 2:
        listing.set_rows(rows)
    else:
        listing.set_ids([r.sound_id for r in rows])  # first paint: ids only
        listing.add_rows(rows[: len(rows) // 2])  # columns filling in
    listing.decisions.picks["ghost:1"] = Pick("ghost:1", "voice")
    view = ViewSettings()
    assert listing.apply(view) == reference(listing, view)
    for step in script:
        kind = step[0]
        if kind == "type":
            view.query += step[1]
        elif kind == "query":
            view.query = step[1]
        elif kind == "back":
            view.query = view.query[: -step[1]]
        elif kind == "sort":
            view.sort = step[1]
        elif kind == "status":
            view.status_filter = step[1]
        elif kind == "pick":
            sid = f"src:{step[1]}"
            listing.decisions.set_pick(Pick(sid, step[2], float(step[1] % 5)))
        elif kind == "reject":
            listing.decisions.set_reject(Reject(f"src:{step[1]}"))
        else:
            listing.set_rows(rows) if step[1] % 2 else listing.add_rows(rows[step[1] :])
        assert listing.apply(view) == reference(listing, view), (step, view)


def test_typing_scans_only_the_previous_matches() -> None:
    """A longer query filters the earlier matches, not the whole list; a term that the
    earlier terms already imply is not scanned again; backspacing is a cache hit."""
    rows = [Row(f"s:{i}", i, "door slam" if i % 10 == 0 else "rain") for i in range(100)]
    ids = [r.sound_id for r in rows]
    by_id = {r.sound_id: r for r in rows}
    looked: list[str] = []

    def contains(text: str, term: str) -> bool:
        looked.append(term)
        return term in text

    cache = ViewCache(contains)

    def scan(terms: list[str]) -> tuple[list[str], int]:
        looked.clear()
        return cache.matching(ids, by_id, terms), len(looked)

    doors = [f"s:{i}" for i in range(0, 100, 10)]
    assert scan(["do"]) == (doors, 100)  # the whole list once
    assert scan(["door"]) == (doors, 10)  # "door" implies "do": the 10 earlier matches
    assert scan(["door", "s"]) == (doors, 10)  # only "s" is new ("door" is implied)
    assert scan(["door", "sl"]) == (doors, 10)
    assert scan(["do"]) == (doors, 0)  # backspace: cached
    assert scan(["rain"]) == ([f"s:{i}" for i in range(100) if i % 10], 100)
    # A new ids list (rows reloaded) starts afresh.
    looked.clear()
    assert cache.matching(list(ids), by_id, ["door"]) == doors
    assert len(looked) == 100


@pytest.mark.parametrize("sort", ["layer", "onset"])
def test_a_decision_reorders_a_cached_layer_or_onset_sort(sort: str) -> None:
    listing = Listing()
    listing.set_rows([Row(f"s:{i}", i, "door") for i in range(4)])
    view = ViewSettings(sort=sort, query="door")
    assert listing.apply(view) == ["s:0", "s:1", "s:2", "s:3"]
    listing.decisions.set_pick(Pick("s:3", "voice", 1.0))
    assert listing.apply(view) == ["s:3", "s:0", "s:1", "s:2"]
    listing.decisions.set_pick(Pick("s:2", "voice", 0.5))
    assert listing.apply(view)[:2] == ["s:2", "s:3"]  # same layer: by rank; onset 0.5 first


def test_rows_filled_in_are_searched() -> None:
    listing = Listing()
    rows = [Row(f"s:{i}", i, "door") for i in range(4)]
    listing.set_ids([r.sound_id for r in rows])
    listing.add_rows(rows[:2])
    assert listing.apply(ViewSettings(query="door")) == ["s:0", "s:1"]
    listing.add_rows(rows[2:])
    assert listing.apply(ViewSettings(query="door")) == ["s:0", "s:1", "s:2", "s:3"]


def test_search_text_is_the_stored_index_one() -> None:
    row = Row("Src:1", 0, "Heavy DOOR", source="BBC", tags=("Wood", "Slam"))
    assert search_text(row, row.sound_id) == stored_search_text(
        row.caption, row.tags, row.sound_id, row.source
    )
    assert search_text(None, "Src:1") == "src:1"


def test_prepared_texts_are_used_and_stale_ones_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """prepare() (a worker) fills the texts the first keystroke needs; texts prepared
    while the rows changed (a clear() meanwhile, or another ids list) are not kept."""
    listing = Listing()
    rows = [Row(f"s:{i}", i, "door" if i % 2 else "rain") for i in range(6)]
    listing.set_rows(rows)
    builds: list[int] = []
    real = filtering.search_texts

    def counting(ids: Any, by_id: Any) -> list[str]:
        builds.append(len(ids))
        return real(ids, by_id)

    monkeypatch.setattr(filtering, "search_texts", counting)
    listing.prepare_search()
    assert listing.apply(ViewSettings(query="door")) == ["s:1", "s:3", "s:5"]
    assert builds == [6]  # the keystroke reused the prepared texts
    listing.prepare_search()
    assert builds == [6]  # already there

    # A clear() while a worker builds: its texts describe rows that are gone.
    def racing(ids: Any, by_id: Any) -> list[str]:
        texts = real(ids, by_id)
        listing.add_rows([Row("s:0", 0, "door now")])  # the UI thread, meanwhile
        builds.append(-1)
        return texts

    listing.set_rows(rows)
    monkeypatch.setattr(filtering, "search_texts", racing)
    listing.prepare_search()
    monkeypatch.setattr(filtering, "search_texts", counting)
    assert listing.apply(ViewSettings(query="door")) == ["s:0", "s:1", "s:3", "s:5"]
    assert builds == [6, -1, 6]  # built again on the keystroke, with the new row
