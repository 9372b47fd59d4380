"""What a first day in the app ran into: the focus never leaves the list unseen, and the
counts count candidates (not the event header rows between them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen

from foley_tui.app.foley_app import FoleyApp
from foley_tui.audition.listing import STATUS_FILTERS
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.status_line import StatusLine
from tests.ui.conftest import IDS, SIZE, Session, current, ready
from tests.ui.palette import palette_run
from tests.ui.seed import seed_session


async def test_tab_leaves_the_focus_on_the_list_and_keys_act_on_the_highlighted_row(
    session: Session,
) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        cl = screen.query_one(CandidateList)
        await pilot.press("tab")
        assert app.focused is cl  # the highlight stays drawn where the keys act
        await pilot.press("j", "shift+tab", "j")
        assert app.focused is cl
        assert current(app) == IDS[2]
        await pilot.press("p")
        await pilot.pause()
        assert session.pick_file(IDS[2]) is not None  # the row that was shown highlighted
        assert [sid for sid in IDS if session.pick_file(sid) is not None] == [IDS[2]]


async def test_counts_leave_out_the_event_header_rows(data_dir: Path) -> None:
    service, session_id = seed_session(data_dir, events=True)
    store = service.get(session_id)
    store.add_pick(IDS[0])
    store.add_reject(IDS[1])
    app = Session(data_dir, service, session_id).app()
    async with app.run_test(size=(200, 30)) as pilot:
        screen = await ready(pilot)
        status = screen.query_one(StatusLine)
        await pilot.press("f")  # all -> undecided
        await pilot.pause()
        assert screen.view_settings.status_filter == "undecided"
        line = str(status.render())
        assert "10 of 12" in line and "showing undecided (10)" in line
        await pilot.press(*["f"] * (len(STATUS_FILTERS) - 1))  # back to all
        assert screen.view_settings.status_filter == "all"
        await pilot.press("slash")
        await pilot.press(*"chirp", "enter")
        await pilot.pause()
        line = str(status.render())
        assert 'filter "chirp"' in line and "1 shown" in line


async def test_the_palette_and_the_footer_agree_about_undo_and_show_the_keys(
    data_dir: Path, notifications: Callable[[FoleyApp], list[str]]
) -> None:
    from textual.command import CommandPalette

    from foley_tui.app.commands import AuditionCommands
    from foley_tui.widgets.key_hints import KeyHints

    service, session_id = seed_session(data_dir, 0, title="Empty")
    app = Session(data_dir, service, session_id).app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        hints = {h.key: h for h in screen.query_one(KeyHints).hints}
        assert "u" in hints and not hints["u"].enabled  # shown, dimmed: nothing to undo
        offered = {hit.text: hit async for hit in AuditionCommands(screen).discover()}
        undo = offered["Decide: Undo"]
        assert undo.help is not None and "nothing to undo" in undo.help
        assert str(undo.prompt).endswith("  u")  # every entry shows its keys
        assert str(offered["View: Show"].prompt).endswith("  f")
        palette = await palette_run(pilot, "Undo", "Decide: Undo")
        for _ in range(200):
            if not isinstance(app.screen, CommandPalette) and notifications(app):
                break
            await pilot.pause(0.05)
        assert palette is not app.screen
        assert any("nothing to undo" in said for said in notifications(app))


async def _wait_for(pilot: Pilot[Any], kind: type[Screen[Any]]) -> Screen[Any]:
    for _ in range(200):
        if isinstance(pilot.app.screen, kind):
            return pilot.app.screen
        await pilot.pause(0.05)
    raise AssertionError(f"{kind.__name__} never opened")


async def test_an_idle_timeline_rests_its_playhead_timer(data_dir: Path, tmp_path: Path) -> None:
    """Twenty wake-ups a second for a playhead nothing moves cost an idle app a few % of
    a core: the timer runs while a scene plays, and rests once it stopped."""
    from tests.fakes import FakePlayer
    from tests.ui.test_timeline import _app, _timeline, _tones

    tones = _tones(data_dir, tmp_path)
    player = FakePlayer()
    app = _app(data_dir, tones, player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        await _until(pilot, lambda: not screen.following_playhead)
        await pilot.press("P")
        await _until(pilot, lambda: bool(player.names()) and player.names()[-1] == "play_scene")
        assert screen.following_playhead
        player.position_s = 1.25
        await _until(pilot, lambda: screen.view.playhead_s == 1.25)  # followed while it plays
        await pilot.press("escape")  # stops the scene
        await _until(pilot, lambda: not screen.following_playhead)
        assert screen.view.playhead_s is None


async def test_an_idle_audition_screen_mounts_no_progress_bar(session: Session) -> None:
    """A mounted ProgressBar runs timers of its own (its ETA clock; its animation while
    it has no total), hidden or not: find-similar's bar is mounted only while a search
    analyses (``test_the_first_search_shows_a_progress_bar_while_it_analyses``)."""
    from textual.widgets import ProgressBar

    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert not screen.query(ProgressBar)


async def _until(pilot: Pilot[Any], done: Callable[[], bool]) -> None:
    for _ in range(400):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError("the state never came")


async def test_quick_sort_presses_leave_one_sort_notice(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await ready(pilot)
        await pilot.press(*"sssss")
        sort = screen.view_settings.sort

        def shown() -> list[str]:  # what the toasts on screen say
            return [str(toast.render()) for toast in app.screen.query("Toast")]

        for _ in range(400):
            if f"Sort: {sort}" in shown():
                break
            await pilot.pause(0.05)
        await pilot.pause()  # the rack has removed what it was told to
        assert [text for text in shown() if text.startswith("Sort:")] == [f"Sort: {sort}"]


async def test_overlapping_picks_keep_their_names_and_the_loop_header_follows_the_loop(
    data_dir: Path, tmp_path: Path
) -> None:
    from foley_tui.store import SessionService
    from tests.fakes import FakePlayer
    from tests.ui.test_timeline import _app, _timeline, _tones

    tones = _tones(data_dir, tmp_path)
    store = SessionService(data_dir).get(tones.session_id)
    # numeric (0.2 s) now starts at 0.75 s, under slam (0.8 s): the two overlap.
    store.update_pick(tones.ids["numeric"], onset=0.75)
    app = _app(data_dir, tones, FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        view = screen.view
        sfx = [row for row in view.rows() if row.lane == "sfx_fg"]
        assert len(sfx) == 2  # stacked, as editors stack overlapping clips
        first = view.line_of("sfx_fg")
        lines = [view.render_line(first + i).text for i in range(2)]
        assert "▌numeric" in "".join(lines) and "▌slam" in "".join(lines)
        assert lines[1].startswith(" " * 12)  # the lane's name once
        # Zoomed out until each bar is one cell: the caption is still written beside it.
        for _ in range(6):
            await pilot.press("<")
        stinger = view.render_line(view.line_of("stinger")).text
        assert "▌sting" in stinger
        title = screen.query_one("#timeline-title")
        await pilot.press("(", ")", "r")  # a region, and the loop on
        assert "loop" in str(title.render()) and view.render_line(0).text.startswith("loop")
        await pilot.press("r")  # off: the header says nothing of a loop
        assert "loop" not in str(title.render())
        assert view.render_line(0).text.startswith("time")


async def test_a_wide_list_gives_the_onset_and_the_licence_what_they_need(
    session: Session,
) -> None:
    store = session.service.get(session.session_id)
    store.add_pick(IDS[3], layer="sfx_fg", onset="at 'the church bell'")  # sonniss/Sonniss-GDC
    app = session.app()
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await ready(pilot)
        cl = screen.query_one(CandidateList)
        row = cl.render_line(1 + screen.listing.view.index(IDS[3])).text
        assert "at 'the church bell'" in row and "sonniss/Sonniss-GDC" in row
        assert "distant thunder rumble" in row  # the caption keeps plenty too


async def test_at_80x24_help_reads_in_lines_and_the_sessions_table_fits(session: Session) -> None:
    from textual.widgets import DataTable, Static

    from foley_tui.screens.help import HelpScreen
    from foley_tui.screens.sessions import SessionsScreen

    app = session.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await _wait_for(pilot, HelpScreen)
        await pilot.pause()
        table = app.screen.query_one("#help-table", Static)
        lines = [s.text for s in table.render_lines(table.region.reset_offset)]
        assert any("Highlight the previous candidate" in line for line in lines)
        entries = len(app.screen.entries)  # type: ignore[attr-defined]
        assert len(lines) < 2 * entries  # not four lines a key
        await pilot.press("escape")
        await pilot.press("S")
        sessions = await _wait_for(pilot, SessionsScreen)
        assert isinstance(sessions, SessionsScreen)
        for _ in range(100):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if sessions.sessions:
                break
        grid = sessions.query_one(DataTable)
        assert grid.virtual_size.width <= grid.size.width  # every column on screen
        assert [c.label.plain for c in grid.columns.values()][-1] == "Made by"
