"""A session on files, in foley's layout: :class:`FileBackend`.

``sessions/<id>/candidates|picks|rejects/`` are foley's three namespace folders
(:class:`~foley_tui.store.files.FileNamespace`), ``.foley-tui/`` our state
(:class:`~foley_tui.store.file_state.FileState`). The backend implements
:class:`~foley_tui.store.backend.SessionBackend` with the folders' own scans: listing by
names, decisions read once and then re-read only when their (inode, mtime, size)
changed, change tokens from folder and file stamps, the candidate index for the rows.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
import stat as stat_mod
import time
from collections.abc import Hashable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from foley_tui.safe_io import UnsafeFileError, kind_of
from foley_tui.store.backend import (
    STATE_DIR,
    DecisionReads,
    Feed,
    FolderState,
    RowsReader,
    choose_namespace,
)
from foley_tui.store.byte_store import ByteStore
from foley_tui.store.codec import DecodeError, decode_name, encode_key
from foley_tui.store.errors import StoreProblem
from foley_tui.store.file_state import FileState
from foley_tui.store.files import RETRY_DELAYS, FileNamespace, open_folder, read_object
from foley_tui.store.reads import RACY_NS, Problems, read_value
from foley_tui.store.records import (
    MARKS_NS,
    RawRecord,
    _reason,
    count_entries,
    fs_time,
    store_candidate,
)
from foley_tui.store.rows import CountHint, IndexedRows

SMALL_SESSION = 2000
"""Up to this many candidates, every candidate file is stamped too (foley rewrites them
in place); above it only the folder's mtime (adds and removes) is compared."""

#: file name -> ((ino, mtime_ns, size), parsed dict or None if unreadable, key)
_Cache = dict[str, tuple[tuple[int, int, int], dict[str, Any] | None, str]]


