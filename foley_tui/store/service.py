"""The session service: create, find, list, rename and delete sessions. It holds three
parts: where the sessions live (a catalog, :mod:`foley_tui.store.catalog`: folders,
memory or Redis), export and import (:class:`~foley_tui.store.transfer_service.Transfers`)
and the conversations and ledgers (:class:`~foley_tui.store.ledger_service.Ledgers`).

After the CleverAgents session-service contract: ULID ids for new sessions, errors under
one :class:`SessionServiceError`. Sessions made by foley (``default``...) are listed too.

Headless: never imports textual.
"""

from __future__ import annotations

import builtins
import contextlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui import paths
from foley_tui.store.catalog import FileCatalog, MemoryCatalog, OpenStores, SessionCatalog
from foley_tui.store.codec import validate_session_id
from foley_tui.store.errors import InvalidSessionIdError, SessionNotFoundError, SessionServiceError
from foley_tui.store.ledger_service import Ledgers
from foley_tui.store.records import new_ulid
from foley_tui.store.session import SessionStore
from foley_tui.store.transfer_service import ImportedSession, Transfers

if TYPE_CHECKING:
    from foley_tui.store.history import HistoryItem
    from foley_tui.store.messages import Conversation, Message
    from foley_tui.store.usage import GenerationCost, Ledger, Usage

