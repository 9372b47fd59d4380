"""``foley-tui open DIR`` and ``foley-tui DIR``: which arguments are folders, the
folder's own session, ``--session S``, and the refusal when a folder and a session
share a name. The app itself is not started (its launch is recorded)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from foley_tui.cli import folder_shorthand, main
from foley_tui.library.registry import FolderRegistry
from foley_tui.library.resume import folder_source
from foley_tui.store import SessionService


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def launch(session_id: str, **kwargs: Any) -> int:
        calls.append({"session_id": session_id, **kwargs})
        return 0

    monkeypatch.setattr("foley_tui.cli.app.launch", launch)
    return calls


@pytest.fixture
def sfx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "sfx"
    (folder / "doors").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return folder


def test_open_dir_makes_the_folders_own_session(
    sfx: Path, data_dir: Path, launched: list[dict[str, Any]]
) -> None:
    assert main(["open", str(sfx), "--no-audio"]) == 0
    (call,) = launched
    service = SessionService()
    assert service.info(call["session_id"]).title == "sfx"
    assert call["library"].root == sfx.resolve()
    assert call["library"].session_id == call["session_id"]
    assert FolderRegistry(data_dir).session_of(sfx.resolve()) == call["session_id"]
    # Opened again (any spelling of the same folder): the same session.
    assert main(["open", "./sfx/doors/..", "--no-audio"]) == 0
    assert launched[1]["session_id"] == call["session_id"]


@pytest.mark.parametrize("spelling", ["./sfx", "sfx/", "SFX_ABS"])
def test_foley_tui_dir_is_open_dir(
    spelling: str, sfx: Path, launched: list[dict[str, Any]]
) -> None:
    arg = str(sfx) if spelling == "SFX_ABS" else spelling
    assert main([arg, "--no-audio"]) == 0
    assert launched[0]["library"].root == sfx.resolve()


def test_verb_names_win_and_plain_names_are_not_folders(sfx: Path) -> None:
    (sfx.parent / "sessions").mkdir()
    assert folder_shorthand(["sessions"]) == ["sessions"]  # the verb, not ./sessions
    assert folder_shorthand(["sfx"]) == ["sfx"]  # not written as a path
    assert folder_shorthand(["--no-audio", "./sfx"]) == ["--no-audio", "open", "./sfx"]
    assert folder_shorthand(["--data-dir", "./sfx", "sessions"]) == [
        "--data-dir",
        "./sfx",
        "sessions",
    ]
    assert folder_shorthand(["./missing"]) == ["./missing"]


def test_a_name_both_a_folder_and_a_session_is_refused_with_how_to_choose(
    sfx: Path, launched: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    sid = SessionService().create("./sfx")
    assert main(["open", "./sfx"]) == 2
    err = capsys.readouterr().err
    assert "names both a folder and session" in err
    assert "foley-tui open --folder ./sfx" in err and f"foley-tui open --exact {sid}" in err
    assert launched == []
    assert main(["open", "--folder", "./sfx", "--no-audio"]) == 0
    assert launched[0]["library"].root == sfx.resolve()
    assert main(["open", "--exact", sid, "--no-audio"]) == 0
    assert launched[1]["session_id"] == sid and launched[1].get("library") is None


def test_session_s_puts_the_folders_decisions_elsewhere(
    sfx: Path, launched: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    sid = SessionService().create("Scene 12")
    assert main(["open", "./sfx", "--session", "Scene 12", "--no-audio"]) == 0
    assert launched[0]["session_id"] == sid
    assert main(["open", "Scene 12", "--session", "x"]) == 2
    assert "--session goes with a folder" in capsys.readouterr().err


def test_a_missing_folder_says_so(sfx: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["open", "./nowhere"]) == 2
    assert "no such folder or session: ./nowhere" in capsys.readouterr().err


def test_a_folders_session_resumes_with_its_folder(sfx: Path, data_dir: Path) -> None:
    sid = SessionService().create("sfx")
    FolderRegistry(data_dir).record(sfx.resolve(), sid)
    source = folder_source(data_dir, sid)
    assert source is not None and source.root == sfx.resolve()
    assert folder_source(data_dir, "01NOTAFOLDER") is None
    sfx.rename(sfx.parent / "moved")
    assert folder_source(data_dir, sid) is None  # the folder is gone: a plain session
