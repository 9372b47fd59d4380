"""Running a command through Textual's command palette from a Pilot test.

The palette searches its providers in workers: the list fills in, and is re-ranked,
some time after the keys. A fixed pause before Enter is a race on a loaded machine (Enter
with nothing highlighted only highlights, or runs another command), so this waits until
the command wanted is the one highlighted."""

from __future__ import annotations

from typing import Any

from textual.command import CommandInput, CommandList, CommandPalette
from textual.pilot import Pilot


async def palette_run(pilot: Pilot[Any], typed: str, expected: str) -> CommandPalette:
    """Open the palette, type ``typed``, wait until the highlighted command's text
    contains ``expected``, press Enter; returns the palette (closed by then or closing)."""
    await pilot.press("ctrl+p")
    palette = await _until(pilot, lambda: _open_palette(pilot), "the command palette opened")
    await _until(pilot, lambda: palette.query_one(CommandInput).has_focus, "its input focused")
    await pilot.press(*typed)
    await _until(pilot, lambda: _highlighted(palette) is not None, f"a command for {typed!r}")
    found = await _until(
        pilot,
        lambda: expected in (_highlighted(palette) or ""),
        f"{expected!r} highlighted (last: {_highlighted(palette)!r})",
    )
    assert found
    await pilot.press("enter")
    return palette


def _open_palette(pilot: Pilot[Any]) -> CommandPalette | None:
    screen = pilot.app.screen
    return screen if isinstance(screen, CommandPalette) else None


def _highlighted(palette: CommandPalette) -> str | None:
    commands = palette.query_one(CommandList)
    index = commands.highlighted
    if index is None or index >= commands.option_count:
        return None
    return str(commands.get_option_at_index(index).prompt)


async def _until(pilot: Pilot[Any], check: Any, what: str) -> Any:
    for _ in range(600):
        value = check()
        if value:
            return value
        await pilot.pause(0.05)
    raise AssertionError(f"never: {what}")
