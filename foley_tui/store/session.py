"""One audition session: foley's SessionStore API plus what the TUI needs.

Above the Mapping layer everything works on any ``MutableMapping`` (files by default, a
dict in tests). Decisions (pick, reject, clear, layer, onset, undo, redo) are a
read-modify-write of the sound's files under the session lock, then one journal append;
both are fsync'd before the call returns. A crash between the two leaves the decision on
disk but not in the journal, which reads exactly like a decision made by foley's agent:
consistent and readable, just not undoable.

:class:`SessionStore` is composed of mixins, one concern per module:
``reads`` (shared state, tolerant reads, problems), ``rows`` (candidate ids, the index
and list rows), ``decisions`` (foley's API, decisions, journal, undo/redo) and ``meta``
(title, cursor, view, times); ``records`` holds the plain data types and helpers. Names
are imported from the module that defines them (this one defines only the store).

Threading contract (one rule): a store may be used from any number of threads at once.
Every in-memory cache of the store (problems, the per-file decision read cache, the
journal entries and undo/redo stacks, the metadata dict) is read and changed only while
holding ``self._lock``, one re-entrant lock per store, held for bookkeeping and the short
reads that fill a cache, never across a scan of the candidates. Decisions and undo/redo
are in addition serialised by the session lock (``state.lock()``: a per-store RLock plus
an ``flock`` shared with other processes), which is always taken *before*
``self._lock``, never after, so the two cannot deadlock. Calls from one thread apply in
the order that thread makes them.

Headless: never imports textual.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Hashable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.store.backend import MemoryNamespace, MemoryState, StateBackend
from foley_tui.store.errors import StoreProblem
from foley_tui.store.files import FileNamespace
from foley_tui.store.index import CandidateIndex
from foley_tui.store.meta import MetaMixin
from foley_tui.store.records import JournalEntry
from foley_tui.store.rows import RowsMixin
from foley_tui.store.undo import UndoMixin

if TYPE_CHECKING:
    from foley_tui.audio.blob import RemoteAudio

_live_stores: weakref.WeakSet[SessionStore] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:  # pragma: no cover - exercised at interpreter exit
    for store in list(_live_stores):
        with contextlib.suppress(Exception):
            store.flush()


class SessionStore(UndoMixin, RowsMixin, MetaMixin):
    """foley's ``SessionStore`` API over three namespaces, plus journal, metadata and index.

    ``candidates``/``picks``/``rejects`` are any ``MutableMapping[str, dict]``; when they are
    :class:`FileNamespace` objects the store also uses their scans (fast listing, the
    index, change tokens). ``state`` keeps our metadata and journal.
    """

    def __init__(
        self,
        session_id: str,
        *,
        candidates: MutableMapping[str, dict[str, Any]],
        picks: MutableMapping[str, dict[str, Any]],
        rejects: MutableMapping[str, dict[str, Any]],
        state: StateBackend,
        data_dir: Path | None = None,
        session_path: Path | None = None,
    ) -> None:
        self.session_id = session_id
        self.candidates = candidates
        self.picks_ns = picks
        self.rejects_ns = rejects
        self.state = state
        self.data_dir = data_dir
        self.session_path = session_path
        self._problems: dict[tuple[str, str], StoreProblem] = {}
        self._scan_problems: dict[str, list[StoreProblem]] = {}
        self._lock = threading.RLock()
        self._journal: list[JournalEntry] = []
        self._journal_known = False
        self._journal_start = 0
        self._journal_offset = 0
        self._last_seq = 0
        self._done: dict[int, JournalEntry] = {}
        self._undone: dict[int, JournalEntry] = {}
        self._meta_write_lock = threading.Lock()
        self._meta: dict[str, Any] | None = None
        self._meta_dirty = False
        self._meta_written = 0.0
        # (ino, mtime_ns, size) -> parsed dict, per namespace, for cheap re-reads.
        # file name -> ((ino, mtime_ns, size), parsed dict or None if unreadable, key)
        self._decision_cache: dict[
            str, dict[str, tuple[tuple[int, int, int], dict[str, Any] | None, str]]
        ] = {
            "picks": {},
            "rejects": {},
        }
        self._index: CandidateIndex | None = None
        self._index_conn: sqlite3.Connection | None = None
        self._index_info: tuple[int, bytes, int, bool] | None = None
        self._index_verified = False
        self._candidate_count_hint = 0
        self._recovered: list[str] = []
        self._recovered_lock = threading.Lock()
        _live_stores.add(self)

    @classmethod
    def in_memory(cls, session_id: str = "default") -> SessionStore:
        return cls(
            session_id,
            candidates=MemoryNamespace(),
            picks=MemoryNamespace(),
            rejects=MemoryNamespace(),
            state=MemoryState(),
        )

    def __repr__(self) -> str:
        return f"SessionStore({self.session_id!r}, data_dir={self.data_dir!r})"

    def inspect(self) -> list[StoreProblem]:
        """Read the whole session as the app does (every candidate row, pick, reject, the
        journal and our metadata) and return every problem found: what ``session show``
        lists, so no damaged file is known to the app and the export only."""
        self.rows()
        self.picks()
        self.rejects()
        self.journal()
        self.meta()
        return self.problems()

    def warm(self) -> None:
        """Build what opening skipped to paint sooner (the namespaces' dol stores): call
        it from a worker once the list is on screen, so the first decision does not pay
        for it."""
        for ns in (self.candidates, self.picks_ns, self.rejects_ns):
            if isinstance(ns, FileNamespace):
                ns.warm()

    def remote_audio(self) -> RemoteAudio | None:
        """Audio the session's store keeps for candidates whose file is not on this
        machine (a shared store's pushed blobs), for the resolver; None on files."""
        return None

    # ------------------------------------------------------------------ change token
    def change_token(self) -> Hashable:
        """Differs after any write to candidates, picks, rejects or the journal.

        File backend: folder mtimes (any create/replace/unlink) plus (name, mtime, size)
        of every pick and reject (foley rewrites those in place) and, for sessions of up
        to 2,000 candidates, of every candidate too.
        """
        parts: list[Hashable] = []
        for ns in (self.candidates, self.picks_ns, self.rejects_ns):
            if isinstance(ns, FileNamespace):
                try:
                    parts.append(os.stat(ns.path).st_mtime_ns)
                except OSError:
                    parts.append(None)
                if ns is not self.candidates or self._candidate_count_hint <= 2000:
                    entries, _ = ns.scan(stat=True)
                    if ns is self.candidates:
                        self._candidate_count_hint = len(entries)
                    parts.append(hash(tuple((e.name, e.mtime_ns, e.size) for e in entries)))
            elif isinstance(ns, MemoryNamespace):
                parts.append(ns.version)
            else:
                parts.append(hash(tuple(sorted(ns))))
        parts.append(self.state.journal_token())
        return tuple(parts)
