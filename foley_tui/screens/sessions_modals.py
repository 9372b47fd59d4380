"""Small modal dialogs used by the sessions screen: a one-line text prompt, a yes/no
confirmation and a choice among a few answers. Each dismisses with its answer (``None`` /
``False`` / ``""`` when cancelled)."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from foley_tui.keys.bindings import bindings

MODAL_CSS = """
TextPromptModal, ConfirmModal, ChoiceModal {
    align: center middle;
}
TextPromptModal > Vertical, ConfirmModal > Vertical, ChoiceModal > Vertical {
    width: 72;
    max-width: 90%;
    height: auto;
    border: thick $primary;
    background: $surface;
    padding: 1 2;
}
TextPromptModal Label, ConfirmModal Label, ChoiceModal Label {
    width: 100%;  /* wrap a long title or message instead of cutting it */
}
TextPromptModal .modal-title, ConfirmModal .modal-title, ChoiceModal .modal-title {
    text-style: bold;
    margin-bottom: 1;
}
TextPromptModal .modal-error {
    color: $error;
    height: auto;
}
TextPromptModal Horizontal, ConfirmModal Horizontal, ChoiceModal Horizontal {
    height: auto;
    align-horizontal: right;
    margin-top: 1;
}
TextPromptModal Button, ConfirmModal Button, ChoiceModal Button {
    margin-left: 2;
}
"""


class TextPromptModal(ModalScreen[str | None]):
    """Ask for one line of text (a title, a file path). Dismisses with the text or None.

    ``validate`` may return an error message to keep the dialog open and show why.
    """

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = bindings("dialog")

    def __init__(
        self,
        title: str,
        *,
        value: str = "",
        placeholder: str = "",
        ok_label: str = "OK",
        validate: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__()
        self._title = title
        self._value = value
        self._placeholder = placeholder
        self._ok_label = ok_label
        self._validate = validate

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="modal-title")
            yield Input(value=self._value, placeholder=self._placeholder, id="prompt-input")
            yield Static("", classes="modal-error", id="prompt-error")
            with Horizontal():
                yield Button("Cancel", id="prompt-cancel")
                yield Button(self._ok_label, variant="primary", id="prompt-ok")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _submit(self) -> None:
        text = self.query_one(Input).value.strip()
        problem = "enter a value" if not text else None
        if problem is None and self._validate is not None:
            problem = self._validate(text)
        if problem:
            self.query_one("#prompt-error", Static).update(problem)
            return
        self.dismiss(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "prompt-ok":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmModal(ModalScreen[bool]):
    """Ask a yes/no question; the safe answer (No) has the focus."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = bindings("confirm")

    def __init__(self, title: str, message: str, *, yes_label: str = "Yes") -> None:
        super().__init__()
        self._title = title
        self._message = message
        self._yes_label = yes_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="modal-title")
            yield Static(self._message, id="confirm-message")
            with Horizontal():
                yield Button("No", id="confirm-no")
                yield Button(self._yes_label, variant="error", id="confirm-yes")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    @property
    def message(self) -> str:
        return self._message

    def set_message(self, message: str) -> None:
        """Say ``message`` instead (what a worker read since the question opened)."""
        self._message = message
        # None when not composed yet, or answered meanwhile (its children are gone).
        for shown in self.query("#confirm-message").results(Static):
            shown.update(message)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ChoiceModal(ModalScreen[str]):
    """Ask which of a few things to do; dismisses with the chosen key, "" when cancelled
    (Cancel has the focus). ``choices``: (key, button label), in button order."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = bindings("choice")

    def __init__(self, title: str, message: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self._title = title
        self._message = message
        self._choices = choices

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="modal-title")
            yield Static(self._message)
            with Horizontal():
                yield Button("Cancel", id="choice-")
                for key, label in self._choices:
                    yield Button(label, variant="primary", id=f"choice-{key}")

    def on_mount(self) -> None:
        self.query_one("#choice-", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "choice-").removeprefix("choice-"))

    def action_choose(self, key: str) -> None:
        if key and key not in {k for k, _ in self._choices}:
            return
        self.dismiss(key)
