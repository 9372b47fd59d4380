"""The session service: create, find, list, rename and delete sessions. It holds two
parts: export and import (:class:`~foley_tui.store.transfer_service.Transfers`) and the
conversations and ledgers (:class:`~foley_tui.store.ledger_service.Ledgers`).

After the CleverAgents session-service contract: ULID ids for new sessions, errors under
one :class:`SessionServiceError`. Sessions made by foley (``default``...) are listed too.

Headless: never imports textual.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui import paths
from foley_tui.store.backend import STATE_DIR
from foley_tui.store.codec import validate_session_id
from foley_tui.store.errors import InvalidSessionIdError, SessionNotFoundError, SessionServiceError
from foley_tui.store.files import fsync_dir
from foley_tui.store.ledger_service import Ledgers
from foley_tui.store.records import iso, new_ulid, now_utc
from foley_tui.store.recovery import recover, sweep_temps
from foley_tui.store.session import SessionStore, file_store
from foley_tui.store.session_dirs import (
    NAMESPACES,
    is_session_dir,
    linked_part,
    nested_session_dirs,
    walk_session_ids,
)
from foley_tui.store.transfer_service import ImportedSession, Transfers, write_files
from foley_tui.store.trash import move_to_trash

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
    """Sessions under ``data_dir/sessions/`` (foley's layout), or in memory.

    Safe to share between threads. The sessions it holds open are kept in a
    least-recently-used cache of ``max_sessions``: on files, a dropped store is simply
    opened again; in memory, a dropped session is gone (see :meth:`in_memory`).
    :meth:`pin` keeps a session (the one on screen) from ever being dropped.
    """

    #: One line per leftover of an earlier crash this service cleaned up (stale import
    #: folders, an interrupted ``--overwrite``, stale temp files): the CLI prints them.
    recovered: builtins.list[str]

    def __init__(
        self, data_dir: Path | str | None = None, *, max_sessions: int = MAX_SESSIONS
    ) -> None:
        self._setup(
            paths.data_dir(data_dir) if data_dir else paths.data_dir(),
            memory=None,
            max_sessions=max_sessions,
        )
        # What a killed import left behind is finished or rolled back on the next run.
        self.recovered = recover(self.sessions_dir)

    def _setup(
        self,
        data_dir: Path | None,
        *,
        memory: dict[str, SessionStore] | None,
        max_sessions: int = MAX_SESSIONS,
        window: int | None = None,
    ) -> None:
        """The state every service has, whichever constructor made it: where local data
        lives, the cache of open stores, its bound and pin, the lock, the parts."""
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self._memory: dict[str, SessionStore] | None = memory
        self.data_dir: Path | None = data_dir
        self._stores: dict[str, SessionStore] = {}
        self._max_sessions = max_sessions
        self._window: int | None = window
        self._pinned: frozenset[str] = frozenset()
        self.recovered = []
        self._lock = threading.RLock()
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
        service._setup(None, memory={}, max_sessions=max_sessions, window=window)
        return service

    @property
    def max_sessions(self) -> int:
        return self._max_sessions

    @property
    def open_sessions(self) -> tuple[str, ...]:
        """The sessions whose stores the service holds open, least recently used first
        (at most :attr:`max_sessions`, the pinned one never dropped)."""
        with self._lock:
            return tuple(self._stores)

    def pin(self, session_id: str | None) -> None:
        """Keep ``session_id`` from eviction (None: pin nothing); one pinned at a time."""
        with self._lock:
            self._pinned = frozenset({session_id} if session_id else ())

    def _admit(self, cache: dict[str, SessionStore], session_id: str, store: SessionStore) -> None:
        """Put ``store`` in ``cache`` as the most recently used; evict beyond the cap."""
        with self._lock:
            cache.pop(session_id, None)
            cache[session_id] = store  # dicts keep insertion order: the end is the newest
            excess = len(cache) - self._max_sessions
            for old in [k for k in cache if k not in self._pinned and k != session_id]:
                if excess <= 0:
                    break
                del cache[old]
                if cache is self._memory:
                    self._stores.pop(old, None)
                excess -= 1

    @property
    def sessions_dir(self) -> Path:
        if self.data_dir is None:
            raise SessionServiceError("an in-memory service has no sessions folder")
        return self.data_dir / "sessions"

    # ------------------------------------------------------------------ helpers
    def _path(self, session_id: str) -> Path:
        """The session's folder; a nested id (``proj/scene1``) is nested folders, as in
        foley. Its parent folders must be real folders: a symbolic link there could lead
        out of ``sessions/``."""
        parts = validate_session_id(session_id).split("/")
        folder = self.sessions_dir
        for part in parts[:-1]:
            folder = folder / part
            if folder.is_symlink():
                raise InvalidSessionIdError(
                    f"invalid session id {session_id!r}: {part!r} is a symbolic link"
                )
        return folder / parts[-1]

    def _exists(self, session_id: str) -> bool:
        if self._memory is not None:
            with self._lock:
                return session_id in self._memory
        return is_session_dir(self._path(session_id))

    def _open(self, session_id: str) -> SessionStore:
        with self._lock:
            if self._memory is not None:
                try:
                    store = self._memory[session_id]
                except KeyError:
                    raise SessionNotFoundError(f"no session {session_id!r}") from None
                self._memory[session_id] = self._memory.pop(session_id)  # now the newest
                return store
            return self._open_file(session_id)

    def _open_file(self, session_id: str) -> SessionStore:
        store = self._stores.get(session_id)
        if store is not None:
            self._stores[session_id] = self._stores.pop(session_id)  # now the newest
        else:
            folder = self._path(session_id)
            link = linked_part(self.sessions_dir, session_id)
            if link is not None:
                # Everything of the session would be read, written and exported through
                # the link, wherever it leads: refused (delete removes only the link).
                raise SessionServiceError(
                    f"session {session_id!r} is (inside) a symbolic link to "
                    f"{os.readlink(link)!r}: refused (sessions must be real folders)"
                )
            store = file_store(session_id, folder, self.data_dir)
            self._admit(self._stores, session_id, store)
            swept = sweep_temps([folder / "picks", folder / "rejects", folder / STATE_DIR])
            if swept:
                self.recovered = [*self.recovered, *swept]
        return store

    def _ids(self) -> list[str]:
        if self._memory is not None:
            with self._lock:
                return list(self._memory)
        ids: builtins.list[str] = []
        walk_session_ids(self.sessions_dir, "", ids, depth=0)
        return ids

    # ------------------------------------------------------------------ contract
    def create(self, title: str | None = None) -> str:
        """Make a new empty session with a ULID id; return the id."""
        session_id = new_ulid()
        if self._memory is not None:
            store = SessionStore.in_memory(session_id)
            self._admit(self._memory, session_id, store)
        else:
            folder = self._path(session_id)
            try:
                self.sessions_dir.mkdir(parents=True, exist_ok=True)
                folder.mkdir()
                for name in NAMESPACES:
                    (folder / name).mkdir()
                fsync_dir(str(self.sessions_dir))
            except OSError as exc:
                self._unmake(session_id)
                raise SessionServiceError(
                    f"could not create a session in {self.sessions_dir}: {exc.strerror or exc}"
                ) from exc
            store = self._open(session_id)
        created = iso(now_utc())
        store.meta_doc.update(
            created=created,
            updated=created,
            origin="foley-tui",
            title=(title or "").strip() or None,
        )
        try:
            store.meta_doc.write()
        except OSError as exc:
            self._unmake(session_id)
            raise SessionServiceError(str(exc)) from exc
        return session_id

    def _unmake(self, session_id: str) -> None:
        """Take back a session :meth:`create` could not finish (a full disk): its folder
        holds only what create made, so nothing half-made is listed as a session. Only
        our own entries are removed, each by name; anything else keeps the folder."""
        with self._lock:
            self._stores.pop(session_id, None)
        if self._memory is not None:
            self._memory.pop(session_id, None)
            return
        folder = self._path(session_id)
        ours = folder / STATE_DIR
        with contextlib.suppress(OSError):
            for entry in os.scandir(ours):
                if entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
        for path in (ours, *(folder / name for name in NAMESPACES), folder):
            with contextlib.suppress(OSError):
                os.rmdir(path)  # only when empty: never more than create made
        with contextlib.suppress(OSError):
            fsync_dir(str(self.sessions_dir))

    def get(self, session_id: str, *, touch: bool = True) -> SessionStore:
        """The session's store; SessionNotFoundError if absent. With ``touch`` (the
        default) it is recorded as opened, which :meth:`most_recent` goes by; read-only
        callers (``session show``, ``picks``) pass ``touch=False``."""
        validate_session_id(session_id)
        with self._lock:
            if not self._exists(session_id):
                self._stores.pop(session_id, None)
                raise SessionNotFoundError(f"no session {session_id!r}")
            store = self._open(session_id)
        if touch:
            with contextlib.suppress(OSError):
                store.mark_opened()
        return store

    def info(self, session_id: str) -> SessionInfo:
        validate_session_id(session_id)
        if not self._exists(session_id):
            raise SessionNotFoundError(f"no session {session_id!r}")
        store = self._open(session_id)
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
        for session_id in self._ids():
            # One damaged session never hides the others.
            with contextlib.suppress(SessionServiceError, OSError):
                infos.append(self.info(session_id))
        return sorted(infos, key=lambda i: (i.created, i.session_id))

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
            if self._exists(ref):
                return ref
        except InvalidSessionIdError as exc:
            invalid = exc  # may still be a title; said if nothing matches
        if self.exact_refs if exact is None else exact:
            raise invalid or SessionNotFoundError(f"no session with the exact id {ref!r}")
        ref = ref.strip()
        if not ref:
            raise SessionNotFoundError("empty session reference")
        infos = self.list()
        titled = [i.session_id for i in infos if (i.title or "").casefold() == ref.casefold()]
        if len(titled) == 1:
            return titled[0]
        if len(titled) > 1:
            raise SessionServiceError(f"several sessions are titled {ref!r}: {', '.join(titled)}")
        low = ref.casefold()
        prefixed = sorted(i.session_id for i in infos if i.session_id.casefold().startswith(low))
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
        """Move that one session folder to the trash of its file system (as foley's own
        deletes do: restorable from a file manager); nothing else is touched. A store
        still open on it refuses to write it back (SessionDeletedError)."""
        validate_session_id(session_id)
        if not self._exists(session_id):
            raise SessionNotFoundError(f"no session {session_id!r}")
        with self._lock:
            self._stores.pop(session_id, None)
            if self._memory is not None:
                self._memory.pop(session_id, None)
                return
        folder = self._path(session_id)
        try:
            nested = [] if folder.is_symlink() else nested_session_dirs(folder)
            if nested:
                self._trash_own_part(folder, nested)
            else:
                move_to_trash(folder)  # a link is moved as a link, never followed
            self._prune_parents(session_id)
        except OSError as exc:
            raise SessionServiceError(
                f"could not delete {session_id!r}: {exc.strerror or exc}"
            ) from exc

    @staticmethod
    def _trash_own_part(folder: Path, nested: builtins.list[str]) -> None:
        """Delete a session that has sessions nested under it (``proj`` of
        ``proj/scene1``): its own entries are gathered in a hidden folder beside them and
        that goes to the trash (restoring to ``proj``); the nested sessions stay."""
        parked = folder / f".deleting-{new_ulid()}"
        parked.mkdir()
        try:
            for entry in os.scandir(folder):
                if entry.name in nested or entry.path == str(parked):
                    continue
                os.rename(entry.path, parked / entry.name)
            fsync_dir(str(folder))
        except OSError:
            for entry in os.scandir(parked):  # put back what moved: nothing is lost
                with contextlib.suppress(OSError):
                    os.rename(entry.path, folder / entry.name)
            with contextlib.suppress(OSError):
                parked.rmdir()
            raise
        move_to_trash(parked, original=folder)

    def _prune_parents(self, session_id: str) -> None:
        """After a nested session (``proj/scene1``) goes, remove the folders that only
        held it (``proj``) if they are now empty, so no bogus empty session appears."""
        parts = session_id.split("/")[:-1]
        while parts:
            try:
                (self.sessions_dir / "/".join(parts)).rmdir()  # only if empty
            except OSError:
                return
            parts.pop()

    # ------------------------------------------------------------------ what the parts use
    @property
    def in_memory_store(self) -> bool:
        return self._memory is not None

    @property
    def window(self) -> int | None:
        return self._window

    def exists(self, session_id: str) -> bool:
        return self._exists(session_id)

    def open(self, session_id: str) -> SessionStore:
        return self._open(session_id)

    def adopt(self, session_id: str, store: SessionStore) -> None:
        """Hold ``store`` as the session ``session_id`` (an in-memory import)."""
        with self._lock:
            if self._memory is not None:
                self._memory.pop(session_id, None)
                self._admit(self._memory, session_id, store)
            self._stores.pop(session_id, None)

    def forget(self, session_id: str) -> None:
        """Drop the open store of ``session_id`` (its session was replaced)."""
        with self._lock:
            self._stores.pop(session_id, None)

    def write_import(self, imported: ImportedSession) -> None:
        """Write an imported session (staged, then renamed into place)."""
        left = write_files(self.sessions_dir, self._path(imported.session_id), imported)
        if left:
            self.recovered = [*self.recovered, *left]

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
        if self._memory is not None:
            return "It is held in memory only: deleting it cannot be undone."
        return "Its folder goes to the Trash: restore it from a file manager."

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
