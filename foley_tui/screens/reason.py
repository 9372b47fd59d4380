"""RejectReasonScreen: reject with a preset reason or free text (fed to foley's refine)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList

from foley_tui import keymap

PRESET_REASONS: tuple[str, ...] = (
    "wrong sound",
    "too noisy",
    "too long",
    "too short",
    "poor quality",
    "wrong mood",
    "licence not usable",
)


class RejectReasonScreen(ModalScreen[str | None]):
    """Pick a preset (↑/↓, Enter) or type a reason (Tab to the input, Enter)."""

    BINDINGS = keymap.bindings("dialog")

    def __init__(self, caption: str) -> None:
        super().__init__()
        self.caption = caption

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="modal-dialog"):
            title = Content.from_markup("Reject [b]$c[/b] because…", c=self.caption)
            yield Label(title, id="title")
            yield OptionList(*PRESET_REASONS, id="presets")
            yield Input(placeholder="or type a reason, Enter", id="reason-input")
            yield Label("", id="error", classes="error")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(str(event.option.prompt))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = event.value.strip()
        if not reason:
            self.query_one("#error", Label).update("type a reason or pick one above")
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)
