"""Whole auditions through the headless model, against a temp-dir store (no textual)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from foley_tui.domain import Pick, Reject, Status
from foley_tui.store import SessionService, dumps, encode_key

from .helpers import IDS, Clock, follow, make_session, move, open_model


@pytest.fixture
def session(data_dir: Path) -> tuple[SessionService, str]:
    return make_session(data_dir)


def test_pick_reject_clear_and_auto_advance(session: tuple[SessionService, str]) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    change = model.pick()
    assert change.rows == {IDS[0]} and change.cursor == IDS[1] and change.error is None
    assert store.picks() == {IDS[0]: Pick(IDS[0])}
    follow(model, change)
    change = model.reject()
    assert change.cursor == IDS[2]
    assert store.rejects() == {IDS[1]: Reject(IDS[1])}
    follow(model, change)
    move(model, IDS[1])
    change = model.clear()
    assert change.rows == {IDS[1]} and change.cursor is None  # clearing does not advance
    assert store.status(IDS[1]) is Status.UNDECIDED
    assert model.listing.counts() == (1, 0, 5, 6)


def test_pick_again_unpicks_but_a_held_key_does_not(session: tuple[SessionService, str]) -> None:
    service, session_id = session
    store = service.get(session_id)
    clock = Clock()
    model = open_model(store, clock, auto_advance=False)
    model.pick()
    assert model.pick().empty  # the key's auto-repeat, 0 s later: ignored
    assert store.status(IDS[0]) is Status.PICKED
    clock.now += 1.0
    change = model.pick()  # a deliberate second press toggles it off
    assert change.rows == {IDS[0]}
    assert store.status(IDS[0]) is Status.UNDECIDED


def test_autoplay_plays_where_a_decision_moves(session: tuple[SessionService, str]) -> None:
    service, session_id = session
    model = open_model(service.get(session_id))
    model.toggle_autoplay()
    assert model.pick().play == IDS[1]
    assert move(model, IDS[3]).play == IDS[3]
    assert model.highlight(IDS[4], 4, by_user=False).play is None  # not a user move


def test_undo_survives_a_reopen(session: tuple[SessionService, str], data_dir: Path) -> None:
    service, session_id = session
    model = open_model(service.get(session_id))
    model.set_layer("music")
    follow(model, model.nudge(0.35))
    assert service.get(session_id).picks()[IDS[0]] == Pick(IDS[0], "music", 0.35)
    model.save_position()

    again = SessionService(data_dir)  # a new process: nothing shared in memory
    reopened = open_model(again.get(session_id))
    assert reopened.can_undo and not reopened.can_redo
    change = reopened.undo()
    assert change.cursor == IDS[0] and change.undo
    assert again.get(session_id).picks()[IDS[0]] == Pick(IDS[0], "music", None)
    reopened.undo()
    assert again.get(session_id).picks() == {}
    assert reopened.redo().rows == {IDS[0]}
    assert reopened.listing.decisions.picks == {IDS[0]: Pick(IDS[0], "music", None)}


def test_nudge_rounds_to_the_millisecond_and_stops_at_zero(
    session: tuple[SessionService, str],
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store, auto_advance=False)
    for _ in range(3):
        model.nudge(0.1)
    assert store.picks()[IDS[0]].onset == 0.3  # not 0.30000000000000004
    model.nudge(-1.0)
    assert store.picks()[IDS[0]].onset == 0.0


def test_a_failed_write_changes_nothing(
    session: tuple[SessionService, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)

    def refuse(*args: object, **kwargs: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "toggle_pick", refuse)
    change = model.pick()
    assert change.error is not None and "No space left" in change.error
    assert change.rows == frozenset() and change.cursor is None
    assert model.listing.decisions.picks == {}


def test_view_settings_filter_sort_and_status_keep_the_cursor(
    session: tuple[SessionService, str], data_dir: Path
) -> None:
    service, session_id = session
    model = open_model(service.get(session_id))
    move(model, IDS[3])
    change = model.set_query("sound 3")
    assert model.listing.view == [IDS[3]] and change.view and change.cursor == IDS[3]
    model.set_query("")
    model.cycle_sort()  # caption
    model.cycle_sort()  # duration
    assert model.view.sort == "duration"
    model.pick()
    change = model.cycle_status()  # undecided
    assert IDS[3] not in model.listing.view and change.view
    assert model.toggles() == ["showing undecided (5)", "sort duration"]
    assert model.save_position() is None  # what quitting does: flush coalesced writes
    reopened = open_model(SessionService(data_dir).get(session_id))
    assert (reopened.view.status_filter, reopened.view.sort) == ("undecided", "duration")


def test_an_outside_pick_is_merged_and_our_own_is_not_re_applied(
    session: tuple[SessionService, str],
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    assert model.check_outside() is None  # nothing changed since the load
    follow(model, model.pick())
    assert model.check_outside() is None  # our own pick (file and journal) is no news

    folder = store.data_dir / "sessions" / session_id / "picks"  # type: ignore[operator]
    tick = os.stat(folder).st_mtime_ns
    # foley (another process) picks IDS[4] in the same clock tick as our write.
    (folder / encode_key(IDS[4])).write_bytes(
        dumps({"sound_id": IDS[4], "layer": "stinger", "onset": 12.0})
    )
    os.utime(folder, ns=(tick, tick))  # the folder looks untouched
    outside = model.check_outside()
    assert outside is not None and outside.diff.picks == {encode_key(IDS[4])}
    change = model.apply_outside(outside)
    assert change.rows == {IDS[4]} and change.status
    assert model.listing.decisions.picks[IDS[4]] == Pick(IDS[4], "stinger", 12.0)
    assert model.cursor == IDS[1]  # the cursor stays where the user is
    assert model.check_outside() is None


def test_a_poll_that_raced_with_a_decision_is_dropped_then_seen_again(
    session: tuple[SessionService, str],
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store, auto_advance=False)
    other = SessionService(store.data_dir).get(session_id, touch=False)
    other.add_reject(IDS[5], reason="too crunchy")
    outside = model.check_outside()  # read before our pick below
    model.pick()
    assert outside is not None and model.apply_outside(outside).empty
    assert model.listing.decisions.picks == {IDS[0]: Pick(IDS[0])}  # ours kept
    again = model.check_outside()
    assert again is not None
    assert model.apply_outside(again).rows == {IDS[5]}
    assert model.listing.decisions.rejects[IDS[5]] == Reject(IDS[5], "too crunchy")


def test_new_candidates_from_outside_are_listed(session: tuple[SessionService, str]) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    other = SessionService(store.data_dir).get(session_id, touch=False)
    other.cache_candidates([{"sound": {"id": "lib:new", "caption": "late arrival"}}])
    outside = model.check_outside()
    assert outside is not None and outside.rows is not None
    change = model.apply_outside(outside)
    assert change.view and change.data and change.candidates
    assert "lib:new" in model.listing.view and model.cursor == IDS[0]


def test_picks_written_by_foley_keep_their_bytes(
    session: tuple[SessionService, str], data_dir: Path
) -> None:
    """The model reads foley's own pick files (written by foley 0.0.89) and a decision on
    another sound leaves them byte for byte."""
    from tests.unit.store.helpers import run_py

    service, session_id = session
    store = service.get(session_id)
    model = open_model(store, auto_advance=False)
    run_py(
        "from foley.agent.session import SessionStore\n"
        f"SessionStore({session_id!r}).add_pick({IDS[2]!r}, layer='ambience', onset=4.5)\n",
        data_dir,
    )
    path = data_dir / "sessions" / session_id / "picks" / encode_key(IDS[2])
    before = path.read_bytes()
    outside = model.check_outside()
    assert outside is not None
    assert model.apply_outside(outside).rows == {IDS[2]}
    model.pick()
    assert path.read_bytes() == before
    assert json.loads(before) == {"sound_id": IDS[2], "layer": "ambience", "onset": 4.5}


def test_a_conflict_foley_left_is_marked_counted_and_resolved_by_p_or_x(
    session: tuple[SessionService, str], data_dir: Path
) -> None:
    """foley's add_pick keeps a reject: both files. p resolves to picked, x to rejected;
    neither toggles a conflict off."""
    from tests.unit.store.helpers import run_py

    service, session_id = session
    run_py(
        "from foley.agent.session import SessionStore\n"
        f"s = SessionStore({session_id!r})\n"
        f"s.add_reject({IDS[0]!r}, reason='too crunchy')\n"
        f"s.add_pick({IDS[0]!r}, layer='stinger', onset=12.0)\n"
        f"s.add_reject({IDS[1]!r}, reason='too long')\n"
        f"s.add_pick({IDS[1]!r})\n",
        data_dir,
    )
    store = service.get(session_id)
    model = open_model(store, auto_advance=False)
    assert model.status_of(IDS[0]) is Status.CONFLICT
    assert model.listing.counts() == (2, 2, 4, 6)  # a conflict is not undecided
    assert model.pick().rows == {IDS[0]}
    assert store.picks()[IDS[0]] == Pick(IDS[0], "stinger", 12.0) and IDS[0] not in store.rejects()
    move(model, IDS[1])
    model.reject()
    assert store.rejects()[IDS[1]] == Reject(IDS[1], "too long") and IDS[1] not in store.picks()
    assert model.status_of(IDS[1]) is Status.REJECTED
