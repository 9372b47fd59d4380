"""``=``: the sounds most like the highlighted one, in a view that plays them with the
usual keys; Enter highlights the chosen one in the list."""

from __future__ import annotations

from textual.widgets import OptionList

from foley_tui.screens.audition.similar import SimilarScreen
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready, settle


async def test_similar_lists_the_neighbours_and_plays_them(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("equals_sign")
        for _ in range(20):
            await settle(pilot)
            if isinstance(app.screen, SimilarScreen):
                break
        view = app.screen
        assert isinstance(view, SimilarScreen)
        neighbours = view.result.neighbours
        assert view.result.query == IDS[0] and len(neighbours) == len(IDS) - 1
        assert [n.distance for n in neighbours] == sorted(n.distance for n in neighbours)
        listing = view.query_one(OptionList)
        assert listing.option_count == len(neighbours)
        first_line = str(listing.get_option_at_index(0).prompt)
        assert first_line.startswith(f"{neighbours[0].distance:6.4f}")

        await pilot.press("space")
        await settle(pilot)
        wanted = session.service.get(session.session_id).candidate(neighbours[0].sound_id)
        assert wanted is not None
        assert [name for name, _ in player.played()] == [wanted["sound"]["uri"].split("/")[-1]]

        await pilot.press("j", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, SimilarScreen)
        assert current(app) == neighbours[1].sound_id


async def test_similar_closes_where_the_list_was(session: Session) -> None:
    app = session.app(FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("j", "equals_sign")
        for _ in range(20):
            await settle(pilot)
            if isinstance(app.screen, SimilarScreen):
                break
        assert isinstance(app.screen, SimilarScreen)
        assert app.screen.result.query == IDS[1]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SimilarScreen) and current(app) == IDS[1]
