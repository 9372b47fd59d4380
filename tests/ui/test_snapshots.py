"""SVG snapshots of the screens that matter, at fixed sizes, on a fixed seeded session.

Regenerate with ``pytest tests/ui/test_snapshots.py --snapshot-update`` and look at the
SVGs under ``__snapshots__/`` before committing them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, Session, ready, settle

Compare = Callable[..., bool]


def steps(*keys: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Wait for the session to load, press ``keys``, then wait for workers (peaks...)."""

    async def run(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        if keys:
            await pilot.press(*keys)
        await settle(pilot)
        for widget in pilot.app.screen.query(Input):
            widget.cursor_blink = False  # a blinking cursor makes snapshots flaky
        await pilot.pause()

    return run


def decide(session: Session) -> None:
    store = session.service.get(session.session_id)
    store.add_pick(IDS[0], layer="ambience", onset=0.0)
    store.add_pick(IDS[1], layer="sfx_fg", onset=12.5)
    store.add_reject(IDS[2], reason="too noisy")
    store.add_pick(IDS[4], layer="voice", onset=62.25)
    store.add_reject(IDS[5])
    store.add_pick(IDS[7], layer="stinger", onset=None)  # the generated one (has a cost)


def test_populated_list(snap_compare: Compare, session: Session) -> None:
    assert snap_compare(session.app(), terminal_size=(120, 30), run_before=steps())


def test_picked_and_rejected_with_layers_and_onsets(
    snap_compare: Compare, session: Session
) -> None:
    decide(session)
    assert snap_compare(session.app(), terminal_size=(120, 30), run_before=steps("j"))


def test_active_filter(snap_compare: Compare, session: Session) -> None:
    decide(session)
    app = session.app()
    assert snap_compare(app, terminal_size=(120, 30), run_before=steps("slash", *"door"))


def test_onset_modal(snap_compare: Compare, session: Session) -> None:
    decide(session)
    assert snap_compare(session.app(), terminal_size=(120, 30), run_before=steps("j", "o"))


def test_reject_reason_modal(snap_compare: Compare, session: Session) -> None:
    assert snap_compare(session.app(), terminal_size=(120, 30), run_before=steps("X"))


def test_help(snap_compare: Compare, session: Session) -> None:
    assert snap_compare(session.app(), terminal_size=(120, 40), run_before=steps("f1"))


def test_no_audio_notice(snap_compare: Compare, session: Session) -> None:
    player = FakePlayer(
        available=False,
        device_name="no audio: PortAudio library not found",
        unavailable_reason="PortAudio library not found",
    )
    assert snap_compare(session.app(player), terminal_size=(120, 30), run_before=steps())


def test_80x24(snap_compare: Compare, session: Session) -> None:
    decide(session)
    assert snap_compare(session.app(), terminal_size=(80, 24), run_before=steps("j", "j"))
