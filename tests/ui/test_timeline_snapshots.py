"""SVG snapshots of the demo's timeline at 80x24 and 160x40 (regenerate with
``pytest tests/ui/test_timeline_snapshots.py --snapshot-update`` and look at them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from foley_tui.app.foley_app import FoleyApp
from foley_tui.config import Config
from foley_tui.demo import build as demo
from foley_tui.screens.timeline.screen import TimelineScreen
from foley_tui.store import SessionService
from tests.fakes import FakePlayer
from tests.ui.conftest import settle

Compare = Callable[..., bool]


def _demo_app(data_dir: Path) -> FoleyApp:
    session_id = demo.build_demo(data_dir)
    service = SessionService(data_dir)
    return FoleyApp(service.get(session_id), FakePlayer(), Config(), service)


def _keys(*keys: str) -> Callable[[Pilot[Any]], Any]:
    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("t")
        for _ in range(200):  # the picks are read in a worker, then the timeline opens
            await pilot.pause(0.01)
            if isinstance(pilot.app.screen, TimelineScreen):
                break
        if keys:
            await pilot.press(*keys)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run


def test_timeline_80x24(snap_compare: Compare, data_dir: Path) -> None:
    assert snap_compare(_demo_app(data_dir), terminal_size=(80, 24), run_before=_keys())


def test_timeline_160x40_zoomed_out_on_the_door(snap_compare: Compare, data_dir: Path) -> None:
    keys = ("<", "right", "right", "right")
    assert snap_compare(_demo_app(data_dir), terminal_size=(160, 40), run_before=_keys(*keys))
