"""KeyHints: the screen's keys on one line, as one widget.

What Textual's ``Footer`` shows (each action's first key and description, keys whose
``check_action`` says no dimmed, the command palette's key at the right), drawn by one
widget instead of a container of one widget per key. ``Footer`` mounts its keys only once
the screen has published its bindings and re-mounts them all on every bindings change; that
cost a few tens of milliseconds of the first paint and of each change of undo availability.
Here a bindings change is one repaint. A click on a key presses it, as with ``Footer``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.screen import Screen
from textual.widget import Widget

Entry = tuple[str, str, str, bool]
"""A key as the bindings give it: (key, key display, description, enabled)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """One key as shown: where it is on the line, and what a click on it presses."""

    key: str
    start: int
    end: int
    enabled: bool


class KeyHints(Widget, can_focus=False):
    """The screen's keys on one line (see the module docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-hints--key",
        "key-hints--description",
        "key-hints--disabled",
        "key-hints--separator",
    }
    DEFAULT_CSS = """
    KeyHints {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
    }
    KeyHints > .key-hints--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyHints > .key-hints--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    KeyHints > .key-hints--disabled {
        text-style: dim;
    }
    KeyHints > .key-hints--separator {
        color: $foreground 20%;
    }
    """

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        """``compact``: one space between a key and its description (else a padded key)."""
        super().__init__(id=id)
        self.compact = compact
        self.hints: tuple[Hint, ...] = ()
        """The keys drawn by the last render, for clicks (and tests)."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        self.refresh()

    def _entries(self) -> tuple[list[Entry], Entry | None]:
        """(key, key display, description, enabled) for each shown action, first key of
        each; and the command palette's when the app has one."""
        app = self.app
        active = self.screen.active_bindings
        palette_key = app.COMMAND_PALETTE_BINDING if app.ENABLE_COMMAND_PALETTE else None
        entries: dict[str, Entry] = {}
        for key, (_node, binding, enabled, _tooltip) in active.items():
            if not binding.show or key == palette_key or binding.action in entries:
                continue
            entries[binding.action] = (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                enabled,
            )
        palette = None
        if palette_key is not None and palette_key in active:
            _node, binding, enabled, _tooltip = active[palette_key]
            palette = (binding.key, app.get_key_display(binding), binding.description, enabled)
        return list(entries.values()), palette

    def render(self) -> RenderResult:
        key_style = self.get_component_rich_style("key-hints--key")
        text_style = self.get_component_rich_style("key-hints--description")
        dim = self.get_component_rich_style("key-hints--disabled", partial=True)
        entries, palette = self._entries()
        line = Text(no_wrap=True, overflow="crop", end="")
        hints: list[Hint] = []

        def add(key: str, shown: str, description: str, enabled: bool) -> None:
            start = line.cell_len
            extra = Style() if enabled else dim
            label = shown if self.compact else f" {shown} "
            line.append(label, key_style + extra)
            if description:
                label = f" {description}" if self.compact else f"{description} "
                line.append(label, text_style + extra)
            hints.append(Hint(key, start, line.cell_len, enabled))

        for index, (key, shown, description, enabled) in enumerate(entries):
            if index and self.compact:
                line.append(" ")
            add(key, shown, description, enabled)
        if palette is not None:
            key, shown, description, enabled = palette
            tail = Text(no_wrap=True, end="")
            tail.append("▏", self.get_component_rich_style("key-hints--separator"))
            tail.append(shown, key_style)
            tail.append(f" {description}" if self.compact else f" {description} ", text_style)
            if not enabled:
                tail.stylize(dim, 1)
            width = self.size.width
            room = width - tail.cell_len
            if room > 0:
                if line.cell_len > room:
                    line.truncate(room)
                    hints = [h for h in hints if h.end <= room]
                else:
                    line.append(" " * (room - line.cell_len))
                start = line.cell_len
                line.append_text(tail)
                hints.append(Hint(key, start + 1, line.cell_len, enabled))
        self.hints = tuple(hints)
        return line

    def hint_at(self, x: int) -> Hint | None:
        """The key drawn at column ``x``, if any."""
        return next((h for h in self.hints if h.start <= x < h.end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        hint = self.hint_at(event.x)
        if hint is None:
            return
        event.stop()
        if hint.enabled:
            self.app.simulate_key(hint.key)
        else:
            self.app.bell()
