"""foley's whole model of a decision, created with foley 0.0.89's own code, acted on
through the store API and the CLI, and read back with foley's SessionStore and plan.

Symbolic and negative onsets, unknown keys, both verdicts at once, and undo/redo as
compare-and-swap against what foley's agent changed in between.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.domain import Pick, Status
from foley_tui.store import SessionService, StoreWriteError
from foley_tui.store.errors import UndoConflictError

from .foley_steps import files_of, foley_cache, foley_do, foley_view

IDS = ["door", "glass", "rain", "bell"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def session(data_dir: Path) -> str:
    foley_cache(data_dir, "scene", IDS)
    return "scene"


def test_cli_layer_keeps_symbolic_and_negative_onsets(
    data_dir: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    foley_do(
        data_dir,
        session,
        """
s.add_pick("door", onset="on 'slammed'")
s.add_pick("glass", layer="stinger", onset=-0.5)
""",
    )
    code, out, _ = cli(capsys, "pick", session, "door", "--layer", "sfx_fg")
    assert code == 0 and "on 'slammed'" in out
    code, _, _ = cli(capsys, "pick", session, "glass", "--layer", "voice")
    assert code == 0
    view = foley_view(data_dir, session)
    assert view["picks"] == [
        {"sound_id": "door", "layer": "sfx_fg", "onset": "on 'slammed'"},
        {"sound_id": "glass", "layer": "voice", "onset": -0.5},
    ]
    assert view["items"] == [["door", "sfx_fg", "on 'slammed'"], ["glass", "voice", "-0.5"]]
    store = SessionService(data_dir).get(session)
    assert store.picks()["door"] == Pick("door", "sfx_fg", "on 'slammed'")
    assert not [p for p in store.problems() if p.namespace == "picks"]  # -0.5 is valid
    # an anchor typed on the CLI is kept verbatim; a number stays a number
    cli(capsys, "pick", session, "door", "--onset", 'when "the door"')
    cli(capsys, "pick", session, "glass", "--onset", "-1.25")
    view = foley_view(data_dir, session)
    assert [p["onset"] for p in view["picks"]] == ['when "the door"', -1.25]


def test_every_write_keeps_unknown_keys_byte_for_byte(data_dir: Path, session: str) -> None:
    foley_do(data_dir, session, 's.add_pick("door", layer="music", onset=3)')
    root = data_dir / "sessions" / session
    path = root / "picks" / "door.json"
    record = json.loads(path.read_bytes())
    record = {"agent_note": "take 2", **record, "confidence": [0.9, 1]}
    path.write_bytes(json.dumps(record, indent=4).encode())  # foley's own byte layout
    store = SessionService(data_dir).get(session)
    store.set_layer("door", "ambience")
    expected = {**record, "layer": "ambience"}
    assert path.read_bytes() == json.dumps(expected, indent=4).encode()
    store.update_pick("door", onset="at 2.5")
    expected["onset"] = "at 2.5"
    assert path.read_bytes() == json.dumps(expected, indent=4).encode()
    store.undo()
    store.undo()
    assert path.read_bytes() == json.dumps(record, indent=4).encode()  # 3 stays 3
    view = foley_view(data_dir, session)
    assert view["items"] == [["door", "music", "3"]]


def test_both_verdicts_are_a_conflict_resolved_by_pick_or_reject(
    data_dir: Path, session: str
) -> None:
    foley_do(
        data_dir,
        session,
        """
