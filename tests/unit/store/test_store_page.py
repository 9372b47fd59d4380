"""The paged index API: one screen of rows by sort, status and ``/`` filter straight from
the SQLite index, the same rows the list shows for the same settings."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from foley_tui.domain import Row
from foley_tui.store import SessionService, SessionStore
from foley_tui.store.index_db import SORTS, STATUS_FILTERS

from .helpers import candidate

CAPTIONS = ["Door slam", "door creak", "Rain on roof", "", "Été 音 bell", "slam poetry", "ab"]


def _store(data_dir: Path) -> SessionStore:
    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    cands = []
    for i, caption in enumerate(CAPTIONS):
        cand = candidate(f"id:{i}", caption=caption)
        cand["sound"]["duration_s"] = None if i % 3 == 0 else float(10 - i)
        cand["rrf_score"] = None if i == 2 else i / 10
        cand["sound"]["tags"] = ["Tag" + str(i % 2)]
        cand["sound"]["sample_rate"] = None if i == 3 else (44100, 96000, 48000)[i % 3]
        cand["sound"]["channels"] = None if i == 5 else 1 + i % 2
        cand["sound"]["format"] = ("WAV", "flac", "", "mp3")[i % 4]
        cands.append(cand)
    store.cache_candidates(cands)
    folder = data_dir / "sessions" / sid / "candidates"
    for i, path in enumerate(sorted(folder.iterdir())):
        os.utime(path, ns=(10**9 * (i + 1),) * 2)
    store.add_pick("id:1", layer="music", onset=3.0)
    store.add_pick("id:4", layer="voice")
    store.add_reject("id:2", reason="no")
    store.rows()  # writes the index
    return SessionService(data_dir).get(sid)


def _expected(store: SessionStore, sort: str, status: str, query: str) -> list[str]:
    """What the list shows for these settings (the in-memory path the UI uses today)."""
    rows = store.rows()
    picks, rejects = store.picks(), store.rejects()
    out = []
    for row in rows:
        state = (
            "picked"
            if row.sound_id in picks
            else "rejected"
            if row.sound_id in rejects
            else "undecided"
        )
        if status != "all" and state != status:
            continue
        text = "\n".join((row.caption, " ".join(row.tags), row.sound_id, row.source)).lower()
        if all(term in text for term in query.lower().split()):
            out.append(row)
    inf = float("inf")
    order = {"voice": 0, "sfx_fg": 1, "ambience": 2, "stinger": 3, "music": 4}

    def layer_of(sound_id: str) -> int:
        pick = picks.get(sound_id)
        return order[pick.layer] if pick is not None and pick.layer else 9

    keys: dict[str, Callable[[Row], tuple[Any, ...]]] = {
        "rank": lambda r: (r.rank,),
        "caption": lambda r: (r.caption.lower() or "\uffff", r.rank),
        "duration": lambda r: (inf if r.duration_s is None else r.duration_s, r.rank),
        "score": lambda r: (inf if r.score is None else -r.score, r.rank),
        "layer": lambda r: (layer_of(r.sound_id), r.rank),
        "onset": lambda r: (
            picks[r.sound_id].onset
            if r.sound_id in picks and picks[r.sound_id].onset is not None
            else inf,
            r.rank,
        ),
        "rate": lambda r: (inf if r.sample_rate is None else r.sample_rate, r.rank),
        "channels": lambda r: (inf if r.channels is None else r.channels, r.rank),
        "format": lambda r: (r.format.lower() or "\uffff", r.rank),
    }
    return [r.sound_id for r in sorted(out, key=keys[sort])]


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("status", STATUS_FILTERS)
@pytest.mark.parametrize("query", ["", "slam", "SLAM door", "a", "音", "é", "tag1 o", "zzz", '"x'])
def test_page_matches_the_list(data_dir: Path, sort: str, status: str, query: str) -> None:
    store = _store(data_dir)
    expected = _expected(store, sort, status, query)
    page = store.page(sort=sort, status=status, query=query, limit=100)
    assert page is not None
    assert [r.sound_id for r in page.rows] == expected and page.total == len(expected)
    # The whole view a paged list shows, ids only: the same order.
    assert store.view_ids(sort=sort, status=status, query=query) == expected


def test_the_search_index_is_built_on_first_use(data_dir: Path) -> None:
    store = _store(data_dir)
    fresh = SessionService(data_dir).get(store.session_id)
    short = fresh.page(query="sl")  # a scan: the trigram index is not needed
    assert short is not None and not fresh.rows_reader.search_ready()
    first = fresh.page(query="slam")  # builds it, then uses it
    assert first is not None and fresh.rows_reader.search_ready()
    assert [r.sound_id for r in first.rows] == ["id:0", "id:5"]
    assert SessionService(data_dir).get(store.session_id).prepare_filter()  # already built


def test_a_crafted_row_naming_another_sound_is_no_page(data_dir: Path) -> None:
    import sqlite3

    store = _store(data_dir)
    path = data_dir / "sessions" / store.session_id / ".foley-tui" / "index.sqlite"
    db = sqlite3.connect(path)
    db.execute("UPDATE rows SET key = 'id:9' WHERE key = 'id:0'")
    db.commit()
    db.close()
    assert SessionService(data_dir).get(store.session_id).page() is None


def test_page_is_unverified_until_rows_checked_the_files(data_dir: Path) -> None:
    store = _store(data_dir)
    sid = store.session_id
    fresh = SessionService(data_dir).get(sid)
    first = fresh.page(limit=3)
    assert first is not None and not first.verified and first.total == len(CAPTIONS)
    assert [r.caption for r in first.rows] == CAPTIONS[:3]
    fresh.rows()
    again = fresh.page(offset=3, limit=3)
    assert again is not None and again.verified and [r.rank for r in again.rows] == [3, 4, 5]


def test_no_index_means_no_page(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    service.get(sid).cache_candidates([candidate("a")])
    assert SessionService(data_dir).get(sid).page() is None  # rows() builds it first
    assert SessionStore.in_memory().page() is None


def test_a_damaged_search_index_is_no_page_and_rows_still_work(data_dir: Path) -> None:
    import sqlite3

    store = _store(data_dir)
    assert store.prepare_filter()
    path = data_dir / "sessions" / store.session_id / ".foley-tui" / "index.sqlite"
    db = sqlite3.connect(path)
    db.execute("DELETE FROM rows_fts_data")
    db.commit()
    db.close()
    fresh = SessionService(data_dir).get(store.session_id)
    assert fresh.page(query="slam") is None
    assert len(fresh.rows()) == len(CAPTIONS)


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("status", STATUS_FILTERS)
@pytest.mark.parametrize("query", ["", "door", "o"])
def test_a_page_around_a_sound_holds_it_at_its_place(
    data_dir: Path, sort: str, status: str, query: str
) -> None:
    """``around``: the page that holds a saved cursor, at the offset the full view has it
    (ties, NULL columns and descending scores included); a sound the view does not show
    gives the first page."""
    store = _store(data_dir)
    expected = _expected(store, sort, status, query)
    for sound_id in [f"id:{i}" for i in range(len(CAPTIONS))]:
        page = store.page(sort=sort, status=status, query=query, limit=2, around=sound_id)
        assert page is not None
        assert [r.sound_id for r in page.rows] == expected[page.offset : page.offset + 2]
        if sound_id in expected:
            at = expected.index(sound_id)
            assert page.offset == max(0, at - 1)
        else:
            assert page.offset == 0


def test_a_page_leaves_no_transaction_open_to_block_a_writer(data_dir: Path) -> None:
    """page() fills a temp table of the decisions: on a connection that opened an
    implicit transaction for it, the read lock stayed until the store was collected, and
    another store's (another process's) search-index build waited, then failed."""
    from foley_tui.store import index_db

    store = _store(data_dir)
    reader = SessionService(data_dir).get(store.session_id)
    assert reader.page(status="picked", sort="layer") is not None
    path = store.state.index_path()
    assert path is not None
    assert index_db.build_search(path)  # another writer gets the file at once
    assert reader.page(query="slam") is not None  # and the reader goes on


def _steps_to_page_around_the_last(data_dir: Path, count: int) -> int:
    """SQLite virtual-machine steps (in hundreds) of the first page of a session of
    ``count`` candidates around its last row: the reopen's first-frame read."""
    from foley_tui.store import index_db, index_schema

    service = SessionService(data_dir / str(count))
    sid = service.create()
    store = service.get(sid)
    store.cache_candidates([candidate(f"id:{i:05d}") for i in range(count)])
    rows = store.rows()  # writes the index
    path = store.state.index_path()
    assert path is not None
    db = index_schema.connect(path, readonly=True)
    try:
        checked = index_schema.check(db)
        assert checked is not None and checked[2] == count
        steps = 0

        def step() -> int:
            nonlocal steps
            steps += 1
            return 0

        db.set_progress_handler(step, 100)
        last = rows[-1].sound_id
        at = index_db.position(db, last, row_count=count)
        assert at == count - 1
        page = index_db.page(db, offset=at - 5, limit=10, row_count=count)
        assert [r.sound_id for r in page.rows] == [r.sound_id for r in rows[-6:]]
        return steps
    finally:
        db.close()


def test_the_page_around_a_saved_cursor_does_not_grow_with_the_session(data_dir: Path) -> None:
    """A reopen's first frame is the page around the saved cursor: the cursor's row is
    found by its id (indexed) and, in the whole list in rank order, the page starts at its
    position, so neither a scan of the table nor an OFFSET over the rows before it is on
    the way to the first frame. 40x the rows, about the same work."""
    small = _steps_to_page_around_the_last(data_dir, 50)
    big = _steps_to_page_around_the_last(data_dir, 2000)
    # A scan of the 2000 rows alone would be well over a hundred steps of 100 ops each.
    assert big <= small + 5, (small, big)
