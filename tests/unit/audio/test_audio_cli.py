"""`foley-tui play` / `devices` argument handling and errors (no device needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.cli import main


def test_play_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "/nope/x.wav"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_play_unknown_session_and_candidate(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "nosuch", "id"]) == 2
    assert "no session 'nosuch'" in capsys.readouterr().err
    (data_dir / "sessions" / "s" / "candidates").mkdir(parents=True)
    assert main(["play", "s", "id"]) == 2
    assert "no candidate 'id'" in capsys.readouterr().err
    assert main(["play", "../x", "id"]) == 2
    assert "invalid session id" in capsys.readouterr().err


def test_play_unplayable_candidate_says_why(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = data_dir / "sessions" / "s" / "candidates"
    folder.mkdir(parents=True)
    candidate = {"sound": {"content_sha256": "d" * 64}, "preview_uri": "https://x.org/a.wav"}
    (folder / "a%3A1.json").write_bytes(json.dumps(candidate).encode())
    assert main(["play", "s", "a:1"]) == 1
    err = capsys.readouterr().err
    assert "cannot play: remote audio (https://x.org/a.wav); network access is off" in err


def test_play_without_audio_output_fails_with_the_reason(
    audio_files: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import foley_tui.audio.player as player_module

    monkeypatch.setattr(
        player_module,
        "make_player",
        lambda device=None: player_module.NullPlayer("no output device"),
    )
    assert main(["play", str(audio_files["wav"])]) == 1
    assert "no audio: no output device" in capsys.readouterr().err
