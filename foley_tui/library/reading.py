"""Reading a library folder's files for its index: each file's content hash and metadata
as the index row it becomes, read in the scan's own thread or, for many files, in worker
processes fed while the walk is still listing the tree.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import TYPE_CHECKING, Any

from foley_tui.library.metadata import FileMeta, read_open

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

#: Files a refresh reads in its own thread; with this many waiting, worker processes are
#: started (metadata parsing is Python: one process per CPU is the speed-up) and read
#: the rest, the walk feeding them as it lists the tree.
PROCESS_THRESHOLD = 400
#: Files a worker reads per task (a few milliseconds of work, one round trip).
CHUNK = 64
#: Files up to this size are read whole in one call (the metadata and the hash from the
#: same bytes); bigger ones are parsed from the file and hashed in blocks.
WHOLE_READ = 1 << 20
#: Separates keywords in their column (no keyword holds it).
KEYWORD_SEP = "\x1f"

File = tuple[str, int, int]
"""A file to read: its path relative to the root, size and mtime as listed."""
Row = tuple[Any, ...]
"""An index row (the columns of ``files``, in order)."""


def read_file(root: str, rel: str, size: int | None = None) -> tuple[str | None, FileMeta]:
    """(SHA-256 or None, metadata) of one file, opened once for both. A file the walk
    listed at up to :data:`WHOLE_READ` bytes is read in one call, hashed, and parsed from
    memory (the parsers' many small seeks and reads cost more than the file's bytes); a
    bigger one is parsed from the file (header chunks or tags only), then hashed as it is
    read."""
    path = os.path.join(root, rel)
    if size is not None and size <= WHOLE_READ:
        data = _read_small(path, size)
        if isinstance(data, FileMeta):
            return None, data
        if data is not None:
            return hashlib.sha256(data).hexdigest(), read_open(io.BytesIO(data), path, len(data))
    try:  # big, or grown since it was listed: from the file itself
        fh = open(path, "rb")  # noqa: SIM115 (the with below closes it)
    except OSError as exc:
        return None, FileMeta(problem=f"cannot be read ({exc.strerror or exc})")
    with fh:
        meta = read_open(fh, path, size if size is not None and size > WHOLE_READ else None)
        if meta.problem is not None and meta.problem.startswith("cannot be read"):
            return None, meta
        try:
            fh.seek(0)
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        except OSError as exc:
            meta.problem = f"cannot be read ({exc.strerror or exc})"
            return None, meta
    return digest, meta


def _read_small(path: str, size: int) -> bytes | FileMeta | None:
    """The bytes of a file listed at ``size`` bytes, with one system call each to open,
    read and close it (a buffered file object adds a stat, a seek, a terminal check and a
    buffer of its own); None when it has grown since, a FileMeta when it cannot be read.
    One read of a byte more than listed: a regular file's read returns all it is asked
    for up to its end, so a longer answer is a file that grew."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return FileMeta(problem=f"cannot be read ({exc.strerror or exc})")
    try:
        data = os.read(fd, size + 1)
    except OSError as exc:
        return FileMeta(problem=f"cannot be read ({exc.strerror or exc})")
    finally:
        os.close(fd)
    return data if len(data) <= size else None


def read_row(root: str, found: File) -> Row:
    """The index row of one file (``found``: its rel, size and mtime)."""
    rel, size, mtime_ns = found
    sha, meta = read_file(root, rel, size)
    return row_of(rel, size, mtime_ns, sha, meta)


def read_rows(root: str, files: list[File]) -> list[Row]:
    """The rows of ``files``, in order: one task of a worker process (plain values cross
    back cheaper than FileMeta objects)."""
    return [read_row(root, found) for found in files]


def row_of(rel: str, size: int, mtime_ns: int, sha: str | None, meta: FileMeta) -> Row:
    u = meta.ucs
    return (
        rel,
        size,
        mtime_ns,
        sha,
        meta.format,
        meta.duration_s,
        meta.sample_rate,
        meta.bit_depth,
        meta.channels,
        meta.description,
        meta.library,
        meta.vendor,
        u.catid,
        u.category,
        u.subcategory,
        u.fx_name,
        u.creator,
        u.source,
        KEYWORD_SEP.join(u.keywords),
        meta.problem,
        meta.warning,
        json.dumps(meta.fields, ensure_ascii=False),
        None,
    )


class Reader:
    """Reads the files given to :meth:`add` and hands back their rows (in no particular
    order).

    Up to :data:`PROCESS_THRESHOLD` files are read in the caller's thread by
    :meth:`finish`; once that many are waiting, worker processes start and get the files
    :data:`CHUNK` at a time as they are added, so they read while the caller is still
    walking the tree, and :meth:`ready` hands back what they have done without waiting;
    :meth:`finish` waits for the rest. Where no worker process can be started (a frozen
    or embedded interpreter), or one dies, the caller's thread reads instead. Use it as a
    context manager: leaving it stops the workers (unread files are dropped)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._waiting: deque[File] = deque()
        self._sent: dict[Future[list[Row]], list[File]] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._workers = min(os.cpu_count() or 1, 4)
        self._no_pool = self._workers < 2
        self.added = 0

    @property
    def in_processes(self) -> bool:
        """Whether worker processes are reading (they were started and none has died)."""
        return self._pool is not None

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, found: File) -> None:
        self.added += 1
        self._waiting.append(found)
        if self._pool is None and not self._no_pool and len(self._waiting) >= PROCESS_THRESHOLD:
            self._start()
        if len(self._waiting) >= CHUNK:
            self._send()

    def ready(self) -> Iterator[Row]:
        """The rows the workers have read so far (never waits)."""
        for future in [f for f in self._sent if f.done()]:
            yield from self._take(future)

    def finish(self) -> Iterator[Row]:
        """Every remaining row: the workers', or, without them, read in this thread. With
        workers, this thread only takes their rows: reading beside them, it would hold the
        interpreter lock their answers need to be unpickled, and leave them waiting."""
        while self._sent or self._waiting:
            self._send(last=True)
            done = [f for f in self._sent if f.done()]
            if done:
                for future in done:
                    yield from self._take(future)
            elif self._pool is None and self._waiting:
                part = [self._waiting.popleft() for _ in range(min(CHUNK, len(self._waiting)))]
                yield from read_rows(self.root, part)
            else:
                wait(list(self._sent), return_when=FIRST_COMPLETED)

    def close(self) -> None:
        self._waiting.clear()
        self._sent.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _start(self) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn: the caller is a thread of a running app; forking it copies its locks.
        context = multiprocessing.get_context("spawn")
        try:
            self._pool = ProcessPoolExecutor(self._workers, mp_context=context)
        except OSError:
            self._no_pool = True

    def _send(self, *, last: bool = False) -> None:
        """Hand the workers every full chunk waiting (and, ``last``, the rest)."""
        if self._pool is None:
            return
        while len(self._waiting) >= (1 if last else CHUNK):
            part = [self._waiting.popleft() for _ in range(min(CHUNK, len(self._waiting)))]
            try:
                future = self._pool.submit(read_rows, self.root, part)
            except Exception:  # a broken pool refuses work: this thread reads it
                future = Future()
                future.set_exception(RuntimeError("no worker process"))
            self._sent[future] = part

    def _take(self, future: Future[list[Row]]) -> Iterator[Row]:
        part = self._sent.pop(future)
        try:
            rows = future.result()
        except Exception:  # a worker died (BrokenProcessPool) or could not start
            if self._pool is not None:
                with contextlib.suppress(Exception):
                    self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
                self._no_pool = True
            rows = read_rows(self.root, part)
        yield from rows
