"""One command line: one session resolver and one data-dir resolver for every verb
(``play`` included), app flags on bare ``foley-tui``, messages that name real flags, a
truthful ``add``, the ``candidates`` verb, ``--exact`` and the session ids foley makes
(nested, with spaces)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

import foley_tui.cli.app as cli_app
from foley_tui.cli import main
from foley_tui.store import SessionService, encode_key

from .store.helpers import candidate, run_py

Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Replaces the app: records what each verb would have opened, and how."""
    calls: list[dict[str, Any]] = []

    def fake_launch(
        session_id: str,
        *,
        data: Any = None,
        device: str | None = None,
        no_audio: bool = False,
        narration: Any = None,
        service: Any = None,
    ) -> int:
        calls.append(
            {"session": session_id, "data": Path(data), "device": device, "no_audio": no_audio}
        )
        assert narration is None  # only `open --narration FILE` gives one
        return 0

    monkeypatch.setattr(cli_app, "launch", fake_launch)
    return calls


def tone(path: Path, freq: float) -> Path:
    t = np.arange(4800) / 48000
    sf.write(path, 0.2 * np.sin(2 * np.pi * freq * t), 48000)
    return path


# ---------------------------------------------------------------------- app flags
@pytest.mark.parametrize(
    "argv",
    [
        ["--no-audio", "--device", "3"],
        ["--no-audio", "--device", "3", "resume"],
        ["resume", "--no-audio", "--device", "3"],
        ["--device", "3", "open", "Scene", "--no-audio"],
        ["open", "Scene", "--no-audio", "--device", "3"],
        ["demo", "--no-audio", "--device", "3"],
        ["--no-audio", "--device", "3", "demo"],
    ],
)
def test_app_flags_work_on_bare_foley_tui_and_every_app_verb(
    capsys: Capture, data_dir: Path, launched: list[dict[str, Any]], argv: list[str]
) -> None:
    SessionService(data_dir).create("Scene")
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    assert launched[-1]["no_audio"] is True and launched[-1]["device"] == "3"


def test_without_app_flags_audio_is_on(
    capsys: Capture, data_dir: Path, launched: list[dict[str, Any]]
) -> None:
    SessionService(data_dir).create("Scene")
    assert run(capsys)[0] == 0
    assert launched[-1]["no_audio"] is False and launched[-1]["device"] is None


# ---------------------------------------------------------------------- data dir
def test_one_data_dir_for_every_verb(
    capsys: Capture, data_dir: Path, tmp_path: Path, launched: list[dict[str, Any]]
) -> None:
    other = tmp_path / "other-data"
    # --data-dir before or after the verb; the env var otherwise (set by conftest).
    code, out, _ = run(capsys, "--data-dir", str(other), "session", "create", "--title", "A")
    sid = out.strip()
    assert code == 0 and (other / "sessions" / sid).is_dir()
    assert not (data_dir / "sessions").exists()
    wav = tone(tmp_path / "a.wav", 440)
    assert run(capsys, "add", "A", str(wav), "--data-dir", str(other))[0] == 0
    (sound_id,) = SessionService(other).get(sid).candidate_ids()
    for argv in (
        ["--data-dir", str(other), "open", "A"],
        ["open", "A", "--data-dir", str(other)],
        ["--data-dir", str(other), "resume"],
        ["--data-dir", str(other)],
    ):
        assert run(capsys, *argv)[0] == 0
        assert launched[-1]["data"] == other.resolve() and launched[-1]["session"] == sid
    code, _, err = run(capsys, "play", "A", "nosuch", "--data-dir", str(other))
    assert code == 2 and f"no candidate 'nosuch' in session '{sid}'" in err
    code, _, err = run(capsys, "play", "A", sound_id)  # not in the env's data dir
    assert code == 2 and "no session 'A'" in err


