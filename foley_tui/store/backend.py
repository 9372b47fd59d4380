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
from collections.abc import Callable, Hashable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from foley_tui.store.codec import dumps, encode_key, loads_object
from foley_tui.store.errors import StoreProblem

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


def _record_of(line: bytes) -> dict[str, Any] | None:
    """One journal line as a record, or None when it is garbage (torn, foreign, not ours)."""
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


@dataclass(slots=True)
class JournalAppend:
    """What :meth:`StateBackend.journal_append` did: the records other processes had
    appended since the caller's offset (read from ``read_from``), and where ours went."""

    records: list[dict[str, Any]] = field(default_factory=list)
    read_from: int = 0
    start: int = 0
    end: int = 0


class StateBackend:
    """Our own per-session state: metadata, an append-only journal, the candidate index.

    Journal offsets are opaque positions (bytes in a file, lines in memory) that only ever
    grow; every read and append costs what is new since the caller's offset, never the
    whole journal.
    """

    def read_meta(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def write_meta(self, meta: dict[str, Any], *, durable: bool = True) -> None:
        raise NotImplementedError

    def journal_read(self, offset: int, end: int | None = None) -> tuple[list[dict[str, Any]], int]:
        """Complete records between ``offset`` and ``end`` (default: the end of the
        journal) and the offset after the last one read."""
        raise NotImplementedError

    def journal_tail(self) -> tuple[int | None, int]:
        """(seq of the last readable record or None, offset of the end of the last
        complete record): what a process needs to append without reading the journal."""
        raise NotImplementedError

    def journal_append(
        self, offset: int, build: Callable[[list[dict[str, Any]]], dict[str, Any]]
    ) -> JournalAppend:
        """Append one record durably (on disk when this returns). Call under :meth:`lock`.

        Records appended since ``offset`` (by other processes) are read first and given
        to ``build``, which returns ours (its seq follows theirs)."""
        raise NotImplementedError

    def journal_token(self) -> Hashable:
        raise NotImplementedError

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

    @property
    def problems(self) -> list[StoreProblem]:
        return []


class MemoryState(StateBackend):
    def __init__(self) -> None:
        self._meta: bytes | None = None
        self._journal: list[bytes] = []
        self._lock = threading.RLock()

    def read_meta(self) -> dict[str, Any] | None:
        return None if self._meta is None else loads_object(self._meta)

    def write_meta(self, meta: dict[str, Any], *, durable: bool = True) -> None:
        self._meta = dumps(meta)

    def journal_read(self, offset: int, end: int | None = None) -> tuple[list[dict[str, Any]], int]:
        lines = self._journal[offset:end]
        return [r for r in map(_record_of, lines) if r is not None], offset + len(lines)

    def journal_tail(self) -> tuple[int | None, int]:
        for line in reversed(self._journal):
            record = _record_of(line)
            if record is not None:
                return record["seq"], len(self._journal)
        return None, len(self._journal)

    def journal_append(
        self, offset: int, build: Callable[[list[dict[str, Any]]], dict[str, Any]]
    ) -> JournalAppend:
        with self._lock:
            read_from = offset if offset <= len(self._journal) else 0
            records, start = self.journal_read(read_from)
            record = build(records)
            self._journal.append(json.dumps(record, allow_nan=False).encode())
            return JournalAppend(records, read_from, start, start + 1)

    def journal_token(self) -> Hashable:
        return len(self._journal)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield
