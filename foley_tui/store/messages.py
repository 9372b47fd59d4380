"""The session's conversation: messages between the designer and the agent.

Messages live in our own state, ``sessions/<id>/.foley-tui/messages.jsonl`` (never inside
foley's ``candidates/``, ``picks/`` or ``rejects/``): one JSON object a line, appended
under the session's lock and fsync'd before the call returns, like a decision. So the
per-session ``seq`` (1, 2, 3...) has no gaps even with several processes telling at once:
each one reads what the others appended (under the lock) before numbering its own.

Reading is linear: a :class:`Conversation` remembers the byte offset it has read up to and
parses only what was appended since. A line that is not a message (a torn write from a
crash, garbage) is reported as a problem and skipped, never fatal, never rewritten.

The in-memory variant (tests, :meth:`SessionService.in_memory`) keeps only the last
``window`` messages of a session, numbered the same way.

Headless: never imports textual.
"""

from __future__ import annotations

import collections
import json
import threading
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from foley_tui.domain import ValidationError
from foley_tui.store.backend import StateBackend, attached
from foley_tui.store.errors import StoreProblem
from foley_tui.store.records import iso, new_ulid, now_utc, parse_iso

MESSAGES_FILE = "messages.jsonl"
#: Who can write a message: the designer, the search agent, the system (the app itself).
ROLES = ("user", "agent", "system")
#: Longest message we accept (characters): a note, not a file.
MAX_CONTENT = 100_000
#: Compare-and-swap retries (shared stores without a cross-process lock) before giving up.
MAX_RACES = 1000


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a session's conversation."""

    id: str
    seq: int
    role: str
    content: str
    at: datetime
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def sound_id(self) -> str | None:
        """The candidate this message is attached to (``metadata.sound_id``), if any."""
        sid = self.metadata.get("sound_id")
        return sid if isinstance(sid, str) and sid else None

    @property
    def author(self) -> str:
        """Who wrote it: ``metadata.author`` when given, else the role."""
        author = self.metadata.get("author")
        return author if isinstance(author, str) and author else self.role

    def to_record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "at": iso(self.at),
            "role": self.role,
            "content": self.content,
            "metadata": self.metadata,
        }

    @classmethod
    def from_record(cls, record: object) -> Message | None:
        """A message from a stored record, or None when the record is not one."""
        if not isinstance(record, Mapping):
            return None
        seq = record.get("seq")
        ident = record.get("id")
        at = parse_iso(record.get("at"))
        role = record.get("role")
        content = record.get("content")
        metadata = record.get("metadata", {})
        if (
            not isinstance(seq, int)
            or isinstance(seq, bool)
            or seq < 1
            or not isinstance(ident, str)
            or not ident
            or at is None
            or role not in ROLES
            or not isinstance(content, str)
            or not isinstance(metadata, dict)
        ):
            return None
        return cls(ident, seq, str(role), content, at, metadata)


