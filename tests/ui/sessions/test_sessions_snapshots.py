"""SVG snapshots of the sessions screen (fixed sessions, fixed clock zone, 120x30)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from .host import FixedService, SessionsHost, settle

SIZE = (120, 30)


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Times are shown in local time: pin the zone so the snapshots do not depend on it."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_sessions_list(snap_compare: Any) -> None:
    app = SessionsHost(FixedService(), current="01JD8Y6F0M3R5V7X9Z1B3D5F7H")
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_delete_confirmation(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("down", "down", "d")
        await pilot.pause()

    app = SessionsHost(FixedService(), current="01JD8Y6F0M3R5V7X9Z1B3D5F7H")
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_export_error_is_shown(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        pilot.app.screen.query_one(Input).value = "/stormy-export.json"  # fake: EACCES
        await pilot.press("enter")
        await settle(pilot)

    app = SessionsHost(FixedService(), current="01JD8Y6F0M3R5V7X9Z1B3D5F7H")
    assert snap_compare(app, terminal_size=SIZE, run_before=before)
