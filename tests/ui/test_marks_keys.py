"""Ratings and hiding through the keys (Pilot): ``.`` / ``,`` rate, ``H`` hides (the row
leaves the list, ``f`` finds it among the hidden), ``u`` undoes a mark like a decision;
the rating shows on the row, the sort orders by it, foley's files stay as they were."""

from __future__ import annotations

from foley_tui.marks import Marks
from foley_tui.store import MarksEdit
from foley_tui.widgets.candidate_list import CandidateList
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready, settle


def rated(stars: int) -> MarksEdit:
    return MarksEdit(rating=stars)


def foleys_files(session: Session) -> dict[str, bytes]:
    return {
        str(p.relative_to(session.folder)): p.read_bytes()
        for name in ("candidates", "picks", "rejects")
        for p in sorted((session.folder / name).rglob("*"))
        if p.is_file()
    }


async def test_rate_hide_and_undo_with_keys(session: Session) -> None:
    before = foleys_files(session)
    app = session.app(FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        store = screen.model.store
        await pilot.press("full_stop", "full_stop", "full_stop", "comma")
        await settle(pilot)
        assert store.marks() == {IDS[0]: Marks(rating=2)}
        assert current(app) == IDS[0]  # rating does not move the cursor
        line = screen.query_one(CandidateList).render_line(1).text
        assert "★★ rain on a tin roof" in line

        await pilot.press("H")
        await settle(pilot)
        assert store.marks()[IDS[0]] == Marks(rating=2, hidden=True)
        assert IDS[0] not in screen.model.listing.view and current(app) == IDS[1]

        # `f` cycles to the hidden rows: only they show.
        while screen.model.view.status_filter != "hidden":
            await pilot.press("f")
            await settle(pilot)
        assert screen.model.listing.view == [IDS[0]]

        await pilot.press("u")  # undo the hide
        await settle(pilot)
        assert store.marks() == {IDS[0]: Marks(rating=2)}
        await pilot.press("u", "u", "u", "u")  # and every rating step
        await settle(pilot)
        assert store.marks() == {}
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert store.marks() == {IDS[0]: Marks(rating=1)}
    assert foleys_files(session) == before


async def test_the_rating_sort_and_filter(session: Session) -> None:
    app = session.app(FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        for index, stars in ((2, 3), (5, 5), (7, 1)):
            screen.model.store.update_marks(IDS[index], rated(stars))
        app.exit()
    app = session.app(FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        while screen.model.view.sort != "rating":
            await pilot.press("s")
            await settle(pilot)
        assert screen.model.listing.view[:3] == [IDS[5], IDS[2], IDS[7]]
        while screen.model.view.status_filter != "rated ≥ 3":
            await pilot.press("f")
            await settle(pilot)
        assert screen.model.listing.view == [IDS[5], IDS[2]]
