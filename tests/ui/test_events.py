"""Audition by scene event: groups under header rows, e / E, progress."""

from __future__ import annotations

from pathlib import Path

from foley_tui.audition.events import is_header
from foley_tui.widgets.candidate_list import CandidateList
from tests.ui.conftest import IDS, SIZE, Session, current, ready
from tests.ui.seed import seed_session


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
