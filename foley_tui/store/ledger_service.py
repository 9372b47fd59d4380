"""The session service's conversation and ledger: messages, the history window, usage.

The ledger part of :class:`~foley_tui.store.service.SessionService` (after the
CleverAgents session-service contract: ``append_message``, ``update_token_usage``, the
history window). Every session is opened through the service's ``get`` with
``touch=False``: telling or counting is not opening a session, and an unknown session
raises SessionNotFoundError.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from foley_tui.store.errors import StoreWriteError
from foley_tui.store.records import _write_error

# The conversation, history and ledger modules are imported by the methods that use them:
# a service is made by every start of the app, which reads none of them before its first
# frame.
if TYPE_CHECKING:
    from foley_tui.store.history import HistoryItem
    from foley_tui.store.messages import Conversation, Message
    from foley_tui.store.session import SessionStore
    from foley_tui.store.usage import GenerationCost, Ledger, Usage


@contextlib.contextmanager
def _saving(what: str) -> Iterator[None]:
    """An OSError of a write (disk full, read-only, the lock) -> StoreWriteError(what)."""
    try:
        yield
    except StoreWriteError:
        raise
    except OSError as exc:
        raise _write_error(exc, what) from exc


class Opener(Protocol):
    """How the ledger part opens a session (the service's ``get``)."""

    def __call__(self, session_id: str, *, touch: bool = True) -> SessionStore: ...


class Ledgers:
    """Messages, history window and usage of the sessions of a service."""

    def __init__(self, get: Opener, *, window: int | None = None) -> None:
        self.get = get
        #: In-memory services keep only the last ``window`` messages of a session.
        self._window = window

    def conversation(self, session_id: str) -> Conversation:
        """The session's conversation (shared with anyone holding the same store)."""
        from foley_tui.store.messages import conversation_of

        return conversation_of(self.get(session_id, touch=False), window=self._window)

    def ledger(self, session_id: str) -> Ledger:
        from foley_tui.store.usage import ledger_of

        return ledger_of(self.get(session_id, touch=False))

    def append_message(
        self,
        session_id: str,
        role: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> Message:
        """Append a message (role ``user``, ``agent`` or ``system``) to the session's
        conversation, durably; it gets a ULID ``id`` and the session's next ``seq``.

        ``metadata`` is a JSON object; ``metadata["sound_id"]`` attaches the message to a
        candidate. Raises SessionNotFoundError, ValidationError (bad role, empty text,
        metadata that is not JSON) or StoreWriteError (nothing was written then)."""
        conversation = self.conversation(session_id)
        with _saving(f"could not save the message in {session_id!r}"):
            return conversation.append(role, content, metadata)

    def messages(self, session_id: str) -> list[Message]:
        """Every message of the session held (in memory: the last ``window``)."""
        return self.conversation(session_id).messages()

    def history_window(self, session_id: str, n: int | None = None) -> list[HistoryItem]:
        """The last ``n`` messages and decisions interleaved by time, newest last (``n``:
        :data:`foley_tui.store.history.DEFAULT_WINDOW` unless given)."""
        from foley_tui.store import history
        from foley_tui.store.messages import conversation_of

        if n is None:
            n = history.DEFAULT_WINDOW
        store = self.get(session_id, touch=False)
        messages = conversation_of(store, window=self._window).last(n)
        return history.window(messages, store.last_entries(n), n)

    def update_token_usage(
        self,
        session_id: str,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost: object = 0,
    ) -> Usage:
        """Add to the session's counters (``cost`` in dollars: a number or decimal text,
        kept as integer micro-dollars); return the new totals. Negative or malformed
        amounts raise ValidationError and change nothing."""
        ledger = self.ledger(session_id)
        with _saving(f"could not save the usage of {session_id!r}"):
            return ledger.add(input_tokens, output_tokens, cost)

    def usage(self, session_id: str) -> Usage:
        """The session's counters (zeros when nothing was recorded)."""
        return self.ledger(session_id).read()

    def generation_cost(
        self, session_id: str
    ) -> tuple[GenerationCost, dict[str | None, GenerationCost]]:
        """(total, per event) generation cost of the session's cached candidates: actual
        and estimated kept apart (see :func:`foley_tui.store.usage.generation_cost`)."""
        from foley_tui.store.usage import generation_cost

        store = self.get(session_id, touch=False)
        return generation_cost(
            value
            for value in (store.candidate(sid) for sid in store.candidate_ids())
            if value is not None
        )


__all__ = ["Ledgers", "Opener"]
