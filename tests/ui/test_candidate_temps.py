"""The app sweeps an interrupted add's stale temp file from candidates/ while it checks
the list (a worker, after the first paint) and says so once."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from foley_tui.app.foley_app import FoleyApp
from foley_tui.store import encode_key
from tests.ui.conftest import SIZE, Session, ready


async def test_the_app_sweeps_and_reports_a_stale_candidate_temp(
    session: Session, notifications: Callable[[FoleyApp], list[str]]
) -> None:
    folder = session.folder / "candidates"
    # Named as an atomic write of ours names its temp (store/files.py), killed mid-add.
    stale = folder / f".{encode_key('late:1')}.0badcafe.tmp"
    stale.write_text('{"sound": {"id": "late:1"')
    old = time.time() - 3600
    os.utime(stale, (old, old))
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert not stale.exists()
        await pilot.pause()  # the notice reaches the app as a message
        said = [n for n in notifications(app) if "removed a stale temp file" in n]
        assert len(said) == 1 and said[0].endswith(f"removed a stale temp file {stale}")
