"""The sessions screen inside the real app: `S` from the audition screen, then switch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from foley_tui.app.foley_app import FoleyApp
from foley_tui.demo.build import build_demo
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.screens.sessions import SessionsScreen
from foley_tui.store import SessionService
from tests.fakes import FakePlayer
from tests.library_fixtures import bwf, needs_ffmpeg

from .host import settle


async def _wait_for(pilot: Pilot[Any], kind: type) -> Any:
    for _ in range(20):
        await settle(pilot)
        if isinstance(pilot.app.screen, kind):
            return pilot.app.screen
    raise AssertionError(f"{kind.__name__} never showed; on screen: {pilot.app.screen!r}")


async def test_s_opens_the_sessions_screen_and_enter_switches(data_dir: Path) -> None:
    service = SessionService(data_dir)
    demo_id = build_demo(data_dir, service=service)
    kitchen = service.create("Kitchen")
    service.get(kitchen).cache_candidates([{"sound": {"id": "lib:k", "caption": "kettle"}}])
    app = FoleyApp(service.get(demo_id), FakePlayer(), service=service)
    async with app.run_test(size=(120, 30)) as pilot:
        first = await _wait_for(pilot, AuditionScreen)
        assert app.screen_stack == [first]  # the audition is the base screen itself
        await pilot.press("S")
        sessions = await _wait_for(pilot, SessionsScreen)
        assert sessions.current == demo_id
        assert sessions.selected().session_id == demo_id  # starts on the open session
        assert sessions.check_action("delete_session", ()) is False
        table = sessions.query_one(DataTable)
        assert table.row_count == 2
        table.move_cursor(row=table.get_row_index(kitchen))
        await pilot.press("enter")
        second = await _wait_for(pilot, AuditionScreen)
        assert app.store.session_id == kitchen
        assert second is not first and second.store.session_id == kitchen
        await pilot.pause()
        # The first session's screen is gone, not parked below (its polls stopped).
        assert app.screen_stack == [second]
        assert not first.is_attached
        # And switching back works the same way (a mode made for each switch).
        await pilot.press("S")
        sessions = await _wait_for(pilot, SessionsScreen)
        table = sessions.query_one(DataTable)
        table.move_cursor(row=table.get_row_index(demo_id))
        await pilot.press("enter")
        third = await _wait_for(pilot, AuditionScreen)
        await pilot.pause()
        assert third.store.session_id == demo_id and app.screen_stack == [third]
        assert not second.is_attached


async def test_palette_over_the_sessions_screen_offers_no_audition_actions(
    data_dir: Path,
) -> None:
    from foley_tui.app.commands import AuditionCommands

    service = SessionService(data_dir)
    demo_id = build_demo(data_dir, service=service)
    app = FoleyApp(service.get(demo_id), FakePlayer(), service=service)
    async with app.run_test(size=(120, 30)) as pilot:
        await _wait_for(pilot, AuditionScreen)
        offered = [hit.text async for hit in AuditionCommands(app.screen).discover()]
        assert "Decide: Pick" in offered  # on the audition screen: its actions
        await pilot.press("S")
        sessions = await _wait_for(pilot, SessionsScreen)
        # Audition actions would act on the hidden screen below.
        assert [hit async for hit in AuditionCommands(sessions).discover()] == []


def test_sessions_keys_can_be_remapped_by_id(data_dir: Path) -> None:
    from foley_tui.cli.app import load_app_config
    from foley_tui.paths import config_file

    path = config_file()
    path.parent.mkdir(parents=True)
    path.write_text('[keymap]\nsessions-new = "N"\nconfirm-yes = "Y"\npick = "P"\n')
    config = load_app_config()
    assert config.keymap == {"sessions-new": "N", "confirm-yes": "Y", "pick": "P"}


@needs_ffmpeg
async def test_folders_opened_before_are_listed_and_open_with_their_folder(
    data_dir: Path, tmp_path: Path
) -> None:
    from foley_tui.library.folder import folder_session
    from foley_tui.screens.sessions import folder_cell
    from foley_tui.widgets.candidate_list import CandidateList
    from foley_tui.widgets.library_scan import LibraryScan

    service = SessionService(data_dir)
    demo_id = build_demo(data_dir, service=service)
    folder = tmp_path / "Field Recordings"
    bwf(folder / "birds" / "dawn chorus.wav", "Dawn chorus in a beech wood")
    folder_id = folder_session(service, folder)
    app = FoleyApp(service.get(demo_id), FakePlayer(), service=service)
    async with app.run_test(size=(160, 30)) as pilot:
        await _wait_for(pilot, AuditionScreen)
        await pilot.press("S")
        sessions = await _wait_for(pilot, SessionsScreen)
        table = sessions.query_one(DataTable)
        row = table.get_row_index(folder_id)
        assert str(table.get_row_at(row)[-1]) == folder_cell(str(folder.resolve()))
        assert str(table.get_row_at(table.get_row_index(demo_id))[-1]) == ""
        table.move_cursor(row=row)
        await pilot.press("enter")
        audition = await _wait_for(pilot, AuditionScreen)
        assert audition.library is not None and audition.library.root == folder.resolve()
        scan = audition.query_one(LibraryScan)
        for _ in range(600):  # a bound for a stuck scan, not a target
            await pilot.pause(0.05)
            if scan.done and audition.listing.rows:
                break
        assert scan.done
        assert audition.query_one(CandidateList).library is not None
        captions = [r.caption for r in audition.listing.rows.values()]
        assert captions == ["Dawn chorus in a beech wood"]
