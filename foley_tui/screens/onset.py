"""OnsetScreen: edit a pick's onset as seconds, ``m:ss.sss`` or a symbolic anchor kept
verbatim, validated before it closes; shows, live, how foley will read what is typed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from foley_tui.domain import Onset, ValidationError, format_onset, parse_onset
from foley_tui.keys.bindings import bindings
from foley_tui.scene.reading import read_onset


@dataclass(frozen=True, slots=True)
class OnsetChoice:
    """The onset the user confirmed (None clears it). Cancel dismisses with None instead."""

    onset: Onset


class OnsetScreen(ModalScreen[OnsetChoice | None]):
    """A small modal with one input; Enter confirms, Escape cancels."""

    BINDINGS = bindings("dialog")

    def __init__(
        self,
        caption: str,
        onset: Onset,
        *,
        layer: str | None = "sfx_fg",
        loop: bool = False,
        words: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """``layer`` and ``loop`` are the pick's effective ones: foley reads an anchor by
        the layer (beds span a sentence, stingers a scene boundary, others a word);
        ``words``, the narration's word timeline, says where an anchor lands."""
        super().__init__()
        self.caption = caption
        self.onset = onset
        self.mix_layer = layer or "sfx_fg"
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
        input_ = self.query_one(Input)
        input_.focus()
        self.show_reading(input_.value)

    def reading(self, text: str) -> str:
        """How foley will read ``text`` on this pick's layer (or why it is not an onset)."""
        try:
            onset = parse_onset(text)
        except ValidationError as exc:
            return f"not an onset: {exc}"
        if onset is None:
            return "foley reads: no cue (the event's onset, else the layer's default)"
        kind = "anchor, kept as typed" if isinstance(onset, str) else "number"
        reading = read_onset(onset, layer=self.mix_layer, loop=self.loop, words=self.words)
        note = f" ({reading.note})" if reading.note else ""
        return f"{kind} · foley reads: {reading.summary}{note}"

    def set_words(self, words: object) -> None:
        """The narration's word timeline, read by a worker after the dialog opened (an
        error or anything but a list: none)."""
        self.words = list(words) if isinstance(words, list) else []
        # None when not composed yet, or dismissed meanwhile (its children are gone).
        box = self.query(Input).first() if self.query(Input) else None
        if box is not None and self.query("#reading"):
            self.show_reading(box.value)

    def show_reading(self, text: str) -> None:
        self.query_one("#reading", Label).update(Content(self.reading(text)))

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
        self.show_reading(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
