"""Real processes on a real server: live propagation, crashes, concurrency, ACLs."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import IO, Any

import pytest

from foley_tui.domain import Status
from foley_tui.store.redis import RedisStoreError
from foley_tui.store.redis.conn import PasswordInURLWarning
from foley_tui.store.redis.service import RedisSessionService
from foley_tui.store.redis.session import RedisSessionStore

from .server import RedisServer

ROOT = Path(__file__).resolve().parents[3]


def spawn(code: str, home: Path, *args: str, user: str = "ana") -> subprocess.Popen[str]:
    """A fresh interpreter as another machine: its own HOME, its own user name."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "FOLEY_DATA_DIR": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "FOLEY_TUI_USER": user,
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_line(stream: IO[str] | None, what: str) -> str:
    assert stream is not None
    line = stream.readline()  # the child prints or exits: no wall-clock deadline here
    assert line, f"the process ended before {what}"
    return line.strip()


def _store(url: str, sid: str, user: str = "ana") -> RedisSessionStore:
    store = RedisSessionService(url, user=user).get(sid)
    assert isinstance(store, RedisSessionStore)
    return store


FOLLOWER = """
import json, sys
from foley.agent.session import SessionStore
from foley_tui.store.redis import namespaces
from foley_tui.store.redis.service import RedisSessionService
url, sid = sys.argv[1], sys.argv[2]
store = RedisSessionService(url).get(sid)
feed = store.change_feed(block_ms=200)
assert feed is not None
feed.wait()  # pins the stream position
print("ready", flush=True)
while True:
    change = feed.wait()
    if any(e.get("key") == "a" and e.get("op") == "decide" for e in change.events):
        break
foley = SessionStore(sid, **namespaces(url, sid))
print(json.dumps({"ours": sorted(store.picked_ids()), "foley": sorted(foley.picked_ids()),
                  "author": store.journal()[-1].author}), flush=True)
store.add_pick("b", layer="music")
print("picked", flush=True)
"""


