"""A ``/`` keystroke in a list bigger than the screen: the list shows the rows the query
matches, paints only the rows on screen, and the details pane is left as it is while
the highlighted sound stays the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.strip import Strip

from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from tests.ui.conftest import Session, ready, settle
from tests.ui.seed import CAPTIONS, seed_session

COUNT = 600
"""Candidates: fifty screens of rows."""


def _matching(word: str) -> list[str]:
    """The ids of the seeded captions holding ``word`` (caption ``i`` repeats every
    ``len(CAPTIONS)`` rows; the id's source is the caption's)."""
    ids = []
    for i in range(COUNT):
        caption, tags, source, _ = CAPTIONS[i % len(CAPTIONS)]
        if word in caption or word in tags or word in source:
            ids.append(f"{source}:{1000 + i}")
    return ids


async def test_a_keystroke_shows_the_matches_and_paints_only_the_rows_on_screen(
    data_dir: Path,
) -> None:
    service, session_id = seed_session(data_dir, COUNT)
    app = Session(data_dir, service, session_id).app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        the_list = screen.query_one(CandidateList)
        await pilot.press("slash")
        await settle(pilot)
        painted: list[int] = []
        render_line = the_list.render_line

        def counted(y: int) -> Strip:
            painted.append(y)
            return render_line(y)

        the_list.render_line = counted  # type: ignore[method-assign]
        for char in "door":
            await pilot.press(char)
            await pilot.pause()
        await settle(pilot)
        door = _matching("door")
        assert screen.listing.view == door
        assert the_list.virtual_size.height == len(door) + 1  # the header line
        # Only lines of the screen were painted, never the view's hundred rows.
        height = the_list.size.height
        assert painted and max(painted) < height < len(door)


async def test_a_keystroke_keeping_the_highlighted_sound_leaves_the_details_as_they_are(
    data_dir: Path,
) -> None:
    service, session_id = seed_session(data_dir, COUNT)
    app = Session(data_dir, service, session_id).app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        details = screen.query_one(Details)
        first = screen.current_id
        await pilot.press("slash", "r", "a")  # the first row is "rain on a tin roof"
        await settle(pilot)
        assert screen.current_id == first
        before: Any = details.content
        await pilot.press("i")
        await settle(pilot)
        assert screen.current_id == first
        assert screen.listing.view == _matching("rai")
        assert details.content is before  # not rendered (nor measured) again
        await pilot.press("backspace", "backspace", "backspace", "w", "i", "n", "d")
        await settle(pilot)
        wind = _matching("wind")
        assert screen.listing.view == wind and screen.current_id == wind[0]
        assert details.content is not before  # another sound: shown


async def test_filtering_a_list_scrolled_to_its_end_keeps_the_cursor_on_screen(
    data_dir: Path,
) -> None:
    """From the end of the list to fewer matches that still scroll (its scroll range
    shrinks without a new layout), then to fewer than a screen (the scrollbar goes)."""
    service, session_id = seed_session(data_dir, COUNT)
    app = Session(data_dir, service, session_id).app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        the_list = screen.query_one(CandidateList)
        await pilot.press("G")
        await settle(pilot)
        assert the_list.cursor == COUNT - 1 and the_list.scroll_offset.y > 500
        await pilot.press("slash", *"door")
        await settle(pilot)
        door = _matching("door")
        assert screen.listing.view == door
        assert the_list.max_scroll_y == len(door) + 1 - the_list.size.height
        top = the_list.scroll_offset.y
        assert 0 <= top <= the_list.max_scroll_y
        assert top <= the_list.cursor < top + the_list.size.height - 1  # on screen
        assert screen.current_id == door[the_list.cursor]
        await pilot.press("enter", "G")  # the list again: its last match
        await settle(pilot)
        assert screen.current_id == door[-1]
        assert the_list.scroll_offset.y == the_list.max_scroll_y
        assert the_list.show_vertical_scrollbar
        await pilot.press("slash", *" 1001")  # "door 1001": one row, by its id
        await settle(pilot)
        assert screen.listing.view == ["bbc:1001"]
        assert the_list.scroll_offset.y == 0 and not the_list.show_vertical_scrollbar
