"""foley's meaning in the audition screen: both verdicts (conflict), the reject dialog
that takes typing at once; files checked with foley 0.0.89's own SessionStore."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Label, OptionList, Static

from foley_tui.screens.onset import OnsetScreen
from foley_tui.screens.reason import PRESET_REASONS, RejectReasonScreen
from foley_tui.screens.sessions_modals import ConfirmModal
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from foley_tui.widgets.status_line import StatusLine
from tests.ui.conftest import IDS, SIZE, Session, ready, settle
from tests.ui.test_behaviour import plain
from tests.unit.store.helpers import run_py

FOLEY_REJECTS = """
import json
from foley.agent.session import SessionStore
print(json.dumps(sorted(SessionStore({session!r}).list_rejects(), key=lambda r: r["sound_id"])))
"""


def foley_rejects(session: Session) -> dict[str, Any]:
    rows = run_py(FOLEY_REJECTS.format(session=session.session_id), session.data_dir)
    return {row["sound_id"]: row for row in rows}


async def test_the_reject_dialog_takes_typing_at_once(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("X")
        assert isinstance(app.screen, RejectReasonScreen)
        await pilot.press("down", *"crunchy tail", "enter")  # typed text wins over a preset
        await pilot.pause()
        await pilot.press("X", "3")  # a digit selects that preset; it does not commit
        await pilot.pause()
        assert isinstance(app.screen, RejectReasonScreen)
        assert app.screen.query_one(OptionList).highlighted == 2
        assert session.reject_file(IDS[1]) is None
        await pilot.press("enter")  # Enter confirms
        await pilot.pause()
        assert not isinstance(app.screen, RejectReasonScreen)
        await pilot.press("X", "down", "down", "up", "enter")  # arrows, then Enter
        await pilot.pause()
        await pilot.press("X", *"3 doors too many", "enter")  # a reason may start with one
        await pilot.pause()
    assert foley_rejects(session) == {
        IDS[0]: {"sound_id": IDS[0], "reason": "crunchy tail"},
        IDS[1]: {"sound_id": IDS[1], "reason": PRESET_REASONS[2]},
        IDS[2]: {"sound_id": IDS[2], "reason": PRESET_REASONS[1]},
        IDS[3]: {"sound_id": IDS[3], "reason": "3 doors too many"},
    }


async def test_a_conflict_has_its_mark_count_and_both_records(session: Session) -> None:
    run_py(
        "from foley.agent.session import SessionStore\n"
        f"s = SessionStore({session.session_id!r})\n"
        f"s.add_reject({IDS[0]!r}, reason='too crunchy')\n"
        f"s.add_pick({IDS[0]!r}, layer='stinger', onset=12.0)\n",
        session.data_dir,
    )
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        row = screen.query_one(CandidateList).render_line(1).text
        assert row.startswith("±")
        assert "± 1" in str(screen.query_one(StatusLine).render())
        shown = plain(screen.query_one(Details).content)
        assert "conflict" in shown and "too crunchy" in shown and "stinger" in shown
        await pilot.press("x")  # the reject wins, the pick goes; no toggle off
        await pilot.pause()
    assert session.pick_file(IDS[0]) is None
    assert foley_rejects(session)[IDS[0]]["reason"] == "too crunchy"


FOLEY_PICKS = """
import json
from foley.agent.session import SessionStore
print(json.dumps(SessionStore({session!r}).list_picks()))
"""


async def test_the_onset_dialog_reads_live_and_a_nudge_asks_before_replacing_an_anchor(
    session: Session,
) -> None:
    run_py(
        "from foley.agent.session import SessionStore\n"
        f"SessionStore({session.session_id!r}).add_pick({IDS[0]!r}, onset=\"on 'slammed'\")\n",
        session.data_dir,
    )
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("o")
        assert isinstance(app.screen, OnsetScreen)
        reading = app.screen.query_one("#reading", Label)
        assert "anchor, kept as typed · foley reads: word anchor on 'slammed'" in str(
            reading.render()
        )
        app.screen.query_one(Input).value = "1:02.5"
        await pilot.pause()
        assert "number · foley reads: absolute: 1:02.500" in str(reading.render())
        await pilot.press("escape")
        await pilot.press("]")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")  # keep the anchor
        await pilot.pause()
        assert session.pick_file(IDS[0]) == {
            "sound_id": IDS[0],
            "layer": None,
            "onset": "on 'slammed'",
        }
        await pilot.press("]", "y")
        await pilot.pause()
    picks = run_py(FOLEY_PICKS.format(session=session.session_id), session.data_dir)
    assert picks == [{"sound_id": IDS[0], "layer": None, "onset": 0.1}]


async def test_a_ghost_pick_shows_counts_and_clears_with_c(session: Session) -> None:
    ghost = "freesound:999999"  # foley's agent picked a sound it never cached
    run_py(
        "from foley.agent.session import SessionStore\n"
        f"SessionStore({session.session_id!r}).add_pick({ghost!r}, layer='stinger')\n",
        session.data_dir,
    )
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.listing.view[-1] == ghost
        cl = screen.query_one(CandidateList)
        line = cl.render_line(len(screen.listing.view)).text  # line 0 is the column header
        assert f"{ghost} · no cache" in line  # the rest is cut at this width
        status = str(screen.query_one(StatusLine).render())
        counts = session.service.get(session.session_id).counts()
        assert counts.ghosts == 1 and f"+{counts.ghosts} uncached pick" in status
        cl.move_to_id(ghost)
        await settle(pilot)  # the details are read by a worker
        shown = " ".join(plain(screen.query_one(Details).content).split())
        assert "no cached candidate: foley plan drops it" in shown
        await pilot.press("c")
        await settle(pilot)  # the decision is written by a worker
        assert ghost not in screen.listing.view
        assert "uncached" not in str(screen.query_one(StatusLine).render())
    assert run_py(FOLEY_PICKS.format(session=session.session_id), session.data_dir) == []


async def test_a_refused_undo_offers_to_skip_and_never_touches_the_agents_pick(
    session: Session,
) -> None:
    from foley_tui.store import SessionService

    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("p")  # our pick of IDS[0]
        await pilot.pause()
        # foley's agent changes the sound after us: a stinger at 12.0.
        run_py(
            "from foley.agent.session import SessionStore\n"
            f"SessionStore({session.session_id!r}).add_pick({IDS[0]!r}, layer='stinger', "
            "onset=12.0)\n",
            session.data_dir,
        )
        await pilot.press("u")  # compare-and-swap: refused, nothing written
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        shown = " ".join(str(widget.content) for widget in app.screen.query(Static))
        assert "changed outside foley-tui" in shown
        await pilot.press("y")  # skip past the entry
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmModal)
    # The agent's pick is untouched, and the journal says the undo was skipped.
    picks = run_py(FOLEY_PICKS.format(session=session.session_id), session.data_dir)
    assert picks == [{"sound_id": IDS[0], "layer": "stinger", "onset": 12.0}]
    store = SessionService(session.data_dir).get(session.session_id, touch=False)
    assert [e.kind for e in store.journal()] == ["do", "skip"]
    assert not store.can_undo()
