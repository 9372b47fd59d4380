"""The columnar candidate index: the fast path gives exactly the rebuilt rows, and a
damaged or tampered index is rebuilt, never trusted and never a crash."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foley_tui.domain import Row
from foley_tui.store import SessionService, SessionStore
from foley_tui.store.index import CandidateIndex, scan_digest, scan_stats
from foley_tui.store.index_db import INDEX_FILE, load, save
from foley_tui.store.records import count_entries

from .helpers import candidate

OLD_NS = 1_000_000_000


def make_session(data_dir: Path) -> tuple[SessionService, str, Path]:
    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    untagged = candidate("b", caption="bee")
    untagged["sound"]["tags"] = None
    store.cache_candidates(
        [
            candidate("freesound:1", caption="one"),
            untagged,
            candidate("x y/é", caption="odd", cost_estimate_usd=0.25),
        ]
    )
    folder = data_dir / "sessions" / sid / "candidates"
    (folder / "broken.json").write_bytes(b"{not json")
    (folder / "foreign name").write_text("x")
    (folder / "sub.json").mkdir()
    for i, path in enumerate(sorted(folder.iterdir())):
        os.utime(path, ns=(OLD_NS * (i + 1),) * 2)  # old: past the racy window
    return service, sid, data_dir / "sessions" / sid


def snapshot(store: object) -> tuple[list[object], list[object]]:
    rows = store.rows()  # type: ignore[attr-defined]
    return rows, store.problems()  # type: ignore[attr-defined]


def test_fast_path_equals_rebuild(data_dir: Path) -> None:
    _service, sid, root = make_session(data_dir)
    first_rows, first_problems = snapshot(SessionService(data_dir).get(sid))
    assert (root / ".foley-tui" / INDEX_FILE).exists()
    progress: list[tuple[int, int]] = []
    again = SessionService(data_dir).get(sid)
    rows = again.rows(progress=lambda d, t: progress.append((d, t)))
    assert progress == [(0, 0)]  # nothing parsed: the stored rows were used
    assert rows == first_rows and again.problems() == first_problems
    by_id = {r.sound_id: r for r in rows}
    assert by_id["broken"].unreadable and "sub" not in by_id
    assert by_id["x y/é"].cost_usd == 0.25 and by_id["b"].tags == ()
    assert {p.key for p in again.problems()} >= {"broken", "foreign name", "sub"}


def test_a_changed_file_is_seen_after_the_fast_path(data_dir: Path) -> None:
    _service, sid, root = make_session(data_dir)
    SessionService(data_dir).get(sid).rows()
    path = root / "candidates" / "b.json"
    path.write_bytes(json.dumps(candidate("b", caption="BEE"), indent=4).encode())
    os.utime(path, ns=(OLD_NS * 50,) * 2)
    rows = {r.sound_id: r for r in SessionService(data_dir).get(sid).rows()}
    assert rows["b"].caption == "BEE"


def _sql(index_file: Path, *statements: str) -> None:
    db = sqlite3.connect(index_file)
    try:
        for statement in statements:
            db.execute(statement)
        db.commit()
    finally:
        db.close()


def _patch_column(index_file: Path, key: str, patch: Callable[[bytes], bytes]) -> None:
    db = sqlite3.connect(index_file)
    try:
        (blob,) = db.execute("SELECT v FROM columns WHERE k = ?", (key,)).fetchone()
        db.execute("UPDATE columns SET v = ? WHERE k = ?", (patch(blob), key))
        db.commit()
    finally:
        db.close()


def _tags_header(
    blob: bytes, distinct: int | None = None, first_length: int | None = None
) -> bytes:
    assert blob[:1] == b"t"
    head = int.from_bytes(blob[1:9], "little", signed=True)
    out = bytearray(blob)
    if distinct is not None:
        out[1:9] = distinct.to_bytes(8, "little", signed=True)
    if first_length is not None and head:
        out[9:17] = first_length.to_bytes(8, "little", signed=True)
    return bytes(out)


def _tags_row(blob: bytes, row: int, number: int) -> bytes:
    distinct = int.from_bytes(blob[1:9], "little", signed=True)
    at = 9 + 8 * distinct + 8 * row
    return blob[:at] + number.to_bytes(8, "little", signed=True) + blob[at + 8 :]


# Ways to tamper with one stored column (see index_columns for the kinds).
COLUMN_TAMPERS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "infinity": ("duration_s", lambda b: b[:1] + struct.pack("<d", math.inf) + b[9:]),
    "nan": ("sample_rate", lambda b: b.replace(b"48000", b"NaN", 1)),
    "json-infinity": ("duration_s", lambda b: b"j[1e999" + b",null" * (len(b) // 8 - 1) + b"]"),
    "kind": ("caption", lambda b: b"x" + b[1:]),
    "text-count": ("caption", lambda b: b + b"\x00extra"),
    "text-utf8": ("caption", lambda b: b + b"\xff"),
    "float-length": ("score", lambda b: b[:-1]),
    "tags-distinct": ("tags", lambda b: _tags_header(b, distinct=1 << 40)),
    "tags-negative": ("tags", lambda b: _tags_header(b, distinct=-1)),
    "tags-length": ("tags", lambda b: _tags_header(b, first_length=-2)),
    "tags-row": ("tags", lambda b: _tags_row(b, 0, 99)),
    "tags-row-negative": ("tags", lambda b: _tags_row(b, 0, -1)),
    "json-type": ("channels", lambda b: b'j["2"' + b',"2"' * 3 + b"]"),
}

TAMPERS = [
    "flip",
    "truncate",
    "garbage",
    "empty",
    "lengths",
    "schema",
    "trigger",
    "info",
    "digest",
    "keys",
    *COLUMN_TAMPERS,
    "oversized",
    "fifo",
    "symlink",
]


@pytest.mark.parametrize("how", TAMPERS)
def test_a_tampered_index_is_rebuilt(data_dir: Path, how: str) -> None:
    _service, sid, root = make_session(data_dir)
    good, _ = snapshot(SessionService(data_dir).get(sid))
    index_file = root / ".foley-tui" / INDEX_FILE
    data = index_file.read_bytes()
    if how == "flip":  # the header of page 2 (the first table's root page)
        page = 4096
        flipped = bytes(b ^ 0xFF for b in data[page : page + 64])
        index_file.write_bytes(data[:page] + flipped + data[page + 64 :])
    elif how == "truncate":
        index_file.write_bytes(data[: len(data) // 2])
    elif how == "garbage":
        index_file.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    elif how == "empty":
        index_file.write_bytes(b"")
    elif how == "lengths":  # a column shorter than the others
        _sql(index_file, "UPDATE columns SET v = substr(v, 1, 8) WHERE k = 'mtimes'")
    elif how == "schema":  # an extra table (a foreign or crafted file)
        _sql(index_file, "CREATE TABLE extra(x)")
    elif how == "trigger":  # code in the schema: refused before anything runs
        _sql(index_file, "CREATE VIEW v AS SELECT load_extension('x')")
    elif how == "info":
        _sql(index_file, "UPDATE info SET v = 'x' WHERE k = 'scanned_ns'")
    elif how == "digest":
        _sql(index_file, "UPDATE info SET v = 99 WHERE k = 'layout'")
    elif how == "keys":  # a row naming another sound: the list would lie about ids
        _sql(
            index_file,
            "UPDATE columns SET v = CAST(replace(CAST(v AS TEXT), 'freesound:1', "
            "'freesound:2') AS BLOB) WHERE k = 'keys'",
        )
    elif how in COLUMN_TAMPERS:
        key, patch = COLUMN_TAMPERS[how]
        _patch_column(index_file, key, patch)
    elif how == "oversized":  # far above what the session's file count allows
        with index_file.open("ab") as fh:
            fh.truncate(len(data) + 64 << 20)
    elif how == "fifo":
        index_file.unlink()
        os.mkfifo(index_file)
    else:
        index_file.unlink()
        index_file.symlink_to("/dev/zero")
    progress: list[tuple[int, int]] = []
    rows = SessionService(data_dir).get(sid).rows(progress=lambda d, t: progress.append((d, t)))
    assert rows == good
    assert progress[-1][1] > 0  # files were parsed again
    assert load(str(index_file), expected_rows=10) is not None  # rewritten


def test_the_legacy_indexes_are_replaced(data_dir: Path) -> None:
    _service, sid, root = make_session(data_dir)
    legacy = root / ".foley-tui" / "index.json"
    legacy.write_text('{"version": 2, "rows": []}')
    marshal_index = root / ".foley-tui" / "index.bin"
    marshal_index.write_bytes(b"FOLEYTUI-INDEX\x00\x03" + b"\x00" * 40)
    rows = SessionService(data_dir).get(sid).rows()
    assert {r.sound_id for r in rows} == {"freesound:1", "b", "x y/é", "broken"}
    assert not legacy.exists() and not marshal_index.exists()
    assert (root / ".foley-tui" / INDEX_FILE).exists()


def test_scan_digest_covers_names_times_and_sizes(tmp_path: Path) -> None:
    tmp_path = tmp_path / "folder"
    tmp_path.mkdir()
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / ".hidden").write_text("x")
    names, mtimes, sizes = scan_stats(str(tmp_path))
    assert sorted(names) == ["a.json", "b.json"]
    base = scan_digest(names, mtimes, sizes)
    assert scan_digest(names, [m + 1 for m in mtimes], sizes) != base
    assert scan_digest(names, mtimes, [s + 1 for s in sizes]) != base
    assert scan_digest([n + "x" for n in names], mtimes, sizes) != base
    assert scan_stats(str(tmp_path / "missing")) == ([], [], [])


NAME_PARTS = ["a", ".", "json", ".json", "\n", "%2E", "é", "tmp", "x"]


@given(st.lists(st.lists(st.sampled_from(NAME_PARTS), min_size=1, max_size=5).map("".join)))
def test_count_entries_matches_the_plain_rule(names: list[str]) -> None:
    expected = sum(1 for n in names if not n.startswith(".") and n.endswith(".json"))
    assert count_entries(names) == expected


def _row(order: int, name: str, tags: tuple[str, ...] = ("t",)) -> tuple[object, ...]:
    return (
        order,
        name,
        order + 1,
        len(name),
        None if order % 3 else "unreadable",
        f"key-{name}",
        f"caption {name}",
        float(order) if order % 2 else None,
        "freesound",
        "CC0-1.0",
        list(tags),
        None,
        0.5,
        "retrieved",
        48000 if order % 2 else None,
        2,
        "flac",
    )


def _columns(index: CandidateIndex) -> tuple[object, ...]:
    return (
        list(index.names),
        list(index.mtimes),
        list(index.sizes),
        list(index.orders),
        list(index.unreadable),
        list(index.keys),
        [list(col) for col in index.values],
        index.rows(),
    )


@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=30),
    st.lists(st.booleans(), min_size=30, max_size=30),
    st.lists(st.integers(0, 25), max_size=10),
)
def test_merging_a_few_rows_equals_a_full_rebuild(
    old_orders: list[int], kept: list[bool], new_orders: list[int]
) -> None:
    old_rows = [_row(o, f"n{i:02d}") for i, o in enumerate(old_orders)]
    old = CandidateIndex.from_rows(old_rows, scanned_ns=1, digest=b"d", problems=())
    keep = [i for i in range(len(old)) if kept[i]]
    # Rows not kept came back changed (same name, first-seen order kept) or vanished;
    # new rows have new names.
    extra = [_row(old.orders[i], old.names[i], ("u",)) for i in range(len(old)) if i % 2]
    extra = [r for r in extra if r[1] not in {old.names[i] for i in keep}]
    extra += [_row(o, f"m{j:02d}", ("new", "x")) for j, o in enumerate(new_orders)]
    merged = CandidateIndex.merged(
        old, keep, list(reversed(extra)), scanned_ns=2, digest=b"e", problems=()
    )
    reference = CandidateIndex.from_rows(
        [old.row_tuple(i) for i in keep] + extra, scanned_ns=2, digest=b"e", problems=()
    )
    assert _columns(merged) == _columns(reference)
    path = os.path.join(tempfile.mkdtemp(), INDEX_FILE)
    save(path, merged)
    again = load(path, expected_rows=len(merged))
    assert again is not None and _columns(again) == _columns(reference)


def test_quick_rows_checks_names_only(data_dir: Path) -> None:
    _service, sid, root = make_session(data_dir)
    assert SessionService(data_dir).get(sid).quick_rows() is None  # no index yet
    exact = SessionService(data_dir).get(sid).rows()
    assert SessionService(data_dir).get(sid).quick_rows() == exact
    # Rewritten in place (same name): quick rows still show the stored values.
    path = root / "candidates" / "b.json"
    path.write_bytes(json.dumps(candidate("b", caption="BEE"), indent=4).encode())
    os.utime(path, ns=(OLD_NS * 50,) * 2)
    store = SessionService(data_dir).get(sid)
    quick = store.quick_rows()
    assert quick is not None and {r.sound_id: r.caption for r in quick}["b"] == "bee"
    assert {r.sound_id: r.caption for r in store.rows()}["b"] == "BEE"
    # A new or removed name: no quick rows.
    (root / "candidates" / "new.json").write_text(json.dumps(candidate("new"), indent=4))
    assert SessionService(data_dir).get(sid).quick_rows() is None
    (root / "candidates" / "new.json").unlink()
    (root / "candidates" / "b.json").unlink()
    assert SessionService(data_dir).get(sid).quick_rows() is None
    memory = SessionService.in_memory()
    assert memory.get(memory.create()).quick_rows() is None


@pytest.mark.parametrize("first", ["candidate_ids", "quick_rows"])
def test_first_change_token_of_a_big_session_does_not_stat_every_candidate(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """The UI lists (ids or quick rows), then takes a change token: on a big session that
    token must not stat every candidate file (it cost 0.75 s at 100k)."""
    from foley_tui.store.files import FileNamespace

    service = SessionService(data_dir)
    sid = service.create(title="big")
    store = service.get(sid)
    store.cache_candidates([candidate(f"big:{i}") for i in range(2_001)])
    store.rows()  # writes the index that quick_rows uses
    store = SessionService(data_dir).get(sid)  # a fresh process's view
    assert getattr(store, first)() is not None

    stat_scans: list[str] = []
    original = FileNamespace.scan

    def counting_scan(self: FileNamespace, **kwargs: object) -> object:
        if kwargs.get("stat", True):
            stat_scans.append(self.path)
        return original(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FileNamespace, "scan", counting_scan)
    store.change_token()
    assert store.candidates.path not in stat_scans  # type: ignore[attr-defined]


@pytest.mark.parametrize("first", ["nothing", "candidate_ids", "quick_rows"])
def test_first_watch_snapshot_of_a_big_session_does_not_stat_every_candidate(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """The loader takes the decision watch's first snapshot before it reads the rows:
    on a big session it must not stat and decode every candidate file (0.85 s at 100k,
    half of a reopen) just to learn the session is big. Adding a file still shows."""
    from foley_tui.store.file_backend import FileBackend
    from foley_tui.store.files import FileNamespace

    service = SessionService(data_dir)
    sid = service.create(title="big")
    service.get(sid).cache_candidates([candidate(f"big:{i}") for i in range(8)])
    service.get(sid).rows()  # writes the index that quick_rows uses
    folder = data_dir / "sessions" / sid
    # A fresh process's view, on a backend that calls a session of over 5 candidates big.
    store = SessionStore(sid, backend=FileBackend(folder, small_session=5), session_path=folder)
    if first != "nothing":
        assert getattr(store, first)() is not None

    stat_scans: list[str] = []
    original = FileNamespace.scan

    def counting_scan(self: FileNamespace, **kwargs: object) -> object:
        if kwargs.get("stat", True):
            stat_scans.append(self.path)
        return original(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FileNamespace, "scan", counting_scan)
    watcher = store.decision_watch()
    os.utime(folder / "candidates", ns=(OLD_NS, OLD_NS))  # a folder mtime the add below must change
    watcher.accept(watcher.snapshot())
    assert str(folder / "candidates") not in stat_scans
    assert not watcher.diff(watcher.snapshot()).candidates
    store.cache_candidates([candidate("big:new")])
    assert watcher.diff(watcher.snapshot()).candidates


def test_rows_hands_over_parsed_batches_while_parsing(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create(title="progressive")
    service.get(sid).cache_candidates([candidate(f"p:{i}") for i in range(2_500)])
    # Files written within a clock tick of an index scan are re-checked on every open:
    # age them so the reopen below is the plain valid-index path.
    folder = data_dir / "sessions" / sid / "candidates"
    for i, path in enumerate(sorted(folder.iterdir())):
        os.utime(path, ns=(1_700_000_000_000_000_000 + i, 1_700_000_000_000_000_000 + i))
    store = SessionService(data_dir).get(sid)
    batches: list[list[Row]] = []
    final = store.rows(partial=batches.append)
    assert len(batches) >= 2  # handed over while parsing, not only at the end
    by_id = {r.sound_id: r for r in final}
    seen = [row for batch in batches for row in batch]
    assert len({r.sound_id for r in seen}) == len(seen) >= 2_000
    for row in seen:
        exact = by_id[row.sound_id]
        assert (row.caption, row.duration_s, row.tags) == (
            exact.caption,
            exact.duration_s,
            exact.tags,
        )
    # With a valid index nothing is parsed, so nothing is handed over.
    again: list[list[Row]] = []
    assert SessionService(data_dir).get(sid).rows(partial=again.append) == final
    assert again == []


_texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=6) | st.sampled_from(
    ["", "a\x00b", "\x00", "freesound", "é 音"]
)
_floats = st.none() | st.floats(allow_nan=False, allow_infinity=False) | st.just(-0.0)
_stored_rows: st.SearchStrategy[list[tuple[Any, ...]]] = st.lists(
    st.tuples(
        st.integers(0, 5),  # order
        _texts,  # caption
        _floats,  # duration
        _texts,  # source
        st.lists(_texts, max_size=3).map(tuple) | st.sampled_from([(), ("a", "b")]),
        _floats,  # score
        st.none() | st.integers(1, 2**63 - 1),  # sample rate (any 64-bit count)
        st.none() | st.sampled_from(["unreadable", "a\x00b"]),
    ),
    max_size=12,
)


@given(_stored_rows)
def test_stored_columns_read_back_exactly(stored: list[tuple[Any, ...]]) -> None:
    """Every column kind (joined text, packed numbers, tag dictionary) and its JSON
    fallback (a NUL inside a value) reads back as written: the same values and types."""
    rows = [
        (
            order,
            f"n{i}.json",
            i,
            i,
            unreadable,
            f"n{i}",
            caption,
            duration,
            source,
            "CC0",
            list(tags),
            score,
            None,
            "retrieved",
            rate,
            2,
            "flac",
        )
        for i, (order, caption, duration, source, tags, score, rate, unreadable) in enumerate(
            stored
        )
    ]
    index = CandidateIndex.from_rows(rows, scanned_ns=7, digest=b"d" * 32, problems=())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, INDEX_FILE)
        save(path, index)
        back = load(path, expected_rows=len(rows))
    assert back is not None
    assert _columns(back) == _columns(index)
    for col_back, col in zip(back.values, index.values, strict=True):
        assert [type(v) for v in col_back] == [type(v) for v in col]
        # -0.0 == 0.0: compare the signs too.
        assert [math.copysign(1, v) for v in col_back if type(v) is float] == [
            math.copysign(1, v) for v in col if type(v) is float
        ]


def test_the_rows_of_a_big_index_are_built_once_and_collected_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reopen lists the stored rows for the first paint, then the verified rows: the
    same Row objects, built once. A big list ends its build with one full collection
    (not several later, at moments nobody chose), and the collector is on again."""
    import gc

    from foley_tui.store import index

    _service, sid, _root = make_session(data_dir)
    SessionService(data_dir).get(sid).rows()  # writes the index
    store = SessionService(data_dir).get(sid)
    full: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    monkeypatch.setattr(index, "COLLECT_ROWS", 3)
    gc.callbacks.append(note)
    try:
        quick = store.quick_rows()
        assert quick is not None and full and gc.isenabled()
        full.clear()
        rows = store.rows()
        assert not full  # the same rows: not built, not collected again
    finally:
        gc.callbacks.remove(note)
    assert rows == quick and all(a is b for a, b in zip(rows, quick, strict=True))
    assert rows is not quick  # each call its own list