# ---------------------------------------------------------------------- resolver
def test_play_takes_a_title_or_a_prefix_like_every_verb(
    capsys: Capture, data_dir: Path, tmp_path: Path
) -> None:
    sid = SessionService(data_dir).create("Hallway")
    for ref in (sid, "hallway", sid[:20]):
        code, _, err = run(capsys, "play", ref, "nosuch")
        assert code == 2 and f"no candidate 'nosuch' in session '{sid}'" in err, ref


def test_exact_refuses_titles_and_prefixes_on_every_verb(capsys: Capture, data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("Hallway")
    for argv in (
        ["picks", "hallway", "--exact"],
        ["--exact", "picks", sid[:20]],
        ["candidates", "Hallway", "--exact"],
        ["play", "hallway", "x", "--exact"],
        ["session", "show", sid[:20], "--exact"],
        ["scene", "hallway", "--exact"],  # other modules' verbs too
        ["session", "messages", "Hallway", "--exact"],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "no session with the exact id" in err, argv
    assert run(capsys, "picks", sid, "--exact")[0] == 0


def test_foley_nested_and_padded_sessions_are_reachable_from_the_cli(
    capsys: Capture, data_dir: Path
) -> None:
    code = """
import json
from foley.agent.session import SessionStore
from foley.base import Candidate
for sid in ("proj/scene1", " padded ", "my", "my scene"):
    SessionStore(sid).cache_candidates([Candidate.from_dict(json.loads(PAYLOAD))])
print(json.dumps("ok"))
""".replace("PAYLOAD", repr(json.dumps(candidate("snd:1"))))
    assert run_py(code, data_dir) == "ok"
    code_, out, _ = run(capsys, "sessions", "--json")
    assert sorted(s["session_id"] for s in json.loads(out)) == sorted(
        ["proj/scene1", " padded ", "my", "my scene"]
    )
    for ref, expected in (("proj/scene1", "proj/scene1"), (" padded ", " padded "), ("my", "my")):
        code_, out, err = run(capsys, "candidates", ref, "--json", "--exact")
        assert code_ == 0, err
        assert [c["sound_id"] for c in json.loads(out)] == ["snd:1"]
        code_, out, _ = run(capsys, "session", "show", ref, "--json")
        assert json.loads(out)["session_id"] == expected
    code_, _, err = run(capsys, "session", "show", "proj", "--exact")
    assert code_ == 2 and "no session with the exact id 'proj'" in err
    assert run(capsys, "pick", "proj/scene1", "snd:1", "--layer", "music")[0] == 0
    assert (data_dir / "sessions" / "proj" / "scene1" / "picks" / encode_key("snd:1")).is_file()


# ---------------------------------------------------------------------- messages
def test_messages_name_real_flags(capsys: Capture, data_dir: Path, tmp_path: Path) -> None:
    sid = SessionService(data_dir).create("X")
    export = tmp_path / "x.json"
    assert run(capsys, "session", "export", sid, "-o", str(export))[0] == 0
    code, _, err = run(capsys, "session", "export", sid, "-o", str(export))
    assert code == 2 and "--force" in err
    assert run(capsys, "session", "export", sid, "-o", str(export), "--force")[0] == 0
    code, _, err = run(capsys, "session", "import", str(export))
    assert code == 2 and "--overwrite" in err and "already exists" in err
    assert run(capsys, "session", "import", str(export), "--overwrite")[0] == 0


# ---------------------------------------------------------------------- add
def test_add_reports_added_duplicates_present_and_skipped_truthfully(
    capsys: Capture, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "library"
    folder.mkdir()
    for i, freq in enumerate((220, 330, 440, 550)):
        tone(folder / f"t{i}.wav", freq)
    (folder / "copy of t0.wav").write_bytes((folder / "t0.wav").read_bytes())  # same sound
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF not really")
    code, out, err = run(capsys, "add", "Lib", str(folder), str(broken), "--create")
    assert code == 1  # something was skipped
    assert "added 4 candidates (1 duplicate, 1 skipped)" in out
    assert "skipped" in err and "broken.wav" in err
    code, out, err = run(capsys, "add", "Lib", str(folder))
    assert code == 0, err
    assert "added 0 candidates (4 already present, 1 duplicate)" in out
    tone(folder / "t9.wav", 990)
    code, out, _ = run(capsys, "add", "Lib", str(folder / "t9.wav"), str(folder / "t1.wav"))
    assert "added 1 candidate (1 already present)" in out


def test_add_to_a_missing_session_names_create(capsys: Capture, tmp_path: Path) -> None:
    wav = tone(tmp_path / "a.wav", 440)
    code, _, err = run(capsys, "add", "Nowhere", str(wav))
    assert code == 2 and "no session 'Nowhere'" in err and "--create" in err
    code, out, _ = run(capsys, "add", "Nowhere", str(wav), "--create")
    assert code == 0 and "added 1 candidate" in out


def test_add_never_rewrites_a_present_candidate_unless_asked(
    capsys: Capture, data_dir: Path, tmp_path: Path
) -> None:
    service = SessionService(data_dir)
    sid = service.create("Agent")
    path = data_dir / "sessions" / sid / "candidates" / encode_key("freesound:1")
    path.write_bytes(json.dumps(candidate("freesound:1", caption="the agent's")).encode())
    before = path.read_bytes()
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(candidate("freesound:1", caption="mine")))
    code, out, _ = run(capsys, "add", "Agent", str(mine))
    assert code == 0 and "added 0 candidates (1 already present)" in out
    assert path.read_bytes() == before
    code, out, _ = run(capsys, "add", "Agent", str(mine), "--update")
    assert code == 0 and "added 0 candidates (1 updated)" in out
    assert json.loads(path.read_bytes())["sound"]["caption"] == "mine"
    code, out, _ = run(capsys, "add", "Agent", str(mine), "--update")  # identical now
    assert "added 0 candidates (1 already present)" in out


# ---------------------------------------------------------------------- candidates
def test_candidates_lists_ids_decisions_and_event_queries(capsys: Capture, data_dir: Path) -> None:
    ids = ["snd:a", "snd:b", "snd:c", "snd:d"]
    cands = [
        candidate(sid, caption=f"caption {sid}", event={"query": f"query {sid}"}) for sid in ids
    ]
    cands[3]["event"] = None
    code = """
import json
from foley.agent.session import SessionStore
from foley.base import Candidate
s = SessionStore("scene")
s.cache_candidates([Candidate.from_dict(c) for c in json.loads(PAYLOAD)])
s.add_pick("snd:a", layer="sfx_fg", onset=1.0)
s.add_reject("snd:b", reason="too long")
s.add_pick("snd:c")
s.add_reject("snd:c", reason="agent changed its mind")  # foley keeps both
print(json.dumps("ok"))
""".replace("PAYLOAD", repr(json.dumps(cands)))
    assert run_py(code, data_dir) == "ok"
    code_, out, err = run(capsys, "candidates", "scene", "--json")
    assert code_ == 0, err
    listed = {c["sound_id"]: c for c in json.loads(out)}
    assert {sid: c["decision"] for sid, c in listed.items()} == {
        "snd:a": "picked",
        "snd:b": "rejected",
        "snd:c": "conflict",
        "snd:d": "undecided",
    }
    assert listed["snd:a"]["event_query"] == "query snd:a"
    assert listed["snd:d"]["event_query"] is None
    assert listed["snd:a"]["caption"] == "caption snd:a"
    assert listed["snd:a"]["duration_s"] == pytest.approx(1.25)
    assert set(listed["snd:a"]) == {
        *("sound_id", "caption", "duration_s", "event_query", "decision"),
        *("rating", "hidden"),  # our marks
        "problems",  # what the decoder mended in its audio (our state)
    }
    code_, out, _ = run(capsys, "candidates", "scene")
    line = next(x for x in out.splitlines() if x.startswith("snd:c\t"))
    assert line.split("\t") == ["snd:c", "conflict", "1.25s", "query snd:c", "caption snd:c"]
    empty = SessionService(data_dir).create("Empty")
    assert run(capsys, "candidates", empty)[1].strip() == "no candidates"
