"""Our per-session state on disk: ``<session>/.foley-tui/`` with meta.json, the
journal (journal.jsonl, appended under an flock), the candidate index and the lock file.

The shared vocabulary (:class:`StateBackend`, the file names) is in
:mod:`foley_tui.store.backend`. Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import math
import os
import re
import stat
import threading
import time
from collections.abc import Hashable, Iterator
from typing import Any

from foley_tui.safe_io import (
    MAX_JOURNAL_BYTES,
    MAX_STATE_BYTES,
    UnsafeFileError,
    kind_of,
    read_capped,
    read_fd_capped_at,
)
from foley_tui.store.backend import (
    INDEX_FILE,
    JOURNAL_FILE,
    LEGACY_INDEX_FILES,
    LOCK_FILE,
    META_FILE,
    STATE_DIR,
    JournalAppender,
    JournalReplaced,
    StateBackend,
    _record_of,
)
from foley_tui.store.codec import DecodeError, dumps
from foley_tui.store.errors import SessionDeletedError, StoreProblem
from foley_tui.store.files import atomic_write, check_folder, fsync_dir, read_object

#: Where ``session show``'s last check of the journal ended (our cache, beside it).
CHECKED_FILE = "journal.checked"
#: Bytes read per step when looking for the journal's last record from its end.
_TAIL_CHUNK = 1 << 16
#: Bytes read per step when reading the whole journal (never all of it at once).
_SCAN_CHUNK = 1 << 20
#: Our own records start this way (``to_record`` puts ``seq`` first, compact separators):
#: the tail search tries ``json.loads`` only on such lines.
_RECORD_START = re.compile(rb'(?m)^\{"seq":(\d+),')


def _write_durably(fd: int, data: bytes) -> None:
    """Append all of ``data`` to ``fd`` and fdatasync it (on disk when this returns).

    A write that fails part-way (a full disk at a page boundary, an I/O error) is cut
    back to where it started, so no partial line stays for every later read to report;
    the error is raised as it came."""
    start = os.fstat(fd).st_size
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
        os.fdatasync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
            os.fdatasync(fd)
        raise


#: Bytes before a checked offset whose digest says the journal there is still the one
#: that was checked.
_CHECK_TAIL = 4096


def _tail_digest(fd: int, offset: int) -> str:
    start = max(0, offset - _CHECK_TAIL)
    return hashlib.sha256(os.pread(fd, offset - start, start)).hexdigest()


def _lines_back(fd: int, size: int) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of every complete line of ``fd``, newest first, read
    ``_TAIL_CHUNK`` bytes at a time; a torn last line (no newline yet) is left out."""
    end = size
    carry = b""  # bytes [pos, end) not yet yielded: whole lines after its first newline
    pos = size
    seen_newline = False
    while pos > 0:
        step = min(_TAIL_CHUNK, pos)
        pos -= step
        data = os.pread(fd, step, pos) + carry
        if not seen_newline:
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = b""  # all torn tail so far: nothing complete yet
                end = pos
                continue
            seen_newline = True
            data = data[: cut + 1]
            end = pos + cut + 1
        # data holds [pos, end) and ends with a newline; its first line may be cut.
        lines = data[:-1].split(b"\n")
        line_end = end
        for line in reversed(lines[1:] if pos > 0 else lines):
            start = line_end - len(line) - 1
            yield start, line
            line_end = start
        carry = data[: line_end - pos] if pos > 0 else b""
        end = line_end


