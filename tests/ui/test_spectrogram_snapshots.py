"""SVG snapshots of the spectrogram pane (``w``) at 80x24 and 160x40, on the seeded
session, with a sound that has a lead-in (the tone of its second half).

Regenerate with ``pytest tests/ui/test_spectrogram_snapshots.py --snapshot-update`` and
look at the SVGs under ``__snapshots__/`` before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from foley_tui.widgets.spectrogram import Spectrogram
from tests.fakes import FakePlayer
from tests.ui.conftest import Session, ready, settle
from tests.ui.test_snapshots import steps
from tests.ui.test_transport import lead_in

Compare = Callable[..., bool]


@pytest.mark.parametrize("size", [(80, 24), (160, 40)], ids=["80x24", "160x40"])
def test_spectrogram_pane(snap_compare: Compare, session: Session, size: tuple[int, int]) -> None:
    lead_in(session, 0, silence_s=0.5)
    assert snap_compare(session.app(), terminal_size=size, run_before=steps("w"))


async def _spectrogram_lines(session: Session, size: tuple[int, int], resize_to: Any) -> Any:
    """The spectrogram pane's drawn lines (text and colours) once its grid is computed,
    opened at ``size`` (then resized to ``resize_to``, if given)."""
    app = session.app(FakePlayer())
    async with app.run_test(size=size) as pilot:
        screen = await ready(pilot)
        if not screen.model.view.spectrogram:  # the view is kept from the last run
            await pilot.press("w")
        await settle(pilot)
        assert screen.model.view.spectrogram
        if resize_to is not None:
            await pilot.resize_terminal(*resize_to)
            await settle(pilot)
        pane = app.screen.query_one(Spectrogram)
        for _ in range(100):
            if pane.has_levels and pane.grid_shown == pane.grid_wanted():
                break
            await settle(pilot)
        assert pane.has_levels and pane.grid_shown == pane.grid_wanted()
        assert pane.grid_shown[0] == pane.size.width
        return [list(pane.render_line(y)) for y in range(pane.size.height)]


async def test_a_resize_computes_the_grid_for_the_new_size(session: Session) -> None:
    """Opened at 80x24 and widened to 160x40, the pane draws what it draws when opened
    at 160x40 (computed for its width, not the narrow grid stretched); and back."""
    lead_in(session, 0, silence_s=0.5)
    wide = await _spectrogram_lines(session, (160, 40), None)
    assert await _spectrogram_lines(session, (80, 24), (160, 40)) == wide
    narrow = await _spectrogram_lines(session, (80, 24), None)
    assert await _spectrogram_lines(session, (160, 40), (80, 24)) == narrow