def test_two_machines_see_each_others_decisions_live(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    service = RedisSessionService(redis_server.url, user="ana")
    sid = service.create("shared")
    ana = _store(redis_server.url, sid)
    feed = ana.change_feed(block_ms=200)
    assert feed is not None
    feed.wait()
    ben = spawn(FOLLOWER, tmp_path / "machine-b", redis_server.url, sid, user="ben")
    try:
        assert read_line(ben.stdout, "ready") == "ready"
        ana.add_pick("a", layer="voice")
        seen = json.loads(read_line(ben.stdout, "seeing ana's pick"))
        assert seen == {"ours": ["a"], "foley": ["a"], "author": "ana"}
        assert read_line(ben.stdout, "ben's pick") == "picked"
        while True:  # ana's feed wakes on ben's pick
            change = feed.wait()
            if any(e.get("key") == "b" for e in change.events):
                break
        assert [e["by"] for e in change.events if e.get("key") == "b"] == ["ben"]
        assert ana.status("b") is Status.PICKED
    finally:
        ben.kill()
        ben.wait()
        feed.close()


WRITER = """
import sys
from foley_tui.store.redis.service import RedisSessionService
url, sid, name, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
store = RedisSessionService(url).get(sid)
made = 0
for i in range(count):
    try:
        entry = store.add_pick(f"{name}-{i}", layer="sfx_fg", onset=i)
        shared = store.add_reject("shared", reason=name) if i % 5 == 0 else None
    except OSError as exc:
        print("error", str(exc).replace("\\n", " "), flush=True)
        break
    print("ack", f"{name}-{i}", flush=True)
"""


def test_kill_9_during_a_burst_loses_no_acknowledged_decision(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    sid = RedisSessionService(redis_server.url).create()
    writers = [
        spawn(WRITER, tmp_path / f"w{n}", redis_server.url, sid, f"w{n}", "100000", user=f"w{n}")
        for n in range(2)
    ]
    acked: list[set[str]] = [set(), set()]
    try:
        for n, proc in enumerate(writers):  # both are writing
            while len(acked[n]) < 20:
                kind, _, rest = read_line(proc.stdout, "an ack").partition(" ")
                assert kind == "ack", rest
                acked[n].add(rest)
        redis_server.kill()
        errors: list[list[str]] = [[], []]
        for n, proc in enumerate(writers):
            out, _ = proc.communicate()
            for line in out.splitlines():
                kind, _, rest = line.partition(" ")
                if kind == "ack":
                    acked[n].add(rest)
                else:
                    errors[n].append(line)
        for lines in errors:  # each writer stopped at its first refused decision
            assert len(lines) == 1 and "unreachable" in lines[0], "\n".join(lines)
    finally:
        for proc in writers:
            proc.kill()
            proc.wait()
    redis_server.start()  # replays the AOF (appendfsync always)
    store = _store(redis_server.url, sid)
    picked = set(store.picked_ids())
    assert acked[0] | acked[1] <= picked  # every acknowledged decision survived
    journal = store.journal()
    assert [e.seq for e in journal] == list(range(1, len(journal) + 1))
    journaled = {e.sound_id for e in journal if e.after["status"] == "picked"}
    assert journaled == picked  # no verdict without its journal entry, nor the reverse
    rejected = {e.sound_id for e in journal if e.after["status"] == "rejected"}
    assert rejected == set(store.rejected_ids()) == {"shared"}


def test_eight_concurrent_writers_lose_nothing(redis_server: RedisServer, tmp_path: Path) -> None:
    sid = RedisSessionService(redis_server.url).create()
    writers = [
        spawn(WRITER, tmp_path / f"w{n}", redis_server.url, sid, f"w{n}", "25", user=f"w{n}")
        for n in range(8)
    ]
    outs = []
    for proc in writers:
        out, err = proc.communicate()
        assert proc.returncode == 0, err
        outs.append(out.splitlines())
    assert all(len(lines) == 25 and all(x.startswith("ack") for x in lines) for lines in outs)
    store = _store(redis_server.url, sid)
    assert len(store.picked_ids()) == 8 * 25
    journal = store.journal()
    # 25 picks and 5 shared rejects per writer; a reject of "shared" already rejected for
    # the same reason changes nothing and is not journaled.
    picks = [e for e in journal if e.sound_id != "shared"]
    assert len(picks) == 200
    assert [e.seq for e in journal] == list(range(1, len(journal) + 1))
    assert {e.author for e in picks} == {f"w{n}" for n in range(8)}
    shared = [e for e in journal if e.sound_id == "shared"]
    assert store.rejects()["shared"].reason == shared[-1].after["reject"]["reason"]
    for before, after in itertools.pairwise(shared):
        assert after.before == before.after  # each saw the one before it: none lost


def test_down_refuses_cleanly_then_reconnects(redis_server: RedisServer) -> None:
    sid = RedisSessionService(redis_server.url).create()
    store = _store(redis_server.url, sid)
    store.add_pick("a")
    feed = store.change_feed(block_ms=100)
    assert feed is not None
    feed.wait()
    redis_server.kill()
    with pytest.raises(RedisStoreError, match="unreachable"):
        store.add_pick("b")
    assert feed.wait().kind == "down"
    assert not store.ping()
    redis_server.start()
    while feed.wait().kind != "up":
        pass
    store.add_pick("b")  # the same objects reconnect by themselves
    assert store.picked_ids() == ["a", "b"]
    assert [e.sound_id for e in store.journal()] == ["a", "b"]
    feed.close()


def test_acl_user_limited_to_the_prefix(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    admin: Any = redis_server.client()
    admin.execute_command(
        "ACL", "SETUSER", "tui", "on", ">pw-Xy9", "~foley:*", "+@all", "-@dangerous"
    )
    url = f"redis://tui@127.0.0.1:{redis_server.port}/0"
    monkeypatch.setenv("FOLEY_TUI_REDIS_PASSWORD", "pw-Xy9")
    service = RedisSessionService(url, user="ana")
    sid = service.create("acl")
    store = _store(url, sid)
    store.cache_candidates([{"sound": {"id": "a"}}])
    store.add_pick("a")
    store.undo()
    assert store.rows()[0].sound_id == "a" and store.status("a") is Status.UNDECIDED
    assert [i.session_id for i in service.list()] == [sid]
    # Outside the prefix the same user may do nothing: the error says so, clearly.
    with pytest.raises(RedisStoreError, match="ACL") as info:
        RedisSessionService(url, prefix="other:").create()
    assert "pw-Xy9" not in str(info.value)
    # A wrong password: refused, and the password is in no message.
    monkeypatch.setenv("FOLEY_TUI_REDIS_PASSWORD", "wrong-pw-77")
    with pytest.raises(RedisStoreError, match="authentication failed") as info:
        RedisSessionService(url).list()
    assert "wrong-pw-77" not in str(info.value)
    # A password in the URL works, is warned about, and never shown.
    monkeypatch.delenv("FOLEY_TUI_REDIS_PASSWORD")
    with pytest.warns(PasswordInURLWarning) as warned:
        inline = RedisSessionService(f"redis://tui:pw-Xy9@127.0.0.1:{redis_server.port}/0")
    assert [i.session_id for i in inline.list()] == [sid]
    assert "pw-Xy9" not in str(warned[0].message) and "***" in inline.url


def test_password_file(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    admin: Any = redis_server.client()
    admin.execute_command("ACL", "SETUSER", "tui", "on", ">from-file", "~foley:*", "+@all")
    secret = tmp_path / "pw"
    secret.write_text("from-file\n")
    monkeypatch.setenv("FOLEY_TUI_REDIS_PASSWORD_FILE", str(secret))
    url = f"redis://tui@127.0.0.1:{redis_server.port}/0"
    assert RedisSessionService(url).list() == []
