"""The history window: a session's last messages and decisions, interleaved by time.

Messages and journal entries both carry ULIDs, whose first 10 characters are their
millisecond timestamp; items are ordered by that, then by their exact recorded time, then
by their own sequence number, so two items of one source never swap.

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from foley_tui.domain import format_onset
from foley_tui.marks import marks_of_state
from foley_tui.store.messages import Message
from foley_tui.store.records import JournalEntry, iso
from foley_tui.store.usage import Usage
from foley_tui.terminal import escape_line

#: The history window's default size (messages and decisions together).
DEFAULT_WINDOW = 20
#: Who made a decision the journal names no author for (a file journal): the designer,
#: through foley-tui (app or CLI).
DECISION_AUTHOR = "user"


@dataclass(frozen=True, slots=True)
class HistoryItem:
    """One line of the history window: a message or a decision."""

    source: str  # "message" or "decision"
    id: str
    seq: int
    at: datetime
    author: str
    kind: str  # a message's role, or a decision's kind (pick, reject, clear, undo, redo)
    text: str
    sound_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "id": self.id,
            "seq": self.seq,
            "at": iso(self.at),
            "author": self.author,
            "kind": self.kind,
            "text": self.text,
            "sound_id": self.sound_id,
        }

    def line(self) -> str:
        """One escaped line: ``#seq time author kind: text``."""
        when = self.at.strftime("%Y-%m-%d %H:%M:%SZ")
        tag = "msg" if self.source == "message" else "dec"
        return (
            f"{tag} #{self.seq:<4} {when}  {escape_line(self.author)} "
            f"[{self.kind}] {escape_line(self.text)}"
        )

    def _order(self) -> tuple[str, datetime, int, int]:
        return (self.id[:10], self.at, 0 if self.source == "decision" else 1, self.seq)


def _onset_text(onset: object) -> str:
    if isinstance(onset, str):
        return repr(onset)
    if isinstance(onset, int | float) and not isinstance(onset, bool):
        return format_onset(float(onset))
    return "-"


def describe_state(state: dict[str, Any]) -> str:
    """``picked (layer L, onset O)``, ``rejected (reason)``, both (a conflict), or
    ``undecided``: from either journal state form (raw records, or the older fields); a
    state that records our marks says them too (``undecided; ★★★, hidden``)."""
    marks = marks_of_state(state)
    decision = _describe_decision(state)
    return decision if marks is None else f"{decision}; {marks.describe()}"


def _describe_decision(state: dict[str, Any]) -> str:
    if "pick" in state or "reject" in state:
        pick = state.get("pick") if isinstance(state.get("pick"), dict) else None
        reject = state.get("reject") if isinstance(state.get("reject"), dict) else None
    else:
        status = state.get("status")
        pick = state if status == "picked" else None
        reject = state if status == "rejected" else None
    parts = []
    if pick is not None:
        parts.append(
            f"picked (layer {pick.get('layer') or '-'}, onset {_onset_text(pick.get('onset'))})"
        )
    if reject is not None:
        reason = reject.get("reason")
        parts.append(f"rejected ({reason})" if reason else "rejected")
    return " and ".join(parts) if parts else "undecided"


def decision_kind(entry: JournalEntry) -> str:
    if entry.kind in ("undo", "redo", "skip"):
        return entry.kind
    if marks_of_state(entry.after) is not None and _describe_decision(
        entry.before
    ) == _describe_decision(entry.after):
        return "mark"  # our rating, hidden flag or region, the decision as it was
    status = entry.after.get("status")
    return {"picked": "pick", "rejected": "reject", "conflict": "pick"}.get(str(status), "clear")


def from_message(message: Message) -> HistoryItem:
    return HistoryItem(
        "message",
        message.id,
        message.seq,
        message.at,
        message.author,
        message.role,
        message.content,
        message.sound_id,
    )


