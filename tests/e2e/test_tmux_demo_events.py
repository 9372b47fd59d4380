"""The demo in a real terminal shows its scene events with progress, and `e` walks them.

End to end: `foley-tui demo` on a fresh HOME, in tmux, lists the nine
events of the demo scene as header rows ("suggests LAYER at ONSET · N of M picked"), and
each `e` moves the cursor to the next event: the details pane names its query.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foley_tui.demo import build as demo

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"
#: A bound for a stuck app, not a target (no wall-clock figure is asserted here).
PATIENCE_S = 60.0
HEADER = re.compile(r"suggests \S+ at .+? · (\d+) of (\d+) picked")
DETAILS_EVENT = re.compile(r"^\s*event\s+(.+?)\s*$")
QUERIES = sorted({s.event["query"] for s in demo.SOUNDS})


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    """A private tmux server (own socket, no user config), killed afterwards."""
    binary = shutil.which("tmux")
    if binary is None:
        if os.environ.get("FOLEY_TUI_REQUIRE_TMUX") == "1":
            pytest.fail("tmux is required here (FOLEY_TUI_REQUIRE_TMUX=1) but not installed")
        pytest.skip("tmux is not installed")
    base = [binary, "-L", f"foley-tui-events-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]
    yield base
    subprocess.run([*base, "kill-server"], capture_output=True, timeout=10)


def _screen(tmux: list[str]) -> str:
    return subprocess.run(
        [*tmux, "capture-pane", "-p", "-t", "demo"], capture_output=True, text=True, timeout=10
    ).stdout


def _wait(tmux: list[str], ok: Callable[[str], bool], what: str) -> str:
    """Poll the pane until ``ok``; fail loudly (with the screen) if it never comes."""
    screen = ""
    started = time.monotonic()
    while time.monotonic() - started < PATIENCE_S:
        screen = _screen(tmux)
        if ok(screen):
            return screen
        time.sleep(0.05)
    pytest.fail(f"{what} never appeared; the screen was:\n{screen}")


def _list_part(screen: str) -> list[str]:
    """Each line's list part (left of the details pane's border): the details pane may
    name an event on the same screen line as a header."""
    return [line.split("▏", 1)[0] for line in screen.splitlines()]


def _details_event(screen: str) -> str | None:
    """The query in the details pane's ``event`` field (right of the list's border)."""
    for line in screen.splitlines():
        if "▏" not in line:
            continue
        match = DETAILS_EVENT.match(line.split("▏", 1)[1])
        if match:
            return match.group(1)
    return None


def test_the_demo_lists_its_nine_events_with_progress_and_e_walks_them(
    tmp_path: Path, tmux: list[str]
) -> None:
    assert len(QUERIES) == 9  # the demo scene's events
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "FOLEY_DATA_DIR" and "XDG" not in k}
    env.update(HOME=str(home), TERM="xterm-256color", LANG="C.UTF-8")
    command = f"exec {FOLEY_TUI} demo --no-audio"
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "demo", "-x", "180", "-y", "60", command],
        env=env,
        check=True,
        timeout=10,
    )
    try:
        screen = _wait(
            tmux,
            lambda s: (
                len(HEADER.findall("\n".join(_list_part(s)))) == 9 and _details_event(s) is not None
            ),
            "the nine event headers and the details of the first candidate",
        )
        headers = [line for line in _list_part(screen) if HEADER.search(line)]
        for query in QUERIES:
            assert sum(query[:24] in line for line in headers) == 1, (query, headers)
        # Progress counts the demo's starting picks: some events already have one.
        progress = [tuple(map(int, m)) for m in HEADER.findall("\n".join(headers))]
        assert sum(total for _, total in progress) == len(demo.SOUNDS)
        assert any(picked for picked, _ in progress)

        # From the first candidate (the saved cursor may be anywhere): its event is the
        # first header in the list.
        first_query = next(q for q in QUERIES if q[:24] in headers[0])
        subprocess.run([*tmux, "send-keys", "-t", "demo", "g"], check=True, timeout=10)
        screen = _wait(
            tmux,
            lambda s: first_query.startswith(_details_event(s) or "\0"),
            f"the first event ({first_query!r}) in the details after g",
        )
        seen = [_details_event(screen)]
        for _ in range(8):
            before = seen[-1]
            subprocess.run([*tmux, "send-keys", "-t", "demo", "e"], check=True, timeout=10)

            def moved(s: str, before: str | None = before) -> bool:
                return _details_event(s) not in (None, before)

            screen = _wait(tmux, moved, f"the next event after {before!r}")
            seen.append(_details_event(screen))
        # The details pane wraps a long query: match each shown start to its event.
        visited = {q for q in QUERIES for shown in seen if shown and q.startswith(shown)}
        assert sorted(visited) == QUERIES, seen
    finally:
        subprocess.run([*tmux, "send-keys", "-t", "demo", "q"], timeout=10)
