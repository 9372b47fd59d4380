"""Tolerant reads of a session's namespaces and the bookkeeping of what was unreadable.

The base of :class:`~foley_tui.store.session.SessionStore`: it declares the state every
mixin shares (set by ``SessionStore.__init__``) and reads entries so that a damaged or
foreign file is reported in :meth:`problems`, never fatal and never deleted.
Headless: never imports textual.
"""

from __future__ import annotations

import os
import sqlite3
import stat as stat_mod
import threading
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from foley_tui.domain import Pick, Reject
from foley_tui.safe_io import UnsafeFileError, kind_of
from foley_tui.store.backend import StateBackend
from foley_tui.store.codec import DecodeError, decode_name
from foley_tui.store.errors import StoreProblem
from foley_tui.store.files import (
    RETRY_DELAYS,
    FileNamespace,
    UnreadableEntry,
    open_folder,
    read_object,
)
from foley_tui.store.index import CandidateIndex
from foley_tui.store.records import JournalEntry, _reason

#: A file modified this close to our scan may still change within the same timestamp
#: tick without changing size (file-system clocks are coarse): re-read it next time.
RACY_NS = 50_000_000


class StoreReads:
    """Shared state of a session store plus its tolerant, stat-cached reads."""

    # Set by SessionStore.__init__; declared here so every mixin is type-checked.
    session_id: str
    candidates: MutableMapping[str, dict[str, Any]]
    picks_ns: MutableMapping[str, dict[str, Any]]
    rejects_ns: MutableMapping[str, dict[str, Any]]
    state: StateBackend
    data_dir: Path | None
    session_path: Path | None
    _problems: dict[tuple[str, str], StoreProblem]
    _scan_problems: dict[str, list[StoreProblem]]
    _lock: threading.RLock
    _journal: list[JournalEntry]
    _journal_known: bool
    _journal_start: int
    _journal_offset: int
    _last_seq: int
    _done: dict[int, JournalEntry]
    _undone: dict[int, JournalEntry]
    _meta_write_lock: threading.Lock
    _meta: dict[str, Any] | None
    _meta_dirty: bool
    _meta_written: float
    # file name -> ((ino, mtime_ns, size), parsed dict or None if unreadable, key)
    _decision_cache: dict[str, dict[str, tuple[tuple[int, int, int], dict[str, Any] | None, str]]]
    _index: CandidateIndex | None
    _index_conn: sqlite3.Connection | None
    #: (scanned_ns, digest, rows, search index built) of the open index connection.
    _index_info: tuple[int, bytes, int, bool] | None
    _index_verified: bool
    _candidate_count_hint: int
    _recovered: list[str]
    _recovered_lock: threading.Lock

    def _note_recovered(self, lines: list[str]) -> None:
        with self._recovered_lock:
            self._recovered += lines

    def take_recovered(self) -> list[str]:
        """What this store cleaned up since the last call (stale temp files of an
        interrupted write of ours: one line each, as ``SessionService.recovered``);
        whoever shows them (the CLI, the app) takes them."""
        with self._recovered_lock:
            lines, self._recovered = self._recovered, []
        return lines

    # Provided by DecisionsMixin; declared so the rows mixin's paging is type-checked.
    def picks(self) -> dict[str, Pick]:
        raise NotImplementedError

    def rejects(self) -> dict[str, Reject]:
        raise NotImplementedError

    # ------------------------------------------------------------------ problems
    def _note(self, problem: StoreProblem) -> None:
        with self._lock:
            self._problems[(problem.namespace, problem.key)] = problem

    def _clear_problem(self, namespace: str, key: str) -> None:
        with self._lock:
            self._problems.pop((namespace, key), None)

    def problems(self) -> list[StoreProblem]:
        """Unreadable and foreign entries found by the last reads (never deleted)."""
        with self._lock:
            found = list(self._problems.values())
            for items in list(self._scan_problems.values()):
                found.extend(items)
            found.extend(self.state.problems)
        return sorted(set(found), key=lambda p: (p.namespace, p.key, p.path))

    # ------------------------------------------------------------------ reading
    def _names(self, ns: MutableMapping[str, dict[str, Any]], name: str) -> list[str]:
        """Keys of a namespace, sorted; foreign names are reported, never fatal."""
        if isinstance(ns, FileNamespace):
            entries, problems = ns.scan(stat=False)
            with self._lock:
                self._scan_problems[name] = problems
            return sorted(e.key for e in entries)
        return sorted(ns)

    def _read(
        self, ns: MutableMapping[str, dict[str, Any]], name: str, key: str
    ) -> dict[str, Any] | None:
        try:
            value = ns[key]
        except KeyError:
            self._clear_problem(name, key)
            return None
        except UnreadableEntry as exc:
            self._note(exc.problem)
            return None
        except DecodeError as exc:
            self._note(StoreProblem(name, key, "", str(exc)))
            return None
        if not isinstance(value, dict):
            self._note(StoreProblem(name, key, "", "not a JSON object"))
            return None
        self._clear_problem(name, key)
        return value

    def _read_all(
        self, ns: MutableMapping[str, dict[str, Any]], name: str
    ) -> list[tuple[str, dict[str, Any]]]:
        """Every readable (key, dict) of a decision namespace, tolerant and cached by stat."""
        if not isinstance(ns, FileNamespace):
            out = []
            for key in sorted(ns):
                value = self._read(ns, name, key)
                if value is not None:
                    out.append((key, value))
            return out
        with self._lock:
            cache = self._decision_cache[name]
        started = time.time_ns()
        fresh: dict[str, tuple[tuple[int, int, int], dict[str, Any] | None, str]] = {}
        failed: list[tuple[str, str, tuple[int, int, int]]] = []
        out_map: dict[str, dict[str, Any]] = {}
        problems: list[StoreProblem] = []
        try:
            dir_fd = open_folder(ns.path)
        except FileNotFoundError:
            with self._lock:
                self._scan_problems[name] = []
                self._decision_cache[name] = {}
            return []
        except OSError as exc:  # the folder is a link out of the session: nothing read
            self._scan_problems[name] = [StoreProblem(name, "", ns.path, _reason(exc))]
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
                    decoded = decode_name(fname)
                    if decoded is None:
                        problems.append(
                            StoreProblem(
                                name, fname, entry.path, "foreign file name (foley cannot read it)"
                            )
                        )
                        continue
                    key = decoded
                    path = os.path.join(ns.path, fname)
                    if not stat_mod.S_ISREG(st.st_mode):  # a folder, link, FIFO...: never opened
                        reason = (
                            "a folder, not a file"
                            if stat_mod.S_ISDIR(st.st_mode)
                            else f"{kind_of(st.st_mode)}, not a regular file"
                        )
                        problems.append(StoreProblem(name, key, path, reason))
                        continue
                    try:
                        value = read_object(path, retry=False)
                    except FileNotFoundError:
                        continue
                    except UnsafeFileError as exc:  # too large: not worth a retry
                        problems.append(StoreProblem(name, key, path, _reason(exc)))
                        continue
                    except (DecodeError, OSError):
                        failed.append((fname, key, stamp))
                        continue
                    out_map[key] = value
                    self._clear_problem(name, key)
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
                        self._note(StoreProblem(name, key, path, _reason(exc)))
                        if stamp[1] < started - RACY_NS:
                            fresh[fname] = (stamp, None, key)
                    still.append((fname, key, stamp))
                    continue
                out_map[key] = value
                self._clear_problem(name, key)
            failed = still
            if failed and delay is not None:
                time.sleep(delay)
        with self._lock:
            self._decision_cache[name] = fresh
            self._scan_problems[name] = problems
        return sorted(out_map.items())