def from_decision(entry: JournalEntry) -> HistoryItem:
    kind = decision_kind(entry)
    if kind in ("undo", "redo", "skip"):
        state = entry.after
        text = f"{kind} #{entry.target}: {entry.sound_id} -> {describe_state(state)}"
    else:
        text = f"{entry.sound_id}: {describe_state(entry.before)} -> {describe_state(entry.after)}"
    return HistoryItem(
        "decision",
        entry.entry_id,
        entry.seq,
        entry.at,
        entry.author or DECISION_AUTHOR,  # the shared store records who decided
        kind,
        text,
        entry.sound_id,
    )


def window(
    messages: Iterable[Message], decisions: Iterable[JournalEntry], n: int = DEFAULT_WINDOW
) -> list[HistoryItem]:
    """The last ``n`` items of both, oldest first (newest last)."""
    if n <= 0:
        return []
    items = [from_message(m) for m in list(messages)[-n:]]
    items += [from_decision(e) for e in list(decisions)[-n:]]
    items.sort(key=HistoryItem._order)
    return items[-n:]


class HistoryFeed:
    """A live history window over one session, for a panel that shows it.

    :meth:`poll` is cheap when nothing changed (two stats): it re-reads the window only
    when the conversation or the journal moved, from this process or another one, and
    says so. :meth:`send` writes a message as the designer (role ``user``). Headless: the
    UI polls on a timer and repaints when :meth:`poll` returns True.
    """

    def __init__(self, store: Any, n: int = DEFAULT_WINDOW, *, window: int | None = None) -> None:
        from foley_tui.store.messages import conversation_of

        self.store = store
        self.n = n
        self.conversation = conversation_of(store, window=window)
        self.items: list[HistoryItem] = []
        self._token: object = object()  # differs from any real token: the first poll reads

    def _current_token(self) -> tuple[object, object]:
        return (self.conversation.token(), self.store.state.journal_token())

    def poll(self) -> bool:
        """Re-read the window if anything changed since the last poll; True if it did."""
        token = self._current_token()
        if token == self._token:
            return False
        self._token = token
        items = window(self.conversation.last(self.n), self.store.last_entries(self.n), self.n)
        changed = items != self.items
        self.items = items
        return changed

    def send(self, text: str, *, sound_id: str | None = None) -> Message:
        """Write ``text`` as the designer (role ``user``), attached to ``sound_id`` if
        given; raises ValidationError (empty text...) or OSError (nothing written)."""
        metadata = {"sound_id": sound_id} if sound_id else None
        message = self.conversation.append("user", text, metadata)
        self.poll()
        return message

    def for_sound(self, sound_id: str) -> list[Message]:
        """The messages attached to one candidate (for its details), oldest first."""
        return self.conversation.for_sound(sound_id)


class LedgerWatch:
    """What the audition screen shows of a session's conversation and ledger: the
    messages attached to a candidate (in its details) and the agent's actual spend (in
    the status line). :meth:`poll` says what moved since the last look, from this process
    or another, for two stats when nothing did."""

    def __init__(self, store: Any) -> None:
        from foley_tui.store.messages import conversation_of
        from foley_tui.store.usage import ledger_of

        self.conversation = conversation_of(store)
        self.ledger = ledger_of(store)
        self._tokens: tuple[object, object] = (object(), object())
        self.usage = Usage()

    def poll(self) -> tuple[bool, bool]:
        """(messages changed, usage changed) since the last poll; reads only then."""
        tokens = (self.conversation.token(), self.ledger.token())
        messages_moved = tokens[0] != self._tokens[0]
        usage_moved = tokens[1] != self._tokens[1]
        self._tokens = tokens
        if messages_moved:
            self.conversation.refresh()
        if usage_moved:
            usage = self.ledger.read()
            usage_moved = usage != self.usage
            self.usage = usage
        return messages_moved, usage_moved

    def for_sound(self, sound_id: str) -> list[Message]:
        """The candidate's messages as of the last :meth:`poll` (which runs in a worker):
        no read, so the details pane never waits for the store."""
        return self.conversation.held_for_sound(sound_id)


__all__ = [
    "DEFAULT_WINDOW",
    "HistoryFeed",
    "HistoryItem",
    "LedgerWatch",
    "decision_kind",
    "describe_state",
    "from_decision",
    "from_message",
    "window",
]
