"""RejectReasonScreen: reject with a preset reason or free text (fed to foley's refine)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList

from foley_tui.keys.bindings import bindings

PRESET_REASONS: tuple[str, ...] = (
    "wrong sound",
    "too noisy",
    "too long",
    "too short",
    "poor quality",
    "wrong mood",
    "licence not usable",
)


def _preset_of(text: str) -> int | None:
    """The preset a field holding one digit (``3``) names, as an index; else None."""
    text = text.strip()
    if len(text) == 1 and text.isdigit() and 1 <= int(text) <= len(PRESET_REASONS):
        return int(text) - 1
    return None


class RejectReasonScreen(ModalScreen[str | None]):
    """Type a reason at once (Enter saves what was typed), or take a preset: a digit alone
    in the field highlights that preset, as ↑/↓ do, and Enter saves the highlighted one;
    nothing is saved before Enter (a reason may start with a digit). The reason is what
    foley's agent reads (``list_rejects``)."""

    BINDINGS = bindings("dialog") + bindings("reason")

    def __init__(self, caption: str) -> None:
        super().__init__()
        self.caption = caption

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="modal-dialog"):
            title = Content.from_markup("Reject [b]$c[/b] because…", c=self.caption)
            yield Label(title, id="title")
            presets = OptionList(
                *(f"{i + 1}  {reason}" for i, reason in enumerate(PRESET_REASONS)), id="presets"
            )
            presets.can_focus = False  # typing always goes to the field
            yield presets
            yield Input(
                placeholder="type a reason, or 1-7 / ↑↓ for a preset; Enter", id="reason-input"
            )
            yield Label("", id="error", classes="error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # a click on a preset
        self.dismiss(PRESET_REASONS[event.option_index])

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#error", Label).update("")
        preset = _preset_of(event.value)
        if preset is not None:
            self.query_one(OptionList).highlighted = preset

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        preset = _preset_of(event.value)
        if preset is not None:
            self.dismiss(PRESET_REASONS[preset])
            return
        reason = event.value.strip()
        if reason:
            self.dismiss(reason)
            return
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None:
            self.dismiss(PRESET_REASONS[highlighted])
            return
        self.query_one("#error", Label).update("type a reason or pick one above")

    def action_preset(self, step: int) -> None:
        presets = self.query_one(OptionList)
        current = presets.highlighted
        count = len(PRESET_REASONS)
        presets.highlighted = (
            (0 if step > 0 else count - 1) if current is None else ((current + step) % count)
        )

    def action_cancel(self) -> None:
        self.dismiss(None)
