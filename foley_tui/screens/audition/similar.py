"""SimilarScreen: the sounds most like one candidate, nearest first, with their distance.

Opened by ``=`` on the audition screen once a worker ranked the session
(:func:`foley_tui.audition.similar.find_similar`). The rows play with the usual keys
(space plays or stops, through the audition screen's previewer, so the player, its
prefetch and skip-silence are the same); Enter closes and highlights the sound in the
list; Escape (or ``=`` again) closes where the list was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from foley_tui.audition.text import cut
from foley_tui.domain import Row
from foley_tui.keys.bindings import bindings
from foley_tui.widgets.key_hints import KeyHints

if TYPE_CHECKING:
    from foley_tui.audition.similar import SimilarResult
    from foley_tui.screens.audition.preview import Previewer


def neighbour_line(distance: float, row: Row | None, sound_id: str, width: int = 48) -> Text:
    """``0.0123  caption…  2.15 s``: the distance first (the order of the list)."""
    caption = row.caption if row is not None and row.caption else sound_id
    duration = row.duration_s if row is not None else None
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{distance:6.4f}  ", style="bold cyan")
    text.append(cut(caption, width))
    if duration is not None:
        text.append(f"  {duration:.2f} s", style="dim")
    return text


class SimilarScreen(ModalScreen[str | None]):
    """The neighbours of one sound; dismissed with the sound to highlight, or None."""

    BINDINGS = bindings("similar")

    def __init__(
        self, result: SimilarResult, rows: Mapping[str, Row], previewer: Previewer
    ) -> None:
        super().__init__()
        self.result = result
        self.rows = rows
        self.previewer = previewer

    def compose(self) -> ComposeResult:
        query = self.rows.get(self.result.query)
        name = query.caption if query is not None and query.caption else self.result.query
        skipped = len(self.result.skipped)
        note = f"; {skipped} not compared (no audio here)" if skipped else ""
        with Vertical(id="similar-dialog", classes="modal-dialog"):
            yield Static(f"[b]Sounds like[/b] {cut(name, 40)}", id="title", markup=True)
            yield Static(
                f"nearest first, cosine distance; {self.result.compared} compared{note}",
                classes="hint",
            )
            options = [
                Option(
                    neighbour_line(n.distance, self.rows.get(n.sound_id), n.sound_id), n.sound_id
                )
                for n in self.result.neighbours
            ]
            if not options:
                options = [Option("no other sound to compare", disabled=True)]
            listing = OptionList(*options, id="similar-list")
            listing.can_focus = False  # the screen's keys move it (remappable by id)
            yield listing
            yield KeyHints(compact=True)

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        if self.result.neighbours:
            listing.highlighted = 0

    @property
    def highlighted(self) -> str | None:
        listing = self.query_one(OptionList)
        index = listing.highlighted
        if index is None or not self.result.neighbours:
            return None
        return listing.get_option_at_index(index).id

    def action_move(self, step: int) -> None:
        listing = self.query_one(OptionList)
        if step < 0:
            listing.action_cursor_up()
        else:
            listing.action_cursor_down()

    def action_play_stop(self) -> None:
        sound_id = self.highlighted
        if sound_id is not None:
            self.previewer.play_stop(sound_id)

    def action_go(self) -> None:
        self.dismiss(self.highlighted)

    def action_close(self) -> None:
        self.dismiss(None)
