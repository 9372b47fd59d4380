"""A server that stops answering: stopped (SIGSTOP) or paused (``CLIENT PAUSE``).

Every store operation has one deadline (``?socket_timeout=`` in the URL, small here so a
test does not wait long; nothing here asserts on time): the command line exits non-zero
with "the store did not answer in N s", and the app stays responsive (its decisions are
written by a worker; a timed-out write says "not confirmed" on its row and is read back
once the server answers).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from foley_tui.store.redis.conn import StoreTimeoutError, parse_url
from foley_tui.store.redis.service import RedisSessionService
from tests.e2e.test_tmux_e2e import FOLEY_TUI
from tests.unit.store.helpers import candidate

from .server import RedisServer

DEADLINE = "0.4"
#: A generous guard against a hang, not a deadline the test measures.
HANG_GUARD_S = 120


@contextlib.contextmanager
def stopped(server: RedisServer) -> Iterator[None]:
    """The server process stopped (SIGSTOP): connections are accepted by the kernel,
    nothing answers."""
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)


@contextlib.contextmanager
def paused(server: RedisServer) -> Iterator[None]:
    """Every write held by the server (``CLIENT PAUSE ... WRITE``: scripts included) until
    the pause is lifted; what is queued runs then. (``ALL`` would hold the ``UNPAUSE``
    too: only its timer could end it, and a test must not wait on a clock.)"""
    admin = server.client()
    admin.execute_command("CLIENT", "PAUSE", 600_000, "WRITE")
    try:
        yield
    finally:
        admin.execute_command("CLIENT", "UNPAUSE")
        admin.close()


def cli(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(FOLEY_TUI), *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )


@pytest.fixture
def session(redis_server: RedisServer) -> str:
    service = RedisSessionService(redis_server.url, user="ana")
    session_id = service.create("Stall scene")
    service.get(session_id).cache_candidates([candidate("a:1"), candidate("b:2")])
    return session_id


def test_the_deadline_comes_from_the_url() -> None:
    assert parse_url("redis://h:1/0?socket_timeout=0.25").timeout_s == 0.25
    assert parse_url("redis://h:1/0").timeout_s is None
    with pytest.raises(OSError, match="socket_timeout"):
        parse_url("redis://h:1/0?socket_timeout=soon")
    with pytest.raises(OSError, match="socket_timeout"):
        parse_url("redis://h:1/0?socket_timeout=0")


@pytest.mark.parametrize("stall", [stopped, paused], ids=["sigstop", "client-pause"])
def test_the_cli_exits_with_the_deadline_when_the_server_stalls(
    redis_server: RedisServer, session: str, tmp_path: Path, stall: object
) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "FOLEY_TUI_USER": "ana"}
    url = f"{redis_server.url}?socket_timeout={DEADLINE}"
    with stall(redis_server):  # type: ignore[operator]
        runs = [cli("pick", session, "a:1", "--store", url, env=env)]
        if stall is stopped:  # a paused server still answers reads
            runs.append(cli("sessions", "--store", url, env=env))
    for done in runs:
        assert done.returncode != 0
        assert f"the store did not answer in {DEADLINE} s" in done.stderr
        assert "Traceback" not in done.stderr
    # Whether a queued write ran when the pause ended or not, the pick and its journal
    # entry are one script: both or neither, never twice.
    store = RedisSessionService(redis_server.url, user="ana").get(session)
    picked = store.picked_ids()
    assert [e.sound_id for e in store.journal()] == picked
    assert picked in ([], ["a:1"])


def test_a_setting_sets_the_deadline_when_the_url_does_not(
    redis_server: RedisServer, session: str, tmp_path: Path
) -> None:
    config = tmp_path / ".config" / "foley-tui"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[settings]\nstore_timeout_s = 0.3\n")
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / ".config"),
        "FOLEY_TUI_USER": "ana",
    }
    with stopped(redis_server):
        done = cli("sessions", "--store", redis_server.url, env=env)
    assert done.returncode != 0
    assert "the store did not answer in 0.3 s" in done.stderr


def test_an_operation_raises_the_timeout_error(redis_server: RedisServer, session: str) -> None:
    store = RedisSessionService(f"{redis_server.url}?socket_timeout={DEADLINE}").get(session)
    with stopped(redis_server), pytest.raises(StoreTimeoutError, match="did not answer"):
        store.add_pick("a:1")
