"""Pilot tests of the sessions screen over a real file-backed SessionService."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Label, Static

from foley_tui.screens.sessions import SessionsScreen
from foley_tui.screens.sessions_modals import ChoiceModal, ConfirmModal, TextPromptModal
from foley_tui.store import SessionService
from tests.ui.palette import palette_run

from .host import SessionsHost, settle


def _candidate(sound_id: str, caption: str) -> dict[str, object]:
    return {
        "sound": {"id": sound_id, "caption": caption, "duration_s": 1.5, "tags": ["t"]},
        "origin": "retrieved",
        "clap_score": 0.5,
    }


@pytest.fixture
def service(data_dir: Path) -> SessionService:
    service = SessionService(data_dir)
    first = service.create("Rainy street")
    store = service.get(first)
    store.cache_candidates([_candidate(f"lib:{i}", f"rain {i}") for i in range(5)])
    store.add_pick("lib:1", layer="ambience", onset=2.0)
    store.add_reject("lib:2", reason="too bright")
    second = service.create("Kitchen")
    service.get(second).cache_candidates([_candidate("lib:k", "kettle")])
    return service


def _screen(app: SessionsHost) -> SessionsScreen:
    screen = app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


def _error(app: SessionsHost) -> str:
    return str(_screen(app).query_one("#sessions-error", Static).render())


async def test_lists_every_session_with_counts(service: SessionService) -> None:
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = _screen(app).query_one(DataTable)
        assert table.row_count == 2
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(2)]
        titles = {row[0].strip(): row for row in rows}
        rainy = titles["Rainy street"]
        assert rainy[1] == service.resolve("Rainy street")
        assert rainy[2] == "1/1/5"  # picked/rejected/total
        assert rainy[5] == "foley-tui"
        assert titles["Kitchen"][2] == "0/0/1"


async def test_lists_a_session_foley_made(service: SessionService, data_dir: Path) -> None:
    picks = data_dir / "sessions" / "default" / "picks"
    picks.mkdir(parents=True)
    (picks / "lib%3A9.json").write_text(json.dumps({"sound_id": "lib:9", "layer": None}))
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = _screen(app).query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        [foley_row] = [r for r in rows if r[1] == "default"]
        assert foley_row[5] == "foley" and foley_row[2] == "1/0/0"


async def test_open_dismisses_with_the_highlighted_id(service: SessionService) -> None:
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.results == [service.resolve("Kitchen")]


async def test_escape_dismisses_with_none(service: SessionService) -> None:
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_create_then_rename(service: SessionService) -> None:
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, TextPromptModal)
        await pilot.press(*"Night", "space", *"scene", "enter")
        await settle(pilot)
        new_id = service.resolve("Night scene")
        table = _screen(app).query_one(DataTable)
        assert table.row_count == 3
        assert str(table.get_row_at(table.cursor_row)[1]) == new_id  # the new one is selected
        await pilot.press("r")
        await pilot.pause()
        app.screen.query_one(Input).value = "Night scene, take 2"
        await pilot.press("enter")
        await settle(pilot)
        assert service.get(new_id).meta().title == "Night scene, take 2"
        assert "Renamed" in str(_screen(app).query_one("#sessions-status", Static).render())


async def test_delete_asks_first_and_spares_the_open_session(service: SessionService) -> None:
    kitchen = service.resolve("Kitchen")
    rainy = service.resolve("Rainy street")
    app = SessionsHost(service, current=rainy)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        selected = screen.selected()
        assert selected is not None and selected.session_id == rainy
        assert screen.check_action("delete_session", ()) is False
        await pilot.press("d")  # the open session: nothing happens
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")  # changed our mind
        await settle(pilot)
        assert {s.session_id for s in service.list()} == {rainy, kitchen}
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert [s.session_id for s in service.list()] == [rainy]
        assert screen.query_one(DataTable).row_count == 1


async def test_export_import_round_trip_through_the_screen(
    service: SessionService, tmp_path: Path
) -> None:
    rainy = service.resolve("Rainy street")
    before = service.export_session(rainy)
    target = tmp_path / "exports" / "rainy.json"
    target.parent.mkdir()
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, TextPromptModal)
        assert prompt.query_one(Input).value.endswith(".foley-session.json")  # a suggestion
        prompt.query_one(Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert target.is_file()
        assert str(target) in str(_screen(app).query_one("#sessions-status", Static).render())

        # Importing it while the session exists asks first; cancelled, nothing changes.
        await pilot.press("i")
        await pilot.pause()
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert service.export_session(rainy)["candidates"] == before["candidates"]
        assert len(service.list()) == 2

        # Gone, then imported back: the same session, decisions and all.
        service.delete(rainy)
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert _error(app) == ""
        assert "Imported" in str(_screen(app).query_one("#sessions-status", Static).render())
    imported = service.resolve("Rainy street")
    store = service.get(imported)
    assert sorted(store.candidate_ids()) == [f"lib:{i}" for i in range(5)]
    assert store.list_picks() == [{"sound_id": "lib:1", "layer": "ambience", "onset": 2.0}]
    assert store.list_rejects() == [{"sound_id": "lib:2", "reason": "too bright"}]


async def test_export_never_overwrites_a_file(service: SessionService, tmp_path: Path) -> None:
    existing = tmp_path / "keep.json"
    existing.write_text("precious")
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        prompt = app.screen
        prompt.query_one(Input).value = str(existing)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is prompt  # still asking
        assert "already exists" in str(prompt.query_one("#prompt-error", Static).render())
        await pilot.press("escape")
        await settle(pilot)
    assert existing.read_text() == "precious"


async def test_import_errors_are_shown_on_screen(service: SessionService, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "not a foley-tui export"}')
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        app.screen.query_one(Input).value = str(tmp_path / "missing.json")
        await pilot.press("enter")
        await pilot.pause()
        assert "no such file" in str(app.screen.query_one("#prompt-error", Static).render())
        app.screen.query_one(Input).value = str(bad)
        await pilot.press("enter")
        await settle(pilot)
        assert _error(app).startswith("Could not import bad.json")
        assert _screen(app).query_one(DataTable).row_count == 2


async def test_a_failing_service_is_an_error_on_screen(tmp_path: Path) -> None:
    class Broken:
        def list(self) -> list[object]:
            raise OSError("[Errno 5] Input/output error")

    app = SessionsHost(Broken())  # type: ignore[arg-type]
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert _error(app) == "Could not list the sessions: [Errno 5] Input/output error"
        screen = _screen(app)
        for action in ("open_session", "rename_session", "delete_session", "export_session"):
            assert screen.check_action(action, ()) is False


async def test_palette_offers_the_actions_that_apply(service: SessionService) -> None:
    app = SessionsHost(service)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await palette_run(pilot, "Sessions: New", "Sessions: New")
        await settle(pilot)
        assert isinstance(app.screen, TextPromptModal)
        assert app.screen.query_one(".modal-title", Label).content == "New session"


async def test_footer_follows_the_cursor_after_a_reload(service: SessionService) -> None:
    rainy = service.resolve("Rainy street")
    app = SessionsHost(service, current=rainy)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)

        def footer_has_delete() -> bool:
            return any(b.binding.id == "sessions-delete" for b in app.active_bindings.values())

        assert not footer_has_delete()  # on the open session
        await pilot.press("down")
        await pilot.pause()
        assert footer_has_delete()
        await pilot.press("f5")  # reload: the cursor stays on Kitchen
        await settle(pilot)
        await pilot.press("up")
        await pilot.pause()
        assert not footer_has_delete()
        await pilot.press("down")
        await pilot.pause()
        assert footer_has_delete()