#: Sessions an in-memory service holds (least recently used evicted beyond), and the
#: open stores a file service keeps cached (the same bound; dropping one loses nothing).
MAX_SESSIONS = 500


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One line of the sessions list."""

    session_id: str
    title: str | None
    created: datetime
    updated: datetime
    picked: int
    rejected: int
    total: int
    made_by_foley: bool
    opened: datetime | None = None
    #: Sounds both picked and rejected (counted in ``picked`` and ``rejected`` too).
    conflicts: int = 0
    #: Picks with no cached candidate (counted in ``picked``; foley's plan drops them).
    ghosts: int = 0

    @property
    def display_title(self) -> str:
        return self.title or self.session_id


class SessionService:
    """Sessions under ``data_dir/sessions/`` (foley's layout), or in memory, or (a
    :class:`~foley_tui.store.redis.service.RedisSessionService`) on a Redis server: the
    place is its catalog part (:mod:`foley_tui.store.catalog`).

    Safe to share between threads. The sessions it holds open are kept in a
    least-recently-used cache of ``max_sessions``: on files, a dropped store is simply
    opened again; in memory, a dropped session is gone (see :meth:`in_memory`).
    :meth:`pin` keeps a session (the one on screen) from ever being dropped.
    """

    def __init__(
        self, data_dir: Path | str | None = None, *, max_sessions: int = MAX_SESSIONS
    ) -> None:
        folder = paths.data_dir(data_dir) if data_dir else paths.data_dir()
        opened = OpenStores(max_sessions)
        self._setup(folder, FileCatalog(folder, opened), opened)

    def _setup(
        self,
        data_dir: Path | None,
        catalog: SessionCatalog,
        opened: OpenStores,
        *,
        window: int | None = None,
    ) -> None:
        """The parts every service has, whichever constructor made it: where local data
        lives, where the sessions live (the catalog), the open stores, the transfer and
        ledger parts."""
        self.data_dir: Path | None = data_dir
        self.catalog = catalog
        self._opened = opened
        self._stores = opened.stores
        self._lock = opened.lock
        self._window: int | None = window
        #: Export and import.
        self.transfers = Transfers(self)
        #: Conversations, history windows and usage counters.
        self.ledgers = Ledgers(self.get, window=window)

    @classmethod
    def in_memory(cls, max_sessions: int = MAX_SESSIONS, window: int = 20) -> SessionService:
        """A service holding at most ``max_sessions`` sessions in memory: beyond that the
        least recently used one is evicted (a later ``get`` of it raises
        SessionNotFoundError). Each session keeps its last ``window`` messages."""
        if max_sessions < 1 or window < 1:
            raise ValueError("max_sessions and window must be at least 1")
        service = cls.__new__(cls)
        opened = OpenStores(max_sessions)
        service._setup(None, MemoryCatalog(opened), opened, window=window)
        return service

    @property
    def recovered(self) -> builtins.list[str]:
        """One line per leftover of an earlier crash this service cleaned up (stale
        import folders, an interrupted ``--overwrite``, stale temp files): the CLI
        prints them."""
        return self.catalog.recovered

    @property
    def max_sessions(self) -> int:
        return self._opened.max_sessions

    @property
    def open_sessions(self) -> tuple[str, ...]:
        """The sessions whose stores the service holds open, least recently used first
        (at most :attr:`max_sessions`, the pinned one never dropped)."""
        with self._lock:
            return tuple(self._stores)

    def pin(self, session_id: str | None) -> None:
        """Keep ``session_id`` from eviction (None: pin nothing); one pinned at a time."""
        with self._lock:
            self._opened.pinned = frozenset({session_id} if session_id else ())

    @property
    def sessions_dir(self) -> Path:
        if self.data_dir is None:
            raise SessionServiceError("an in-memory service has no sessions folder")
        return self.data_dir / "sessions"

    # ------------------------------------------------------------------ contract
    def create(self, title: str | None = None) -> str:
        """Make a new empty session with a ULID id; return the id."""
        session_id = new_ulid()
        self.catalog.create(session_id, title)
        return session_id

    def get(self, session_id: str, *, touch: bool = True) -> SessionStore:
        """The session's store; SessionNotFoundError if absent. With ``touch`` (the
        default) it is recorded as opened, which :meth:`most_recent` goes by; read-only
        callers (``session show``, ``picks``) pass ``touch=False``."""
        validate_session_id(session_id)
        with self._lock:
            if not self.catalog.exists(session_id):
                self._stores.pop(session_id, None)
                raise SessionNotFoundError(f"no session {session_id!r}")
            store = self.catalog.open(session_id)
        if touch:
            with contextlib.suppress(OSError):
                store.mark_opened()
        return store

    def info(self, session_id: str) -> SessionInfo:
        validate_session_id(session_id)
        if not self.catalog.exists(session_id):
            raise SessionNotFoundError(f"no session {session_id!r}")
        store = self.catalog.open(session_id)
        meta = store.meta()
        counts = store.counts()  # the one way every view counts decisions
        return SessionInfo(
            session_id=session_id,
            title=meta.title,
            created=meta.created,
            updated=meta.updated,
            picked=counts.picks,
            rejected=counts.rejects,
            total=counts.candidates,
            made_by_foley=meta.origin == "foley",
            opened=meta.opened,
            conflicts=counts.conflicts,
            ghosts=counts.ghosts,
        )

    def list(self) -> builtins.list[SessionInfo]:
        """Every session, oldest first (foley-made ones dated from the file system)."""
        infos = []
        for session_id in self.catalog.ids():
            # One damaged session never hides the others.
            with contextlib.suppress(SessionServiceError, OSError):
                infos.append(self.info(session_id))
        return sorted(infos, key=lambda i: (i.created, i.session_id))

    def _titles(self) -> builtins.list[tuple[str, str]]:
        """(id, title) of every readable session, oldest first: what :meth:`resolve`
        matches a reference against. Not :meth:`list`: that counts every session's
        decisions and candidates (a listing of each big session's folder), and a folder
        given to ``open`` is looked up here on the way to the app's first frame."""
        found = []
        for session_id in self.catalog.ids():
            with contextlib.suppress(SessionServiceError, OSError):
                validate_session_id(session_id)
                meta = self.catalog.open(session_id).meta()
                found.append((meta.created, session_id, meta.title or ""))
        return [(sid, title) for _, sid, title in sorted(found)]

    #: When True, :meth:`resolve` takes exact ids only (the CLI's ``--exact``, for scripts).
    exact_refs: bool = False

    def resolve(self, ref: str, *, exact: bool | None = None) -> str:
        """A session reference -> its id: an exact id (always wins, spaces and all), then
        an exact title (case-insensitive), then a unique id prefix. ``exact`` (default:
        :attr:`exact_refs`) accepts only an exact id, as foley would take it."""
        if not isinstance(ref, str) or not ref:
            raise SessionNotFoundError("empty session reference")
        invalid: InvalidSessionIdError | None = None
        try:
            if self.catalog.exists(ref):
                return ref
        except InvalidSessionIdError as exc:
            invalid = exc  # may still be a title; said if nothing matches
        if self.exact_refs if exact is None else exact:
            raise invalid or SessionNotFoundError(f"no session with the exact id {ref!r}")
        ref = ref.strip()
        if not ref:
            raise SessionNotFoundError("empty session reference")
        titles = self._titles()
        titled = [sid for sid, title in titles if title.casefold() == ref.casefold()]
        if len(titled) == 1:
            return titled[0]
        if len(titled) > 1:
            raise SessionServiceError(f"several sessions are titled {ref!r}: {', '.join(titled)}")
        low = ref.casefold()
        prefixed = sorted(sid for sid, _ in titles if sid.casefold().startswith(low))
        if len(prefixed) == 1:
            return prefixed[0]
        if len(prefixed) > 1:
            raise SessionServiceError(f"ambiguous session {ref!r}: {', '.join(prefixed)}")
        raise invalid or SessionNotFoundError(f"no session {ref!r}")

    def most_recent(self) -> str | None:
        """The session opened or updated last, or None when there is none."""
        best: tuple[datetime, str] | None = None
        for info in self.list():
            moment = max(info.updated, info.opened) if info.opened else info.updated
            if best is None or moment > best[0]:
                best = (moment, info.session_id)
        return best[1] if best else None

    def rename(self, session_id: str, title: str) -> None:
        if not isinstance(title, str) or not title.strip():
            raise SessionServiceError("a title must not be empty")
        store = self.get(session_id)
        try:
            store.set_title(title)
        except OSError as exc:
            raise SessionServiceError(str(exc)) from exc

    def delete(self, session_id: str) -> None:
        """Delete that one session, as its catalog does (a folder goes to the trash of
        its file system, as foley's own deletes do); nothing else is touched. A store
        still open on it refuses to write it back (SessionDeletedError)."""
        validate_session_id(session_id)
        if not self.catalog.exists(session_id):
            raise SessionNotFoundError(f"no session {session_id!r}")
        with self._lock:
            self._stores.pop(session_id, None)
        self.catalog.delete(session_id)

    # ------------------------------------------------------------------ what the parts use
    @property
    def in_memory_store(self) -> bool:
        return self.catalog.in_memory

    @property
    def window(self) -> int | None:
        return self._window

    def exists(self, session_id: str) -> bool:
        return self.catalog.exists(session_id)

    def open(self, session_id: str) -> SessionStore:
        return self.catalog.open(session_id)

    def adopt(self, session_id: str, store: SessionStore) -> None:
        """Hold ``store`` as the session ``session_id`` (an in-memory import)."""
        with self._lock:
            self.catalog.adopt(session_id, store)
            self._stores.pop(session_id, None)

    def forget(self, session_id: str) -> None:
        """Drop the open store of ``session_id`` (its session was replaced)."""
        with self._lock:
            self._stores.pop(session_id, None)

    def write_import(self, imported: ImportedSession) -> None:
        """Write an imported session where the catalog keeps them."""
        self.catalog.write_import(imported)

    # ------------------------------------------------------------------ export, import
    def export_session(self, session_id: str) -> dict[str, Any]:
        """One JSON document with everything of the session and a SHA-256 checksum."""
        return self.transfers.export_session(session_id)

    def export_to_file(self, session_id: str, path: Path | str, *, overwrite: bool = False) -> Path:
        return self.transfers.export_to_file(session_id, path, overwrite=overwrite)

    def import_from_file(
        self, path: Path | str, *, overwrite: bool = False, as_copy: bool = False
    ) -> str:
        return self.transfers.import_from_file(path, overwrite=overwrite, as_copy=as_copy)

    def import_session(
        self, doc: dict[str, Any], *, overwrite: bool = False, as_copy: bool = False
    ) -> str:
        """Import an export document; refuses a bad schema version, checksum or shape.
        ``as_copy``: under a new id, beside the session it came from."""
        return self.transfers.import_session(doc, overwrite=overwrite, as_copy=as_copy)

    @property
    def delete_outcome(self) -> str:
        """What :meth:`delete` does with a session, as a confirmation says it."""
        return self.catalog.delete_outcome

    # ------------------------------------------------------------------ messages, usage
    def conversation(self, session_id: str) -> Conversation:
        """The session's conversation (shared with anyone holding the same store)."""
        return self.ledgers.conversation(session_id)

    def ledger(self, session_id: str) -> Ledger:
        return self.ledgers.ledger(session_id)

    def append_message(
        self,
        session_id: str,
        role: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> Message:
        """Append a message (role ``user``, ``agent`` or ``system``) to the session's
        conversation, durably (see :meth:`Ledgers.append_message`)."""
        return self.ledgers.append_message(session_id, role, content, metadata)

    def messages(self, session_id: str) -> builtins.list[Message]:
        """Every message of the session held (in memory: the last ``window``)."""
        return self.ledgers.messages(session_id)

    def history_window(self, session_id: str, n: int | None = None) -> builtins.list[HistoryItem]:
        """The last ``n`` messages and decisions interleaved by time, newest last."""
        return self.ledgers.history_window(session_id, n)

    def update_token_usage(
        self,
        session_id: str,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost: object = 0,
    ) -> Usage:
        """Add to the session's counters; return the new totals (see
        :meth:`Ledgers.update_token_usage`)."""
        return self.ledgers.update_token_usage(session_id, input_tokens, output_tokens, cost)

    def usage(self, session_id: str) -> Usage:
        """The session's counters (zeros when nothing was recorded)."""
        return self.ledgers.usage(session_id)

    def generation_cost(
        self, session_id: str
    ) -> tuple[GenerationCost, dict[str | None, GenerationCost]]:
        """(total, per event) generation cost of the session's cached candidates."""
        return self.ledgers.generation_cost(session_id)


__all__ = ["SessionInfo", "SessionService"]
