"""The store verbs of the command line, through ``foley_tui.cli.main`` and the installed
``foley-tui`` script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.cli import main
from foley_tui.store import SessionService


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def audio(tmp_path: Path) -> Path:
    folder = tmp_path / "library"
    (folder / "sub").mkdir(parents=True)
    t = np.arange(24000) / 48000
    sf.write(folder / "door_slam-02.wav", 0.3 * np.sin(2 * np.pi * 440 * t), 48000)
    stereo = np.stack([0.2 * np.sin(2 * np.pi * 220 * t)] * 2, axis=1)
    sf.write(folder / "sub" / "rain loop.flac", stereo, 48000)
    (folder / "notes.txt").write_text("not audio")  # skipped inside a folder
    (folder / ".hidden.wav").write_bytes(b"junk")
    return folder


def test_full_workflow(capsys: pytest.CaptureFixture[str], data_dir: Path, audio: Path) -> None:
    code, out, _ = run(capsys, "session", "create", "--title", "Hallway")
    assert code == 0
    sid = out.strip()
    code, out, err = run(capsys, "add", "hallway", str(audio))
    assert code == 0, err
    assert "added 2 candidates" in out
    store = SessionService(data_dir).get(sid)
    rows = {r.caption: r for r in store.rows()}
    assert set(rows) == {"door slam 02", "rain loop"}
    door = store.candidate(rows["door slam 02"].sound_id)
    assert door is not None
    assert door["sound"]["uri"] == str((audio / "door_slam-02.wav").resolve())
    assert door["sound"]["license"]["source"] == "user"
    assert (door["sound"]["sample_rate"], door["sound"]["channels"]) == (48000, 1)
    assert door["sound"]["duration_s"] == pytest.approx(0.5)
    assert door["sound"]["format"] == "wav"
    rain = rows["rain loop"]
    assert (rain.channels, rain.format) == (2, "flac")
    # the id is stable: adding again changes nothing
    code, out, _ = run(capsys, "add", sid, str(audio / "door_slam-02.wav"))
    assert code == 0 and len(store.candidate_ids()) == 2
    door_id = rows["door slam 02"].sound_id
    assert door_id.startswith("local:")

    code, out, _ = run(capsys, "pick", "Hallway", door_id, "--layer", "sfx_fg", "--onset", "1:02.5")
    assert code == 0 and "picked" in out
    code, out, _ = run(capsys, "pick", "Hallway", door_id, "--onset", "3")  # keeps the layer
    code, out, _ = run(capsys, "picks", "Hallway", "--json")
    picks = json.loads(out)
    assert [(p["sound_id"], p["layer"], p["onset"]) for p in picks] == [(door_id, "sfx_fg", 3.0)]
    assert picks[0]["candidate"]["sound"]["caption"] == "door slam 02"
    code, out, _ = run(capsys, "picks", "Hallway")
    assert door_id in out and "door slam 02" in out and "sfx_fg" in out
    code, out, _ = run(capsys, "reject", "Hallway", rain.sound_id, "--reason", "too long")
    assert code == 0
    code, out, _ = run(capsys, "clear", "Hallway", door_id)
    assert code == 0
    code, out, _ = run(capsys, "undo", "Hallway")
    assert code == 0 and "picked" in out
    code, out, _ = run(capsys, "sessions")
    assert sid in out and "Hallway" in out
    line = next(x for x in out.splitlines() if sid in x)
    assert line.split()[1:4] == ["1", "1", "2"]
    code, out, _ = run(capsys, "sessions", "--json")
    assert json.loads(out)[0]["picked"] == 1
    code, out, _ = run(capsys, "session", "show", sid[:24], "--json")
    assert json.loads(out)["total"] == 2
    code, out, _ = run(capsys, "session", "rename", sid, "Corridor")
    assert SessionService(data_dir).resolve("corridor") == sid

    export = data_dir.parent / "export.json"
    assert run(capsys, "session", "export", sid, "-o", str(export))[0] == 0
    code, _, err = run(capsys, "session", "export", sid, "-o", str(export))
    assert code == 2 and "exists" in err
    code, _, err = run(capsys, "session", "import", str(export))
    assert code == 2 and "already exists" in err
    code, _, err = run(capsys, "session", "delete", sid)
    assert code == 2 and "--yes" in err
    assert run(capsys, "session", "delete", sid, "--yes")[0] == 0
    code, out, _ = run(capsys, "session", "import", str(export))
    assert code == 0 and out.strip() == sid
    assert SessionService(data_dir).get(sid).picked_ids() == [door_id]


def test_add_json_and_jsonl(
    capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps([{"sound": {"id": "freesound:1", "caption": "a"}}]))
    many = tmp_path / "many.jsonl"
    many.write_text(
        "\n".join(json.dumps({"sound": {"id": f"bbc:{i}", "caption": f"b{i}"}}) for i in range(3))
    )
    code, out, err = run(capsys, "add", "New one", str(one), str(many), "--create")
    assert code == 0, err
    assert "added 4 candidates" in out
    sid = SessionService(data_dir).resolve("new one")
    assert sorted(SessionService(data_dir).get(sid).candidate_ids()) == [
        "bbc:0",
        "bbc:1",
        "bbc:2",
        "freesound:1",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["pick", "nosuch", "x"], "no session 'nosuch'"),
        (["session", "show", "../etc"], "invalid session id"),
        (["pick", "S", "ghost"], "no candidate 'ghost'"),
        (["pick", "S", "ghost", "--force", "--onset", "nan"], "onset must be a finite number"),
        (["pick", "S", "ghost", "--force", "--onset", "1:75"], "seconds must be below 60"),
        (["add", "S", "/nonexistent/file.wav"], "nothing added"),
        (["session", "import", "/nonexistent.json"], "cannot read"),
        (["undo", "S"], "nothing to undo"),
        (["session", "rename", "S", " "], "must not be empty"),
    ],
)
def test_bad_input_one_line_error(
    capsys: pytest.CaptureFixture[str], data_dir: Path, argv: list[str], message: str
) -> None:
    SessionService(data_dir).create("S")
    code = main(argv)
    err = capsys.readouterr().err
    assert code != 0
    assert message in err
    assert err.count("\n") <= 2 and "Traceback" not in err


def test_unreadable_audio_is_reported(
    capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    SessionService(data_dir).create("S")
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF....not really")
    good = tmp_path / "good.wav"
    sf.write(good, np.zeros(100), 8000)
    code, out, err = run(capsys, "add", "S", str(bad), str(good))
    assert code == 1  # partial success
    assert "added 1 candidate " in out + " " and "skipped" in err and "bad.wav" in err


def test_installed_console_script(data_dir: Path, tmp_path: Path) -> None:
    script = shutil.which("foley-tui", path=str(Path(sys.executable).parent))
    assert script, "the foley-tui console script is not installed"
    env = {**os.environ, "FOLEY_DATA_DIR": str(tmp_path / "unused")}
    other = tmp_path / "explicit"

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [script, *argv, "--data-dir", str(other)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    made = cli("session", "create", "--title", "Scripted")
    assert made.returncode == 0, made.stderr
    sid = made.stdout.strip()
    assert cli("pick", "Scripted", "x:1", "--force", "--layer", "music").returncode == 0
    listed = cli("sessions")
    assert listed.returncode == 0 and sid in listed.stdout
    bad = cli("pick", "Scripted", "x:1", "--force", "--layer", "drums")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    assert (other / "sessions" / sid / "picks" / "x%3A1.json").exists()
    assert not (tmp_path / "unused").exists()
