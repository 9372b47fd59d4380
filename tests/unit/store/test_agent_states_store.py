"""States foley's agent makes that our store verbs met, each made with foley 0.0.89's own
SessionStore (a fresh interpreter: foley reads FOLEY_DATA_DIR at import), the files
checked after:

* ``session delete proj`` deletes that session only, never ``proj/scene1`` nested under
  it; ``session import --overwrite`` of ``proj`` keeps it too;
* an export always imports again: a layer or onset foley wrote that our import's checks
  refuse travels as its file's bytes and comes back byte for byte;
* ``pick --layer`` on a torn pick file refuses with the reason instead of rewriting it
  with onset null.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from foley_tui.cli import main
from foley_tui.store import SessionService, encode_key

from .helpers import candidate, run_py

FOLEY = """
import json
from foley.agent.session import SessionStore
from foley.base import Candidate
{code}
"""


def foley(data_dir: Path, code: str) -> Any:
    return run_py(FOLEY.format(code=code), data_dir)


def _made_by_foley(data_dir: Path) -> None:
    """``proj`` and ``proj/scene1``, each with a candidate and a pick, by foley."""
    cands = {sid: candidate(sid) for sid in ("p:1", "s:1")}
    foley(
        data_dir,
        f"cands = {cands!r}\n"
        "for sid, session in (('p:1', 'proj'), ('s:1', 'proj/scene1')):\n"
        "    s = SessionStore(session)\n"
        "    s.cache_candidates([Candidate.from_dict(cands[sid])])\n"
        "    s.add_pick(sid, layer='sfx_fg', onset=1.5)\n"
        "print(json.dumps(0))",
    )


def _foley_picks(data_dir: Path, session: str) -> Any:
    return foley(data_dir, f"print(json.dumps(SessionStore({session!r}).list_picks()))")


def test_deleting_a_session_never_deletes_one_nested_under_it(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _made_by_foley(data_dir)
    ids = {info.session_id for info in SessionService(data_dir).list()}
    assert {"proj", "proj/scene1"} <= ids
    assert main(["session", "delete", "proj", "--yes"]) == 0
    ids = {info.session_id for info in SessionService(data_dir).list()}
    assert "proj" not in ids and "proj/scene1" in ids
    assert _foley_picks(data_dir, "proj") == []
    assert _foley_picks(data_dir, "proj/scene1") == [
        {"sound_id": "s:1", "layer": "sfx_fg", "onset": 1.5}
    ]
    folder = data_dir / "sessions" / "proj"
    assert sorted(p.name for p in folder.iterdir()) == ["scene1"]  # nothing of proj left


def test_import_overwrite_keeps_a_session_nested_under_the_replaced_one(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _made_by_foley(data_dir)
    export = tmp_path / "proj.json"
    assert main(["session", "export", "proj", "-o", str(export)]) == 0
    foley(data_dir, "SessionStore('proj').drop_pick('p:1')\nprint(json.dumps(0))")
    assert main(["session", "import", str(export), "--overwrite"]) == 0
    assert _foley_picks(data_dir, "proj") == [{"sound_id": "p:1", "layer": "sfx_fg", "onset": 1.5}]
    assert _foley_picks(data_dir, "proj/scene1") == [
        {"sound_id": "s:1", "layer": "sfx_fg", "onset": 1.5}
    ]


def test_an_export_of_values_our_import_refuses_imports_again_byte_for_byte(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """foley's store takes any dict: a layer "foreground", an onset [1, 2], a NaN onset
    and one past a day all travel as their files' bytes."""
    service = SessionService(data_dir)
    sid = service.create("odd")
    cands = [candidate(k) for k in ("a", "b", "c", "d")]
    foley(
        data_dir,
        f"s = SessionStore({sid!r})\n"
        f"s.cache_candidates([Candidate.from_dict(c) for c in {cands!r}])\n"
        "s.picks['a'] = {'sound_id': 'a', 'layer': 'foreground', 'onset': 1.0}\n"
        "s.picks['b'] = {'sound_id': 'b', 'layer': None, 'onset': [1, 2]}\n"
        "s.picks['c'] = {'sound_id': 'c', 'layer': 'sfx_fg', 'onset': float('nan')}\n"
        "s.picks['d'] = {'sound_id': 'd', 'layer': 'sfx_fg', 'onset': 10**17}\n"
        "print(json.dumps(0))",
    )
    picks = data_dir / "sessions" / sid / "picks"
    before = {key: (picks / encode_key(key)).read_bytes() for key in "abcd"}
    export = tmp_path / "odd.json"
    assert main(["session", "export", sid, "-o", str(export)]) == 0
    assert main(["session", "delete", sid, "--yes"]) == 0
    assert main(["session", "import", str(export)]) == 0
    after = {key: (picks / encode_key(key)).read_bytes() for key in "abcd"}
    assert after == before
    doc = json.loads(export.read_text())
    assert set(doc["raw"]["picks"]) == set("abcd")


def test_pick_layer_on_a_torn_pick_file_refuses_with_the_reason(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service = SessionService(data_dir)
    sid = service.create("torn")
    foley(
        data_dir,
        f"s = SessionStore({sid!r})\n"
        f"s.cache_candidates([Candidate.from_dict({candidate('x')!r})])\n"
        "s.add_pick('x', layer='sfx_fg', onset=\"on 'door'\")\n"
        "print(json.dumps(0))",
    )
    path = data_dir / "sessions" / sid / "picks" / encode_key("x")
    torn = path.read_bytes()[:20]  # foley's write cut short
    path.write_bytes(torn)
    capsys.readouterr()
    assert main(["pick", sid, "x", "--layer", "music"]) != 0
    err = capsys.readouterr().err
    assert "cannot be read" in err and "not changed" in err
    assert path.read_bytes() == torn  # never rewritten with onset null
