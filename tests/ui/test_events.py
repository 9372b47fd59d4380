"""Audition by scene event: groups under header rows, e / E, progress."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from foley_tui.audition.events import is_header
from foley_tui.config import Settings
from foley_tui.screens.sessions_modals import ConfirmModal
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from tests.ui.conftest import IDS, SIZE, Session, current, ready, settle
from tests.ui.seed import seed_session
from tests.ui.test_behaviour import plain
from tests.unit.store.helpers import run_py


async def test_candidates_are_grouped_by_event_and_e_jumps_between_them(
    data_dir: Path,
) -> None:
    service, session_id = seed_session(data_dir, events=True)
    session = Session(data_dir, service, session_id)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        view = screen.listing.view
        headers = [entry for entry in view if is_header(entry)]
        # Tags' first words: rain, door (x2: slam and knock), footsteps, thunder...
        assert len(headers) == 11 and is_header(view[0])
        door = view.index("bbc:1001")
        assert is_header(view[door - 1]) and view[door + 1] == "freesound:1006"
        assert current(app) == IDS[0]  # the cursor skips the header above it
        await pilot.press("k")  # up from the first candidate: never lands on a header
        assert current(app) == IDS[0]
        await pilot.press("e")
        assert current(app) == "bbc:1001"
        await pilot.press("e")
        assert current(app) == IDS[2]  # footsteps: the door group had two candidates
        await pilot.press("E", "E")
        assert current(app) == IDS[0]
        await pilot.press("e", "p")
        await pilot.pause()
        cl = screen.query_one(CandidateList)
        header_line = cl.render_line(door).text  # line 0 is the column header
        assert "heavy door" not in header_line and "door" in header_line
        assert "1 of 2 picked" in header_line and "suggests sfx_fg at start" in header_line
        assert current(app) == "freesound:1006"  # auto-advance stays in the group order


async def test_a_session_without_events_keeps_the_flat_list(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.listing.view == IDS
        await pilot.press("e")
        assert current(app) == IDS[0]


FOLEY_PICKS = """
import json
from foley.agent.session import SessionStore
print(json.dumps(SessionStore({session!r}).list_picks()))
"""


async def test_a_pick_shows_the_placement_foley_plan_will_use(data_dir: Path) -> None:
    service, session_id = seed_session(data_dir, events=True)
    session = Session(data_dir, service, session_id)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        cl = screen.query_one(CandidateList)
        door = screen.listing.view.index("bbc:1001")
        await pilot.press("e", "p")
        await pilot.pause()
        # Neither half set by the pick: the event's suggestion, marked ~.
        line = cl.render_line(door + 1).text
        assert "~sfx_fg" in line and "~start" in line
        await pilot.press("e", "E", "4")  # back to the door slam; layer stinger
        await pilot.pause()
        line = cl.render_line(door + 1).text
        assert "stinger" in line and "~stinger" not in line and "~start" in line
        await pilot.press("E", "e")
        await pilot.pause()
        assert current(app) == "bbc:1001"
        shown = " ".join(plain(screen.query_one(Details).content).split())  # unwrapped
        assert "plan uses layer stinger (chosen) · onset start (suggested)" in shown
        assert "layer sfx_fg · onset start" in shown and "door" in shown  # the event
    # The suggestion is shown, never written: foley's plan reads the event for it.
    picks = run_py(FOLEY_PICKS.format(session=session_id), data_dir)
    assert picks == [{"sound_id": "bbc:1001", "layer": "stinger", "onset": None}]


async def test_f_shows_the_events_without_a_pick(data_dir: Path) -> None:
    service, session_id = seed_session(data_dir, events=True)
    session = Session(data_dir, service, session_id)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("e", "p")  # pick in the door group
        await pilot.press("f", "f", "f", "f")
        await pilot.pause()
        assert screen.view_settings.status_filter == "events without a pick"
        view = screen.listing.view
        assert "bbc:1001" not in view and "freesound:1006" not in view
        assert IDS[0] in view and is_header(view[0])
        assert current(app) is not None and not is_header(current(app) or "")


async def test_one_pick_per_event_shows_the_picks_it_drops_and_undoes_in_one_step(
    data_dir: Path,
) -> None:
    service, session_id = seed_session(data_dir, events=True)
    run_py(  # foley's agent picked the door knock (same event as the slam)
        "from foley.agent.session import SessionStore\n"
        f"SessionStore({session_id!r}).add_pick('freesound:1006', onset=2.5)\n",
        data_dir,
    )
    session = Session(data_dir, service, session_id)
    app = session.app(settings=Settings(one_pick_per_event=True))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("e", "p")
        dialog = app.screen
        assert isinstance(dialog, ConfirmModal)
        # Which of them the agent picked is read by a worker (the journal): said once in.
        await settle(pilot)
        shown = " ".join(str(w.render()) for w in dialog.query(Static))
        assert "freesound:1006" in shown and "not in our journal" in shown
        await pilot.press("n")  # nothing written
        await pilot.pause()
        assert run_py(FOLEY_PICKS.format(session=session_id), data_dir) == [
            {"sound_id": "freesound:1006", "layer": None, "onset": 2.5}
        ]
        await pilot.press("p", "y")
        await pilot.pause()
        assert run_py(FOLEY_PICKS.format(session=session_id), data_dir) == [
            {"sound_id": "bbc:1001", "layer": None, "onset": None}
        ]
        await pilot.press("u")  # one undo restores both
        await pilot.pause()
    assert run_py(FOLEY_PICKS.format(session=session_id), data_dir) == [
        {"sound_id": "freesound:1006", "layer": None, "onset": 2.5}
    ]
