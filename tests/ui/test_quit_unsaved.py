"""``q`` when the cursor cannot be saved (a full disk): the app still quits, and says so
on the terminal after it (``FoleyApp.exit_notes``, printed by ``foley-tui open``)."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

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


def test_a_shutdown_ended_by_force_still_says_why_and_what_was_not_saved(
    session: Session, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """After a hang-up the shutdown is given a grace; when it hangs past it, the process
    ends, and the reason and the unsaved notes still reach the terminal (a raw write to
    it, not through the stream a hung thread may hold)."""
    app = session.app()
    app.exit_notes.append("Cursor not saved: No space left on device")
    out = tmp_path / "terminal"
    ended: list[int] = []

    def end(code: int) -> None:
        ended.append(code)

    with out.open("w") as terminal:
        monkeypatch.setattr(sys, "__stderr__", terminal)
        monkeypatch.setattr(os, "_exit", end)
        assert os._exit is end
        app.end_hung_shutdown(129, "end of input (the null device)")
    assert ended == [129]
    assert out.read_text().splitlines() == [
        "foley-tui: Cursor not saved: No space left on device",
        "foley-tui: left: end of input (the null device)",
    ]
