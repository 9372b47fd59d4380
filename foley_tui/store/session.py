"""One audition session: foley's SessionStore API plus what the TUI needs.

Above the Mapping layer everything works on any ``MutableMapping`` (files by default, a
dict in tests). Decisions (pick, reject, clear, layer, onset, undo, redo) are applied to
the namespace files first, then journaled; both are fsync'd before the call returns.
A crash between the two leaves the decision on disk but not in the journal, which reads
exactly like a decision made by foley's agent: consistent and readable, just not undoable.

:class:`SessionStore` is composed of mixins, one concern per module:
``reads`` (shared state, tolerant reads, problems), ``rows`` (candidate ids, the index
and list rows), ``decisions`` (foley's API, decisions, journal, undo/redo) and ``meta``
(title, cursor, view, times); ``records`` holds the plain data types and helpers. This
module keeps construction and the change token, and re-exports the names it always
offered so ``from foley_tui.store.session import ...`` keeps working.

Headless: never imports textual.
"""

from __future__ import annotations

import atexit
import contextlib

# Re-exports: every name this module offered before the split (its own and the ones it
# imported), so callers, tests and monkeypatches of ``foley_tui.store.session`` keep
# working. The ``X as X`` form marks them as deliberate for ruff and mypy.
import math as math
import os
import re as re
import stat as stat_mod  # noqa: F401 (re-exported under its old name)
import threading
import time as time
import weakref
from collections.abc import Callable as Callable
from collections.abc import Hashable, MutableMapping
from collections.abc import Iterable as Iterable
from collections.abc import Mapping as Mapping
from dataclasses import dataclass as dataclass
from dataclasses import field as field
from datetime import UTC as UTC
from datetime import datetime as datetime
from pathlib import Path
from typing import Any

from foley_tui.model import Layer as Layer
from foley_tui.model import Pick as Pick
from foley_tui.model import Reject as Reject
from foley_tui.model import Row as Row
from foley_tui.model import Status as Status
from foley_tui.model import ValidationError as ValidationError
from foley_tui.model import validate_layer as validate_layer
from foley_tui.model import validate_onset as validate_onset
from foley_tui.store.backend import FileState as FileState
from foley_tui.store.backend import MemoryNamespace, StateBackend
from foley_tui.store.codec import DecodeError as DecodeError
from foley_tui.store.codec import InvalidKeyError as InvalidKeyError
from foley_tui.store.codec import decode_name as decode_name
from foley_tui.store.codec import encode_key as encode_key
from foley_tui.store.decisions import DecisionsMixin
from foley_tui.store.errors import StoreProblem
from foley_tui.store.errors import StoreWriteError as StoreWriteError
from foley_tui.store.files import RETRY_DELAYS as RETRY_DELAYS
from foley_tui.store.files import FileNamespace
from foley_tui.store.files import UnreadableEntry as UnreadableEntry
from foley_tui.store.files import read_object as read_object
from foley_tui.store.index import CandidateIndex
from foley_tui.store.index import scan_digest as scan_digest
from foley_tui.store.index import scan_stats as scan_stats
from foley_tui.store.meta import META_COALESCE_S as META_COALESCE_S
from foley_tui.store.meta import MetaMixin
from foley_tui.store.reads import RACY_NS as RACY_NS
from foley_tui.store.records import _HIDDEN_JSON as _HIDDEN_JSON
from foley_tui.store.records import SCHEMA_VERSION as SCHEMA_VERSION
from foley_tui.store.records import UNDECIDED as UNDECIDED
from foley_tui.store.records import JournalEntry
from foley_tui.store.records import SessionMeta as SessionMeta
from foley_tui.store.records import _discard as _discard
from foley_tui.store.records import _picked as _picked
from foley_tui.store.records import _reason as _reason
from foley_tui.store.records import _to_dict as _to_dict
from foley_tui.store.records import _write_error as _write_error
from foley_tui.store.records import candidate_key as candidate_key
from foley_tui.store.records import count_entries as count_entries
from foley_tui.store.records import fs_time as fs_time
from foley_tui.store.records import iso as iso
from foley_tui.store.records import normalize_state as normalize_state
from foley_tui.store.records import now_utc as now_utc
from foley_tui.store.records import parse_iso as parse_iso
from foley_tui.store.rows import _EMPTY_VALUES as _EMPTY_VALUES
from foley_tui.store.rows import RowsMixin
from foley_tui.store.rows import _make_row as _make_row
from foley_tui.store.rows import _num as _num
from foley_tui.store.rows import _row_values as _row_values

_live_stores: weakref.WeakSet[SessionStore] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:  # pragma: no cover - exercised at interpreter exit
    for store in list(_live_stores):
        with contextlib.suppress(Exception):
            store.flush()


class SessionStore(DecisionsMixin, RowsMixin, MetaMixin):
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
        self._journal: list[JournalEntry] = []
        self._journal_offset = 0
        self._journal_lock = threading.Lock()
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
        self._candidate_count_hint = 0
        _live_stores.add(self)

    @classmethod
    def in_memory(cls, session_id: str = "default") -> SessionStore:
        return cls(
            session_id,
            candidates=MemoryNamespace(),
            picks=MemoryNamespace(),
            rejects=MemoryNamespace(),
            state=_memory_state(),
        )

    def __repr__(self) -> str:
        return f"SessionStore({self.session_id!r}, data_dir={self.data_dir!r})"

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


def _memory_state() -> StateBackend:
    from foley_tui.store.backend import MemoryState

    return MemoryState()
