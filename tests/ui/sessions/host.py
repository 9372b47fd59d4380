"""A tiny host app for the sessions screen, and a fixed fake service for snapshots."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot

from foley_tui.screens.sessions import SessionsBackend, SessionsScreen
from foley_tui.store import SessionInfo


class SessionsHost(App[None]):
    """Pushes a SessionsScreen on mount and records what it dismissed with."""

    def __init__(self, service: SessionsBackend, current: str | None = None) -> None:
        super().__init__()
        self.service = service
        self.current = current
        self.results: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(
            SessionsScreen(self.service, current=self.current, location="/data/foley"),
            self.results.append,
        )


async def settle(pilot: Pilot[Any]) -> None:
    """Let the screen's workers finish and their results land on the main thread."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def _at(day: int, hour: int, minute: int) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC)


FIXED_SESSIONS = (
    SessionInfo("default", None, _at(20, 9, 12), _at(21, 17, 40), 3, 1, 128, made_by_foley=True),
    SessionInfo(
        "01JD8Y6F0M3R5V7X9Z1B3D5F7H",
        "Demo: a stormy night",
        _at(28, 21, 14),
        _at(29, 8, 2),
        2,
        1,
        25,
        made_by_foley=False,
    ),
    SessionInfo(
        "01JDB2K4M6P8R0T2V4X6Z8B0D2",
        "Podcast ep. 12 - the lighthouse",
        _at(29, 10, 30),
        _at(30, 7, 5),
        14,
        37,
        1204,
        made_by_foley=False,
    ),
)


class FixedService:
    """A fake SessionService with fixed ids and times, so snapshots are stable."""

    def __init__(self, sessions: tuple[SessionInfo, ...] = FIXED_SESSIONS) -> None:
        self.sessions = list(sessions)
        self.data_dir: Path | None = None  # in memory: no library registry to read

    def list(self) -> list[SessionInfo]:
        return list(self.sessions)

    def create(self, title: str | None = None) -> str:
        raise AssertionError("not used in snapshots")

    def rename(self, session_id: str, title: str) -> None:
        self.sessions = [
            replace(s, title=title) if s.session_id == session_id else s for s in self.sessions
        ]

    def delete(self, session_id: str) -> None:
        self.sessions = [s for s in self.sessions if s.session_id != session_id]

    def export_to_file(self, session_id: str, path: Path) -> Path:
        raise PermissionError(f"[Errno 13] Permission denied: '{path}'")

    def import_from_file(
        self, path: Path, *, overwrite: bool = False, as_copy: bool = False
    ) -> str:
        raise AssertionError("not used in snapshots")

    @property
    def delete_outcome(self) -> str:
        return "Its folder goes to the Trash: restore it from a file manager."
