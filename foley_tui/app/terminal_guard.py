"""The one boundary where text becomes terminal output: no control character inside any
widget's text ever reaches the terminal.

Session data (captions, tags, ids, licences, onsets, reasons, titles) comes from other
machines and tools, and reaches the screen through many widgets: the list, the details
pane, the status line, the timeline, dialogs, notifications. Each escaping its own text
is a rule some widget forgets; an ``ESC ] 2 ; … BEL`` in a caption then retitles the
terminal and an ``ESC [ 2 J`` clears it. Every renderable of every widget becomes
Textual :class:`~textual.strip.Strip` s, and a strip's text is turned into terminal
sequences in one place, :meth:`Strip.render`, which writes the style codes *around*
each segment's text. :func:`install` makes that method drop every C0/C1 control, DEL and
bidirectional override from the text of a segment first (each is zero cells wide, so
the layout already computed holds; a lone surrogate becomes U+FFFD). Textual's own
sequences (styles, cursor moves, its control segments) are untouched.

Widgets that show session text still spell its escapes visibly where it helps the user
see what is in the data (:func:`foley_tui.terminal.escape_controls`); this guard is what
makes forgetting to do so harmless.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual.strip import Strip

from foley_tui.terminal import drop_controls

_render = Strip.render


def _guarded_render(self: Strip, console: Any) -> str:
    if self._render_cache is None:
        segments = self._segments
        for index, segment in enumerate(segments):
            text = segment.text
            # isprintable is one C pass and False for every character we drop; most
            # segments take only this check.
            if segment.control is None and not text.isprintable():
                clean = drop_controls(text)
                if clean != text:
                    segments[index] = Segment(clean, segment.style)
    return _render(self, console)


def install() -> None:
    """Guard every strip's text from now on (idempotent; the app calls it at start)."""
    if Strip.render is not _guarded_render:
        Strip.render = _guarded_render  # type: ignore[method-assign]


def uninstall() -> None:
    """Render strips as Textual does again (idempotent)."""
    Strip.render = _render  # type: ignore[method-assign]


def installed() -> bool:
    return Strip.render is _guarded_render
