"""A pick foley wrote with a NaN onset (``json.dumps`` writes ``NaN``) is a problem of that
one file, never of the session: rejecting it works, the journal carries the file as its
bytes (we never write a NaN) and undo puts it back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.model import Status
from foley_tui.store import SessionService, SessionStore
from foley_tui.store.backend import MemoryNamespace
from foley_tui.store.files import FileNamespace
from foley_tui.store.records import JournalEntry, RawRecord

from .helpers import candidate

#: What foley's own store writes for a pick with a NaN onset.
NAN_PICK = json.dumps({"sound_id": "door", "layer": "voice", "onset": float("nan")}, indent=4)


@pytest.fixture(params=["files", "memory"])
def store(request: pytest.FixtureRequest, data_dir: Path) -> SessionStore:
    if request.param == "files":
        service = SessionService(data_dir)
        made = service.get(service.create("nan"))
    else:
        made = SessionStore.in_memory("nan")
    made.cache_candidates([candidate("door"), candidate("bell")])
    ns = made.picks_ns
    if isinstance(ns, FileNamespace):
        ns.write_bytes("door", NAN_PICK.encode())
    else:
        assert isinstance(ns, MemoryNamespace)
        ns.put_raw("door", NAN_PICK.encode())
    return made


def raw_pick(store: SessionStore) -> bytes | None:
    ns = store.picks_ns
    assert isinstance(ns, FileNamespace | MemoryNamespace)
    return ns.raw("door") if "door" in ns else None


def test_rejecting_a_nan_pick_journals_its_bytes_and_undo_restores_them(
    store: SessionStore,
) -> None:
    store.add_reject("door", reason="no")
    assert store.status("door") is Status.REJECTED and raw_pick(store) is None
    entry = store.journal()[-1]
    line = json.dumps(entry.to_record(), allow_nan=False)  # strict JSON: no NaN
    assert "pick_raw" in line and "NaN" not in line
    again = JournalEntry.from_record(json.loads(line))
    assert again is not None and isinstance(again.before["pick"], RawRecord)
    assert again.before["pick"].raw == NAN_PICK.encode()

    store.undo()
    assert raw_pick(store) == NAN_PICK.encode()  # verbatim, NaN and indent included
    assert store.status("door") is Status.PICKED
    store.redo()  # compare-and-swap against a NaN: the same bytes are the same record
    assert store.status("door") is Status.REJECTED and raw_pick(store) is None
    store.undo()
    assert raw_pick(store) == NAN_PICK.encode()


def test_a_nan_pick_is_left_alone_by_a_decision_on_another_sound(store: SessionStore) -> None:
    store.add_pick("bell", layer="music")
    store.drop_reject("door")  # nothing to drop: no change, nothing written
    assert raw_pick(store) == NAN_PICK.encode()
    assert [e.sound_id for e in store.journal()] == ["bell"]
