"""Strict import: the first offence is named and nothing is written; a file foley wrote
with a NaN onset travels as its bytes and comes back verbatim."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from foley_tui.store import SessionImportError, SessionService
from foley_tui.store.export_doc import checksum_of
from foley_tui.store.transfer_service import MAX_IMPORT_BYTES, Transfers

from .helpers import candidate, tree


def _export(data_dir: Path) -> dict[str, Any]:
    service = SessionService(data_dir)
    sid = service.create("strict")
    store = service.get(sid)
    store.cache_candidates([candidate("a"), candidate("b")])
    store.add_pick("a", layer="voice", onset=1.0)
    store.add_reject("b", reason="hiss")
    return service.export_session(sid)


def _resigned(doc: dict[str, Any]) -> dict[str, Any]:
    doc["checksum"] = checksum_of(doc)
    return doc


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["picks"]["a"].update(sound_id="b"), "picks/a: sound_id is 'b'"),
        (lambda d: d["rejects"]["b"].update(sound_id=None), "rejects/b: sound_id is None"),
        (lambda d: d["journal"][0].update(seq=True), r"journal\[0\]: seq must be"),
        (lambda d: d["journal"][0].update(kind="explode"), r"journal\[0\]: unknown kind"),
        (lambda d: d["meta"].update(title=5), "meta/title: must be text"),
        (lambda d: d["meta"].update(created="9999-12-31T23:59:59-23:59"), "meta/created"),
        (lambda d: d.update(raw={"picks": {"z": "not base64!"}}), "raw/picks/z"),
        (lambda d: d.update(schema_version=True), "unsupported schema version True"),
    ],
)
def test_the_first_offence_is_named(
    data_dir: Path, tmp_path: Path, change: Any, message: str
) -> None:
    doc = _export(data_dir)
    change(doc)
    target = tmp_path / "target"
    with pytest.raises(SessionImportError, match=message):
        SessionService(target).import_session(_resigned(doc))
    assert not (target / "sessions").exists() or tree(target / "sessions") == {}


def test_duplicate_keys_and_nan_in_the_file_are_refused(data_dir: Path, tmp_path: Path) -> None:
    text = json.dumps(_export(data_dir))
    dup = tmp_path / "dup.json"
    dup.write_text(text[:-1] + ', "session_id": "other"}')
    with pytest.raises(SessionImportError, match="duplicate key 'session_id'"):
        SessionService(tmp_path / "t").import_from_file(dup)
    nan = tmp_path / "nan.json"
    nan.write_text(text.replace('"onset": 1.0', '"onset": NaN'))
    with pytest.raises(SessionImportError, match="NaN is not JSON"):
        SessionService(tmp_path / "t").import_from_file(nan)


def test_an_oversized_file_is_refused_before_it_is_read(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(_export(data_dir)))
    service = SessionService(tmp_path / "t")
    transfers = Transfers(service, max_import_bytes=100)  # the service's part, capped low
    with pytest.raises(SessionImportError, match="too large"):
        transfers.import_from_file(path)
    assert service.list() == []
    assert Transfers(service).max_import_bytes == MAX_IMPORT_BYTES


def test_a_fifo_import_is_refused_without_blocking(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    with pytest.raises(SessionImportError, match="FIFO"):
        SessionService(tmp_path / "t").import_from_file(fifo)


def test_a_nan_onset_is_carried_raw_and_restored_verbatim(data_dir: Path, tmp_path: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    store.cache_candidates([candidate("a"), candidate("b")])
    pick = data_dir / "sessions" / sid / "picks" / "a.json"
    pick.parent.mkdir(exist_ok=True)
    raw = b'{\n    "sound_id": "a",\n    "layer": null,\n    "onset": NaN\n}'
    pick.write_bytes(raw)  # as foley's json.dumps writes a NaN
    doc = service.export_session(sid)
    assert "a" not in doc["picks"] and doc["raw"]["picks"]["a"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    other = SessionService(tmp_path / "other")
    assert other.import_from_file(path) == sid
    assert (tmp_path / "other" / "sessions" / sid / "picks" / "a.json").read_bytes() == raw
    assert other.get(sid).picked_ids() == ["a"]
    memory = SessionService.in_memory()
    assert memory.import_session(json.loads(path.read_text())) == sid
    assert memory.get(sid).picked_ids() == ["a"]


def test_version_1_exports_still_import(data_dir: Path, tmp_path: Path) -> None:
    doc = _export(data_dir)
    doc["schema_version"] = 1
    for key in ("raw", "messages", "usage"):
        doc.pop(key, None)
    assert SessionService(tmp_path / "t").import_session(_resigned(doc)) == doc["session_id"]
