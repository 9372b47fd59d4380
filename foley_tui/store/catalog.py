"""Where a session service's sessions live: a :class:`SessionCatalog` per kind of
place (folders in foley's layout, memory; Redis has its own in :mod:`.redis.service`),
and :class:`OpenStores`, the stores a service holds open, which every catalog shares
with its service.

A :class:`~foley_tui.store.service.SessionService` holds one catalog and asks it what
only the place knows: whether a session exists, its store, the ids, how a session is
made, deleted and written from an import. Everything else (the open stores' bound and
pin, references, listing, renaming, the transfer and ledger parts) is the service's
own, the same whatever the place.

Headless: never imports textual.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import threading
from pathlib import Path
from typing import Protocol

from foley_tui.store.backend import STATE_DIR
from foley_tui.store.codec import validate_session_id
from foley_tui.store.errors import InvalidSessionIdError, SessionNotFoundError, SessionServiceError
from foley_tui.store.files import fsync_dir
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
from foley_tui.store.transfer_service import ImportedSession, write_files
from foley_tui.store.trash import move_to_trash


class OpenStores:
    """The stores a service holds open, least recently used first: at most
    ``max_sessions``, the pinned one never dropped. One reentrant lock guards them (and
    a memory catalog's sessions, which are its stores)."""

    def __init__(self, max_sessions: int) -> None:
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self.max_sessions = max_sessions
        self.stores: dict[str, SessionStore] = {}
        self.pinned: frozenset[str] = frozenset()
        self.lock = threading.RLock()

    def admit(self, cache: dict[str, SessionStore], session_id: str, store: SessionStore) -> None:
        """Put ``store`` in ``cache`` (:attr:`stores`, or a memory catalog's sessions) as
        the most recently used; evict beyond the cap."""
        with self.lock:
            cache.pop(session_id, None)
            cache[session_id] = store  # dicts keep insertion order: the end is the newest
            excess = len(cache) - self.max_sessions
            for old in [k for k in cache if k not in self.pinned and k != session_id]:
                if excess <= 0:
                    break
                del cache[old]
                if cache is not self.stores:
                    self.stores.pop(old, None)
                excess -= 1


class SessionCatalog(Protocol):
    """What a service asks of the place its sessions live."""

    #: True when the sessions exist only in this process (an import is adopted, not
    #: written; a deleted one cannot come back).
    in_memory: bool

    #: One line per leftover of an earlier crash cleaned up (the CLI prints them).
    recovered: builtins.list[str]

    @property
    def delete_outcome(self) -> str:
        """What :meth:`delete` does with a session, as a confirmation says it."""
        ...

    def exists(self, session_id: str) -> bool: ...

    def open(self, session_id: str) -> SessionStore:
        """The store of an existing session (held open in the shared :class:`OpenStores`)."""
        ...

    def ids(self) -> builtins.list[str]: ...

    def create(self, session_id: str, title: str | None) -> None:
        """Make the new empty session ``session_id`` with our metadata (:func:`first_meta`)."""
        ...

    def delete(self, session_id: str) -> None:
        """Delete the existing session (its open store already dropped)."""
        ...

    def adopt(self, session_id: str, store: SessionStore) -> None:
        """Hold ``store`` as the session (an in-memory import; elsewhere nothing)."""
        ...

    def write_import(self, imported: ImportedSession) -> None: ...


def first_meta(store: SessionStore, title: str | None) -> None:
    """A new session's metadata, made by us now (written by the caller)."""
    created = iso(now_utc())
    store.meta_doc.update(
        created=created,
        updated=created,
        origin="foley-tui",
        title=(title or "").strip() or None,
    )


class MemoryCatalog:
    """Sessions held in this process only: the least recently used beyond the bound is
    evicted (gone: a later ``get`` of it raises SessionNotFoundError)."""

    in_memory = True
    delete_outcome = "It is held in memory only: deleting it cannot be undone."

    def __init__(self, opened: OpenStores) -> None:
        self.opened = opened
        self.sessions: dict[str, SessionStore] = {}
        self.recovered: builtins.list[str] = []

    def exists(self, session_id: str) -> bool:
        with self.opened.lock:
            return session_id in self.sessions

    def open(self, session_id: str) -> SessionStore:
        with self.opened.lock:
            try:
                store = self.sessions[session_id]
            except KeyError:
                raise SessionNotFoundError(f"no session {session_id!r}") from None
            self.sessions[session_id] = self.sessions.pop(session_id)  # now the newest
            return store

    def ids(self) -> builtins.list[str]:
        with self.opened.lock:
            return list(self.sessions)

    def create(self, session_id: str, title: str | None) -> None:
        store = SessionStore.in_memory(session_id)
        self.opened.admit(self.sessions, session_id, store)
        first_meta(store, title)
        try:
            store.meta_doc.write()
        except OSError as exc:
            with self.opened.lock:
                self.opened.stores.pop(session_id, None)
            self.sessions.pop(session_id, None)
            raise SessionServiceError(str(exc)) from exc

    def delete(self, session_id: str) -> None:
        with self.opened.lock:
            self.sessions.pop(session_id, None)

    def adopt(self, session_id: str, store: SessionStore) -> None:
        with self.opened.lock:
            self.sessions.pop(session_id, None)
            self.opened.admit(self.sessions, session_id, store)

    def write_import(self, imported: ImportedSession) -> None:
        raise SessionServiceError("an in-memory service has no sessions folder")


class FileCatalog:
    """Sessions as folders under ``data_dir/sessions/`` (foley's layout). What a killed
    import left behind is finished or rolled back when the catalog is made."""

    in_memory = False
    delete_outcome = "Its folder goes to the Trash: restore it from a file manager."

    def __init__(self, data_dir: Path, opened: OpenStores) -> None:
        self.sessions_dir = data_dir / "sessions"
        self.data_dir = data_dir
        self.opened = opened
        self.recovered: builtins.list[str] = recover(self.sessions_dir)

    def path(self, session_id: str) -> Path:
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

    def exists(self, session_id: str) -> bool:
        return is_session_dir(self.path(session_id))

    def open(self, session_id: str) -> SessionStore:
        opened = self.opened
        with opened.lock:
            store = opened.stores.get(session_id)
            if store is not None:
                opened.stores[session_id] = opened.stores.pop(session_id)  # now the newest
                return store
            folder = self.path(session_id)
            link = linked_part(self.sessions_dir, session_id)
            if link is not None:
                # Everything of the session would be read, written and exported through
                # the link, wherever it leads: refused (delete removes only the link).
                raise SessionServiceError(
                    f"session {session_id!r} is (inside) a symbolic link to "
                    f"{os.readlink(link)!r}: refused (sessions must be real folders)"
                )
            store = file_store(session_id, folder, self.data_dir)
            opened.admit(opened.stores, session_id, store)
            swept = sweep_temps([folder / "picks", folder / "rejects", folder / STATE_DIR])
            if swept:
                self.recovered = [*self.recovered, *swept]
            return store

    def ids(self) -> builtins.list[str]:
        ids: builtins.list[str] = []
        walk_session_ids(self.sessions_dir, "", ids, depth=0)
        return ids

    def create(self, session_id: str, title: str | None) -> None:
        folder = self.path(session_id)
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
        store = self.open(session_id)
        first_meta(store, title)
        try:
            store.meta_doc.write()
        except OSError as exc:
            self._unmake(session_id)
            raise SessionServiceError(str(exc)) from exc

    def _unmake(self, session_id: str) -> None:
        """Take back a session :meth:`create` could not finish (a full disk): its folder
        holds only what create made, so nothing half-made is listed as a session. Only
        our own entries are removed, each by name; anything else keeps the folder."""
        with self.opened.lock:
            self.opened.stores.pop(session_id, None)
        folder = self.path(session_id)
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

    def delete(self, session_id: str) -> None:
        """Move that one session folder to the trash of its file system (as foley's own
        deletes do: restorable from a file manager); nothing else is touched."""
        folder = self.path(session_id)
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

    def adopt(self, session_id: str, store: SessionStore) -> None:
        """Nothing to hold: an import to files is written (:meth:`write_import`)."""

    def write_import(self, imported: ImportedSession) -> None:
        """Write an imported session (staged, then renamed into place)."""
        left = write_files(self.sessions_dir, self.path(imported.session_id), imported)
        if left:
            self.recovered = [*self.recovered, *left]


__all__ = ["FileCatalog", "MemoryCatalog", "OpenStores", "SessionCatalog", "first_meta"]
