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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foley_tui.store import SessionStore
from foley_tui.store.errors import StoreTimeoutError
from foley_tui.store.redis.conn import parse_url
from foley_tui.store.redis.service import RedisSessionService
from tests.e2e.test_tmux_e2e import FOLEY_TUI, Tmux
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
    service.get(session_id).cache_candidates(
        [candidate("a:1", caption="rain"), candidate("b:2", caption="door")]
    )
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


# -- the app in a terminal -----------------------------------------------------------------
def _app_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", FOLEY_TUI_USER="ana")
    return env


def _status(screen: str) -> str:
    """The status line: the line above the footer (the last non-blank line)."""
    lines = [line for line in screen.splitlines() if line.strip()]
    return lines[-2] if len(lines) >= 2 else ""


def _listed(screen: str) -> bool:
    """The whole list is in (the status line's loading mark gone)."""
    return "door" in screen and "✔ 0" in _status(screen) and "⧗" not in _status(screen)


@pytest.mark.parametrize("stall", [stopped, paused], ids=["sigstop", "client-pause"])
def test_the_app_stays_responsive_while_the_store_stalls(
    redis_server: RedisServer,
    session: str,
    tmux: Callable[[], Tmux],
    stall: Callable[[RedisServer], contextlib.AbstractContextManager[None]],
) -> None:
    """A pick while the server does not answer: the row says "saving…", then "not
    confirmed" once the deadline passes; help opens and closes meanwhile. When the
    server answers again the sound is read back: the row shows what the store holds, and
    the store holds the pick and its journal entry together or neither of them."""
    url = f"{redis_server.url}?socket_timeout={DEADLINE}"
    app = tmux()
    app.start([str(FOLEY_TUI), "open", "Stall scene", "--no-audio", "--store", url], _app_env())
    app.wait_for(_listed, "the list")
    with stall(redis_server):
        app.keys("p")
        app.wait_for(lambda s: "(not confirmed)" in s, "the pick not confirmed")
        app.keys("?")
        app.wait_for(lambda s: "remap by id" in s, "the help screen")
        app.keys("Escape")
        screen = app.wait_for(lambda s: "remap by id" not in s and "rain" in s, "help closed")
        # Not read back while the server holds writes: it may still run the pick.
        assert "(not confirmed)" in screen
    # Read back once the server answers: the row loses its note and shows the truth.
    screen = app.wait_for(lambda s: "(not confirmed)" not in s, "the read back")
    store = RedisSessionService(redis_server.url, user="ana").get(session)
    picked = store.picked_ids()
    assert [e.sound_id for e in store.journal()] == picked  # one script: both or neither
    assert picked in ([], ["a:1"])
    want = f"✔ {len(picked)}"
    app.wait_for(lambda s: want in _status(s), f"the status line with {want}")
    assert "(saving" not in screen
    app.keys("q")
    app.wait_exit()


def test_q_quits_while_the_store_is_stopped(
    redis_server: RedisServer, session: str, tmux: Callable[[], Tmux], tmp_path: Path
) -> None:
    """``q`` with the server stopped: the app exits (the cursor save gives up after the
    deadline) and says on the terminal what was not saved."""
    url = f"{redis_server.url}?socket_timeout={DEADLINE}"
    script = tmp_path / "run.sh"
    # The pane stays after the app: what it said on leaving is read from the terminal.
    script.write_text(
        f'"{FOLEY_TUI}" open "Stall scene" --no-audio --store "{url}"\necho "exit=$?"\nexec cat\n'
    )
    app = tmux()
    app.start(["sh", str(script)], _app_env())
    app.wait_for(_listed, "the list")
    with stopped(redis_server):
        app.keys("j")  # a cursor to save
        app.keys("p")
        app.wait_for(lambda s: "(not confirmed)" in s, "the pick not confirmed")
        app.keys("q")
        said = app.wait_for(lambda s: "exit=" in s, "the app gone")
    assert "exit=0" in said
    assert "not confirmed: the decision on b:2" in said
    assert "Cursor not saved" in said and f"did not answer in {DEADLINE} s" in said


# -- the timeline and the dialogs ----------------------------------------------------------
#: A deadline longer than the stall: a write asked for while the server is stopped waits
#: in the worker and lands once the server runs again (never a wall-clock measure).
LONG_DEADLINE = "300"


