"""``q`` when the cursor cannot be saved (a full disk): the app still quits, and says so
on the terminal after it (``FoleyApp.exit_notes``, printed by ``foley-tui open``)."""

from __future__ import annotations

import errno

import pytest

from foley_tui.store import StoreWriteError
from foley_tui.store.meta import MetaDocument
from tests.ui.conftest import SIZE, Session, ready


async def test_q_on_a_full_disk_says_the_cursor_was_not_saved(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)

        def full(self: MetaDocument, *, durable: bool = True) -> None:
            raise StoreWriteError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(MetaDocument, "write", full)
        await pilot.press("j", "j")
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running
    assert any("Cursor not saved" in n and "No space left" in n for n in app.exit_notes)
