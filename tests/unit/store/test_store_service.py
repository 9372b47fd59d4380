"""SessionService: create/get/list/resolve/rename/delete, export and import, bad ids."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from foley_tui.domain import Pick
from foley_tui.store import (
    InvalidSessionIdError,
    SessionExportError,
    SessionImportError,
    SessionNotFoundError,
    SessionService,
    SessionServiceError,
)
from foley_tui.store.export_doc import checksum_of

from .helpers import ODD_IDS, candidate, tree


@pytest.fixture(params=["files", "memory"])
def service(request: pytest.FixtureRequest, data_dir: Path) -> SessionService:
    return SessionService(data_dir) if request.param == "files" else SessionService.in_memory()


def test_create_list_resolve(service: SessionService) -> None:
    a = service.create("Alpha")
    time.sleep(0.002)
    b = service.create("beta")
    assert len(a) == 26 and a != b
    infos = service.list()
    assert [i.session_id for i in infos] == [a, b]
    assert infos[0].title == "Alpha" and not infos[0].made_by_foley
    assert infos[0].created.tzinfo is not None
    assert service.resolve(a) == a
    assert service.resolve("ALPHA") == a
    assert service.resolve(b[:25] if a[:25] != b[:25] else b) == b
    with pytest.raises(SessionNotFoundError):
        service.resolve("nothing")
    # ULIDs made in the same ms share their first 10 characters
    prefix = next((a[:i] for i in range(len(a), 0, -1) if b.startswith(a[:i])), "")
    if prefix:
        with pytest.raises(SessionServiceError, match="ambiguous"):
            service.resolve(prefix)


def test_resolving_a_title_reads_titles_not_counts(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A title (or a folder given to ``open``, looked up as one first) is matched against
    the sessions' titles only: no session's decisions or candidates are counted (a big
    session's would be a listing of its whole candidates folder)."""
    a = service.create("Alpha")
    big = service.create("Big one")
    service.get(big).cache_candidates([candidate(f"c{i}") for i in range(20)])
    counted: list[str] = []
    counts = type(service.get(a)).counts

    def counting(self: object) -> object:
        counted.append("counts")
        return counts(self)  # type: ignore[arg-type]

    monkeypatch.setattr(type(service.get(a)), "counts", counting)
    assert service.resolve("big ONE") == big
    with pytest.raises(SessionServiceError):
        service.resolve("/a/folder/that/is/no/title")
    assert counted == []
    assert {i.session_id for i in service.list()} == {a, big}  # list still counts
    assert counted


def test_counts_and_most_recent(service: SessionService) -> None:
    a = service.create("a")
    b = service.create("b")
    store = service.get(a)
    store.cache_candidates([candidate("x"), candidate("y"), candidate("z")])
    store.add_pick("x")
    store.add_reject("y")
    info = {i.session_id: i for i in service.list()}[a]
    assert (info.picked, info.rejected, info.total) == (1, 1, 3)
    time.sleep(0.01)
    service.get(b)
    assert service.most_recent() == b


def test_rename_and_delete_only_that_session(service: SessionService) -> None:
    a = service.create("a")
    b = service.create("b")
    service.get(b).add_pick("keep")
    service.rename(a, "Renamed")
    assert service.resolve("renamed") == a
    with pytest.raises(SessionServiceError):
        service.rename(a, "  ")
    service.delete(a)
    assert [i.session_id for i in service.list()] == [b]
    assert service.get(b).picked_ids() == ["keep"]
    with pytest.raises(SessionNotFoundError):
        service.get(a)
    with pytest.raises(SessionNotFoundError):
        service.delete(a)


def test_foley_made_session_is_listed(data_dir: Path) -> None:
    folder = data_dir / "sessions" / "default" / "picks"
    folder.mkdir(parents=True)
    (folder / "x.json").write_text('{"sound_id": "x", "layer": null, "onset": null}')
    (data_dir / "sessions" / ".hidden").mkdir()
    (data_dir / "sessions" / "stray.txt").write_text("not a session")
    service = SessionService(data_dir)
    infos = service.list()
    assert [(i.session_id, i.made_by_foley, i.picked) for i in infos] == [("default", True, 1)]
    assert infos[0].title is None


@pytest.mark.parametrize(
    "bad", ["../escape", "..", ".", "a/../../victim", "/abs", ".foley-tui", "x\x00", "a//b"]
)
def test_traversal_ids_are_refused(data_dir: Path, bad: str) -> None:
    service = SessionService(data_dir)
    (data_dir / "victim").mkdir()
    (data_dir / "victim" / "keep.txt").write_text("keep")
    for call in (service.get, service.delete, service.export_session):
        with pytest.raises(InvalidSessionIdError):
            call(bad)
    assert (data_dir / "victim" / "keep.txt").read_text() == "keep"