def _journaled(store: SessionStore, sound_id: str) -> int:
    return sum(1 for e in store.journal() if e.sound_id == sound_id)


def test_the_timeline_and_its_dialog_stay_responsive_while_the_store_is_stopped(
    redis_server: RedisServer, session: str, tmux: Callable[[], Tmux]
) -> None:
    """With the server stopped, a layer key on the timeline says "saving…" and the screen
    still answers: a zoom key redraws it, the onset dialog opens (what its confirm is
    checked against is read by the writer's worker, not by the UI thread). Once the
    server runs again the layer lands, once: one journal entry, the record as written."""
    setup = RedisSessionService(redis_server.url, user="ana").get(session)
    setup.add_pick("a:1", onset=1.0)
    before = _journaled(setup, "a:1")
    url = f"{redis_server.url}?socket_timeout={LONG_DEADLINE}"
    app = tmux()
    app.start([str(FOLEY_TUI), "open", "Stall scene", "--no-audio", "--store", url], _app_env())
    app.wait_for(lambda s: "door" in s and "✔ 1" in _status(s) and "⧗" not in _status(s), "list")
    app.keys("t")
    # The pick's status line is drawn once the timeline is mounted (its title is drawn
    # before): only then does it take keys.
    app.wait_for(lambda s: "Timeline ·" in s and "rain · sfx_fg · 0:01" in s, "the timeline")
    with stopped(redis_server):
        app.keys("4")  # stinger
        app.wait_for(lambda s: "saving…" in s, "the timeline saying saving…")
        app.keys(">")  # zoom in: the title says the new scale
        app.wait_for(lambda s: "s/col" in s and "0.25 s/col" not in s, "the timeline zoomed")
        app.keys("o")
        app.wait_for(lambda s: "Onset for" in s, "the onset dialog")
        app.keys("Escape")
        screen = app.wait_for(lambda s: "Onset for" not in s and "Timeline ·" in s, "closed")
        assert "saving…" in screen  # the server is still stopped: nothing answered
    app.wait_for(lambda s: "saving…" not in s and "stinger" in s, "the layer saved", 120)
    store = RedisSessionService(redis_server.url, user="ana").get(session)
    assert _journaled(store, "a:1") == before + 1  # landed once
    pick = store.picks_ns.get("a:1")
    assert pick == {"sound_id": "a:1", "layer": "stinger", "onset": 1.0}
    app.keys("Escape")  # back to the list
    app.wait_for(lambda s: "Timeline ·" not in s, "the list again")
    app.keys("q")
    app.wait_exit()


def test_an_audition_dialog_opens_while_the_store_is_stopped(
    redis_server: RedisServer, session: str, tmux: Callable[[], Tmux]
) -> None:
    """The onset dialog opens at once with the server stopped (its baseline is read by the
    writer's worker); its confirm is written once the server runs again, once."""
    setup = RedisSessionService(redis_server.url, user="ana").get(session)
    setup.add_pick("a:1")
    setup.add_pick("b:2")
    before = _journaled(setup, "a:1") + _journaled(setup, "b:2")
    url = f"{redis_server.url}?socket_timeout={LONG_DEADLINE}"
    app = tmux()
    app.start([str(FOLEY_TUI), "open", "Stall scene", "--no-audio", "--store", url], _app_env())
    app.wait_for(lambda s: "door" in s and "✔ 2" in _status(s) and "⧗" not in _status(s), "list")
    with stopped(redis_server):
        app.keys("o")
        app.wait_for(lambda s: "Onset for" in s, "the onset dialog")
        app.keys("2.5", "Enter")
        app.wait_for(lambda s: "Onset for" not in s and "(saving" in s, "the row saving")
        app.keys("?")
        app.wait_for(lambda s: "remap by id" in s, "the help screen")
        app.keys("Escape")
        screen = app.wait_for(lambda s: "remap by id" not in s, "help closed")
        assert "(saving" in screen  # still stopped: nothing answered
    app.wait_for(lambda s: "(saving" not in s and "2.5" in s, "the onset saved", 120)
    store = RedisSessionService(redis_server.url, user="ana").get(session)
    onsets = {sid: (store.picks_ns.get(sid) or {}).get("onset") for sid in ("a:1", "b:2")}
    assert sorted(onsets.values(), key=str) == [2.5, None]
    assert _journaled(store, "a:1") + _journaled(store, "b:2") == before + 1  # once
    app.keys("q")
    app.wait_exit()