def check_message(
    role: object, content: object, metadata: object = None
) -> tuple[str, str, dict[str, Any]]:
    """Validate what :meth:`Conversation.append` takes; raises ValidationError."""
    if role not in ROLES:
        raise ValidationError(f"role must be one of {', '.join(ROLES)} (got {role!r})")
    if not isinstance(content, str):
        raise ValidationError(f"a message's content must be text (got {type(content).__name__})")
    if not content.strip():
        raise ValidationError("a message must not be empty")
    if len(content) > MAX_CONTENT:
        raise ValidationError(f"a message is limited to {MAX_CONTENT} characters")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise ValidationError(f"metadata must be a JSON object (got {type(metadata).__name__})")
    try:
        # A copy that is surely JSON (no NaN, no objects): the stored line must parse back.
        meta: dict[str, Any] = json.loads(json.dumps(metadata, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"metadata is not plain JSON: {exc}") from None
    sound_id = meta.get("sound_id")
    if sound_id is not None and (not isinstance(sound_id, str) or not sound_id):
        raise ValidationError(f"metadata.sound_id must be a sound id (got {sound_id!r})")
    return str(role), content, meta


class Conversation:
    """The messages of one session, read incrementally and appended under its lock.

    ``window``: keep only the last ``window`` messages in memory (None: all). On the file
    backend the file keeps everything; the window bounds only what is held in memory.
    """

    def __init__(self, state: StateBackend, *, window: int | None = None) -> None:
        if window is not None and window < 1:
            raise ValueError("window must be at least 1")
        self.state = state
        self.window = window
        # In memory the deque below is the whole storage (bounded by ``window``); any other
        # backend (files, a shared store) keeps the log and we read it incrementally.
        self._stored = state.keeps_documents
        self._where = state.where(MESSAGES_FILE)
        self._messages: collections.deque[Message] = collections.deque(maxlen=window)
        # sound id -> its messages (what a candidate's details show), kept as we read.
        self._by_sound: dict[str, list[Message]] = {}
        self._last_seq = 0
        self._offset = 0
        self._problems: list[StoreProblem] = []
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ reading
    def refresh(self) -> list[Message]:
        """Read what was appended since the last read (by any process); return it."""
        if not self._stored:
            return []
        with self._lock:
            try:
                data = self.state.read_from(MESSAGES_FILE, self._offset)
            except OSError as exc:
                # Refused (our folder or the log is a link, a FIFO, too large) or
                # unreadable: a problem of this one file, never of the session.
                self._problem(exc.strerror or str(exc))
                return []
            end = data.rfind(b"\n")
            if end < 0:  # nothing complete yet (a writer mid-line, or a torn tail)
                return []
            new: list[Message] = []
            position = self._offset
            for line in data[: end + 1].split(b"\n")[:-1]:
                start, position = position, position + len(line) + 1
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
                message = Message.from_record(record)
                if message is None:
                    self._problem(f"not a message at byte {start} (skipped, kept in the file)")
                    continue
                new.append(message)
                self._take(message)
            self._offset += end + 1
            return new

    def messages(self) -> list[Message]:
        """Every message held (all of them, or the last ``window``), oldest first."""
        with self._lock:
            self.refresh()
            return list(self._messages)

    def last(self, n: int) -> list[Message]:
        """The last ``n`` messages, oldest first."""
        if n <= 0:
            return []
        with self._lock:
            self.refresh()
            items = list(self._messages)
        return items[-n:]

    def _take(self, message: Message) -> None:
        if self._messages.maxlen is not None and len(self._messages) == self._messages.maxlen:
            self._forget(self._messages[0])
        self._messages.append(message)
        self._last_seq = max(self._last_seq, message.seq)
        if message.sound_id is not None:
            self._by_sound.setdefault(message.sound_id, []).append(message)

    def _forget(self, message: Message) -> None:
        """The window dropped ``message``: so does the per-candidate index."""
        if message.sound_id is not None:
            mine = self._by_sound.get(message.sound_id, [])
            if mine and mine[0] is message:
                mine.pop(0)
            if not mine:
                self._by_sound.pop(message.sound_id, None)

    def for_sound(self, sound_id: str) -> list[Message]:
        """Messages attached to one candidate, oldest first (indexed: no scan)."""
        with self._lock:
            self.refresh()
            return list(self._by_sound.get(sound_id, ()))

    def held_for_sound(self, sound_id: str) -> list[Message]:
        """The messages attached to one candidate as last read, without reading the store
        (nor waiting for a read under way elsewhere): what the UI thread may call while
        a worker's :meth:`refresh` waits for a store that does not answer."""
        return list(self._by_sound.get(sound_id, ()))

    @property
    def last_seq(self) -> int:
        with self._lock:
            self.refresh()
            return self._last_seq

    def token(self) -> Hashable:
        """Differs after any append (by any process): cheap to poll for live updates."""
        if not self._stored:
            return self._last_seq
        return self.state.token_of(MESSAGES_FILE)

    @property
    def problems(self) -> list[StoreProblem]:
        return list(self._problems)

    def _problem(self, reason: str) -> None:
        problem = StoreProblem("foley-tui", MESSAGES_FILE, self._where, reason)
        if problem not in self._problems:
            self._problems.append(problem)

    # ------------------------------------------------------------------ writing
    def append(self, role: str, content: str, metadata: dict[str, Any] | None = None) -> Message:
        """Append one message durably; it gets the session's next ``seq``."""
        role, content, meta = check_message(role, content, metadata)
        # A shared store names its user: the author of the user's own messages. An agent
        # or system message relayed through that user's service stays the agent's (its
        # author is its role, or the one the caller gave).
        author = self.state.author
        if author and role == "user" and "author" not in meta:
            meta = {**meta, "author": author}
        with self._lock, self.state.lock():
            for _ in range(MAX_RACES):
                self.refresh()  # what other processes appended: our seq follows theirs
                message = Message(new_ulid(), self._last_seq + 1, role, content, now_utc(), meta)
                if not self._stored:
                    self._take(message)
                    return message
                line = json.dumps(message.to_record(), separators=(",", ":"), ensure_ascii=False)
                written = self.state.append_line(
                    MESSAGES_FILE, line.encode("utf-8") + b"\n", expect=self._offset
                )
                if written is None:
                    continue  # another writer got there first (shared store): renumber
                start, end = written
                if start == self._offset:  # nothing unread before ours: take it as read
                    self._take(message)
                    self._offset = end
                else:
                    self.refresh()  # a torn line came before ours: read both (reporting it)
                return message
        raise OSError(f"could not append a message: {MAX_RACES} other writers came first")

    # ------------------------------------------------------------------ import
    def load(self, records: list[dict[str, Any]]) -> None:
        """Fill an empty in-memory conversation from exported records (import)."""
        with self._lock:
            for record in records:
                message = Message.from_record(record)
                if message is not None:
                    self._take(message)


def encode_lines(records: list[dict[str, Any]]) -> bytes:
    """The bytes of ``messages.jsonl`` holding ``records`` (import writes them at once)."""
    return b"".join(
        json.dumps(r, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
        for r in records
    )


def check_records(records: object) -> list[dict[str, Any]]:
    """Validate exported message records: ValueError with the reason if one is wrong."""
    if not isinstance(records, list):
        raise ValueError("'messages' must be a list of messages")
    last = 0
    ids: set[str] = set()
    for i, record in enumerate(records):
        message = Message.from_record(record)
        if message is None:
            raise ValueError(f"messages[{i}] is not a message (id, seq, at, role, content)")
        if message.seq <= last:
            raise ValueError(f"messages[{i}]: seq {message.seq} does not follow {last}")
        if message.id in ids:
            raise ValueError(f"messages[{i}]: duplicate id {message.id}")
        try:
            check_message(message.role, message.content, message.metadata)
        except ValidationError as exc:
            raise ValueError(f"messages[{i}]: {exc}") from None
        last = message.seq
        ids.add(message.id)
    return [Message.from_record(r).to_record() for r in records]  # type: ignore[union-attr]


def conversation_of(store: Any, *, window: int | None = None) -> Conversation:
    """The :class:`Conversation` of a :class:`SessionStore` (made on first use; the
    service and the app share it: one read offset)."""
    return attached(store, Conversation, lambda: Conversation(store.state, window=window))


__all__ = [
    "MESSAGES_FILE",
    "ROLES",
    "Conversation",
    "Message",
    "check_message",
    "check_records",
    "conversation_of",
    "encode_lines",
]
