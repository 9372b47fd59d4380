"""The app on a Redis session in a real terminal (tmux), another machine beside it.

Machine A runs ``foley-tui open --store redis://...`` in tmux; machine B (its own HOME and
user) uses the CLI and foley's own SessionStore on the same Redis session. Each sees the
other's decisions live, and foley's ``plan`` reads a pick made in the app.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from foley_tui.store.redis.service import RedisSessionService
from tests.e2e.test_tmux_e2e import FOLEY_TUI, Tmux
from tests.unit.store.helpers import candidate

from .server import RedisServer

CANDIDATES = [
    ("freesound:1", "rain on a tin roof"),
    ("bbc:2", "heavy door slams shut"),
    ("sonniss:3", "distant thunder rumble"),
    ("bbc:4", "small bird chirp"),
]

FOLEY_PICKS = """
import json, sys
from foley.agent.session import SessionStore
from foley_tui.store.redis import namespaces
url, sid = sys.argv[1], sys.argv[2]
from foley.agent import verbs
store = SessionStore(sid, **namespaces(url, sid))
# foley's private seam: its CLI offers no public way to set the session factory.
verbs._configure(session_factory=lambda s: SessionStore(s, **namespaces(url, s)))
plan = sorted(i["clip_ref"] for i in verbs.foley_plan(sid)["items"])
print(json.dumps({"picks": sorted(store.list_picks(), key=lambda p: p["sound_id"]),
                  "plan": plan}))
"""


def machine_b(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "machine-b"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "FOLEY_DATA_DIR": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "FOLEY_TUI_USER": "ben",
    }


def test_app_and_another_machine_share_a_redis_session(
    tmp_path: Path, redis_server: RedisServer, tmux: Callable[[], Tmux]
) -> None:
    url = redis_server.url
    service = RedisSessionService(url, user="ana")
    session_id = service.create("Storm scene")
    service.get(session_id).cache_candidates(
        [candidate(sid, caption=caption) for sid, caption in CANDIDATES]
    )
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", FOLEY_TUI_USER="ana")
    app = tmux()
    app.start([str(FOLEY_TUI), "open", "Storm scene", "--no-audio", "--store", url], env)
    app.wait_for(lambda s: "Storm scene" in s and "small bird chirp" in s, "the list")
    app.wait_for(lambda s: "✔ 0" in s, "the status line")

    # Machine B picks through the CLI: the app shows it without a keypress.
    b_env = machine_b(tmp_path)
    done = subprocess.run(
        [str(FOLEY_TUI), "pick", session_id, "sonniss:3", "--layer", "music", "--store", url],
        env=b_env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    app.wait_for(lambda s: "✔ 1" in s, "machine B's pick on machine A's screen")

    # A picks in the app (row 2); B's CLI, foley's own SessionStore on our namespaces and
    # foley's plan read it.
    app.keys("j", "p")
    app.wait_for(lambda s: "✔ 2" in s, "the app's own pick")
    done = subprocess.run(
        [str(FOLEY_TUI), "picks", session_id, "--json", "--store", url],
        env=b_env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p["sound_id"] for p in json.loads(done.stdout)) == ["bbc:2", "sonniss:3"]
    foley = subprocess.run(
        [sys.executable, "-c", FOLEY_PICKS, url, session_id],
        env=b_env,
        capture_output=True,
        text=True,
    )
    assert foley.returncode == 0, foley.stderr
    assert json.loads(foley.stdout) == {
        "picks": [
            {"sound_id": "bbc:2", "layer": None, "onset": None},
            {"sound_id": "sonniss:3", "layer": "music", "onset": None},
        ],
        "plan": ["bbc:2", "sonniss:3"],
    }
    # The server goes away: the screen stays and says so, on the status line too (the
    # notice fades, the field stays while it is down); a decision is refused.
    redis_server.kill()
    app.wait_for(lambda s: "Store unreachable" in s, "the outage on screen")
    app.wait_for(lambda s: "✔ 2" in _status(s) and "⚠ Redis down" in _status(s), "status")
    app.keys("j", "p")
    # The refusal's own words: the outage notice already says "unreachable", and a
    # pick still being tried when the server is back lands (the journal would then
    # hold it).
    app.wait_for(lambda s: "Not saved" in s and "✔ 2" in s, "the refused pick")
    # It comes back (AOF replayed): the app reconnects by itself and follows again.
    redis_server.start()
    app.wait_for(lambda s: "Store back" in s, "the store back on screen")
    app.wait_for(lambda s: "Redis down" not in _status(s), "the status line cleared")
    done = subprocess.run(
        [str(FOLEY_TUI), "pick", session_id, "bbc:4", "--store", url],
        env=b_env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    app.wait_for(lambda s: "✔ 3" in s, "machine B's pick after the restart")
    app.keys("q")
    app.wait_exit()
    store = RedisSessionService(url).get(session_id)
    # The journal says who decided what (the pick refused during the outage left nothing).
    assert [(e.author, e.sound_id) for e in store.journal()] == [
        ("ben", "sonniss:3"),
        ("ana", "bbc:2"),
        ("ben", "bbc:4"),
    ]


def _status(screen: str) -> str:
    """The status line: the line above the footer (the last non-blank line)."""
    lines = [line for line in screen.splitlines() if line.strip()]
    return lines[-2] if len(lines) >= 2 else ""
