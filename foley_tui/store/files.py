"""File primitives: atomic writes, durable unlinks, tolerant reads, and the namespace mapping.

Why not ``dol.JsonFiles``: it truncates then writes in place (a reader or a crash can see
an empty or half-written file) and deletes to the OS trash. We keep its exact bytes and
file names (see :mod:`foley_tui.store.codec`) but write through a hidden temp file in the
same folder plus ``os.replace`` (the ``dol.atomic`` pattern), with fsync for decisions,
and delete with a plain unlink.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import errno
import operator
import os
import stat as stat_mod
import time
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, NamedTuple, cast

from foley_tui.safe_io import MAX_RECORD_BYTES, UnsafeFileError, kind_of, read_capped
from foley_tui.store.codec import (
    DecodeError,
    decode_name,
    decode_names,
    dumps,
    encode_key,
    loads_object,
)
from foley_tui.store.errors import StoreProblem

#: Delays (seconds) between re-reads of an empty or unparsable file: foley writes in
#: place, so a reader can catch a file mid-write. About 50 ms in total.
RETRY_DELAYS: tuple[float, ...] = (0.002, 0.005, 0.01, 0.013, 0.02)


class UnreadableEntry(Exception):
    """A stored entry exists but cannot be read (even after retries); carries the problem."""

    def __init__(self, problem: StoreProblem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def fsync_dir(path: str) -> None:
    """fsync a folder so a rename or unlink in it survives a power loss."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _tmp_name(folder: str, name: str) -> str:
    # Hidden (foley and we skip dotfiles) and unique per writer; the name is cut so the
    # temp name stays within 255 bytes even for the longest canonical names.
    return os.path.join(folder, f".{name[:200]}.{os.urandom(4).hex()}.tmp")


def atomic_write(path: str, data: bytes, *, durable: bool) -> None:
    """Replace ``path`` by ``data`` atomically; with ``durable``, fsync the file and folder."""
    folder, name = os.path.split(path)
    tmp = _tmp_name(folder, name)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if durable:
                os.fdatasync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(folder)


def unlink(path: str, *, durable: bool) -> bool:
    """Plain unlink (never the OS trash); a missing file is a no-op. True if removed."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    if durable:
        fsync_dir(os.path.dirname(path))
    return True


def read_bytes(path: str, limit: int = MAX_RECORD_BYTES) -> bytes:
    """A session file's bytes: a regular file (not a link, FIFO, device...) under ``limit``."""
    return read_capped(path, limit)


def check_folder(path: str) -> None:
    """Refuse a folder of a session that is a symbolic link (or not a folder at all).

    A link would lead reads, writes and unlinks out of the session (``rejects/`` linked
    to ``/home/me``); a missing folder is fine (foley creates namespaces on first write).
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat_mod.S_ISLNK(st.st_mode):
        raise UnsafeFileError(path, "a symbolic link (refused: it could lead out of the session)")
    if not stat_mod.S_ISDIR(st.st_mode):
        raise UnsafeFileError(path, f"{kind_of(st.st_mode)} where a folder belongs")


def read_object(path: str, *, retry: bool = True, limit: int = MAX_RECORD_BYTES) -> dict[str, Any]:
    """Read a JSON object; retry an empty/unparsable file for ~50 ms (foley mid-write).

    Raises ``FileNotFoundError`` if the file is absent (also if it vanished meanwhile),
    :class:`~foley_tui.safe_io.UnsafeFileError` (an ``OSError``, never retried) for a
    link, FIFO, device or a file above ``limit``, and :class:`DecodeError` if it stays
    unreadable.
    """
    delays = RETRY_DELAYS if retry else ()
    attempt = 0
    while True:
        data = read_bytes(path, limit)
        try:
            return loads_object(data)
        except DecodeError as exc:
            # A BOM or a non-object cannot come from a half-finished write: no retry.
            retryable = not data or str(exc).startswith(("invalid JSON", "not UTF-8"))
            if not retryable or attempt >= len(delays):
                raise
        time.sleep(delays[attempt])
        attempt += 1


_libc: Any = None


def syncfs(path: str) -> bool:
    """Flush the whole file system holding ``path`` (one call for a batch of writes)."""
    global _libc
    if _libc is None:
        import ctypes.util  # only batches of writes need it: not imported at start

        name = ctypes.util.find_library("c")
        _libc = ctypes.CDLL(name, use_errno=True) if name else False
    if not _libc or not hasattr(_libc, "syncfs"):
        return False
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return bool(_libc.syncfs(fd) == 0)
    finally:
        os.close(fd)


def open_folder(path: str) -> int:
    """A descriptor of a session's folder, refusing a symbolic link (see :func:`check_folder`)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            check_folder(path)  # raises the precise refusal
        raise


