"""What a first day on the sessions screen ran into: j/k, a delete dialog that says where
the folder goes (and the cursor staying put), an import of a session already here that
offers overwrite and a copy, and an export suggested in a folder of its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from foley_tui.screens.sessions import SessionsScreen
from foley_tui.screens.sessions_modals import ChoiceModal, ConfirmModal, TextPromptModal
from foley_tui.store import SessionService

from .host import SessionsHost, settle


def _three(data_dir: Path) -> tuple[SessionService, list[str]]:
    service = SessionService(data_dir)
    ids = [service.create(title) for title in ("Rain", "Kitchen", "Harbour")]
    service.get(ids[0]).cache_candidates(
        [{"sound": {"id": "lib:1", "caption": "rain", "duration_s": 1.0}}]
    )
    return service, ids


def _screen(app: SessionsHost) -> SessionsScreen:
    screen = app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


def _highlighted(app: SessionsHost) -> str | None:
    info = _screen(app).selected()
    return info.session_id if info is not None else None


async def test_j_and_k_move_the_cursor(data_dir: Path) -> None:
    service, ids = _three(data_dir)
    app = SessionsHost(service, current=ids[0])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert _highlighted(app) == ids[0]
        await pilot.press("j", "j")
        assert _highlighted(app) == ids[2]
        await pilot.press("k")
        assert _highlighted(app) == ids[1]


async def test_delete_says_the_folder_goes_to_the_trash_and_keeps_the_cursor_there(
    data_dir: Path,
) -> None:
    service, ids = _three(data_dir)
    app = SessionsHost(service, current=ids[0])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("j", "d")  # Kitchen, the middle one
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmModal)
        said = " ".join(str(s.render()) for s in dialog.query(Static))
        assert "goes to the Trash" in said and "cannot be undone" not in said
        await pilot.press("y")
        await settle(pilot)
        assert [s.session_id for s in service.list()] == [ids[0], ids[2]]
        assert _highlighted(app) == ids[2]  # where it was, not back at the top
        assert _screen(app).query_one(DataTable).cursor_row == 1
    # And it is true: the folder is in the trash, whole.
    trash = Path(os.environ["XDG_DATA_HOME"]) / "Trash"
    assert [p.name for p in (trash / "files").iterdir()] == [ids[1]]
    assert (trash / "info" / f"{ids[1]}.trashinfo").is_file()


async def test_an_import_of_a_session_already_here_offers_overwrite_or_a_copy(
    data_dir: Path, tmp_path: Path
) -> None:
    service, ids = _three(data_dir)
    export = tmp_path / "rain.foley-session.json"
    service.export_to_file(ids[0], export)
    service.get(ids[0]).add_pick("lib:1")  # changed since the export
    app = SessionsHost(service, current=ids[1])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)

        async def import_it(answer: str) -> None:
            await pilot.press("i")
            await pilot.pause()
            prompt = app.screen
            assert isinstance(prompt, TextPromptModal)
            prompt.query_one(Input).value = str(export)
            await pilot.press("enter")
            for _ in range(200):
                await pilot.pause(0.02)
                if isinstance(app.screen, ChoiceModal):
                    break
            assert isinstance(app.screen, ChoiceModal)
            await pilot.press(answer)
            await settle(pilot)

        await import_it("c")
        titles = sorted(s.title or "" for s in service.list())
        assert titles == ["Harbour", "Kitchen", "Rain", "Rain (copy)"]
        assert service.get(ids[0]).picked_ids() == ["lib:1"]  # the one here is untouched
        copy = next(s.session_id for s in service.list() if s.title == "Rain (copy)")
        assert _highlighted(app) == copy
        assert list(service.get(copy).candidate_ids()) == ["lib:1"]
        assert service.get(copy).picked_ids() == []  # as exported

        await import_it("o")
        assert service.get(ids[0]).picked_ids() == []  # replaced by the export
        assert len(service.list()) == 4


async def test_export_is_suggested_in_the_home_folder(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, ids = _three(data_dir)
    elsewhere = tmp_path / "started-here"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # where the app was started is no place for an export
    app = SessionsHost(service, current=ids[0])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, TextPromptModal)
        suggested = Path(prompt.query_one(Input).value)
        assert suggested.parent == Path.home()
        assert suggested.name.startswith("rain-") and suggested.suffix == ".json"
