"""A library folder's audition screen: the scan fills the list, the librarian's columns,
the sorts by the folder's columns, and the category filter (K)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from foley_tui.app.foley_app import FoleyApp
from foley_tui.library.folder import folder_session
from foley_tui.library.source import FolderSource
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.screens.category import CategoryScreen
from foley_tui.store import SessionService
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.library_scan import LibraryScan
from tests.fakes import FakePlayer
from tests.library_fixtures import bwf, ixml_user, needs_ffmpeg, with_ixml

pytestmark = needs_ffmpeg


def make_folder(root: Path) -> None:
    door = bwf(root / "zz doors" / "door.wav", "Oak door slam", freq=300)
    with_ixml(door, ixml_user(CATEGORY="DOORS", SUBCATEGORY="WOOD", CATID="DOORWood"))
    bwf(root / "aa birds" / "AMBForst_Dawn Birds_JD_Nature.wav", "Dawn chorus", freq=500)


async def scanned(pilot: Pilot[Any], screen: AuditionScreen, rows: int) -> None:
    scan = screen.query_one(LibraryScan)
    for _ in range(600):  # a bound for a stuck scan, not a target
        await pilot.pause(0.05)
        if scan.done and len(screen.listing.rows) == rows and not screen.model.view_pending:
            return
    raise AssertionError(f"the scan never listed {rows} rows: {screen.listing.rows}")


async def shown(pilot: Pilot[Any], screen: AuditionScreen) -> None:
    """Wait until the list shows the answer to the view last asked for (a folder's
    view is a query of its index, answered in a worker)."""
    for _ in range(600):  # a bound for a stuck query, not a target
        await pilot.pause()
        if not screen.model.view_pending:
            return
    raise AssertionError("the view's query never answered")


async def test_columns_sorts_and_the_category_filter(data_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "Sounds"
    make_folder(root)
    service = SessionService(data_dir)
    sid = folder_session(service, root)
    app = FoleyApp(service.get(sid), FakePlayer(), service=service, library=FolderSource(root, sid))
    async with app.run_test(size=(160, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, AuditionScreen)
        await scanned(pilot, screen, 2)
        listing = screen.listing
        header = screen.query_one(CandidateList).render_line(0).text
        for name in ("file", "folder", "description", "category", "library", "fmt"):
            assert name in header
        captions = {sid: row.caption for sid, row in listing.rows.items()}
        door = next(k for k, v in captions.items() if v == "Oak door slam")
        birds = next(k for k, v in captions.items() if v == "Dawn chorus")

        await pilot.press("s")  # the first library sort: the file name
        await shown(pilot, screen)
        assert screen.model.view.sort == "name"
        assert [s for s in listing.view if s in captions] == [birds, door]  # aa… before zz…
        await pilot.press("s")
        assert screen.model.view.sort == "folder"
        await pilot.press("s", "s")
        await shown(pilot, screen)
        assert screen.model.view.sort == "category"
        # "AMBForst" (a CatID, no category) sorts before "DOORS/WOOD".
        assert [s for s in listing.view if s in captions] == [birds, door]

        await pilot.press("K")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, CategoryScreen)
        assert modal.categories == [("AMBForst", 1), ("DOORS/WOOD", 1)]
        await pilot.press("down", "down", "enter")  # past "(every category)", AMBForst
        await shown(pilot, screen)
        assert screen.model.view.query == "DOORS WOOD"
        assert [s for s in listing.view if s in captions] == [door]
        assert app.screen is screen
