"""Ratings and hiding through the command line, on a session foley 0.0.89 made: rate,
hide, undo and redo them, carry them through export/import; foley's own files stay byte
for byte as foley wrote them, and foley still reads its session the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.marks import Marks
from foley_tui.store import SessionService
from tests.unit.store.helpers import ODD_IDS, candidate, run_py

Capture = pytest.CaptureFixture[str]

FOLEY_MAKES = """
import json, sys
from foley.agent.session import SessionStore
from foley.base import Candidate
args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.loads({payload!r})
s = SessionStore("scene")
s.cache_candidates([Candidate.from_dict(c) for c in args["candidates"]])
s.add_pick(args["ids"][0], layer="sfx_fg", onset=1.5)
s.add_reject(args["ids"][1], reason="too bright")
print(json.dumps({{"picks": sorted(s.picked_ids())}}))
"""

FOLEY_READS = """
import json
from foley.agent.session import SessionStore
s = SessionStore("scene")
print(json.dumps({{
    "picks": sorted(s.list_picks(), key=lambda p: p["sound_id"]),
    "rejects": sorted(s.list_rejects(), key=lambda r: r["sound_id"]),
    "cached": sorted(c.sound.id for c in s.rehydrate({ids!r})),
}}))
"""


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def foleys_files(data_dir: Path, session: str = "scene") -> dict[str, bytes]:
    """Every file foley owns in the session (its three folders), by relative path."""
    folder = data_dir / "sessions" / session
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for name in ("candidates", "picks", "rejects")
        for path in sorted((folder / name).rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def foley_scene(data_dir: Path) -> list[str]:
    ids = ODD_IDS[:4]
    payload = json.dumps({"candidates": [candidate(i) for i in ids], "ids": ids})
    assert run_py(FOLEY_MAKES.format(payload=payload), data_dir)["picks"] == [ids[0]]
    return ids


def marks_of(data_dir: Path, session: str = "scene") -> dict[str, Marks]:
    return SessionService(data_dir).get(session, touch=False).marks()


def listed(capsys: Capture, session: str = "scene") -> dict[str, tuple[int, bool]]:
    code, out, err = run(capsys, "candidates", session, "--json")
    assert code == 0, err
    return {item["sound_id"]: (item["rating"], item["hidden"]) for item in json.loads(out)}


def test_rate_hide_undo_redo_export_import_leave_foleys_files_alone(
    capsys: Capture, data_dir: Path, foley_scene: list[str], tmp_path: Path
) -> None:
    a, b, c, _d = foley_scene
    before = foleys_files(data_dir)
    foley_before = run_py(FOLEY_READS.format(ids=foley_scene), data_dir)

    assert run(capsys, "rate", "scene", a, "4")[0] == 0
    assert run(capsys, "rate", "scene", b, "2")[0] == 0
    assert run(capsys, "hide", "scene", c)[0] == 0
    assert marks_of(data_dir) == {a: Marks(rating=4), b: Marks(rating=2), c: Marks(hidden=True)}
    assert listed(capsys)[a] == (4, False) and listed(capsys)[c] == (0, True)

    # Undo and redo revert a mark like a decision, newest first.
    assert run(capsys, "undo", "scene")[0] == 0
    assert c not in marks_of(data_dir)
    assert run(capsys, "redo", "scene")[0] == 0
    assert marks_of(data_dir)[c] == Marks(hidden=True)
    assert run(capsys, "hide", "scene", c, "--unhide")[0] == 0
    assert run(capsys, "rate", "scene", b, "0")[0] == 0  # 0 clears
    assert marks_of(data_dir) == {a: Marks(rating=4)}
    code, out, _ = run(capsys, "session", "history", "scene", "--json")
    assert code == 0 and "mark" in out

    # Export carries the marks; an import elsewhere restores them exactly.
    export = tmp_path / "scene.json"
    assert run(capsys, "session", "export", "scene", "-o", str(export))[0] == 0
    doc = json.loads(export.read_text())
    assert doc["marks"][a]["rating"] == 4
    other = tmp_path / "other-data"
    other.mkdir()
    code, out, err = run(capsys, "--data-dir", str(other), "session", "import", str(export))
    assert code == 0, err
    assert marks_of(other) == {a: Marks(rating=4)}
    assert foleys_files(other) == before  # the import writes foley's bytes as they were

    # Through all of it, foley's files are byte for byte as foley wrote them (nothing of
    # ours in its folders), and foley reads its session as before.
    assert foleys_files(data_dir) == before
    assert run_py(FOLEY_READS.format(ids=foley_scene), data_dir) == foley_before


def test_bad_input_is_one_line_and_writes_nothing(
    capsys: Capture, data_dir: Path, foley_scene: list[str]
) -> None:
    a = foley_scene[0]
    journal = data_dir / "sessions" / "scene" / ".foley-tui" / "journal.jsonl"
    size = journal.stat().st_size if journal.exists() else 0
    for argv, message in (
        (("rate", "scene", a, "6"), "from 0 to 5"),
        (("rate", "scene", a, "two"), "from 0 to 5"),
        (("rate", "scene", "nope:1", "3"), "no candidate 'nope:1'"),
        (("hide", "scene", "nope:1"), "no candidate 'nope:1'"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, argv
    assert marks_of(data_dir) == {}
    assert (journal.stat().st_size if journal.exists() else 0) == size