_entry_name = operator.attrgetter("name")
_is_hidden = operator.methodcaller("startswith", ".")
_is_plain_file = operator.methodcaller("is_file", follow_symlinks=False)


def _entry_kind(entry: os.DirEntry[str]) -> str:
    """Why a listed entry is not a record file: a folder, a link, a FIFO..."""
    if entry.is_dir(follow_symlinks=False):
        return "a folder, not a file"
    if entry.is_symlink():
        return "a symbolic link (not followed)"
    try:
        return f"{kind_of(entry.stat(follow_symlinks=False).st_mode)}, not a regular file"
    except OSError:
        return "not a regular file"


class ScanEntry(NamedTuple):
    """One canonical file of a namespace folder (a tuple: 100k of them are made per scan)."""

    key: str
    name: str
    mtime_ns: int
    size: int


class SafeFiles(MutableMapping[str, bytes]):
    """``Mapping[file name -> bytes]`` over one folder: the byte layer of a namespace.

    The dol idea of a store (``dol.Files``) with our rules: only regular files are read
    (no link, FIFO or device; under the size cap), writes are atomic (hidden temp file
    plus ``os.replace``, fsync'd when ``durable`` and not batching), deletes are plain
    unlinks, a folder that is a symbolic link is refused, and listing yields canonical
    foley names only (hidden, foreign and non-regular entries are the scan's problems).
    """

    def __init__(self, path: str, *, durable: bool) -> None:
        self.path = path
        self.durable = durable
        self.batch: list[str] | None = None

    def _file(self, name: str) -> str:
        if not name or "/" in name or name[0] == "." or "\0" in name:
            raise KeyError(name)
        return os.path.join(self.path, name)

    def __getitem__(self, name: str) -> bytes:
        try:
            return read_capped(self._file(name))
        except FileNotFoundError:
            raise KeyError(name) from None

    def __setitem__(self, name: str, data: bytes) -> None:
        path = self._file(name)
        check_folder(self.path)
        durable = self.durable and self.batch is None
        try:
            atomic_write(path, data, durable=durable)
        except FileNotFoundError:
            # foley creates a namespace folder on first write; so do we, but never the
            # session folder above it: a session deleted while open stays deleted.
            with contextlib.suppress(FileExistsError):
                os.mkdir(self.path)
            if durable:
                fsync_dir(os.path.dirname(self.path))
            atomic_write(path, data, durable=durable)
        if self.batch is not None:
            self.batch.append(path)

    def __delitem__(self, name: str) -> None:
        check_folder(self.path)
        if not unlink(self._file(name), durable=self.durable):
            raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            return stat_mod.S_ISREG(os.lstat(self._file(name)).st_mode)
        except (KeyError, ValueError, OSError):
            return False

    def __iter__(self) -> Iterator[str]:
        try:
            dir_fd = open_folder(self.path)
        except OSError:  # missing, or a link out of the session: nothing listed
            return iter(())
        try:
            with os.scandir(dir_fd) as entries:
                names = [
                    e.name
                    for e in entries
                    if e.name[0] != "."
                    and e.is_file(follow_symlinks=False)
                    and decode_name(e.name) is not None
                ]
        finally:
            os.close(dir_fd)
        return iter(names)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def dol_namespace(files: MutableMapping[str, bytes]) -> MutableMapping[str, dict[str, Any]]:
    """``Mapping[sound id -> dict]`` over a byte store, the way foley builds its stores:
    ``dol.wrap_kvs`` with foley's key codec (``quote(id) + '.json'``) and value codec
    (``json.dumps(value, indent=4)``; reading insists on a JSON object). Any byte store
    works (our files, a dict, a Redis hash)."""
    from dol import wrap_kvs

    wrapped: MutableMapping[str, dict[str, Any]] = wrap_kvs(
        files,
        id_of_key=encode_key,
        key_of_id=_decoded,
        obj_of_data=loads_object,
        data_of_obj=dumps,
    )
    return wrapped


def _decoded(name: str) -> str:
    key = decode_name(name)
    if key is None:  # SafeFiles lists canonical names only; a race is a plain miss
        raise KeyError(name)
    return key


