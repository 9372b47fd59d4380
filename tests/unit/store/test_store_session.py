"""SessionStore behaviour on both backends (files in foley's layout, and in memory)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from foley_tui.domain import Candidate, Pick, Reject, Status, ValidationError
from foley_tui.store import SessionService, SessionStore, StoreWriteError
from foley_tui.store.errors import UndoConflictError
from foley_tui.store.rows import row_values

from .helpers import ODD_IDS, candidate


@pytest.fixture(params=["files", "memory"])
def service(request: pytest.FixtureRequest, data_dir: Path) -> SessionService:
    return SessionService(data_dir) if request.param == "files" else SessionService.in_memory()


@pytest.fixture
def store(service: SessionService) -> SessionStore:
    return service.get(service.create("test"))


def test_cache_and_rehydrate(store: SessionStore) -> None:
    class Obj:
        def __init__(self, data: dict) -> None:
            self.data = data

        def to_dict(self) -> dict:
            return self.data

    cands = [candidate(i) for i in ODD_IDS]
    assert store.cache_candidates([*cands[:3], *(Obj(c) for c in cands[3:])]) == len(ODD_IDS)
    assert store.cache_candidates([{"sound": {}}, {"origin": "x"}]) == 0  # no id: skipped
    assert store.rehydrate([ODD_IDS[1], "missing", ODD_IDS[0]]) == [cands[1], cands[0]]
    assert store.candidate(ODD_IDS[4]) == cands[4]
    assert store.candidate("missing") is None
    assert sorted(store.candidate_ids()) == sorted(ODD_IDS)


def test_pick_and_reject_exclude_each_other(store: SessionStore) -> None:
    assert store.add_reject("a", reason="too loud") == 1
    assert store.status("a") is Status.REJECTED
    assert store.add_pick("a", layer="voice", onset=1.5) == 1
    assert store.status("a") is Status.PICKED
    assert store.rejected_ids() == []
    assert store.list_picks() == [{"sound_id": "a", "layer": "voice", "onset": 1.5}]
    assert store.add_reject("a") == 1
    assert store.picked_ids() == []
    assert store.list_rejects() == [{"sound_id": "a", "reason": None}]
    assert store.rejects() == {"a": Reject("a", None)}
    store.clear("a")
    assert store.status("a") is Status.UNDECIDED
    store.clear("a")  # no-op
    assert store.drop_pick("nothing") == 0


def test_set_layer_and_onset_pick_and_keep_the_other(store: SessionStore) -> None:
    store.add_reject("s")
    assert store.set_layer("s", "ambience") == Pick("s", "ambience", None)
    assert store.status("s") is Status.PICKED
    assert store.set_onset("s", 12.25) == Pick("s", "ambience", 12.25)
    assert store.set_layer("s", None) == Pick("s", None, 12.25)
    assert store.picks() == {"s": Pick("s", None, 12.25)}
    # one journal entry per call
    assert [e.after["status"] for e in store.journal()] == [
        "rejected",
        "picked",
        "picked",
        "picked",
    ]


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("set_layer", ("x", "drums")),
        ("set_onset", ("x", True)),
        ("set_onset", ("x", float("nan"))),
        ("set_onset", ("x", float("inf"))),
        ("set_onset", ("x", "   ")),
        ("set_onset", ("x", [3])),
        ("add_pick", ("x",)),
        ("set_layer", ("", "voice")),
        ("clear", ("",)),
    ],
)
def test_invalid_values_raise_and_change_nothing(
    store: SessionStore, call: str, args: tuple
) -> None:
    kwargs = {"layer": "bad"} if call == "add_pick" else {}
    with pytest.raises(ValidationError):
        getattr(store, call)(*args, **kwargs)
    assert store.picked_ids() == []
    assert store.journal() == []


def test_undo_redo(store: SessionStore) -> None:
    assert not store.can_undo() and store.undo() is None and store.redo() is None
    store.add_pick("a", layer="voice")
    store.set_onset("a", 2.0)
    store.add_reject("b", reason="no")
    undone = store.undo()
    assert undone is not None and undone.sound_id == "b"
    assert store.status("b") is Status.UNDECIDED
    undone = store.undo()
    assert undone is not None
    assert undone.after == {
        "status": "picked",
        "pick": {"sound_id": "a", "layer": "voice", "onset": 2.0},
    }
    assert store.picks() == {"a": Pick("a", "voice", None)}
    assert store.can_redo()
    redone = store.redo()
    assert redone is not None and redone.sound_id == "a"
    assert store.picks() == {"a": Pick("a", "voice", 2.0)}
    # a new decision clears the redo stack
    store.clear("a")
    assert not store.can_redo()
    store.undo()
    assert store.picks() == {"a": Pick("a", "voice", 2.0)}


def test_undo_survives_restart(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    store.add_pick("a", layer="music", onset=3.0)
    store.add_reject("a", reason="changed my mind")
    again = SessionService(data_dir).get(sid)
    assert again.can_undo()
    entry = again.undo()
    assert entry is not None and entry.after["status"] == "rejected"
    assert again.picks() == {"a": Pick("a", "music", 3.0)}
    third = SessionService(data_dir).get(sid)
    assert third.can_redo()
    third.redo()
    assert third.status("a") is Status.REJECTED
    seqs = [e.seq for e in third.journal()]
    assert seqs == sorted(seqs) == list(range(1, len(seqs) + 1))
    assert len({e.entry_id for e in third.journal()}) == len(seqs)


def test_undo_after_external_write_refuses_then_force_applies(store: SessionStore) -> None:
    store.add_pick("a", layer="voice", onset=1.0)
    store.add_pick("a", layer="music", onset=2.0)
    # foley's agent rewrites the pick behind our back
    store.picks_ns["a"] = {"sound_id": "a", "layer": "stinger", "onset": 9.0}
    with pytest.raises(UndoConflictError, match=r"now picked, stinger at 9\.0"):
        store.undo()
    assert store.picks() == {"a": Pick("a", "stinger", 9.0)}  # nothing written
    assert [e.kind for e in store.journal()] == ["do", "do"]
    entry = store.undo(force=True)
    assert entry is not None
    assert store.picks() == {"a": Pick("a", "voice", 1.0)}
    last = store.journal()[-1]
    assert last.kind == "undo" and last.target == entry.seq
    assert last.before == {
        "status": "picked",
        "pick": {"sound_id": "a", "layer": "stinger", "onset": 9.0},
    }


def test_meta_title_cursor_view_flush(service: SessionService) -> None:
    sid = service.create("  My Scene ")
    store = service.get(sid)
    meta = store.meta()
    assert meta.title == "My Scene"
    assert meta.created.tzinfo is not None and meta.updated >= meta.created
    assert meta.schema_version == 1
    store.set_cursor("abc")
    store.set_view({"sort": "score", "filter": "undecided"})
    store.flush()
    store.set_title("Renamed")
    again = (
        service.get(sid) if service.data_dir is None else SessionService(service.data_dir).get(sid)
    )
    meta = again.meta()
    assert (meta.title, meta.cursor, meta.view) == (
        "Renamed",
        "abc",
        {"sort": "score", "filter": "undecided"},
    )
    with pytest.raises(ValidationError):
        store.set_view({"x": float("nan")})


def test_change_token_sees_our_and_external_writes(store: SessionStore) -> None:
    store.cache_candidates([candidate("a"), candidate("b")])
    token = store.change_token()
    assert store.change_token() == token
    store.add_pick("a")
    t2 = store.change_token()
    assert t2 != token
    store.picks_ns["a"] = {"sound_id": "a", "layer": "voice", "onset": None}  # in place
    t3 = store.change_token()
    assert t3 != t2
    store.candidates["c"] = candidate("c")
    assert store.change_token() != t3


def test_rows_rank_and_reparse_only_changes(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    folder = data_dir / "sessions" / sid / "candidates"
    for i, sound_id in enumerate(["c", "a", "b"]):
        store.cache_candidates([candidate(sound_id, caption=f"cap {sound_id}")])
        os.utime(folder / f"{sound_id}.json", ns=(1_000_000_000 * (i + 1),) * 2)
    progress: list[tuple[int, int]] = []
    rows = store.rows(progress=lambda done, total: progress.append((done, total)))
    assert [(r.sound_id, r.rank) for r in rows] == [("c", 0), ("a", 1), ("b", 2)]
    assert rows[1].caption == "cap a" and rows[1].tags == ("door", "slam")
    assert progress[-1] == (3, 3)
    index = data_dir / "sessions" / sid / ".foley-tui" / "index.sqlite"
    assert index.exists()
    # A fresh store uses the index: no candidate file is parsed when nothing changed.
    fresh = SessionService(data_dir).get(sid)
    progress.clear()
    assert [r.sound_id for r in fresh.rows(progress=lambda d, t: progress.append((d, t)))] == [
        "c",
        "a",
        "b",
    ]
    assert progress[-1] == (0, 0)
    # foley rewrites "a" in place (same ino), deletes "b", adds "d": only those are read.
    (folder / "a.json").write_bytes(json.dumps(candidate("a", caption="new a"), indent=4).encode())
    (folder / "b.json").unlink()
    (folder / "d.json").write_bytes(json.dumps(candidate("d"), indent=4).encode())
    progress.clear()
    rows = fresh.rows(progress=lambda d, t: progress.append((d, t)))
    assert progress[-1] == (2, 2)
    assert [r.sound_id for r in rows] == ["c", "a", "d"]  # a keeps its first-seen rank
    assert rows[1].caption == "new a"


def test_rows_generic_backend(service: SessionService) -> None:
    store = service.get(service.create())
    store.cache_candidates([candidate("x"), candidate("y", caption="why")])
    rows = store.rows()
    assert {r.sound_id: r.caption for r in rows} == {"x": "caption of x", "y": "why"}


@pytest.mark.parametrize(
    "data",
    [
        candidate("x"),
        {"sound": {"id": "x", "tags": "notalist", "duration_s": "1"}, "rerank_score": True},
        {"sound": None, "cost_estimate_usd": 1.5, "clap_score": 0.2},
        {"sound": {"license": {"license_name": "CC-BY"}, "sample_rate": 0}, "bm25_score": 3},
        {"sound": {"id": "x", "sample_rate": 1e300, "channels": 2**70}},
        {"sound": {"id": "x", "sample_rate": -44100.5, "channels": 9.2e18}},
        {},
    ],
)
def test_index_columns_equal_the_model_row(data: dict) -> None:
    row = Candidate(data).to_row()
    assert row_values(data) == [
        row.caption,
        row.duration_s,
        row.source,
        row.license_id,
        list(row.tags),
        row.score,
        row.cost_usd,
        row.origin,
        row.sample_rate,
        row.channels,
        row.format,
    ]


def test_a_count_beyond_64_bits_is_no_value_and_the_session_opens(data_dir: Path) -> None:
    """A sample rate of 1e300 once stopped the index write (SQLite INTEGER overflow), so
    the session failed to load: it is no value, like a zero or a string."""
    service = SessionService(data_dir)
    sid = service.create()
    odd = candidate("odd")
    odd["sound"].update(sample_rate=1e300, channels=2**70)
    service.get(sid).cache_candidates([odd, candidate("fine")])
    rows = {r.sound_id: r for r in SessionService(data_dir).get(sid).rows()}
    assert (rows["odd"].sample_rate, rows["odd"].channels) == (None, None)
    assert (rows["fine"].sample_rate, rows["fine"].channels) == (48000, 2)
    again = {r.sound_id: r for r in SessionService(data_dir).get(sid).rows()}
    assert again == rows


def test_write_failure_raises_store_write_error_and_changes_nothing(data_dir: Path) -> None:
    # (Tests may run as root, which ignores folder permissions: a file where the picks
    # folder should be makes the write fail for everyone.)
    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    store.add_reject("a", reason="r")
    picks = data_dir / "sessions" / sid / "picks"
    picks.rmdir()
    picks.write_text("not a folder")
    with pytest.raises(StoreWriteError, match="could not save the decision"):
        store.add_pick("a")
    assert store.status("a") is Status.REJECTED
    assert len(store.journal()) == 1
    assert picks.read_text() == "not a folder"


def test_decision_is_on_disk_when_the_call_returns(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    service.get(sid).add_pick("freesound:1", layer="sfx_fg", onset=0.5)
    raw = (data_dir / "sessions" / sid / "picks" / "freesound%3A1.json").read_bytes()
    assert (
        raw
        == json.dumps(
            {"sound_id": "freesound:1", "layer": "sfx_fg", "onset": 0.5}, indent=4
        ).encode()
    )
    journal = (data_dir / "sessions" / sid / ".foley-tui" / "journal.jsonl").read_bytes()
    assert journal.endswith(b"\n") and b'"freesound:1"' in journal
    assert not [
        p for p in (data_dir / "sessions" / sid / "picks").iterdir() if p.name.startswith(".")
    ]


def test_in_memory_store_has_no_data_dir() -> None:
    store = SessionStore.in_memory()
    assert store.data_dir is None
    store.add_pick("x")
    assert store.picked_ids() == ["x"]
    time.sleep(0)


def test_works_on_plain_mutable_mappings() -> None:
    """Everything above the Mapping layer runs on any MutableMapping (here plain dicts,
    as foley's own tests inject them)."""
    from foley_tui.store.backend import MemoryState

    candidates: dict = {}
    picks: dict = {}
    rejects: dict = {}
    store = SessionStore(
        "plain", candidates=candidates, picks=picks, rejects=rejects, state=MemoryState()
    )
    assert store.cache_candidates([candidate("a"), candidate("b")]) == 2
    store.add_pick("a", layer="voice", onset=2)
    store.add_reject("b", reason="no")
    store.add_pick("b")
    assert picks == {
        "a": {"sound_id": "a", "layer": "voice", "onset": 2},
        "b": {"sound_id": "b", "layer": None, "onset": None},
    }
    assert rejects == {}
    assert [r.sound_id for r in store.rows()] == ["a", "b"]
    store.undo()
    assert rejects == {"b": {"sound_id": "b", "reason": "no"}} and "b" not in picks
    token = store.change_token()
    store.set_layer("a", "music")
    assert store.change_token() != token
