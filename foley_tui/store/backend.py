"""Backends below the SessionStore: the in-memory namespace and our own per-session state.

Our state (metadata, the decision journal, the candidate index) lives in a hidden folder
``sessions/<id>/.foley-tui/`` beside foley's three namespace folders: foley skips hidden
names, and nothing of ours ever goes inside ``candidates/``, ``picks/`` or ``rejects/``.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Hashable, Iterator, MutableMapping
from typing import Any

from foley_tui.store.codec import DecodeError, dumps, encode_key, loads_object
from foley_tui.store.errors import StoreProblem
from foley_tui.store.files import atomic_write, fsync_dir, read_object

#: Name of our hidden folder inside a session folder.
STATE_DIR = ".foley-tui"
META_FILE = "meta.json"
JOURNAL_FILE = "journal.jsonl"
INDEX_FILE = "index.bin"
#: The JSON index of earlier versions: removed when the current one is written.
LEGACY_INDEX_FILES = ("index.json",)
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

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data


class StateBackend:
    """Our own per-session state: metadata, an append-only journal, the candidate index."""

    def read_meta(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def write_meta(self, meta: dict[str, Any], *, durable: bool = True) -> None:
        raise NotImplementedError

    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        """Records appended since ``offset`` and the new offset (complete records only)."""
        raise NotImplementedError

    def journal_append(self, record: dict[str, Any]) -> tuple[int, int]:
        """Append one record durably (on disk when this returns).

        Returns (start, end): the journal offsets our record was written between (a
        caller that had read up to ``start`` can take the record as read)."""
        raise NotImplementedError

    def journal_token(self) -> Hashable:
        raise NotImplementedError

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Serialise decisions of all our processes on this session."""
        yield

    def read_index(self) -> Any:
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

    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        return [json.loads(b) for b in self._journal[offset:]], len(self._journal)

    def journal_append(self, record: dict[str, Any]) -> tuple[int, int]:
        self._journal.append(json.dumps(record, allow_nan=False).encode())
        return len(self._journal) - 1, len(self._journal)

    def journal_token(self) -> Hashable:
        return len(self._journal)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield


class FileState(StateBackend):
    """Our state in ``<session>/.foley-tui/``: meta.json, journal.jsonl, index.bin, lock."""

    def __init__(self, session_path: str | os.PathLike[str]) -> None:
        self.session_path = os.fspath(session_path)
        self.path = os.path.join(self.session_path, STATE_DIR)
        self._problems: list[StoreProblem] = []
        self._thread_lock = threading.RLock()
        self._lock_depth = 0

    def _file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def ensure(self) -> None:
        if not os.path.isdir(self.path):
            os.makedirs(self.path, exist_ok=True)
            fsync_dir(self.session_path)

    @property
    def problems(self) -> list[StoreProblem]:
        return list(self._problems)

    def _problem(self, name: str, reason: str) -> None:
        problem = StoreProblem("foley-tui", name, self._file(name), reason)
        if problem not in self._problems:
            self._problems.append(problem)

    # -- meta --------------------------------------------------------------------
    def read_meta(self) -> dict[str, Any] | None:
        try:
            return read_object(self._file(META_FILE))
        except FileNotFoundError:
            return None
        except (DecodeError, OSError) as exc:
            # A corrupt meta.json never stops the session from opening: defaults apply
            # and the file is left as it is until the next metadata write replaces it.
            self._problem(META_FILE, str(exc))
            return None

    def write_meta(self, meta: dict[str, Any], *, durable: bool = True) -> None:
        self.ensure()
        atomic_write(self._file(META_FILE), dumps(meta), durable=durable)

    # -- journal -------------------------------------------------------------------
    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        try:
            with open(self._file(JOURNAL_FILE), "rb") as fh:
                fh.seek(offset)
                data = fh.read()
        except FileNotFoundError:
            return [], 0
        end = data.rfind(b"\n")
        if end < 0:  # nothing complete yet (or a torn first record)
            return [], offset
        records: list[dict[str, Any]] = []
        for lineno, line in enumerate(data[:end].split(b"\n")):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if not isinstance(record, dict) or not isinstance(record.get("seq"), int):
                # A torn record from a crash mid-append: skipped, kept in the file.
                self._problem(
                    JOURNAL_FILE, f"unreadable journal record near byte {offset}+{lineno}"
                )
                continue
            records.append(record)
        return records, offset + end + 1

    def journal_append(self, record: dict[str, Any]) -> tuple[int, int]:
        self.ensure()
        line = json.dumps(record, separators=(",", ":"), allow_nan=False).encode() + b"\n"
        path = self._file(JOURNAL_FILE)
        created = not os.path.exists(path)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # A crash tore the last record: start ours on a fresh line.
                line = b"\n" + line
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fdatasync(fd)
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.path)
        # A torn tail got a newline first: the record itself starts after it.
        return (size + 1 if line[:1] == b"\n" else size), size + len(line)

    def journal_token(self) -> Hashable:
        try:
            st = os.stat(self._file(JOURNAL_FILE))
        except FileNotFoundError:
            return None
        return (st.st_size, st.st_mtime_ns)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with self._thread_lock:
            if self._lock_depth:  # re-entered (undo -> decide): we already hold the flock
                self._lock_depth += 1
                try:
                    yield
                finally:
                    self._lock_depth -= 1
                return
            self.ensure()
            fd = os.open(self._file(LOCK_FILE), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._lock_depth = 1
                yield
            finally:
                self._lock_depth = 0
                os.close(fd)  # releases the flock

    # -- index ---------------------------------------------------------------------
    def _sweep_stale_temps(self, older_than_s: float = 600.0) -> None:
        """Remove temp files a killed writer left in *our* folder (an index temp can be
        tens of MB). Never touches foley's folders; young temps may be in use."""
        now = time.time()
        with contextlib.suppress(OSError), os.scandir(self.path) as entries:
            for entry in entries:
                if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                    with contextlib.suppress(OSError):
                        if now - entry.stat(follow_symlinks=False).st_mtime > older_than_s:
                            os.unlink(entry.path)

    def read_index(self) -> bytes | None:
        try:
            with open(self._file(INDEX_FILE), "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            return None
        except OSError:
            # The index is only a cache: an unreadable one is rebuilt from the files.
            return None

    def write_index(self, index: Any) -> None:
        self.ensure()
        self._sweep_stale_temps()
        # Atomic but not fsync'd: a lost index costs one re-scan, never data.
        atomic_write(self._file(INDEX_FILE), bytes(index), durable=False)
        for name in LEGACY_INDEX_FILES:
            with contextlib.suppress(OSError):
                os.unlink(self._file(name))
