"""Fixtures for the UI tests: a seeded file-backed session, a fake player, a ready app."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from foley_tui.app.foley_app import FoleyApp
from foley_tui.audio.base import Player
from foley_tui.config import Config, Settings
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.store import SessionService, encode_key
from tests.fakes import FakePlayer
from tests.ui.seed import seed_session

SIZE = (120, 30)

# Row order of the seeded session (rank = seeded mtime order).
IDS = [
    "freesound:1000",
    "bbc:1001",
    "freesound:1002",
    "sonniss:1003",
    "freesound:1004",
    "bbc:1005",
    "freesound:1006",
    "elevenlabs:1007",
    "freesound:1008",
    "sonniss:1009",
    "freesound:1010",
    "bbc:1011",
]


class Session:
    """A seeded session on disk plus helpers to read its foley files back."""

    def __init__(self, data_dir: Path, service: SessionService, session_id: str) -> None:
        self.data_dir = data_dir
        self.service = service
        self.session_id = session_id
        self.apps: list[FoleyApp] = []
        self.folder = data_dir / "sessions" / session_id

    def pick_file(self, sound_id: str) -> dict[str, Any] | None:
        return self._read("picks", sound_id)

    def reject_file(self, sound_id: str) -> dict[str, Any] | None:
        return self._read("rejects", sound_id)

    def written(self) -> None:
        """Block until every app made here has written what its keys decided. A worker
        writes decisions; a test reads the files right after the keys, and on a loaded
        machine the worker may still be at it (the loop need not run: the worker writes
        without it)."""
        for app in self.apps:
            screen = app.audition
            for _ in range(6000):
                if screen is None or not screen.writer.writing:
                    break
                time.sleep(0.01)

    def _read(self, namespace: str, sound_id: str) -> dict[str, Any] | None:
        self.written()
        path = self.folder / namespace / encode_key(sound_id)
        if not path.exists():
            return None
        data: dict[str, Any] = json.loads(path.read_text())
        return data

    def picks(self) -> dict[str, dict[str, Any]]:
        return self._all("picks")

    def rejects(self) -> dict[str, dict[str, Any]]:
        return self._all("rejects")

    def _all(self, namespace: str) -> dict[str, dict[str, Any]]:
        self.written()
        folder = self.folder / namespace
        if not folder.exists():
            return {}
        entries = [
            json.loads(p.read_text()) for p in folder.iterdir() if not p.name.startswith(".")
        ]
        return {entry["sound_id"]: entry for entry in entries}

    def app(
        self,
        player: Player | None = None,
        settings: Settings | None = None,
        keymap: dict[str, str] | None = None,
    ) -> FoleyApp:
        config = Config(keymap=keymap or {}, settings=settings or Settings())
        app = FoleyApp(
            self.service.get(self.session_id), player or FakePlayer(), config, self.service
        )
        self.apps.append(app)
        return app


@pytest.fixture
def session(data_dir: Path) -> Session:
    service, session_id = seed_session(data_dir)
    return Session(data_dir, service, session_id)


async def wait_workers(app: App[Any]) -> None:
    """Wait for every worker; an exclusive worker (prefetch, waveform) replaced by a newer
    one ends cancelled, which ``wait_for_complete`` reports by raising: expected here."""
    for _ in range(10):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        return


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until loading, details and waveform work and every decision written by the
    screen's writer are done (the poll may still tick)."""
    app = pilot.app
    for _ in range(100):
        await pilot.pause()
        await wait_workers(app)
        await pilot.pause()
        screen = app.audition  # type: ignore[attr-defined]
        busy = any(w.is_running and w.group != "poll" for w in app.workers)
        if screen is None or busy:
            continue
        if (
            screen.model.loaded
            and not screen.previewer.details_pending
            and screen.writer.outstanding == 0  # every decision's outcome applied
        ):
            return


async def ready(pilot: Pilot[Any]) -> AuditionScreen:
    """Wait until the session is listed and every column is loaded."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, AuditionScreen)
    return screen


def current(app: FoleyApp) -> str | None:
    screen = app.audition
    assert screen is not None
    return screen.current_id


@pytest.fixture
def notifications(monkeypatch: pytest.MonkeyPatch) -> Callable[[FoleyApp], list[str]]:
    """What each app said through ``notify`` (``"title: message"``), in order: every
    widget's and screen's notice goes through the app's."""
    said: dict[int, list[str]] = {}
    real = FoleyApp.notify

    def recording(self: FoleyApp, message: str, *, title: str = "", **options: Any) -> None:
        said.setdefault(id(self), []).append(f"{title}: {message}")
        real(self, message, title=title, **options)

    monkeypatch.setattr(FoleyApp, "notify", recording)
    return lambda app: list(said.get(id(app), []))
