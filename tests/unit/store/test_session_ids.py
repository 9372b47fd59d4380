"""Every session foley can make is reachable: nested ids, ids with spaces (leading and
trailing too), and an exact id always wins over a prefix or a title.
The sessions are made by foley 0.0.89's own SessionStore, in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.store import SessionService
from foley_tui.store.errors import (
    InvalidSessionIdError,
    SessionNotFoundError,
    SessionServiceError,
)

from .helpers import candidate, run_py

FOLEY_MAKES = """
import json, sys
from foley.agent.session import SessionStore
from foley.base import Candidate
for session, sound in json.loads(sys.argv[1]):
    s = SessionStore(session)
    s.cache_candidates([Candidate.from_dict(json.loads(sound))])
    s.add_pick(json.loads(sound)["sound"]["id"], layer="sfx_fg", onset=1.0)
print(json.dumps("ok"))
"""

FOLEY_LISTS = """
import json
from foley.agent.session import SessionStore
print(json.dumps({s: sorted(SessionStore(s).picked_ids()) for s in json.loads(%r)}))
"""

SESSIONS = ["proj/scene1", "proj/scene2", " padded ", "my scene", "my", "deep/a/b"]


def foley_makes(data_dir: Path, sessions: list[str]) -> None:
    payload = json.dumps([[s, json.dumps(candidate(f"snd:{s.strip()}"))] for s in sessions])
    code = FOLEY_MAKES.replace("sys.argv[1]", repr(payload))
    assert run_py(code, data_dir) == "ok"


@pytest.fixture
def service(data_dir: Path) -> SessionService:
    foley_makes(data_dir, SESSIONS)
    return SessionService(data_dir)


def test_foley_sessions_are_listed_by_their_real_ids(service: SessionService) -> None:
    assert sorted(i.session_id for i in service.list()) == sorted(SESSIONS)
    # "proj" and "deep", "deep/a" only hold sessions: they are not sessions themselves.
    for container in ("proj", "deep", "deep/a"):
        with pytest.raises(SessionNotFoundError):
            service.get(container)
    assert all(i.picked == 1 and i.total == 1 for i in service.list())


def test_an_exact_id_always_wins(service: SessionService) -> None:
    assert service.resolve("my") == "my"  # not a prefix match on "my scene"
    assert service.resolve("my scene") == "my scene"
    assert service.resolve(" padded ") == " padded "
    assert service.resolve("proj/scene1") == "proj/scene1"
    assert service.resolve("deep/a/b") == "deep/a/b"
    with pytest.raises(SessionServiceError, match="ambiguous"):
        service.resolve("proj/")
    assert service.resolve("deep") == "deep/a/b"  # a unique prefix, never a bogus "deep"


def test_a_title_beats_a_prefix_but_not_an_exact_id(service: SessionService) -> None:
    titled = service.create("my")  # a title equal to another session's id
    assert service.resolve("my") == "my"
    service.rename(titled, "Night Rain")
    assert service.resolve("night rain") == titled
    prefix_of_ulid = titled[:12]
    assert service.resolve(prefix_of_ulid) == titled


def test_exact_refuses_anything_but_an_exact_id(service: SessionService) -> None:
    titled = service.create("Night Rain")
    assert service.resolve("my", exact=True) == "my"
    assert service.resolve(titled, exact=True) == titled
    for ref in ("Night Rain", titled[:12], "my sc", "padded", "deep"):
        with pytest.raises(SessionNotFoundError, match="exact"):
            service.resolve(ref, exact=True)


def test_we_write_where_foley_reads_a_nested_and_a_padded_session(
    service: SessionService, data_dir: Path
) -> None:
    for session_id in ("proj/scene1", " padded "):
        store = service.get(service.resolve(session_id))
        store.add_pick(f"snd:{session_id.strip()}-2", layer="music", onset=None)
    assert (data_dir / "sessions" / "proj" / "scene1" / "picks").is_dir()
    assert (data_dir / "sessions" / " padded " / "picks").is_dir()
    seen = run_py(FOLEY_LISTS % json.dumps(["proj/scene1", " padded "]), data_dir)
    assert seen == {
        "proj/scene1": ["snd:proj/scene1", "snd:proj/scene1-2"],
        " padded ": ["snd:padded", "snd:padded-2"],
    }


def test_deleting_a_nested_session_leaves_no_bogus_parent(
    service: SessionService, data_dir: Path
) -> None:
    service.delete("deep/a/b")
    assert not (data_dir / "sessions" / "deep").exists()
    service.delete("proj/scene1")
    assert (data_dir / "sessions" / "proj" / "scene2").is_dir()  # its sibling stays
    assert sorted(i.session_id for i in service.list()) == sorted(
        ["proj/scene2", " padded ", "my scene", "my"]
    )


def test_a_nested_session_exports_and_imports(service: SessionService, tmp_path: Path) -> None:
    doc = service.export_session("proj/scene1")
    other = SessionService(tmp_path / "other-data")
    assert other.import_session(doc) == "proj/scene1"
    assert [i.session_id for i in other.list()] == ["proj/scene1"]
    assert other.get("proj/scene1").picked_ids() == ["snd:proj/scene1"]
    other.get("proj/scene1").add_pick("snd:extra", layer=None, onset=None)
    assert other.import_session(doc, overwrite=True) == "proj/scene1"  # the nested one again
    assert other.get("proj/scene1").picked_ids() == ["snd:proj/scene1"]
    assert [i.session_id for i in other.list()] == ["proj/scene1"]


def test_a_session_and_its_nested_session_coexist(data_dir: Path) -> None:
    foley_makes(data_dir, ["proj", "proj/scene1"])
    service = SessionService(data_dir)
    assert sorted(i.session_id for i in service.list()) == ["proj", "proj/scene1"]
    assert service.get("proj").picked_ids() == ["snd:proj"]


def test_nothing_escapes_sessions_through_a_nested_id(data_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "victim" / "picks").mkdir(parents=True)
    sessions = data_dir / "sessions"
    sessions.mkdir()
    (sessions / "link").symlink_to(outside)
    service = SessionService(data_dir)
    with pytest.raises(InvalidSessionIdError, match="symbolic link"):
        service.get("link/victim")
    assert "link/victim" not in [i.session_id for i in service.list()]
    for bad in ("../outside/victim", "proj/../../outside/victim", "/etc"):
        with pytest.raises(InvalidSessionIdError):
            service.get(bad)
