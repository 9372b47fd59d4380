"""Ratings and hiding on the Redis store (a real redis-server): rate, hide, undo and
redo through the CLI, marks carried by export/import and by ``session push``/``pull``,
and foley's own values (candidates, picks, rejects) byte for byte as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.marks import Marks
from foley_tui.store import MarksEdit, SessionService
from foley_tui.store.redis.service import RedisSessionService
from foley_tui.store.redis.session import RedisSessionStore
from tests.unit.store.helpers import ODD_IDS, candidate

from .server import RedisServer

Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def foleys_values(store: RedisSessionStore) -> dict[str, dict[str, bytes]]:
    return {name: dict(store.raw[name].raw_items()) for name in ("candidates", "picks", "rejects")}


def test_marks_on_redis_round_trip(
    redis_server: RedisServer, capsys: Capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = redis_server.url
    monkeypatch.setenv("FOLEY_TUI_USER", "ana")
    monkeypatch.setenv("FOLEY_TUI_STORE", url)
    code, out, _ = run(capsys, "session", "create", "--title", "scene")
    sid = out.strip().split()[-1]
    source = tmp_path / "cands.json"
    source.write_text(json.dumps([candidate(i) for i in ODD_IDS[:4]]))
    assert run(capsys, "add", "scene", str(source))[0] == 0
    a, b, c, _ = ODD_IDS[:4]
    assert run(capsys, "pick", "scene", a, "--layer", "sfx_fg", "--onset", "1.5")[0] == 0
    assert run(capsys, "reject", "scene", b, "--reason", "hum")[0] == 0
    store = RedisSessionService(url, user="ana").get(sid)
    assert isinstance(store, RedisSessionStore)
    before = foleys_values(store)

    assert run(capsys, "rate", "scene", a, "5")[0] == 0
    assert run(capsys, "rate", "scene", b, "1")[0] == 0
    assert run(capsys, "hide", "scene", c)[0] == 0
    code, out, _ = run(capsys, "candidates", "scene", "--json")
    listed = {i["sound_id"]: (i["rating"], i["hidden"]) for i in json.loads(out)}
    assert listed[a] == (5, False) and listed[b] == (1, False) and listed[c] == (0, True)
    assert run(capsys, "undo", "scene")[0] == 0  # the hide
    assert run(capsys, "undo", "scene")[0] == 0  # b's rating
    assert store.marks() == {a: Marks(rating=5)}
    assert run(capsys, "redo", "scene")[0] == 0
    assert store.marks() == {a: Marks(rating=5), b: Marks(rating=1)}
    # The marks live in a hash of their own: foley's values are as they were.
    assert foleys_values(store) == before
    assert set(store.raw["marks"].raw_items()) != set()

    # Export from Redis, import into a file store elsewhere.
    export = tmp_path / "scene.json"
    assert run(capsys, "session", "export", "scene", "-o", str(export))[0] == 0
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.delenv("FOLEY_TUI_STORE")
    code, _, err = run(capsys, "--data-dir", str(other), "session", "import", str(export))
    assert code == 0, err
    imported = SessionService(other).get(sid)
    assert imported.marks() == {a: Marks(rating=5), b: Marks(rating=1)}

    # A file session's marks travel by push and back by pull, verified.
    files = SessionService(other)
    imported.update_marks(c, MarksEdit(hidden=True))
    code, out, _ = run(capsys, "--data-dir", str(other), "session", "push", sid, url, "--overwrite")
    assert code == 0 and "verified" in out, out
    assert store.marks() == {a: Marks(rating=5), b: Marks(rating=1), c: Marks(hidden=True)}
    third = tmp_path / "third"
    code, out, _ = run(capsys, "--data-dir", str(third), "session", "pull", sid, url)
    assert code == 0, out
    assert SessionService(third).get(sid).marks() == files.get(sid).marks()


def test_audio_findings_on_redis_are_ours_and_shared(
    redis_server: RedisServer, capsys: Capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finding noted through one client is read by another and by ``candidates --json``;
    foley's values are byte for byte what they were."""
    import soundfile as sf

    from foley_tui.store.sound_problems import FileStamp, SoundProblem, sound_problems_of

    url = redis_server.url
    monkeypatch.setenv("FOLEY_TUI_STORE", url)
    _code, out, _ = run(capsys, "session", "create", "--title", "scene")
    sid = out.strip().split()[-1]
    source = tmp_path / "cands.json"
    source.write_text(json.dumps([candidate(i) for i in ODD_IDS[:3]]))
    assert run(capsys, "add", "scene", str(source))[0] == 0
    store = RedisSessionService(url, user="ana").get(sid)
    assert isinstance(store, RedisSessionStore)
    before = foleys_values(store)
    audio = tmp_path / "nan.wav"
    sf.write(str(audio), [[0.0, 0.0]] * 10, 8000, subtype="FLOAT")
    stamp = FileStamp.of(audio)
    assert stamp is not None
    found = SoundProblem("non-finite samples", "non-finite samples in nan.wav: 4", 4, stamp)
    assert sound_problems_of(store).note(ODD_IDS[1], found)
    other = RedisSessionService(url, user="bo").get(sid, touch=False)
    assert set(sound_problems_of(other).read()) == {ODD_IDS[1]}
    _code, out, _ = run(capsys, "candidates", "scene", "--json")
    listed = {item["sound_id"]: item["problems"] for item in json.loads(out)}
    assert [p["count"] for p in listed[ODD_IDS[1]]] == [4] and listed[ODD_IDS[0]] == []
    assert foleys_values(store) == before
