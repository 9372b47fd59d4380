"""``=``: the sounds most like the highlighted one, in a view that plays them with the
usual keys; Enter highlights the chosen one in the list."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.widgets import OptionList, ProgressBar, Static

from foley_tui.screens.audition.similar import SimilarScreen
from foley_tui.screens.audition.similar_search import SimilarSearch
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


async def test_the_first_search_shows_a_progress_bar_while_it_analyses(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The features of a session's sounds are computed on the first ``=``: a bar says
    how far it is (held here at the second sound, so the test sees it), and goes when
    the view opens; a second search reads the cache and shows none."""
    from foley_tui.audio import features

    release = threading.Event()
    real = features.analyse
    calls = 0

    def held(path: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            release.wait(timeout=60)
        return real(path)

    monkeypatch.setattr(features, "analyse", held)
    app = session.app(FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        search = screen.query_one(SimilarSearch)
        assert not search.query(ProgressBar)  # mounted only while a search analyses
        await pilot.press("equals_sign")
        for _ in range(400):
            if search.display and search.query(ProgressBar):
                break
            await pilot.pause(0.05)
        bar = search.query_one(ProgressBar)
        # Every sound is to analyse; the bar is at 0 or 1 of them (updates are paced).
        assert search.display and bar.total == len(IDS) and bar.progress in (0, 1)
        label = str(search.query_one("#similar-label", Static).render())
        assert f"of {len(IDS)} sounds" in label
        release.set()
        for _ in range(40):
            await settle(pilot)
            if isinstance(app.screen, SimilarScreen):
                break
        assert isinstance(app.screen, SimilarScreen) and not search.display
        assert not search.query(ProgressBar)
        await pilot.press("escape")
        await settle(pilot)
        analysed = calls
        await pilot.press("equals_sign")
        for _ in range(40):
            await settle(pilot)
            if isinstance(app.screen, SimilarScreen):
                break
        assert isinstance(app.screen, SimilarScreen)
        assert calls == analysed and not search.display  # from the cache