class FileBackend:
    """One session folder: foley's three namespaces and our state beside them."""

    label = "store"

    def __init__(
        self, folder: str | os.PathLike[str], *, small_session: int = SMALL_SESSION
    ) -> None:
        folder = Path(folder)
        self.folder = folder
        self.candidates = FileNamespace(folder / "candidates", "candidates", durable=False)
        self.picks = FileNamespace(folder / "picks", "picks", durable=True)
        self.rejects = FileNamespace(folder / "rejects", "rejects", durable=True)
        self.state = FileState(folder)
        # Our marks (rating, hidden, region) beside our other state, never in foley's
        # folders (foley skips the hidden state folder).
        self.marks = FileNamespace(folder / STATE_DIR / MARKS_NS, MARKS_NS, durable=True)
        #: Sessions up to this many candidates stamp every candidate file when polled.
        self.small_session = small_session
        self.hint = CountHint()
        self._decision_cache: dict[str, _Cache] = {"picks": {}, "rejects": {}, MARKS_NS: {}}
        self._candidate_count = 0

    def namespace(self, name: str) -> FileNamespace:
        return choose_namespace(name, self.candidates, self.picks, self.rejects, self.marks)

    # ------------------------------------------------------------------ reading
    def names(self, name: str, problems: Problems) -> list[str]:
        entries, found = self.namespace(name).scan(stat=False)
        problems.set_scan(name, found)
        return sorted(e.key for e in entries)

    def read(self, name: str, key: str, problems: Problems) -> dict[str, Any] | None:
        return read_value(self.namespace(name), name, key, problems)

    def count(self, name: str) -> int:
        try:
            names = os.listdir(self.namespace(name).path)
        except FileNotFoundError:
            return 0
        return count_entries(names)

    def path_of(self, name: str, key: str) -> str:
        return os.path.join(self.namespace(name).path, encode_key(key))

    def raw(self, name: str, key: str) -> bytes:
        return self.namespace(name).raw(key)

    def read_all(self, name: str, problems: Problems) -> list[tuple[str, dict[str, Any]]]:
        """Every readable (key, dict) of ``picks`` or ``rejects``, tolerant, re-reading
        only the files whose (inode, mtime, size) changed since the last call."""
        ns = self.namespace(name)
        cache = self._decision_cache.get(name, {})
        started = time.time_ns()
        fresh: _Cache = {}
        failed: list[tuple[str, str, tuple[int, int, int]]] = []
        out_map: dict[str, dict[str, Any]] = {}
        found: list[StoreProblem] = []
        try:
            dir_fd = open_folder(ns.path)
        except FileNotFoundError:
            problems.set_scan(name, [])
            self._decision_cache[name] = {}
            return []
        except OSError as exc:  # the folder is a link out of the session: nothing read
            problems.set_scan(name, [StoreProblem(name, "", ns.path, _reason(exc))])
            self._decision_cache[name] = {}
            return []
        try:
            with os.scandir(dir_fd) as iterator:
                for entry in iterator:
                    fname = entry.name
                    if fname[0] == ".":
                        continue
                    hit = cache.get(fname)
                    try:  # fstatat: no path walk per file
                        st = os.stat(fname, dir_fd=dir_fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
                    if hit is not None and hit[0] == stamp:
                        if hit[1] is not None:
                            out_map[hit[2]] = hit[1]
                        fresh[fname] = hit  # a known-unreadable file stays reported
                        continue
                    key = decode_name(fname)
                    if key is None:
                        found.append(
                            StoreProblem(
                                name, fname, entry.path, "foreign file name (foley cannot read it)"
                            )
                        )
                        continue
                    path = os.path.join(ns.path, fname)
                    if not stat_mod.S_ISREG(st.st_mode):  # a folder, link, FIFO...: never opened
                        reason = (
                            "a folder, not a file"
                            if stat_mod.S_ISDIR(st.st_mode)
                            else f"{kind_of(st.st_mode)}, not a regular file"
                        )
                        found.append(StoreProblem(name, key, path, reason))
                        continue
                    try:
                        value = read_object(path, retry=False)
                    except FileNotFoundError:
                        continue
                    except UnsafeFileError as exc:  # too large: not worth a retry
                        found.append(StoreProblem(name, key, path, _reason(exc)))
                        continue
                    except (DecodeError, OSError):
                        failed.append((fname, key, stamp))
                        continue
                    out_map[key] = value
                    problems.clear(name, key)
                    if st.st_mtime_ns < started - RACY_NS:
                        fresh[fname] = (stamp, value, key)
        finally:
            os.close(dir_fd)
        # One shared retry window (~50 ms) for every file that failed, not 50 ms each.
        for delay in (*RETRY_DELAYS, None):
            if not failed:
                break
            still = []
            for fname, key, stamp in failed:
                path = os.path.join(ns.path, fname)
                try:
                    value = read_object(path, retry=False)
                except FileNotFoundError:
                    continue
                except (DecodeError, OSError) as exc:
                    if delay is None:  # out of retries: report it, remember it by stamp
                        problems.note(StoreProblem(name, key, path, _reason(exc)))
                        if stamp[1] < started - RACY_NS:
                            fresh[fname] = (stamp, None, key)
                    still.append((fname, key, stamp))
                    continue
                out_map[key] = value
                problems.clear(name, key)
            failed = still
            if failed and delay is not None:
                time.sleep(delay)
        self._decision_cache[name] = fresh
        problems.set_scan(name, found)
        return sorted(out_map.items())

    # ------------------------------------------------------------------ writing
    def put(self, name: str, key: str, value: dict[str, Any]) -> None:
        ns = self.namespace(name)
        if isinstance(value, RawRecord):
            ns.write_bytes(key, value.raw)  # a file foley wrote with a NaN: its bytes
        else:
            ns[key] = value

    def discard(self, name: str, key: str) -> None:
        self.namespace(name).discard(key)

    def cache_candidates(self, items: Iterable[tuple[str, dict[str, Any]]]) -> int:
        """Atomic writes, flushed once per batch."""
        count = 0
        with self.candidates.batch():
            for sid, data in items:
                store_candidate(self.candidates, sid, data)
                count += 1
        return count

    def bulk_reads(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def warm(self) -> None:
        for ns in (self.candidates, self.picks, self.rejects):
            ns.warm()

    # ------------------------------------------------------------------ change
    def change_token(self) -> Hashable:
        """Folder mtimes (any create/replace/unlink) plus (name, mtime, size) of every
        pick and reject (foley rewrites those in place) and, for sessions of up to
        :attr:`small_session` candidates, of every candidate too."""
        parts: list[Hashable] = []
        for ns in (self.candidates, self.picks, self.rejects):
            try:
                parts.append(os.stat(ns.path).st_mtime_ns)
            except OSError:
                parts.append(None)
            if ns is not self.candidates or self.hint.value <= self.small_session:
                entries, _ = ns.scan(stat=True)
                if ns is self.candidates:
                    self.hint.value = len(entries)
                parts.append(hash(tuple((e.name, e.mtime_ns, e.size) for e in entries)))
        parts.append(self.state.journal_token())
        return tuple(parts)

    def last_write(self) -> datetime | None:
        latest = self.state.last_write_ns()
        for ns in (self.candidates, self.picks, self.rejects):
            with contextlib.suppress(OSError):
                latest = max(latest, os.stat(ns.path).st_mtime_ns)
        return fs_time(latest) if latest else None

    def stamps(self, name: str) -> FolderState:
        entries, _ = self.namespace(name).scan(stat=True)
        return {e.name: (e.mtime_ns, e.size) for e in entries}

    def stamps_after_write(self, name: str, state: FolderState, key: str) -> FolderState:
        if isinstance(state, int):
            return state
        file_name = encode_key(key)
        stamps = dict(state)
        try:
            st = os.stat(os.path.join(self.namespace(name).path, file_name))
        except FileNotFoundError:
            stamps.pop(file_name, None)
        else:
            stamps[file_name] = (st.st_mtime_ns, st.st_size)
        return stamps

    def candidates_token(self) -> Hashable:
        try:
            folder = os.stat(self.candidates.path).st_mtime_ns
        except OSError:
            return None
        count = self._candidate_count or self.hint.value
        if not count:
            # Names only: the full scan below also stats and decodes every file, close
            # to a second at 100k, only to learn the session is big.
            try:
                count = len(os.listdir(self.candidates.path))
            except OSError:
                count = 0
        if count > self.small_session:
            self._candidate_count = count
            return folder
        entries, _ = self.candidates.scan(stat=True)
        self._candidate_count = len(entries)
        return (folder, hash(tuple((e.name, e.mtime_ns, e.size) for e in entries)))

    # ------------------------------------------------------------------ parts
    def rows_reader(self, problems: Problems, decisions: DecisionReads) -> RowsReader:
        return IndexedRows(self.candidates, self.state, problems, decisions, self.hint)

    def remote_audio(self) -> ByteStore | None:
        return None

    def change_feed(self, *, block_ms: int = 1000, since: str = "$") -> Feed | None:
        return None

    def writes_settled(self) -> None:
        return None  # a write to a file is done or refused when it returns

    def __repr__(self) -> str:
        return f"FileBackend({str(self.folder)!r})"


__all__ = ["SMALL_SESSION", "FileBackend"]