def test_a_session_never_opened_is_listed_once_before_its_first_paint(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session foley made and we never opened has no index: its first paint (the
    loader's quick_rows(), then candidate_ids()) lists the candidates folder once and
    reads no candidate file; the foreign names are its problems, as after a scan."""
    _service, sid, root = make_session(data_dir)
    assert not (root / ".foley-tui" / INDEX_FILE).exists()
    store = SessionService(data_dir).get(sid)
    listings: list[object] = []
    opened: list[object] = []
    real_scandir, real_listdir, real_open = os.scandir, os.listdir, os.open

    def scandir(path: Any = ".") -> Any:
        listings.append(path)
        return real_scandir(path)

    def listdir(path: Any = ".") -> list[str]:
        listings.append(path)
        return real_listdir(path)

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append(path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(os, "open", open_)
    assert store.quick_rows() is None
    ids = store.candidate_ids()
    monkeypatch.undo()
    assert ids == sorted(["freesound:1", "b", "x y/é", "broken"])
    assert len(listings) == 1, listings
    assert not [p for p in opened if str(p).endswith(".json")], opened
    reasons = {(p.key, p.reason) for p in store.problems()}
    assert ("foreign name", "foreign file name (foley cannot read it)") in reasons
    assert len(store.rows()) == 4  # the whole list (broken.json is a row too) follows