def test_delete_does_not_follow_a_symlink(data_dir: Path) -> None:
    outside = data_dir / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (data_dir / "sessions").mkdir()
    os.symlink(outside, data_dir / "sessions" / "linked")
    SessionService(data_dir).delete("linked")
    assert (outside / "keep.txt").read_text() == "keep"
    assert not (data_dir / "sessions" / "linked").exists()


def _filled(service: SessionService) -> str:
    sid = service.create("Export me")
    store = service.get(sid)
    store.cache_candidates([candidate(i) for i in ODD_IDS])
    store.add_pick(ODD_IDS[0], layer="voice", onset=1.5)
    store.add_pick(ODD_IDS[3], layer="music")
    store.add_reject(ODD_IDS[5], reason="hiss")
    store.set_cursor(ODD_IDS[2])
    store.flush()
    return sid


def test_export_import_round_trip(service: SessionService, data_dir: Path) -> None:
    sid = _filled(service)
    doc = service.export_session(sid)
    assert doc["schema_version"] == 2 and doc["checksum"] == checksum_of(doc)
    target = SessionService(data_dir / "other")
    assert target.import_session(json.loads(json.dumps(doc))) == sid
    store = target.get(sid)
    assert store.picks() == {
        ODD_IDS[0]: Pick(ODD_IDS[0], "voice", 1.5),
        ODD_IDS[3]: Pick(ODD_IDS[3], "music", None),
    }
    assert store.rejected_ids() == [ODD_IDS[5]]
    assert sorted(store.candidate_ids()) == sorted(ODD_IDS)
    assert store.meta().title == "Export me" and store.meta().cursor == ODD_IDS[2]
    assert store.can_undo()
    store.undo()
    assert store.rejected_ids() == []
    # never overwrite unless asked
    with pytest.raises(SessionImportError, match="already exists"):
        target.import_session(doc)
    target.get(sid).add_pick("extra")
    assert target.import_session(doc, overwrite=True) == sid
    assert "extra" not in target.get(sid).picked_ids()


def test_export_to_file_and_back(data_dir: Path, tmp_path: Path) -> None:
    service = SessionService(data_dir)
    sid = _filled(service)
    path = tmp_path / "out.json"
    service.export_to_file(sid, path)
    with pytest.raises(SessionExportError, match="exists"):
        service.export_to_file(sid, path)
    service.export_to_file(sid, path, overwrite=True)
    other = SessionService(tmp_path / "d2")
    assert other.import_from_file(path) == sid


def _tampered(doc: dict, change: str) -> dict:
    doc = json.loads(json.dumps(doc))
    if change == "pick":
        next(iter(doc["picks"].values()))["onset"] = 99.0
    elif change == "version":
        doc["schema_version"] = 3
        doc["checksum"] = checksum_of(doc)
    elif change == "unknown":
        doc["surprise"] = 1
        doc["checksum"] = checksum_of(doc)
    elif change == "nochecksum":
        del doc["checksum"]
    elif change == "badlayer":
        next(iter(doc["picks"].values()))["layer"] = "drums"
        doc["checksum"] = checksum_of(doc)
    elif change == "traversal":
        doc["session_id"] = "../evil"
        doc["checksum"] = checksum_of(doc)
    elif change == "format":
        doc["format"] = "something-else"
    return doc


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("pick", "checksum mismatch"),
        ("version", "unsupported schema version 3"),
        ("unknown", "unknown keys in the export: surprise"),
        ("nochecksum", "no checksum"),
        ("badlayer", "layer must be one of"),
        ("traversal", "invalid session id"),
        ("format", "not a foley-tui session export"),
    ],
)
def test_bad_imports_are_refused_and_write_nothing(
    data_dir: Path, tmp_path: Path, change: str, message: str
) -> None:
    service = SessionService(data_dir)
    sid = _filled(service)
    doc = service.export_session(sid)
    before = tree(data_dir)
    with pytest.raises(SessionImportError, match=message):
        service.import_session(_tampered(doc, change), overwrite=True)
    assert tree(data_dir) == before
    assert not [p for p in (data_dir / "sessions").iterdir() if p.name.startswith(".")]
    assert not (data_dir / "evil").exists()


def test_import_from_a_bad_file(tmp_path: Path, data_dir: Path) -> None:
    service = SessionService(data_dir)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SessionImportError, match="not a JSON export"):
        service.import_from_file(bad)
    with pytest.raises(SessionImportError, match="cannot read"):
        service.import_from_file(tmp_path / "missing.json")
    bad.write_text("[1, 2]")
    with pytest.raises(SessionImportError, match="must be a JSON object"):
        service.import_from_file(bad)


def test_get_without_touch_keeps_most_recent(service: SessionService) -> None:
    a = service.create("a")
    b = service.create("b")
    service.get(a)
    time.sleep(0.01)
    service.get(b)
    time.sleep(0.01)
    service.get(a, touch=False)
    assert service.most_recent() == b
