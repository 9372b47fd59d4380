"""The key hints line (one widget in place of Textual's Footer): what it shows, that it
follows the bindings, and that a click on a key presses it."""

from __future__ import annotations

from textual.geometry import Offset

from foley_tui.widgets.key_hints import Hint, KeyHints
from tests.ui.conftest import IDS, SIZE, Session, ready


def _hint(hints: KeyHints, key: str) -> Hint:
    """The key as the widget last drew it (its own render, not one the test asks for)."""
    return next(h for h in hints.hints if h.key == key)


def _shown(hints: KeyHints) -> str:
    return hints.render().plain  # type: ignore[union-attr]


async def test_the_hints_show_each_action_once_and_the_palette_at_the_right(
    session: Session,
) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        hints = screen.query_one(KeyHints)
        line = _shown(hints)
        assert line.startswith("space Play p Pick x Reject u Undo o Onset / Filter ? Help q Quit")
        assert line.endswith("▏^p palette") and len(line) == SIZE[0]
        # The screen shows it in the first frame: no later mount of one widget per key.
        assert not list(screen.query("FooterKey"))


async def test_undo_is_dim_until_there_is_something_to_undo(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        hints = screen.query_one(KeyHints)
        assert not _hint(hints, "u").enabled
        await pilot.press("p")
        await ready(pilot)
        await pilot.pause()
        assert _hint(hints, "u").enabled  # the bindings changed: the same widget repainted


async def test_a_click_on_a_key_presses_it(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        hints = screen.query_one(KeyHints)
        pick = _hint(hints, "p")
        assert hints.hint_at(pick.start) == pick and hints.hint_at(pick.end) != pick
        await pilot.click(KeyHints, offset=Offset(pick.start + 1, 0))
        await ready(pilot)
        assert session.pick_file(IDS[0]) is not None


async def test_a_narrow_terminal_keeps_the_palette_key(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=(50, 20)) as pilot:
        screen = await ready(pilot)
        hints = screen.query_one(KeyHints)
        line = _shown(hints)
        assert len(line) == 50 and line.endswith("▏^p palette")
        assert line.startswith("space Play p Pick")
        # Only keys drawn whole can be clicked.
        assert all(h.end <= 50 for h in hints.hints)