class FileNamespace(MutableMapping[str, dict[str, Any]]):
    """``Mapping[sound id -> dict]`` over one foley namespace folder (``picks/`` ...).

    Built with dol (:func:`dol_namespace` over :class:`SafeFiles`): keys and bytes are
    foley's. Writes are atomic; ``durable`` namespaces (picks, rejects) fsync each write;
    others batch (:meth:`batch`). Reading an unreadable entry raises
    :class:`UnreadableEntry` (not ``KeyError``: the entry exists). Iteration skips hidden
    files and reports foreign names in :attr:`problems` instead of failing. The bulk
    paths (:meth:`scan`, the index) read the folder directly for speed.
    """

    def __init__(self, path: str | os.PathLike[str], namespace: str, *, durable: bool) -> None:
        self.path = os.fspath(path)
        self.namespace = namespace
        self.durable = durable
        self.problems: list[StoreProblem] = []
        self.files = SafeFiles(self.path, durable=durable)
        self._store: MutableMapping[str, dict[str, Any]] | None = None

    @property
    def store(self) -> MutableMapping[str, dict[str, Any]]:
        """The dol store of this namespace (writes and deletes go through it).

        Built on first use: importing dol is a visible part of a first paint, so opening
        a session reads without it (:meth:`read` decodes with the same codec) and the
        loader builds it in its worker once the list is on screen (:meth:`warm`).
        Two threads building it at once both get a working store (the same wrapping).
        """
        store = self._store
        if store is None:
            store = self._store = dol_namespace(self.files)
        return store

    def warm(self) -> None:
        """Build the dol store now (a worker calls this after the first paint)."""
        _ = self.store

    # -- helpers --------------------------------------------------------------
    def file_of(self, key: str) -> str:
        return os.path.join(self.path, encode_key(key))

    def _problem(self, key: str, path: str, reason: str) -> StoreProblem:
        return StoreProblem(self.namespace, key, path, reason)

    def scan(
        self, *, stat: bool = True, known: Mapping[str, str] | None = None
    ) -> tuple[list[ScanEntry], list[StoreProblem]]:
        """All canonical entries with (mtime_ns, size), and the foreign names found.

        ``known`` maps file names already decoded (the index) to their keys: decoding
        100k names one by one costs about a second, a dict lookup almost nothing (and
        without it the names are decoded in bulk).
        """
        entries: list[ScanEntry] = []
        problems: list[StoreProblem] = []
        listed, keys, dir_fd = self._listed(known, problems)
        if dir_fd is None:
            self.problems = problems
            return entries, problems
        append = entries.append
        try:
            for entry, key in zip(listed, keys, strict=True):
                name = entry.name
                if stat:
                    try:
                        # fstatat relative to the listed descriptor: no path walk per file.
                        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    append(ScanEntry(key, name, st.st_mtime_ns, st.st_size))
                else:
                    append(ScanEntry(key, name, 0, 0))
        finally:
            os.close(dir_fd)
        self.problems = problems
        return entries, problems

    def listed_keys(self, known: Mapping[str, str] | None = None) -> list[str]:
        """The keys of :meth:`scan`'s entries, in listing order, without a stat or an
        entry object per file (the first paint of a session with no index needs only
        these); the foreign names found are in :attr:`problems` as after a scan."""
        problems: list[StoreProblem] = []
        _entries, keys, dir_fd = self._listed(known, problems)
        if dir_fd is not None:
            os.close(dir_fd)
        self.problems = problems
        return keys

    def _listed(
        self, known: Mapping[str, str] | None, problems: list[StoreProblem]
    ) -> tuple[list[os.DirEntry[str]], list[str], int | None]:
        """Every canonical regular file of the folder as parallel lists of its entry and
        its key, and the open folder descriptor (None when it cannot be opened); foreign
        names, other kinds of entry and an unreadable folder go to ``problems``.

        A first open lists 100k names before its first frame: the usual folder (regular
        files only, every name foley's, none hidden) is checked in bulk, with no Python
        code run per entry; any other entry sends the listing through the exact per-entry
        checks."""
        try:
            dir_fd = open_folder(self.path)
        except FileNotFoundError:
            return [], [], None
        except OSError as exc:
            problems.append(self._problem("", self.path, exc.strerror or str(exc)))
            return [], [], None
        try:
            # scandir of the descriptor: what was checked is what is listed.
            with os.scandir(dir_fd) as iterator:
                entries = list(iterator)
            names = list(map(_entry_name, entries))
            if any(map(_is_hidden, names)):
                entries = [entry for entry in entries if entry.name[0] != "."]
                names = list(map(_entry_name, entries))
            if known is None:  # in bulk: a first open lists 100k names
                keys = decode_names(names)
            else:
                keys = [known.get(name) or decode_name(name) for name in names]
        except BaseException:
            os.close(dir_fd)
            raise
        if None not in keys and all(map(_is_plain_file, entries)):
            return entries, cast("list[str]", keys), dir_fd
        kept: list[os.DirEntry[str]] = []
        kept_keys: list[str] = []
        for entry, key in zip(entries, keys, strict=True):
            if key is None:
                path = os.path.join(self.path, entry.name)
                problems.append(
                    self._problem(entry.name, path, "foreign file name (foley cannot read it)")
                )
            elif not entry.is_file(follow_symlinks=False):
                problems.append(
                    self._problem(key, os.path.join(self.path, entry.name), _entry_kind(entry))
                )
            else:
                kept.append(entry)
                kept_keys.append(key)
        return kept, kept_keys, dir_fd

    def read(self, key: str, *, retry: bool = True) -> dict[str, Any]:
        """The record of ``key``: its file's bytes through the byte layer, decoded with
        the codec the dol store uses (what ``self.store[key]`` does, without needing dol
        imported: see :attr:`store`); an empty or unparsable file is re-read for ~50 ms
        (foley writes in place)."""
        name = encode_key(key)  # an invalid key is the caller's error, not a missing entry
        delays = RETRY_DELAYS if retry else ()
        attempt = 0
        while True:
            try:
                return loads_object(self.files[name])
            except KeyError:
                raise KeyError(key) from None
            except DecodeError as exc:
                message = str(exc)
                if attempt >= len(delays) or not message.startswith(
                    ("empty", "invalid JSON", "not UTF-8")
                ):
                    path = self.file_of(key)
                    raise UnreadableEntry(self._problem(key, path, message)) from None
            except IsADirectoryError:
                path = self.file_of(key)
                raise UnreadableEntry(self._problem(key, path, "a folder, not a file")) from None
            except OSError as exc:
                path = self.file_of(key)
                reason = exc.strerror or str(exc)
                raise UnreadableEntry(self._problem(key, path, reason)) from None
            time.sleep(delays[attempt])
            attempt += 1

    def raw(self, key: str) -> bytes:
        """The exact bytes of ``key``'s file (a regular file under the size cap)."""
        return self.files[encode_key(key)]

    def write_bytes(self, key: str, data: bytes) -> None:
        """Write ``key``'s file with these exact bytes (an import restoring a file verbatim)."""
        self.files[encode_key(key)] = data

    # -- Mapping ----------------------------------------------------------------
    def __getitem__(self, key: str) -> dict[str, Any]:
        return self.read(key)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        try:
            return encode_key(key) in self.files
        except ValueError:
            return False

    def __iter__(self) -> Iterator[str]:
        entries, _ = self.scan(stat=False)
        return iter([entry.key for entry in entries])

    def __len__(self) -> int:
        entries, _ = self.scan(stat=False)
        return len(entries)

    def __setitem__(self, key: str, value: dict[str, Any]) -> None:
        self.write(key, value)

    def write(self, key: str, value: dict[str, Any]) -> None:
        """Write ``key`` atomically (fsync'd when durable and not inside :meth:`batch`).

        Through the dol store once it is built; before that (a command-line verb's one
        decision) through the same codec without importing dol, which costs more than
        the decision itself (:meth:`read` does the same for reads)."""
        store = self._store
        if store is not None:
            store[key] = value
        else:
            self.files[encode_key(key)] = dumps(value)

    def __delitem__(self, key: str) -> None:
        if not self.discard(key):
            raise KeyError(key)

    def discard(self, key: str) -> bool:
        """Delete ``key`` if present (plain unlink); True if it was there."""
        store = self._store
        try:
            if store is not None:
                del store[key]
            else:  # the codec's key, as :meth:`write` (dol not imported for one delete)
                del self.files[encode_key(key)]
        except KeyError:
            return False
        return True

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Write many entries with one flush at the end instead of an fsync per file."""
        if self.files.batch is not None:
            yield
            return
        self.files.batch = []
        try:
            yield
        finally:
            written, self.files.batch = self.files.batch, None
            if written and os.path.isdir(self.path):
                if not syncfs(self.path):
                    for path in written:
                        with contextlib.suppress(FileNotFoundError):
                            fd = os.open(path, os.O_RDONLY)
                            try:
                                os.fsync(fd)
                            finally:
                                os.close(fd)
                fsync_dir(self.path)

    def __repr__(self) -> str:
        return f"FileNamespace({self.path!r})"
