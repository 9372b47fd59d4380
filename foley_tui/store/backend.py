"""Backends below the SessionStore: the in-memory namespace and our own per-session state.

Our state (metadata, the decision journal, the candidate index) lives in a hidden folder
``sessions/<id>/.foley-tui/`` beside foley's three namespace folders: foley skips hidden
names, and nothing of ours ever goes inside ``candidates/``, ``picks/`` or ``rejects/``.
That folder is :class:`~foley_tui.store.file_state.FileState`; this module holds the
interface (:class:`StateBackend`), its names and the in-memory backends.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import json
import threading
import weakref
from collections.abc import (
    Callable,
    Hashable,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
)
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from foley_tui.domain import Pick, Reject, Row
from foley_tui.store.codec import dumps, encode_key, loads_object
from foley_tui.store.errors import StoreProblem
from foley_tui.store.reads import Problems
from foley_tui.store.records import MARKS_NS

if TYPE_CHECKING:
    from foley_tui.store.byte_store import ByteStore
    from foley_tui.store.index_db import Page

#: Name of our hidden folder inside a session folder.
STATE_DIR = ".foley-tui"
META_FILE = "meta.json"
JOURNAL_FILE = "journal.jsonl"
INDEX_FILE = "index.sqlite"
#: The indexes of earlier versions (JSON, then marshal): removed when ours is written.
LEGACY_INDEX_FILES = ("index.json", "index.bin")
LOCK_FILE = "lock"


class MemoryNamespace(MutableMapping[str, dict[str, Any]]):
    """A plain in-memory namespace with file semantics: values are stored as foley's
    bytes, so callers get copies, NaN is refused and keys are validated the same way."""

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}
        self.version = 0

    def __getitem__(self, key: str) -> dict[str, Any]:
        return loads_object(self._data[key])

    def __setitem__(self, key: str, value: dict[str, Any]) -> None:
        encode_key(key)
        self._data[key] = dumps(value)
        self.version += 1

    def __delitem__(self, key: str) -> None:
        del self._data[key]
        self.version += 1

    def raw(self, key: str) -> bytes:
        return self._data[key]

    def put_raw(self, key: str, data: bytes) -> None:
        """Keep exact bytes (an import restoring a file foley wrote with a NaN)."""
        encode_key(key)
        self._data[key] = bytes(data)
        self.version += 1

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data


_Namespace = TypeVar("_Namespace")
_Attached = TypeVar("_Attached")

# The objects kept beside a SessionStore (its conversation, ledger, sound findings): one of
# each kind per store object, so the service and the app share one (one read offset, one
# lock), and gone with the store.
_attached: weakref.WeakKeyDictionary[Any, dict[type, Any]] = weakref.WeakKeyDictionary()
_attached_lock = threading.Lock()


def attached(store: Any, kind: type[_Attached], make: Callable[[], _Attached]) -> _Attached:
    """The one ``kind`` object of ``store``, made by ``make`` on first use."""
    with _attached_lock:
        objects = _attached.get(store)
        if objects is None:
            objects = _attached[store] = {}
        found = objects.get(kind)
        if found is None:
            found = objects[kind] = make()
        return cast(_Attached, found)


def choose_namespace(
    name: str, candidates: _Namespace, picks: _Namespace, rejects: _Namespace, marks: _Namespace
) -> _Namespace:
    """The one of a backend's four namespaces called ``name`` (foley's three, our marks);
    ValueError for any other name."""
    chosen = {"candidates": candidates, "picks": picks, "rejects": rejects, MARKS_NS: marks}
    try:
        return chosen[name]
    except KeyError:
        raise ValueError(f"unknown namespace {name!r}") from None


def _record_of(line: bytes) -> dict[str, Any] | None:
    """One journal line as a record, or None when it is garbage (torn, foreign, not ours)."""
    if not line.lstrip().startswith(b"{"):
        # Not a JSON object at all (a torn write's tail, a foreign line): told apart
        # without the decoder, whose error path costs far more than this check.
        return None
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    seq = record.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int):
        return None
    return record


class JournalReplaced(Exception):
    """The journal file is not the one the caller's offset points into (an import
    replaced the session, or the file was deleted or truncated): read it anew from 0."""


class JournalAppender:
    """One append to the journal, open: the records other processes appended since the
    caller's offset, then :meth:`write` of ours (its seq follows theirs)."""

    def __init__(self, state: StateBackend, offset: int) -> None:
        self._state = state
        self.records, self.end = state.journal_read(offset)

    def write(self, record: dict[str, Any]) -> int:
        """Append ``record`` durably; the journal's offset after it."""
        return self._state.journal_write(record, self.end)


