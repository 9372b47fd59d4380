"""``(`` and ``)`` set the highlighted candidate's region at its preview's playhead (as
the timeline's loop keys do); with nothing of it playing, the point is cleared."""

from __future__ import annotations

from foley_tui.marks import Marks
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, ready, settle


async def test_region_points_at_the_playhead(session: Session) -> None:
    player = FakePlayer(duration_s=0.5)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        store = screen.model.store
        await pilot.press("enter")  # play from the top (the seeded tones start at once)
        await settle(pilot)
        player.position_s = 0.1
        await pilot.press("left_parenthesis")
        player.position_s = 0.3
        await pilot.press("right_parenthesis")
        await settle(pilot)
        assert store.marks() == {IDS[0]: Marks(region_in=0.1, region_out=0.3)}
        player.position_s = 0.05
        await pilot.press("right_parenthesis")  # before the in point: refused
        await settle(pilot)
        assert store.marks() == {IDS[0]: Marks(region_in=0.1, region_out=0.3)}
        await pilot.press("escape", "left_parenthesis")  # stopped: clears the in point
        await settle(pilot)
        assert store.marks() == {IDS[0]: Marks(region_out=0.3)}
        await pilot.press("u")
        await settle(pilot)
        assert store.marks() == {IDS[0]: Marks(region_in=0.1, region_out=0.3)}
