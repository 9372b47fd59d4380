"""Every CLI verb on the Redis store, and ``session push``/``pull`` byte for byte."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile

from foley_tui.cli import main
from foley_tui.store import SessionService, encode_key
from foley_tui.store.factory import open_service
from foley_tui.store.redis.service import RedisSessionService
from foley_tui.store.redis.session import RedisSessionStore
from tests.unit.store.helpers import ODD_IDS, candidate, tree

from .server import RedisServer


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_verb_works_on_redis(
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = redis_server.url
    monkeypatch.setenv("FOLEY_TUI_USER", "ana")
    code, out, _ = run(capsys, "session", "create", "--title", "scene", "--store", url)
    assert code == 0
    sid = out.strip().split()[-1]
    assert isinstance(open_service(url), RedisSessionService)
    source = tmp_path / "cands.json"
    source.write_text(json.dumps([candidate(i) for i in ODD_IDS[:4]]))
    assert run(capsys, "add", "scene", str(source), "--store", url)[0] == 0
    monkeypatch.setenv("FOLEY_TUI_STORE", url)  # the env var chooses the store too
    assert run(capsys, "pick", "scene", ODD_IDS[0], "--layer", "voice", "--onset", "1.5")[0] == 0
    assert run(capsys, "reject", "scene", ODD_IDS[1], "--reason", "hum")[0] == 0
    assert run(capsys, "pick", "scene", ODD_IDS[2])[0] == 0
    assert run(capsys, "clear", "scene", ODD_IDS[2])[0] == 0
    assert run(capsys, "undo", "scene")[0] == 0  # the clear
    assert run(capsys, "undo", "scene")[0] == 0  # the pick
    assert run(capsys, "redo", "scene")[0] == 0
    code, out, _ = run(capsys, "picks", "scene", "--json")
    picks = json.loads(out)
    assert code == 0 and {p["sound_id"] for p in picks} == {ODD_IDS[0], ODD_IDS[2]}
    code, out, _ = run(capsys, "sessions", "--json")
    [listed] = json.loads(out)
    assert listed["session_id"] == sid and listed["picked"] == 2 and listed["rejected"] == 1
    assert run(capsys, "session", "show", "scene")[0] == 0
    assert run(capsys, "session", "rename", "scene", "street")[0] == 0
    export = tmp_path / "export.json"
    assert run(capsys, "session", "export", "street", "-o", str(export))[0] == 0
    assert run(capsys, "session", "delete", "street", "--yes")[0] == 0
    assert json.loads(run(capsys, "sessions", "--json")[1]) == []
    assert run(capsys, "session", "import", str(export))[0] == 0
    store = RedisSessionService(url).get(sid)
    assert store.meta().title == "street"
    assert set(store.picked_ids()) == {ODD_IDS[0], ODD_IDS[2]}
    # The file store is untouched by all this.
    monkeypatch.delenv("FOLEY_TUI_STORE")
    assert json.loads(run(capsys, "sessions", "--json")[1]) == []


def test_unreachable_server_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOLEY_TUI_REDIS_PASSWORD", "s3cret-pw")
    from .server import free_port

    code, _, err = run(capsys, "sessions", "--store", f"redis://127.0.0.1:{free_port()}/0")
    assert code != 0
    assert "unreachable" in err and "Traceback" not in err and "s3cret-pw" not in err


def test_push_pull_byte_for_byte(
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
    data_dir: Path,
    tmp_path: Path,
) -> None:
    files = SessionService(data_dir)
    sid = files.create("push me")
    store = files.get(sid)
    store.cache_candidates([candidate(i) for i in ODD_IDS])
    store.add_pick(ODD_IDS[0], layer="voice", onset=3)
    store.add_reject(ODD_IDS[1], reason="hum")
    files.append_message(sid, "user", "more doors")
    files.update_token_usage(sid, 10, 5, "0.25")
    folder = data_dir / "sessions" / sid
    # A value foley wrote by hand in another spelling travels unchanged.
    (folder / "picks" / "handmade.json").write_bytes(b'{"sound_id":"handmade","layer":null}')
    (folder / ".foley-tui" / "narration.json").write_bytes(b'{"text": "the door slammed"}')
    before = tree(folder)
    code, out, _ = run(capsys, "session", "push", sid, redis_server.url)
    assert code == 0 and "verified" in out, out
    remote_service = RedisSessionService(redis_server.url)
    remote = remote_service.get(sid)
    assert isinstance(remote, RedisSessionStore)
    assert remote.raw["picks"]["handmade"] == b'{"sound_id":"handmade","layer":null}'
    pick_file = folder / "picks" / encode_key(ODD_IDS[0])
    assert remote.raw["picks"][ODD_IDS[0]] == pick_file.read_bytes()
    assert [r.sound_id for r in remote.rows()] == [r.sound_id for r in store.rows()]
    # Pushing again refuses to replace without --overwrite.
    assert run(capsys, "session", "push", sid, redis_server.url)[0] != 0
    # Pull into a second data dir (another machine) and compare the trees.
    other = tmp_path / "other-data"
    code, out, _ = run(capsys, "--data-dir", str(other), "session", "pull", sid, redis_server.url)
    assert code == 0, out
    after = tree(other / "sessions" / sid)
    assert after == before  # foley's three folders, every file's bytes
    narration = other / "sessions" / sid / ".foley-tui" / "narration.json"
    assert narration.read_bytes() == b'{"text": "the door slammed"}'
    pulled = SessionService(other).get(sid)
    assert [(e.seq, e.sound_id) for e in pulled.journal()] == [
        (e.seq, e.sound_id) for e in store.journal()
    ]
    assert pulled.meta().title == "push me"
    # The conversation and the usage counters moved too, readable on Redis and back.
    assert [m.content for m in remote_service.messages(sid)] == ["more doors"]
    assert remote_service.usage(sid).cost_micro_usd == 250_000
    assert [m.content for m in SessionService(other).messages(sid)] == ["more doors"]
    assert SessionService(other).usage(sid).cost_micro_usd == 250_000


def test_push_with_audio_respects_the_licence(
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
    data_dir: Path,
    tmp_path: Path,
) -> None:
    files = SessionService(data_dir)
    sid = files.create("audio")
    blobs = data_dir / "audio"
    blobs.mkdir()
    # Two real (tiny) WAV blobs in foley's byte store, named by their content hash.
    keys = []
    for n in range(2):
        sound = io.BytesIO()
        soundfile.write(sound, np.full(64 + n, 0.1, dtype="float32"), 8000, format="WAV")
        data = sound.getvalue()
        keys.append(hashlib.sha256(data).hexdigest())
        (blobs / keys[-1]).write_bytes(data)
    cands = []
    for n, (key, ok) in enumerate(zip(keys, (True, False), strict=True)):
        c = candidate(f"s{n}")
        c["sound"]["content_sha256"] = key
        c["sound"]["license"]["cache_bytes_ok"] = ok
        cands.append(c)
    files.get(sid).cache_candidates(cands)
    code, out, err = run(capsys, "session", "push", sid, redis_server.url, "--with-audio")
    assert code == 0, err
    assert "1 copied, 1 skipped" in out and "s1: licence forbids caching" in err
    other = tmp_path / "machine-b"
    code, out, err = run(
        capsys, "--data-dir", str(other), "session", "pull", sid, redis_server.url, "--with-audio"
    )
    assert code == 0, err
    assert (other / "audio" / keys[0]).read_bytes() == (blobs / keys[0]).read_bytes()
    assert not (other / "audio" / keys[1]).exists()
    # The resolver on machine B now plays s0 from the pulled blob.
    from foley_tui.audio.base import Source
    from foley_tui.audio.resolve import resolve

    found = resolve(cands[0], other)
    assert isinstance(found, Source) and found.how == "content_sha256"


def test_a_password_in_the_url_is_warned_about_on_one_line(
    redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    admin = redis_server.client()
    admin.execute_command("ACL", "SETUSER", "tui", "on", ">pw-in-url-5", "~foley:*", "+@all")
    url = f"redis://tui:pw-in-url-5@127.0.0.1:{redis_server.port}/0"
    code, out, err = run(capsys, "sessions", "--json", "--store", url)
    assert code == 0 and json.loads(out) == []
    assert err.startswith("foley-tui: warning: the Redis password is in the store URL")
    assert "pw-in-url-5" not in err and "***" in err
