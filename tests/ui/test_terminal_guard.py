"""The terminal guard: the text inside every strip loses its control characters where
it becomes terminal output, Textual's own sequences around it stay."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from foley_tui.app import terminal_guard
from foley_tui.app.foley_app import FoleyApp
from tests.fakes import FakePlayer
from tests.ui.conftest import Session

HOSTILE = "a\x1b]2;PWN\x07b\x1b[2J\x9b31m\u202ec\ud800d\x7f"


def test_a_strip_renders_without_control_characters() -> None:
    terminal_guard.install()
    console = Console(color_system="truecolor", force_terminal=True)
    strip = Strip([Segment(HOSTILE, Style(bold=True)), Segment(" plain\x1b[H")])
    cells = strip.cell_length
    out = strip.render(console)
    assert "PWN" in out and "\x07" not in out and "\x9b" not in out and "\u202e" not in out
    # Only the style's own sequences remain: bold on, reset.
    assert out == "\x1b[1ma]2;PWNb[2J31mc\ufffdd\x1b[0m plain[H"
    assert strip.cell_length == cells  # what was dropped took no cells
    clean = Strip([Segment("ok ✔ 日本", Style(italic=True))])
    assert clean.render(console) == "\x1b[3mok ✔ 日本\x1b[0m"


async def test_the_app_installs_the_guard_before_its_first_frame(session: Session) -> None:
    # Another test may have installed it already: take it out to see the app put it in.
    terminal_guard.uninstall()
    assert not terminal_guard.installed()
    app: FoleyApp = session.app(FakePlayer())
    assert terminal_guard.installed()
    async with app.run_test():
        pass
