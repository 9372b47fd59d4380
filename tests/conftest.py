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
