"""Bounded, non-blocking reads of files that came from elsewhere (sessions, imports, audio).

A session folder can hold anything another machine, tool or attacker put there: a FIFO
(``open()`` blocks until a writer comes, freezing whoever reads), a device (``/dev/zero``
reads forever), a socket, a folder, a symbolic link out of the session, or a regular file
of several GB. Every read of such data goes through :func:`open_regular`:

- ``O_NONBLOCK``: opening a FIFO returns at once instead of waiting for a writer;
- ``O_NOFOLLOW`` (unless ``follow``): a link as the last path component is refused;
- ``fstat`` of the opened descriptor must say *regular file* (no race between a check
  and the open: what is checked is what is read);
- a size cap: the file's size is known before one byte is read, and the read stops at
  the cap anyway (a file growing meanwhile cannot make it unbounded).

The refusals are :class:`UnsafeFileError`, an ``OSError`` whose ``strerror`` is a sentence
for the user, so every existing ``except OSError`` turns them into a problem or an
unplayable reason. Headless: never imports textual.
"""

from __future__ import annotations

import errno
import os
import stat

#: Largest JSON record we read from a session folder (a candidate is a few KB).
MAX_RECORD_BYTES = 16 << 20
#: Largest file of our own state we read whole (meta.json).
MAX_STATE_BYTES = 1 << 20
#: Largest journal we read (100k decisions take about 15 MB).
MAX_JOURNAL_BYTES = 256 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class UnsafeFileError(OSError):
    """A path that is not a regular file we may read (or one above the size cap)."""

    def __init__(self, path: str, reason: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, reason, path)

    def __str__(self) -> str:
        return str(self.strerror)  # the sentence; callers say which file


class FileTooLargeError(UnsafeFileError):
    """A regular file above the size cap of the read."""


def kind_of(mode: int) -> str:
    """``a FIFO (named pipe)``, ``a character device``... for an ``st_mode``."""
    for check, name in _KINDS:
        if check(mode):
            return name
    return "not a regular file"


def human_size(size: int) -> str:
    if size >= 1 << 20:
        return f"{size / (1 << 20):.1f} MB"
    if size >= 1 << 10:
        return f"{size / (1 << 10):.1f} KB"
    return f"{size} bytes"


def open_regular(
    path: str | os.PathLike[str], *, follow: bool = False, dir_fd: int | None = None
) -> tuple[int, os.stat_result]:
    """Open ``path`` read-only if (and only if) it is a regular file; never blocks.

    Returns the descriptor (the caller closes it) and its ``fstat``. Raises
    ``FileNotFoundError`` when absent, ``IsADirectoryError`` for a folder and
    :class:`UnsafeFileError` for a link (unless ``follow``), a FIFO, a device or a socket.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    if not follow:
        flags |= os.O_NOFOLLOW
    name = os.fspath(path)
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise UnsafeFileError(name, "a symbolic link (not followed)", errno.ELOOP) from None
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing
            raise UnsafeFileError(name, "a socket or device, not a regular file") from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "a folder, not a file", name)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFileError(name, f"{kind_of(st.st_mode)}, not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_fd_capped(fd: int, size_hint: int, limit: int, name: str) -> bytes:
    """Read a whole open regular file of at most ``limit`` bytes (a larger one is
    refused)."""
    if size_hint > limit:
        raise FileTooLargeError(
            name, f"too large ({human_size(size_hint)}; the limit is {human_size(limit)})"
        )
    chunks: list[bytes] = []
    total = 0
    while True:
        # The expected size plus one byte in one call; more only if the file grew,
        # never past limit + 1.
        want = min(max(size_hint + 1 - total, 1 << 16), limit + 1 - total)
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:  # grew while we read
            raise FileTooLargeError(
                name, f"too large (over {human_size(limit)}, still growing while read)"
            )
        if len(chunk) < want and total >= size_hint:
            # A short read of a regular file is its end: no second call to see EOF (a
            # decision reads its pick once). Shorter than fstat said (truncated, or a
            # read cut by a signal): read on until EOF.
            break
    return b"".join(chunks)


def read_fd_capped_at(fd: int, offset: int, size: int, limit: int, name: str) -> bytes:
    """The bytes of an open file from ``offset`` to its end, at most ``limit`` of them."""
    if size > limit:
        raise FileTooLargeError(
            name, f"too large ({human_size(size)}; the limit is {human_size(limit)})"
        )
    os.lseek(fd, offset, os.SEEK_SET)
    return read_fd_capped(fd, max(size - offset, 0), limit, name)


def read_capped(
    path: str | os.PathLike[str],
    limit: int = MAX_RECORD_BYTES,
    *,
    follow: bool = False,
    dir_fd: int | None = None,
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`)."""
    fd, st = open_regular(path, follow=follow, dir_fd=dir_fd)
    try:
        return read_fd_capped(fd, st.st_size, limit, os.fspath(path))
    finally:
        os.close(fd)


def read_head(
    path: str | os.PathLike[str], count: int, *, follow: bool = True
) -> tuple[bytes, int]:
    """The first ``count`` bytes of a regular file and its size (audio sniffing)."""
    fd, st = open_regular(path, follow=follow)
    try:
        return os.pread(fd, count, 0), st.st_size
    finally:
        os.close(fd)