s.add_pick("door", layer="stinger", onset=12.0)
s.add_reject("door", reason="too crunchy")
s.add_pick("glass")
s.add_reject("glass", reason="clipped")
""",
    )
    root = data_dir / "sessions" / session
    original = files_of(root)
    service = SessionService(data_dir)
    store = service.get(session)
    assert store.status("door") is Status.CONFLICT
    assert store.conflicts() == ["door", "glass"]
    counts = store.counts()
    assert (counts.picks, counts.rejects, counts.conflicts, counts.picked_only) == (2, 2, 2, 0)
    info = service.info(session)
    assert (info.picked, info.rejected, info.conflicts) == (2, 2, 2)
    # pick resolves to picked (the reject goes); reject resolves to rejected
    store.update_pick("door")
    assert store.status("door") is Status.PICKED
    store.set_reject("glass", "clipped")
    assert store.status("glass") is Status.REJECTED
    view = foley_view(data_dir, session)
    assert view["picks"] == [{"sound_id": "door", "layer": "stinger", "onset": 12.0}]
    assert view["rejects"] == [{"sound_id": "glass", "reason": "clipped"}]
    # neither toggles off: deciding the same again changes nothing
    assert store.update_pick("door") is None
    # undo restores both files of each sound byte for byte
    store.undo()
    store.undo()
    assert files_of(root) == original
    assert store.status("door") is Status.CONFLICT
    view = foley_view(data_dir, session)
    assert view["rejects"] == [
        {"sound_id": "door", "reason": "too crunchy"},
        {"sound_id": "glass", "reason": "clipped"},
    ]
    # the journal holds the raw records on both sides
    first = store.journal()[0]
    assert first.before["pick"] == {"sound_id": "door", "layer": "stinger", "onset": 12.0}
    assert first.before["reject"] == {"sound_id": "door", "reason": "too crunchy"}
    # drop_pick (foley's) removes only the pick, clear removes both
    store.drop_pick("door")
    assert store.status("door") is Status.REJECTED
    store.clear("glass")
    assert store.status("glass") is Status.UNDECIDED


def test_undo_refuses_what_the_agent_changed_since(
    data_dir: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SessionService(data_dir).get(session)
    store.add_reject("rain", reason="hiss")
    store.add_pick("door", layer="music", onset=2.0)
    # the agent changes the door since our decision
    foley_do(data_dir, session, 's.add_pick("door", layer="stinger", onset=12.0)')
    root = data_dir / "sessions" / session
    before = files_of(root)
    code, _, err = cli(capsys, "undo", session)
    assert code != 0
    assert "changed outside foley-tui: now picked, stinger at 12.0" in err
    assert files_of(root) == before  # nothing written
    assert foley_view(data_dir, session)["picks"] == [
        {"sound_id": "door", "layer": "stinger", "onset": 12.0}
    ]
    # skip steps past it (journaled), then undo reaches the earlier decision
    code, out, _ = cli(capsys, "undo", session, "--skip")
    assert code == 0 and "skipped" in out
    assert files_of(root) == before
    code, _, _ = cli(capsys, "undo", session)
    assert code == 0
    view = foley_view(data_dir, session)
    assert view["rejects"] == [] and view["picks"][0]["layer"] == "stinger"
    again = SessionService(data_dir).get(session)
    assert [e.kind for e in again.journal()] == ["do", "do", "skip", "undo"]
    assert again.can_redo()  # the undone reject, not the skipped pick
    target = again.redo_target()
    assert target is not None and target.sound_id == "rain"


def test_undo_refuses_when_the_agent_dropped_our_pick(
    data_dir: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SessionService(data_dir).get(session)
    store.add_reject("bell", reason="thin")
    store.add_pick("bell", layer="stinger")  # replaces our reject
    foley_do(data_dir, session, 's.drop_pick("bell")')  # the agent drops the pick
    code, _, err = cli(capsys, "undo", session)
    assert code != 0 and "now undecided" in err
    assert foley_view(data_dir, session) == {"picks": [], "rejects": [], "items": []}
    code, _, _ = cli(capsys, "undo", session, "--force")
    assert code == 0
    assert foley_view(data_dir, session)["rejects"] == [{"sound_id": "bell", "reason": "thin"}]


def test_redo_is_compare_and_swap(
    data_dir: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SessionService(data_dir).get(session)
    store.add_pick("bell", layer="stinger")
    store.undo()
    # the agent rejects the bell meanwhile: redo would overwrite that
    foley_do(data_dir, session, 's.add_reject("bell", reason="too loud")')
    with pytest.raises(UndoConflictError, match=r"now rejected \(too loud\)"):
        store.redo()
    code, _, err = cli(capsys, "redo", session)
    assert code != 0 and "rejected (too loud)" in err
    assert foley_view(data_dir, session)["rejects"] == [{"sound_id": "bell", "reason": "too loud"}]
    code, _, _ = cli(capsys, "redo", session, "--force")
    assert code == 0
    view = foley_view(data_dir, session)
    assert view["picks"] == [{"sound_id": "bell", "layer": "stinger", "onset": None}]
    assert view["rejects"] == []  # forced: the journaled state, the pick alone


def test_toggles_resolve_a_conflict_and_never_toggle_it_off(data_dir: Path, session: str) -> None:
    foley_do(
        data_dir,
        session,
        """