class StateBackend:
    """Our own per-session state: metadata, an append-only journal, the candidate index.

    Journal offsets are opaque positions (bytes in a file, lines in memory, seqs on
    Redis) that only ever grow. No journal method holds the whole journal: reads of what
    is new cost what is new, :meth:`journal_scan` and :meth:`journal_back` read in blocks.
    """

    #: Whether our other state (the conversation, the usage counters) is kept by this
    #: backend; in memory it lives in the objects that use it.
    keeps_documents = True
    #: Who writes through this backend, where the backend records it (a shared store
    #: marks each message with its author); None where nobody else writes.
    author: str | None = None

    def where(self, name: str) -> str:
        """What messages call our state file ``name`` (its path on files)."""
        return name

    def read_meta(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def write_meta(self, meta: dict[str, Any], *, durable: bool = True) -> None:
        raise NotImplementedError

    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        """Complete records from ``offset`` to the end of the journal, and the offset
        after the last one. Raises :class:`JournalReplaced` when ``offset`` does not
        point into this journal."""
        raise NotImplementedError

    def journal_scan(self) -> Iterator[dict[str, Any]]:
        """Every complete record, oldest first, read a block at a time."""
        raise NotImplementedError

    def journal_back(self) -> Iterator[dict[str, Any]]:
        """Complete records from the newest back, read a block at a time: undo needs
        the journal's tail only."""
        raise NotImplementedError

    def journal_check(self) -> None:
        """Read the journal so every unreadable record is in :attr:`problems`
        (``session show``); a backend that remembers what it checked reads only what was
        appended since."""
        for _record in self.journal_scan():
            pass

    def journal_tail(self) -> tuple[int | None, int]:
        """(seq of the last readable record or None, offset of the end of the last
        complete record): what a process needs to append without reading the journal."""
        raise NotImplementedError

    def journal_write(self, record: dict[str, Any], at: int) -> int:
        """Append ``record`` durably (on disk when this returns) after offset ``at``, the
        end of the last complete record the caller read; return the offset after it.
        Call under :meth:`lock`. Raises :class:`JournalReplaced` when ``at`` does not
        point into this journal."""
        raise NotImplementedError

    @contextlib.contextmanager
    def journal_append(self, offset: int) -> Iterator[JournalAppender]:
        """Open one append after ``offset``: read what others appended since, then
        write ours. Call under :meth:`lock`. Raises :class:`JournalReplaced` when
        ``offset`` does not point into this journal."""
        yield JournalAppender(self, offset)

    def journal_token(self) -> Hashable:
        raise NotImplementedError

    def journal_token_at(self, end: int) -> Hashable:
        """:meth:`journal_token` of the journal when it ends at ``end`` (right after our
        own append there)."""
        return self.journal_token()

    def journal_reset(self) -> None:
        """Forget what was read of the journal (after :class:`JournalReplaced`)."""
        return None

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Serialise decisions of all our threads and processes on this session."""
        yield

    # Our other per-session state (the conversation, the usage counters): append-only
    # logs of newline-terminated records and small whole documents, by name. A shared
    # backend implements these five; MemoryState does not (the in-memory service keeps
    # that state in the objects that use it, bounded). Writers hold ``lock()``; where that
    # lock does not exclude other processes (Redis), ``expect``/``old`` make the write a
    # compare-and-swap and the caller re-reads and retries when it lost the race.
    def append_line(
        self, name: str, line: bytes, *, expect: int | None = None
    ) -> tuple[int, int] | None:
        """Append one newline-terminated record durably; (start, end) offsets, or None
        when ``expect`` is given and the log no longer ends there (nothing written)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no {name}")

    def read_from(self, name: str, offset: int) -> bytes:
        """The bytes of log ``name`` from ``offset`` on (b"" when there is none)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no {name}")

    def token_of(self, name: str) -> Hashable:
        """Differs after any write to ``name`` (cheap: for polling)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no {name}")

    def read_doc(self, name: str) -> bytes | None:
        """The bytes of document ``name``, or None when there is none."""
        raise NotImplementedError(f"{type(self).__name__} keeps no {name}")

    def swap_doc(self, name: str, old: bytes | None, new: bytes) -> bool:
        """Replace document ``name`` by ``new`` (atomically, durably) if it still holds
        ``old`` (None: absent); False, writing nothing, when it changed meanwhile."""
        raise NotImplementedError(f"{type(self).__name__} keeps no {name}")

    def read_index(self, expected_rows: int | None = None) -> Any:
        return None

    def index_path(self) -> str | None:
        return None

    def write_index(self, index: Any) -> None:
        return None

    def last_write_ns(self) -> int:
        """When our journal last changed (ns since the epoch), 0 when unknown."""
        return 0

    @property
    def problems(self) -> list[StoreProblem]:
        return []


class MemoryState(StateBackend):
    keeps_documents = False

    def __init__(self) -> None:
        self._meta: bytes | None = None
        self._journal: list[bytes] = []
        self._lock = threading.RLock()

    def read_meta(self) -> dict[str, Any] | None:
        return None if self._meta is None else loads_object(self._meta)

    def write_meta(self, meta: dict[str, Any], *, durable: bool = True) -> None:
        self._meta = dumps(meta)

    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        if offset > len(self._journal):
            raise JournalReplaced
        lines = self._journal[offset:]
        return [r for r in map(_record_of, lines) if r is not None], offset + len(lines)

    def journal_scan(self) -> Iterator[dict[str, Any]]:
        for line in list(self._journal):
            record = _record_of(line)
            if record is not None:
                yield record

    def journal_back(self) -> Iterator[dict[str, Any]]:
        for line in reversed(list(self._journal)):
            record = _record_of(line)
            if record is not None:
                yield record

    def journal_tail(self) -> tuple[int | None, int]:
        for line in reversed(self._journal):
            record = _record_of(line)
            if record is not None:
                return record["seq"], len(self._journal)
        return None, len(self._journal)

    def journal_write(self, record: dict[str, Any], at: int) -> int:
        with self._lock:
            if at > len(self._journal):
                raise JournalReplaced
            self._journal.append(json.dumps(record, allow_nan=False).encode())
            return len(self._journal)

    def journal_token(self) -> Hashable:
        return len(self._journal)

    def journal_token_at(self, end: int) -> Hashable:
        return end

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield


Stamp = tuple[int, int]
"""(mtime_ns, size) of one file, or (version of its last write, 0) on Redis."""

FolderState = Mapping[str, Stamp] | int
"""Per-entry stamps of a namespace, or one write counter where entries cannot be told
apart (memory)."""

NAMESPACE_NAMES = ("candidates", "picks", "rejects")


class SessionBackend(Protocol):
    """Where one session lives (files, memory, any three mappings, Redis): the methods
    every backend implements, so that no caller asks which one it has.

    Namespaces are named ``candidates``, ``picks`` and ``rejects``; a method that reads
    notes what it could not use in the :class:`~foley_tui.store.reads.Problems` given.
    """

    @property
    def candidates(self) -> MutableMapping[str, dict[str, Any]]: ...

    @property
    def picks(self) -> MutableMapping[str, dict[str, Any]]: ...

    @property
    def rejects(self) -> MutableMapping[str, dict[str, Any]]: ...

    @property
    def state(self) -> StateBackend: ...

    @property
    def label(self) -> str:
        """What the status line calls this store when it does not answer."""
        ...

    def namespace(self, name: str) -> MutableMapping[str, dict[str, Any]]:
        """The namespace mapping called ``name``."""
        ...

    def names(self, name: str, problems: Problems) -> list[str]:
        """Keys of a namespace, sorted; foreign names are reported, never fatal."""
        ...

    def read(self, name: str, key: str, problems: Problems) -> dict[str, Any] | None:
        """One entry, or None when absent or unreadable (noted)."""
        ...

    def read_all(self, name: str, problems: Problems) -> list[tuple[str, dict[str, Any]]]:
        """Every readable (key, dict) of a namespace, sorted by key."""
        ...

    def count(self, name: str) -> int:
        """How many entries a namespace holds (what foley's ``add_pick`` returns)."""
        ...

    def path_of(self, name: str, key: str) -> str:
        """Where an entry lives, for a problem report ("" when it has no path)."""
        ...

    def raw(self, name: str, key: str) -> bytes:
        """The exact stored bytes of an entry (KeyError when absent)."""
        ...

    def put(self, name: str, key: str, value: dict[str, Any]) -> None:
        """Write an entry; a :class:`~foley_tui.store.records.RawRecord` goes back as
        its exact bytes, never re-encoded."""
        ...

    def discard(self, name: str, key: str) -> None:
        """Remove an entry if present."""
        ...

    def cache_candidates(self, items: Iterable[tuple[str, dict[str, Any]]]) -> int:
        """Write candidates (sound id, dict); the count written."""
        ...

    def warm(self) -> None:
        """Build what opening skipped to paint sooner (call it from a worker)."""
        ...

    def bulk_reads(self) -> contextlib.AbstractContextManager[None]:
        """Within: reads of every candidate are answered from one pass (an export)."""
        ...

    def change_token(self) -> Hashable:
        """Differs after any write to candidates, picks, rejects or the journal."""
        ...

    def last_write(self) -> datetime | None:
        """When the session last changed, None when the backend cannot tell."""
        ...

    def stamps(self, name: str) -> FolderState:
        """Per-entry stamps of ``picks`` or ``rejects``: what a watcher compares."""
        ...

    def stamps_after_write(self, name: str, state: FolderState, key: str) -> FolderState:
        """``state`` with the stamp of ``key`` as it is after our own write."""
        ...

    def candidates_token(self) -> Hashable:
        """Differs after any write to the candidates (cheap: for polling)."""
        ...

    def rows_reader(self, problems: Problems, decisions: DecisionReads) -> RowsReader:
        """The part that reads the list rows of this backend's candidates."""
        ...

    def remote_audio(self) -> ByteStore | None:
        """Audio bytes kept for candidates whose file is not on this machine."""
        ...

    def change_feed(self, *, block_ms: int = 1000, since: str = "$") -> Feed | None:
        """A blocking feed of the session's changes; None where writes are polled."""
        ...

    def writes_settled(self) -> None:
        """Return once the backend runs writes again: a write it had queued (a paused
        server) has run or is gone by then. Raises OSError while it does not answer."""
        ...


class RowsReader(Protocol):
    """The list rows of a session's candidates (see :mod:`foley_tui.store.rows`)."""

    def candidate_ids(self) -> list[str]: ...

    def rows(
        self,
        progress: Callable[[int, int], None] | None = None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]: ...

    def quick_rows(self) -> list[Row] | None: ...

    def page(self, query: PageQuery) -> Page | None: ...

    def view_ids(self, query: PageQuery) -> list[str] | None:
        """Every id of a view, in order, from a stored index (None: none to ask)."""
        ...

    def rows_of(self, ids: Sequence[str]) -> dict[str, Row] | None:
        """The rows of ``ids`` from a stored index (None: none to ask)."""
        ...

    def search_texts(self) -> tuple[list[str], list[str]] | None:
        """Every id in rank order and its search text, from a stored index."""
        ...

    def verify(self, progress: Callable[[int, int], None] | None = None) -> int | None:
        """Check every candidate and bring the stored index up to date without building
        rows; the candidate count (None: no stored index to page from)."""
        ...

    def prepare_filter(self) -> bool: ...

    def search_ready(self) -> bool:
        """Whether the ``/`` filter of a page is answered from a search index now."""
        ...

    def count_hint(self) -> int: ...


class DecisionReads(Protocol):
    """The decisions a rows reader filters and sorts a page by."""

    def picks(self) -> dict[str, Pick]: ...

    def rejects(self) -> dict[str, Reject]: ...


class Feed(Protocol):
    """A blocking feed of a session's changes (:class:`~foley_tui.store.redis.feed.ChangeFeed`)."""

    def wait(self) -> Any: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PageQuery:
    """What one screen of the list asks for (see ``SessionStore.page``)."""

    sort: str = "rank"
    status: str = "all"
    query: str = ""
    offset: int = 0
    limit: int = 100
    around: str | None = None
    picks: Mapping[str, Pick] | None = None
    rejects: Mapping[str, Reject] | None = None
