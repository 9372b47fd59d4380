"""SVG snapshots of the spectrogram pane (``w``) at 80x24 and 160x40, on the seeded
session, with a sound that has a lead-in (the tone of its second half).

Regenerate with ``pytest tests/ui/test_spectrogram_snapshots.py --snapshot-update`` and
look at the SVGs under ``__snapshots__/`` before committing them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.ui.conftest import Session
from tests.ui.test_snapshots import steps
from tests.ui.test_transport import lead_in

Compare = Callable[..., bool]


@pytest.mark.parametrize("size", [(80, 24), (160, 40)], ids=["80x24", "160x40"])
def test_spectrogram_pane(snap_compare: Compare, session: Session, size: tuple[int, int]) -> None:
    lead_in(session, 0, silence_s=0.5)
    assert snap_compare(session.app(), terminal_size=size, run_before=steps("w"))