s.add_pick("door", layer="stinger", onset=12.0)
s.add_reject("door", reason="too crunchy")
s.add_pick("glass", layer="music")
s.add_reject("glass", reason="clipped")
""",
    )
    store = SessionService(data_dir).get(session)
    store.toggle_pick("door")  # conflict -> picked, the agent's placement kept
    assert store.status("door") is Status.PICKED
    store.toggle_reject("glass")  # conflict -> rejected, the agent's reason kept
    assert store.status("glass") is Status.REJECTED
    view = foley_view(data_dir, session)
    assert view["picks"] == [{"sound_id": "door", "layer": "stinger", "onset": 12.0}]
    assert view["rejects"] == [{"sound_id": "glass", "reason": "clipped"}]
    store.toggle_pick("door")  # picked -> off
    store.toggle_reject("glass")  # rejected -> off
    assert (store.status("door"), store.status("glass")) == (Status.UNDECIDED,) * 2
    store.toggle_pick("rain", layer="ambience")
    store.toggle_reject("bell", "hiss")
    assert foley_view(data_dir, session)["picks"] == [
        {"sound_id": "rain", "layer": "ambience", "onset": None}
    ]
    assert store.rejects()["bell"].reason == "hiss"


def test_one_pick_per_event_is_one_entry_undone_in_one_step(
    data_dir: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    foley_do(
        data_dir,
        session,
        """
s.add_pick("door", layer="stinger", onset="on 'slammed'")
s.add_pick("glass", layer="sfx_fg")
s.add_reject("glass", reason="clipped")
""",
    )
    root = data_dir / "sessions" / session
    original = files_of(root)
    store = SessionService(data_dir).get(session)
    entry = store.pick_and_drop("rain", ["door", "glass", "bell"], layer="ambience")
    assert entry is not None and [sid for sid, _, _ in entry.changes()] == ["rain", "door", "glass"]
    view = foley_view(data_dir, session)
    assert view["picks"] == [{"sound_id": "rain", "layer": "ambience", "onset": None}]
    assert view["rejects"] == [{"sound_id": "glass", "reason": "clipped"}]  # kept
    assert [e.kind for e in store.journal()] == ["do"]
    store.undo()  # one step restores all three sounds, byte for byte
    assert files_of(root) == original
    store.redo()
    assert foley_view(data_dir, session)["picks"] == view["picks"]
    # the agent picks the door again: undo refuses for the whole group, nothing written
    foley_do(data_dir, session, 's.add_pick("door", layer="music")')
    before = files_of(root)
    code, _, err = cli(capsys, "undo", session)
    assert code != 0 and "'door'" in err and "now picked, music" in err
    assert files_of(root) == before
    fresh = SessionService(data_dir).get(session)  # other processes read the group too
    target = fresh.undo_target()
    assert target is not None and len(target.changes()) == 3
    code, _, _ = cli(capsys, "undo", session, "--force")
    assert code == 0 and files_of(root) == original


def test_an_unreadable_file_is_only_replaced_by_a_decision_that_changes_it(
    data_dir: Path, session: str
) -> None:
    root = data_dir / "sessions" / session
    foley_do(data_dir, session, 's.add_reject("door", reason="thin")')
    (root / "picks").mkdir(exist_ok=True)
    torn = b'{"sound_id": "door", "layer": "sti'
    (root / "picks" / "door.json").write_bytes(torn)  # foley mid-write, or damage
    store = SessionService(data_dir).get(session)
    assert store.status("door") is Status.CONFLICT
    assert store.drop_reject("door") is not None  # only the reject goes
    assert (root / "picks" / "door.json").read_bytes() == torn
    assert store.update_pick("door") is None  # nothing to change: never rewritten as read
    assert (root / "picks" / "door.json").read_bytes() == torn
    # One field alone would write the other as null: refused, the file untouched.
    with pytest.raises(StoreWriteError, match="cannot be read"):
        store.update_pick("door", layer="stinger")
    assert (root / "picks" / "door.json").read_bytes() == torn
    store.update_pick("door", layer="stinger", onset=2.0)  # the user's whole choice
    assert json.loads((root / "picks" / "door.json").read_bytes())["layer"] == "stinger"
