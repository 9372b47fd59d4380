"""MessagesScreen: the session's conversation with the agent and its recent decisions.

The same history window as ``foley-tui session history`` (messages and decisions by
time, newest last) with an input to write to the agent as the designer (role ``user``),
optionally attached to the highlighted candidate. Messages and decisions written by
another process (the agent, a CLI) appear live: the panel polls the headless
:class:`~foley_tui.store.history.HistoryFeed`, which costs two stats when nothing moved.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from foley_tui.domain import ValidationError
from foley_tui.keys.bindings import bindings
from foley_tui.store import SessionStore
from foley_tui.store.history import DEFAULT_WINDOW, HistoryFeed, HistoryItem
from foley_tui.terminal import escape_line
from foley_tui.widgets.details import ROLE_STYLE

#: How often the panel looks for messages from other processes (seconds).
POLL_S = 0.5


def render_item(item: HistoryItem) -> Text:
    """One history item as styled text: time, author, role or decision kind, text.
    Control characters are escaped; a multi-line message keeps its lines, indented."""
    text = Text()
    text.append(item.at.strftime("%H:%M:%S "), style="dim")
    if item.source == "message":
        text.append(escape_line(item.author), style=ROLE_STYLE.get(item.kind, "bold"))
        if item.author != item.kind:
            text.append(f" ({item.kind})", style="dim")
        if item.sound_id:
            text.append(f" on {escape_line(item.sound_id)}", style="italic")
        lines = [escape_line(line) for line in item.text.split("\n")]
        text.append(": " + "\n      ".join(lines))
    else:
        text.append(f"{item.kind} ", style="bold green")
        text.append(escape_line(item.text), style="green")
    return text


class MessagesScreen(ModalScreen[None]):
    """The conversation panel (``m`` on the audition screen)."""

    BINDINGS = bindings("messages")
    DEFAULT_CSS = """
    MessagesScreen {
        align: center middle;
    }
    MessagesScreen #dialog {
        width: 100;
        height: 80%;
    }
    MessagesScreen #history {
        height: 1fr;
        margin-bottom: 1;
    }
    MessagesScreen #attach {
        color: $text-muted;
    }
    """

    def __init__(
        self,
        store: SessionStore,
        *,
        sound_id: str | None = None,
        caption: str | None = None,
        n: int = DEFAULT_WINDOW,
    ) -> None:
        super().__init__()
        self.feed = HistoryFeed(store, n)
        self.sound_id = sound_id
        self.caption = caption or sound_id
        self.attach = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="modal-dialog"):
            yield Label(
                f"Conversation with the agent: the last {self.feed.n} messages and decisions",
                id="title",
            )
            with VerticalScroll(id="history"):
                yield Static("", id="history-text")
            yield Label("", id="attach")
            yield Input(placeholder="Write to the agent, Enter sends", id="message-input")
            yield Label("", id="error", classes="error")

    def on_mount(self) -> None:
        self._show_attach()
        self.feed.poll()
        self._render_history()
        self.set_interval(POLL_S, self.refresh_history, name="messages-poll")
        self.query_one(Input).focus()

    def refresh_history(self) -> None:
        """Show what changed since the last look (also from other processes)."""
        try:
            changed = self.feed.poll()
        except OSError as exc:
            self._error(f"cannot read the conversation: {exc.strerror or exc}")
            return
        if changed:
            self._render_history()

    def _render_history(self) -> None:
        items = self.feed.items
        if items:
            body = Text("\n").join(render_item(item) for item in items)
        else:
            body = Text("No messages yet: write the first one below.", style="dim")
        self.query_one("#history-text", Static).update(body)
        self.query_one("#history", VerticalScroll).scroll_end(animate=False)

    def _show_attach(self) -> None:
        label = self.query_one("#attach", Label)
        if self.sound_id is None:
            label.update(Text("Not attached to a candidate (none highlighted)", style="dim"))
        elif self.attach:
            label.update(Text(f"Attached to {escape_line(self.caption or '')} (ctrl+t: detach)"))
        else:
            label.update(
                Text(
                    f"Not attached (ctrl+t: attach to {escape_line(self.caption or '')})",
                    style="dim",
                )
            )

    def _error(self, message: str) -> None:
        self.query_one("#error", Label).update(message)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        sound_id = self.sound_id if self.attach else None
        try:
            self.feed.send(event.value, sound_id=sound_id)
        except ValidationError as exc:
            self._error(str(exc))
            return
        except OSError as exc:
            self._error(f"not sent: {exc.strerror or exc}")
            return
        self._error("")
        event.input.value = ""
        self._render_history()

    def action_toggle_attach(self) -> None:
        if self.sound_id is not None:
            self.attach = not self.attach
            self._show_attach()

    def action_close(self) -> None:
        self.dismiss(None)
