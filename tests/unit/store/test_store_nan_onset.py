"""A pick foley wrote with a NaN onset (``json.dumps`` writes ``NaN``) is a problem of that
one file, never of the session: rejecting it works, the journal carries the file as its
bytes (we never write a NaN) and undo puts it back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.domain import Status
from foley_tui.store import SessionService, SessionStore
from foley_tui.store.backend import MemoryNamespace
from foley_tui.store.files import FileNamespace
from foley_tui.store.records import JournalEntry, RawRecord

from .foley_steps import foley_do
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


def test_setting_the_layer_keeps_foleys_nan_onset_and_undo_restores_the_file(
    store: SessionStore,
) -> None:
    """The user asked for a layer, not an onset: foley's NaN stays, the file encoded as
    foley's store encodes it; undo brings back the original bytes."""
    store.set_layer("door", "music")
    after = raw_pick(store)
    expected = {"sound_id": "door", "layer": "music", "onset": float("nan")}
    assert after == json.dumps(expected, indent=4).encode()
    entry = store.journal()[-1]
    assert "NaN" not in json.dumps(entry.to_record(), allow_nan=False)
    store.undo()
    assert raw_pick(store) == NAN_PICK.encode()
    store.redo()
    assert raw_pick(store) == after


def test_setting_a_number_replaces_the_nan_onset(store: SessionStore) -> None:
    store.set_onset("door", 2.5)
    after = raw_pick(store)
    assert after is not None and b"NaN" not in after
    assert json.loads(after) == {"sound_id": "door", "layer": "voice", "onset": 2.5}
    store.undo()
    assert raw_pick(store) == NAN_PICK.encode()


def test_foley_reads_the_layer_we_set_next_to_its_nan_onset(data_dir: Path) -> None:
    """foley 0.0.89 writes the NaN pick; we set the layer; foley reads both back."""
    service = SessionService(data_dir)
    sid = service.create("nan")
    ours = service.get(sid)
    ours.cache_candidates([candidate("door")])
    foley_do(data_dir, sid, 's.add_pick("door", layer="voice", onset=float("nan"))')
    ours.set_layer("door", "ambience")
    read = foley_do(
        data_dir,
        sid,
        """
import math
p = {p["sound_id"]: p for p in s.list_picks()}["door"]
result = [p["layer"], math.isnan(p["onset"])]
""",
    )
    assert read == ["ambience", True]
