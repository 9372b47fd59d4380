"""Shared fixtures. Every test runs with its own data dir, HOME and XDG dirs, so the
developer's own sessions and config are never read or written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests check what is true, not how fast: hypothesis's default 200 ms deadline
# per example is a wall-clock limit that a loaded CI machine misses (timings belong to
# tests/bench/).
settings.register_profile("foley-tui", deadline=None)
settings.load_profile("foley-tui")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point FOLEY_DATA_DIR, HOME and the XDG dirs at a temp folder; yield the data dir."""
    home = tmp_path / "home"
    data = tmp_path / "foley-data"
    for folder in (home, data):
        folder.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("FOLEY_DATA_DIR", str(data))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    # A terminal size inherited from the developer's shell would pin apps started in
    # tmux (and Rich consoles) to it, whatever the pane size.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    yield data


@pytest.fixture
def data_dir(isolated_env: Path) -> Path:
    """The isolated foley data dir of this test."""
    return isolated_env


#: Pauses of the event loop a key's decisions may take to be written (a generous bound
#: on a state, not a clock: each pause is a turn of the loop plus a few milliseconds).
DECISION_PAUSES = 20_000


@pytest.fixture(autouse=True)
def keys_wait_for_their_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pilot.press`` returns once the decisions its keys made are written and shown.

    The audition writes decisions in a worker (the UI thread never waits for the store),
    so a key's effect on files and rows comes after the key; a test reading them right
    after ``press`` waits for that state here, as a user waits for the row's
    "saving…" to go. Tests of the in-between state send keys without ``press``."""
    from textual.pilot import Pilot

    real = Pilot.press

    async def press(self: Pilot[object], *keys: str) -> None:
        await real(self, *keys)
        await decisions_written(self)

    monkeypatch.setattr(Pilot, "press", press)


async def decisions_written(pilot: object) -> None:
    """Wait until no audition screen of the pilot's app has a decision outstanding."""
    import asyncio

    from foley_tui.screens.audition.screen import AuditionScreen

    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(DECISION_PAUSES):
        busy = [
            s for s in app.screen_stack if isinstance(s, AuditionScreen) and s.writer.outstanding
        ]
        if not busy or not app.is_running:
            return
        await pilot.pause()  # type: ignore[attr-defined]
        await asyncio.sleep(0.002)
    raise AssertionError("a decision was never written (its worker did not answer)")
