"""``(`` and ``)`` set the highlighted candidate's region at its preview's playhead (as
the timeline's loop keys do); with nothing of it playing, the point is cleared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from foley_tui.audio.base import PlayerState
from foley_tui.marks import Marks
from foley_tui.store import MarksEdit
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


async def _until(pilot: Pilot[Any], done: Callable[[], bool]) -> None:
    """Let the app run (its playhead timer ticks) until ``done``; fail if it never is."""
    for _ in range(400):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError("the preview never reached the state waited for")


async def test_the_preview_plays_the_region(session: Session) -> None:
    """Space on a candidate with a region starts at its in point and stops at its out
    point; with loop on it starts the region again instead."""
    player = FakePlayer(duration_s=0.5)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.model.store.update_marks(IDS[0], MarksEdit(region_in=0.1, region_out=0.3))
        screen.model.marks_read(screen.model.store.marks(), screen.model.generation)
        await pilot.press("space")
        await settle(pilot)
        assert player.played()[-1][1] == 0.1
        player.position_s = 0.2
        await pilot.pause(0.2)
        assert player.state is PlayerState.PLAYING  # inside the region: plays on
        player.position_s = 0.31
        await _until(pilot, lambda: player.state is PlayerState.STOPPED)
        await pilot.press("r", "space")  # loop on
        await settle(pilot)
        assert player.played()[-1][1] == 0.1
        player.position_s = 0.31
        await _until(pilot, lambda: ("seek", (0.1, False)) in player.calls)
        assert player.state is PlayerState.PLAYING