def _strict_json(value: Any) -> Any:
    """``value`` with non-finite floats as null: a raw record foley wrote with a NaN
    onset must not make a decision about that sound fail (the journal is strict JSON)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _strict_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strict_json(v) for v in value]
    return value


def _journal_line(record: dict[str, Any]) -> bytes:
    return json.dumps(_strict_json(record), separators=(",", ":"), allow_nan=False).encode() + b"\n"


def parse_lines(data: bytes, offset: int) -> tuple[list[dict[str, Any]], int, list[int]]:
    """The complete lines of ``data`` (read at journal offset ``offset``) as records.
    Returns the records, the offset after the last complete line and the offsets of the
    lines that are no record (a torn record from a crash mid-append, or a foreign line:
    skipped, kept in the file, reported)."""
    end = data.rfind(b"\n")
    if end < 0:
        return [], offset, []
    records: list[dict[str, Any]] = []
    bad: list[int] = []
    pos = 0
    for line in data[:end].split(b"\n"):
        if line.strip():
            record = _record_of(line)
            if record is None:
                bad.append(offset + pos)
            else:
                records.append(record)
        pos += len(line) + 1
    return records, offset + end + 1, bad


class _FileAppender(JournalAppender):
    """An append on one open descriptor of the journal (see FileState.journal_append)."""

    def __init__(self, state: FileState, fd: int, offset: int, size: int) -> None:
        self._file_state = state
        self._fd = fd
        self._size = size
        self.new_file = False
        self.records: list[dict[str, Any]] = []
        self.end = offset
        if size > offset:
            # Other processes appended since we last looked: read only that part.
            self.records, self.end = state._parse(os.pread(fd, size - offset, offset), offset)

    def write(self, record: dict[str, Any]) -> int:
        line = _journal_line(record)
        if self.end < self._size:
            # A crash tore the last record (we hold the lock: nobody is writing):
            # it is garbage, and ours starts on a fresh line.
            self._file_state._bad_journal_lines.add(self.end)
            line = b"\n" + line
        _write_durably(self._fd, line)
        self.new_file = self._size == 0
        self._size += len(line)
        return self._size


class FileState(StateBackend):
    """Our state in ``<session>/.foley-tui/``: meta.json, journal.jsonl, index.sqlite, lock."""

    def __init__(self, session_path: str | os.PathLike[str]) -> None:
        self.session_path = os.fspath(session_path)
        self.path = os.path.join(self.session_path, STATE_DIR)
        self._problems: dict[tuple[str, str], StoreProblem] = {}
        # Byte offsets of garbage journal lines seen: each is one problem, counted once
        # however often the journal is read.
        self._bad_journal_lines: set[int] = set()
        # The journal file our offsets point into (an import replaces it).
        self._journal_ino: int | None = None
        self._thread_lock = threading.RLock()
        self._lock_depth = 0

    def _file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def _open_ours(self, name: str, *, append: bool = False) -> int:
        """Open one of our files, never through a link (our folder or the file itself)
        and never a FIFO or device (it would block, or stream forever)."""
        check_folder(self.path)
        path = self._file(name)
        flags = os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
        flags |= (os.O_RDWR | os.O_APPEND | os.O_CREAT) if append else os.O_RDONLY
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafeFileError(path, f"{name} is a symbolic link (refused)") from None
            raise
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise UnsafeFileError(path, f"{name} is {kind_of(st.st_mode)}, not a regular file")
        return fd

    def ensure(self) -> None:
        """Make our folder inside the session folder, never the session folder itself: a
        session deleted while it is open stays deleted (:class:`SessionDeletedError`).
        Our folder as a symbolic link is refused: writes (and unlinks) would go elsewhere."""
        check_folder(self.path)
        if os.path.isdir(self.path):
            return
        if not os.path.isdir(self.session_path):
            raise SessionDeletedError(
                f"the session folder {self.session_path} is gone (deleted elsewhere): "
                "nothing was saved"
            )
        with contextlib.suppress(FileExistsError):
            os.mkdir(self.path)
        fsync_dir(self.session_path)

    @property
    def problems(self) -> list[StoreProblem]:
        found = list(self._problems.values())
        if self._bad_journal_lines:
            count = len(self._bad_journal_lines)
            first = min(self._bad_journal_lines)
            found.append(
                StoreProblem(
                    "foley-tui",
                    JOURNAL_FILE,
                    self._file(JOURNAL_FILE),
                    f"{count} unreadable journal record{'s' if count != 1 else ''} "
                    f"(skipped, kept in the file; the first at byte {first})",
                )
            )
        return found

    def _problem(self, name: str, reason: str) -> None:
        self._problems[(name, reason)] = StoreProblem("foley-tui", name, self._file(name), reason)

    # -- meta --------------------------------------------------------------------
    def read_meta(self) -> dict[str, Any] | None:
        try:
            check_folder(self.path)
            return read_object(self._file(META_FILE), limit=MAX_STATE_BYTES)
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
    def _parse(self, data: bytes, offset: int) -> tuple[list[dict[str, Any]], int]:
        """:func:`parse_lines`, its garbage lines noted once by their offset."""
        records, end, bad = parse_lines(data, offset)
        self._bad_journal_lines.update(bad)
        return records, end

    def journal_reset(self) -> None:
        self._journal_ino = None
        self._bad_journal_lines.clear()

    def _same_journal(self, st: os.stat_result, offset: int) -> bool:
        """Whether an offset into the journal we read before still points into this file."""
        same = offset == 0 or (st.st_size >= offset and self._journal_ino in (None, st.st_ino))
        self._journal_ino = st.st_ino
        return same

    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        try:
            fd = self._open_ours(JOURNAL_FILE)
        except FileNotFoundError:
            if offset:
                raise JournalReplaced from None
            return [], 0
        except OSError as exc:  # a link, FIFO or device: refused, never read
            self._problem(JOURNAL_FILE, exc.strerror or str(exc))
            return [], offset
        try:
            st = os.fstat(fd)
            if not self._same_journal(st, offset):
                raise JournalReplaced
            size = st.st_size
            if size <= offset:
                return [], offset
            if size - offset > MAX_JOURNAL_BYTES:
                self._too_large()
                return [], offset
            data = os.pread(fd, size - offset, offset)
        finally:
            os.close(fd)
        return self._parse(data, offset)

    def _too_large(self) -> None:
        self._problem(
            JOURNAL_FILE, f"journal too large to read (over {MAX_JOURNAL_BYTES >> 20} MB)"
        )

    def _open_journal(self) -> int | None:
        try:
            return self._open_ours(JOURNAL_FILE)
        except FileNotFoundError:
            return None
        except OSError as exc:  # a link, FIFO or device: refused, never read
            self._problem(JOURNAL_FILE, exc.strerror or str(exc))
            return None

    def journal_scan(self) -> Iterator[dict[str, Any]]:
        fd = self._open_journal()
        if fd is None:
            return
        try:
            size = os.fstat(fd).st_size
            if size > MAX_JOURNAL_BYTES:
                self._too_large()
                return
            for records, _end in self._blocks(fd, 0, size):
                yield from records
        finally:
            os.close(fd)

    def _blocks(self, fd: int, pos: int, size: int) -> Iterator[tuple[list[dict[str, Any]], int]]:
        """(records, the offset after them) of the complete lines in [pos, size), a
        block at a time."""
        carry = b""
        while pos < size:
            block = os.pread(fd, min(_SCAN_CHUNK, size - pos), pos)
            if not block:
                break
            data = carry + block
            start = pos - len(carry)
            pos += len(block)
            records, end = self._parse(data, start)
            carry = data[end - start :]
            yield records, end

    def journal_check(self) -> None:
        """Every unreadable line reported, reading only what the last check did not:
        the journal only grows, so the prefix a check read stays as it was. Where that
        check ended, which lines were bad and the bytes just before its end are kept in
        ``journal.checked`` (ours, a cache); a journal replaced, cut or rewritten there
        (another inode, shorter, other bytes) is read whole again."""
        fd = self._open_journal()
        if fd is None:
            return
        try:
            st = os.fstat(fd)
            size = st.st_size
            if size > MAX_JOURNAL_BYTES:
                self._too_large()
                return
            end = self._checked_until(fd, st)
            for _records, after in self._blocks(fd, end, size):
                end = after
            mark = self._check_mark(fd, st, end)
        finally:
            os.close(fd)
        with contextlib.suppress(OSError):  # a cache: the next check reads more
            atomic_write(self._file(CHECKED_FILE), mark, durable=False)

    def _checked_until(self, fd: int, st: os.stat_result) -> int:
        """Where the last check of this journal ended (0: never, or not this journal);
        the bad lines it found are noted again."""
        try:
            raw = read_capped(self._file(CHECKED_FILE), MAX_STATE_BYTES)
            mark = json.loads(raw)
            offset, bad, tail = int(mark["offset"]), mark["bad"], str(mark["tail"])
            same = [int(mark["ino"]), int(mark["dev"])] == [st.st_ino, st.st_dev]
        except (OSError, ValueError, KeyError, TypeError):
            return 0
        if not same or not 0 < offset <= st.st_size or not isinstance(bad, list):
            return 0
        if _tail_digest(fd, offset) != tail:
            return 0
        self._bad_journal_lines.update(int(b) for b in bad if isinstance(b, int) and b < offset)
        return offset

    def _check_mark(self, fd: int, st: os.stat_result, end: int) -> bytes:
        bad = sorted(b for b in self._bad_journal_lines if b < end)
        mark = {
            "ino": st.st_ino,
            "dev": st.st_dev,
            "offset": end,
            "bad": bad,
            "tail": _tail_digest(fd, end),
        }
        return json.dumps(mark, separators=(",", ":")).encode()

    def journal_back(self) -> Iterator[dict[str, Any]]:
        fd = self._open_journal()
        if fd is None:
            return
        try:
            for offset, line in _lines_back(fd, os.fstat(fd).st_size):
                if not line.strip():
                    continue
                record = _record_of(line)
                if record is None:
                    self._bad_journal_lines.add(offset)
                    continue
                yield record
        finally:
            os.close(fd)

    def journal_tail(self) -> tuple[int | None, int]:
        try:
            fd = self._open_ours(JOURNAL_FILE)
        except FileNotFoundError:
            return None, 0
        except OSError as exc:
            self._problem(JOURNAL_FILE, exc.strerror or str(exc))
            return None, 0
        try:
            st = os.fstat(fd)
            self._journal_ino = st.st_ino
            size = st.st_size
            pos = size
            boundary: int | None = None
            carry = b""
            while pos > 0:
                step = min(_TAIL_CHUNK, pos)
                pos -= step
                chunk = os.pread(fd, step, pos) + carry
                if boundary is None:
                    cut = chunk.rfind(b"\n")
                    if cut < 0:
                        carry = chunk
                        continue
                    boundary = pos + cut + 1
                    chunk = chunk[: cut + 1]
                # Lines wholly inside ``chunk`` (its first may be cut: carried to the
                # next step unless we are at the start of the file).
                if pos > 0 and b"\n" not in chunk:  # one long line: read further back
                    carry = chunk
                    continue
                first = chunk.find(b"\n") + 1 if pos > 0 else 0
                body = chunk[first:]
                for match in reversed(list(_RECORD_START.finditer(body))):
                    line_end = body.find(b"\n", match.start())
                    record = _record_of(body[match.start() : line_end])
                    if record is not None:
                        return record["seq"], boundary
                carry = chunk[:first]
            return None, boundary or 0
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def journal_append(self, offset: int) -> Iterator[JournalAppender]:
        """One open of the journal: what others appended since ``offset`` is read from
        the same descriptor ours is then appended to."""
        self.ensure()
        fd = self._open_ours(JOURNAL_FILE, append=True)
        try:
            st = os.fstat(fd)
            if not self._same_journal(st, offset):
                raise JournalReplaced
            appender = _FileAppender(self, fd, offset, st.st_size)
            yield appender
        finally:
            os.close(fd)
        if appender.new_file:
            fsync_dir(self.path)  # a new journal: make its name durable too

    def journal_write(self, record: dict[str, Any], at: int) -> int:
        self.ensure()
        fd = self._open_ours(JOURNAL_FILE, append=True)
        try:
            st = os.fstat(fd)
            size = st.st_size
            if not self._same_journal(st, at):
                raise JournalReplaced
            line = _journal_line(record)
            if at < size:
                # A crash tore the last record (we hold the lock: nobody is writing):
                # it is garbage, and ours starts on a fresh line.
                self._bad_journal_lines.add(at)
                line = b"\n" + line
            _write_durably(fd, line)
        finally:
            os.close(fd)
        if size == 0:
            fsync_dir(self.path)  # a new journal: make its name durable too
        return size + len(line)

    def append_line(self, name: str, line: bytes, *, expect: int | None = None) -> tuple[int, int]:
        """Append one newline-terminated record to our file ``name``, durably (fdatasync
        before returning). Returns (start, end), the offsets the record was written
        between; a torn last line (a crash mid-append) first gets its newline.
        ``expect`` is not needed here: writers hold the flock of :meth:`lock`."""
        self.ensure()
        fd = self._open_ours(name, append=True)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # A crash tore the last record: start ours on a fresh line.
                line = b"\n" + line
            _write_durably(fd, line)
        finally:
            os.close(fd)
        if size == 0:
            fsync_dir(self.path)  # a new file: make its name durable too
        # A torn tail got a newline first: the record itself starts after it.
        return (size + 1 if line[:1] == b"\n" else size), size + len(line)

    def journal_token(self) -> Hashable:
        return self.token_of(JOURNAL_FILE)

    def where(self, name: str) -> str:
        return self._file(name)

    def last_write_ns(self) -> int:
        try:
            return os.stat(self._file(JOURNAL_FILE)).st_mtime_ns
        except OSError:
            return 0

    def token_of(self, name: str) -> Hashable:
        try:
            st = os.stat(self._file(name))
        except FileNotFoundError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def read_from(self, name: str, offset: int) -> bytes:
        try:
            fd = self._open_ours(name)
        except FileNotFoundError:
            return b""
        except OSError as exc:  # a link, FIFO or device: refused, never read
            self._problem(name, exc.strerror or str(exc))
            return b""
        try:
            size = os.fstat(fd).st_size
            return read_fd_capped_at(fd, offset, size, MAX_JOURNAL_BYTES, self._file(name))
        finally:
            os.close(fd)

    def read_doc(self, name: str) -> bytes | None:
        try:
            fd = self._open_ours(name)
        except FileNotFoundError:
            return None
        except OSError as exc:  # a link, FIFO or device: refused, never read
            self._problem(name, exc.strerror or str(exc))
            return None
        try:
            size = os.fstat(fd).st_size
            return read_fd_capped_at(fd, 0, size, MAX_STATE_BYTES, self._file(name))
        finally:
            os.close(fd)

    def swap_doc(self, name: str, old: bytes | None, new: bytes) -> bool:
        # Callers hold the flock of lock(): the check is for the contract, never racy.
        if self.read_doc(name) != old:
            return False
        self.ensure()
        atomic_write(self._file(name), new, durable=True)
        return True

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
            flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW  # never via a link
            fd = os.open(self._file(LOCK_FILE), flags, 0o666)
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
        try:
            check_folder(self.path)
        except OSError:
            return
        with contextlib.suppress(OSError), os.scandir(self.path) as entries:
            for entry in entries:
                if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                    with contextlib.suppress(OSError):
                        if now - entry.stat(follow_symlinks=False).st_mtime > older_than_s:
                            os.unlink(entry.path)

    def index_path(self) -> str | None:
        """Where the SQLite index lives, or None when our folder is refused (a link)."""
        try:
            check_folder(self.path)
        except OSError:
            return None
        return self._file(INDEX_FILE)

    def read_index(self, expected_rows: int | None = None) -> Any:
        path = self.index_path()
        if path is None:
            return None
        from foley_tui.store.index_db import load

        # Only a cache: a damaged, foreign or crafted index reads as none (rebuilt).
        return load(path, expected_rows=expected_rows)

    def write_index(self, index: Any) -> None:
        self.ensure()
        self._sweep_stale_temps()
        from foley_tui.store.index_db import save

        # Atomic but not fsync'd: a lost index costs one re-scan, never data.
        save(self._file(INDEX_FILE), index)
        for name in LEGACY_INDEX_FILES:
            with contextlib.suppress(OSError):
                os.unlink(self._file(name))
