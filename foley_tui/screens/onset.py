"""OnsetScreen: edit a pick's onset as seconds or ``m:ss.s``, validated before it closes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from foley_tui import keymap
from foley_tui.model import Onset, ValidationError, format_onset, parse_onset


@dataclass(frozen=True, slots=True)
class OnsetChoice:
    """The onset the user confirmed (None clears it). Cancel dismisses with None instead."""

    onset: Onset


class OnsetScreen(ModalScreen[OnsetChoice | None]):
    """A small modal with one input; Enter confirms, Escape cancels."""

    BINDINGS = keymap.bindings("dialog")

    def __init__(
        self,
        caption: str,
        onset: Onset,
        *,
        layer: str | None = None,
        loop: bool = False,
        words: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        super().__init__()
        self.caption = caption
        self.onset = onset
        self.onset_layer = layer or "sfx_fg"
        self.loop = loop
        self.words = list(words or ())

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="modal-dialog"):
            yield Label(Content.from_markup("Onset for [b]$c[/b]", c=self.caption), id="title")
            yield Label(
                "seconds (12.5), m:ss.sss or an anchor (on 'slammed'); empty clears it",
                classes="hint",
            )
            value = "" if self.onset is None else format_onset(self.onset)
            yield Input(value=value, placeholder="0:00.000", id="onset-input")
            yield Label("", id="reading", classes="hint")
            yield Label("", id="error", classes="error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._show_reading(self.query_one(Input).value)

    def _show_reading(self, text: str) -> None:
        """How foley will read what is typed (absolute seconds, or a word / sentence /
        scene anchor and, with a word timeline, where it lands)."""
        from foley_tui.scene.reading import read_onset

        try:
            onset = parse_onset(text)
        except ValidationError:
            self.query_one("#reading", Label).update("")
            return
        if onset is None:
            line = "foley reads: no onset of its own (the event's suggestion)"
        else:
            reading = read_onset(onset, layer=self.onset_layer, loop=self.loop, words=self.words)
            line = f"foley reads: {reading.summary}"
            if reading.note:
                line += f" ({reading.note})"
        self.query_one("#reading", Label).update(line)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            onset = parse_onset(event.value)
        except ValidationError as exc:
            self.query_one("#error", Label).update(str(exc))
            return
        self.dismiss(OnsetChoice(onset))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#error", Label).update("")
        self._show_reading(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
