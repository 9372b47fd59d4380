"""Layout: columns by terminal cells, a status line that keeps the toggles, readable
errors at 80 columns."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.text import Text
from textual.coordinate import Coordinate
from textual.widget import Widget
from textual.widgets import DataTable, Label, Static

from foley_tui.screens.onset import OnsetScreen
from foley_tui.screens.reason import RejectReasonScreen
from foley_tui.widgets.candidate_list import CandidateList, Columns
from foley_tui.widgets.status_line import StatusInfo, render_status
from tests.ui.conftest import Session, ready
from tests.ui.sessions.host import FixedService, SessionsHost, settle

WIDE = [
    "ドアがバタンと閉まる音、重い木の扉がきしむ",
    "🚪💥🔊 door slam with emoji 🔊🔊",
    "cafe\u0301 cre\u0300me re\u0301sume\u0301 with combining marks, long enough to cut",
]


async def test_wide_captions_keep_the_list_columns_aligned(session: Session) -> None:
    store = session.service.get(session.session_id)
    store.cache_candidates(
        {"sound": {"id": f"wide:{i}", "caption": caption, "duration_s": 2.5}}
        for i, caption in enumerate(WIDE)
    )
    app = session.app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ready(pilot)
        cl = screen.query_one(CandidateList)
        width = cl.scrollable_content_region.width
        columns = Columns.for_width(width)
        view = screen.listing.view
        starts = set()
        for y in range(1, min(len(view), 20) + 1):
            strip = cl.render_line(y)
            assert strip.cell_length == width
            segments: list[Segment] = list(strip)
            # Segment 0 is the status glyph, 1 the caption: the duration starts after both.
            start = cell_len(segments[0].text) + cell_len(segments[1].text)
            starts.add(start)
            assert cell_len(segments[1].text) == columns.caption
        assert starts == {columns.glyph + columns.caption}
        assert any(view[y - 1].startswith("wide:") for y in range(1, len(view) + 1))


def _info(**view: Any) -> StatusInfo:
    return StatusInfo(
        title="A very long session title that goes on and on — 長い題名",
        picked=12,
        rejected=3,
        undecided=1234,
        total=1249,
        cost_usd=1.25,
        device="PortAudio library not found: libportaudio.so.2: cannot open shared object",
        audio_ok=False,
        view='filter "door" · 2 shown · loop · vol -6 dB · LUFS match',
    )


def test_the_status_line_keeps_every_toggle_at_80_and_120_columns() -> None:
    for columns in (80, 120):
        shown = set_cell_size(render_status(_info(), columns).plain, columns)
        for toggle in ('filter "door"', "loop", "vol -6 dB", "LUFS match"):
            assert toggle in shown, (columns, shown)
    assert "no audio" in set_cell_size(render_status(_info(), 120).plain, 120)


def test_a_store_outage_shows_on_the_status_line_beside_every_toggle() -> None:
    down = replace(_info(), store_down="Redis down")
    for columns in (80, 120):
        shown = set_cell_size(render_status(down, columns).plain, columns)
        for toggle in ('filter "door"', "loop", "vol -6 dB", "LUFS match"):
            assert toggle in shown, (columns, shown)
        assert "⚠" in shown
    wide = set_cell_size(render_status(replace(down, view="loop"), 120).plain, 120)
    assert "✔ 12  ✘ 3  · 1234 of 1249  ⚠ Redis down  loop" in wide
    assert "⚠" not in render_status(_info(), 120).plain  # cleared when it is back


async def test_sessions_errors_are_readable_at_80_columns() -> None:
    words = "the disk went away while reading the metadata of every session in the data dir"

    class Failing(FixedService):
        def list(self) -> Any:
            raise OSError(f"[Errno 5] Input/output error: {words}")

    app = SessionsHost(Failing())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        error = app.screen.query_one("#sessions-error", Static)
        assert error.size.height >= 2  # wrapped, every line shown
        lines = [strip.text for strip in error.render_lines(error.region.reset_offset)]
        shown = " ".join(" ".join(lines).split())
        assert "Could not list the sessions" in shown and words in shown


async def test_sessions_titles_are_cut_by_cells() -> None:
    from foley_tui.screens.sessions import TITLE_WIDTH, SessionsScreen

    service = FixedService()
    first = service.list()[0]
    title = "台所の音のセッション、とても長い題名です"
    app = SessionsHost(service)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        screen.sessions = (replace(first, title=title),)
        await pilot.pause()
        cell = screen.query_one(DataTable).get_cell_at(Coordinate(0, 0))
        assert isinstance(cell, Text)
        assert cell_len(cell.plain) <= TITLE_WIDTH and cell.plain.endswith("…")


LONG_CAPTION = "Footsteps on gravel path, fast (foley, small shoes, a light runner, wet stones)"


def _shown(widget: Label) -> str:
    """The label's text as it is on screen: its lines, inside the dialog around it."""
    dialog = next(a for a in widget.ancestors if a.has_class("modal-dialog"))
    assert isinstance(dialog, Widget)
    assert widget.region.right <= dialog.content_region.right  # not cut at the edge
    lines = [strip.text for strip in widget.render_lines(widget.region.reset_offset)]
    return " ".join(" ".join(lines).split())


@pytest.mark.parametrize("width", [80, 140])
async def test_dialog_text_wraps_instead_of_being_cut(session: Session, width: int) -> None:
    store = session.service.get(session.session_id)
    store.cache_candidates(
        [{"sound": {"id": "long:1", "caption": LONG_CAPTION, "duration_s": 2.0}}]
    )
    app = session.app()
    async with app.run_test(size=(width, 30)) as pilot:
        screen = await ready(pilot)
        screen.candidate_list.move_to(screen.listing.view.index("long:1"))
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OnsetScreen)
        await pilot.press(*"during 'the long sentence the narrator reads at the start'")
        await pilot.pause()
        title = app.screen.query_one("#title", Label)
        reading = app.screen.query_one("#reading", Label)
        assert LONG_CAPTION in _shown(title)  # every word, on as many lines as it takes
        assert "the long sentence the narrator reads at the start" in _shown(reading)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("X")
        await pilot.pause()
        assert isinstance(app.screen, RejectReasonScreen)
        assert LONG_CAPTION in _shown(app.screen.query_one("#title", Label))
