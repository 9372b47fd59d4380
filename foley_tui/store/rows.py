"""The rows reader of a session store: candidate ids and list rows.

:class:`IndexedRows` (files) keeps the compact index, loaded, checked and rebuilt: only
files whose (name, mtime, size) changed since the index was written are parsed; the hot
path of opening a session is one scan and a digest compare. :class:`MappingRows` reads
any candidates mapping entry by entry. (Redis keeps its own rows index:
:mod:`foley_tui.store.redis.rows`.)
Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from foley_tui.domain import Row, whole
from foley_tui.safe_io import UnsafeFileError
from foley_tui.store import index_db, index_schema
from foley_tui.store.codec import DecodeError, decode_name, names_match_keys
from foley_tui.store.errors import StoreProblem
from foley_tui.store.files import RETRY_DELAYS, FileNamespace, check_folder, read_object
from foley_tui.store.index import CandidateIndex, scan_digest, scan_stats
from foley_tui.store.index_db import Page
from foley_tui.store.reads import RACY_NS, Problems, read_value
from foley_tui.store.records import _reason
from foley_tui.store.recovery import sweep_temp_names

if TYPE_CHECKING:
    from foley_tui.store.backend import DecisionReads, PageQuery, StateBackend


def _num(value: object) -> float | None:
    """A finite number as float, else None (bools, NaN, 1e400, a 401-digit integer)."""
    if value is None or value is True or value is False:
        return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int):
        return float(value) if -_INT_FLOAT_MAX <= value <= _INT_FLOAT_MAX else None
    return None


#: Integers beyond this have no float (``float(10**400)`` raises OverflowError).
_INT_FLOAT_MAX = int(1.7976931348623157e308)


def row_values(data: Mapping[str, Any]) -> list[Any]:
    """The index columns of a candidate dict: the same values as
    ``Candidate(data).to_row()`` (a test holds them equal), computed without building
    the view and the Row, since a first open runs this for every file."""
    sound = data.get("sound")
    if not isinstance(sound, Mapping):
        sound = {}
    lic = sound.get("license")
    if not isinstance(lic, Mapping):
        lic = {}
    tags = sound.get("tags")
    score = None
    for name in ("rerank_score", "rrf_score", "clap_score", "bm25_score"):
        score = _num(data.get(name))
        if score is not None:
            break
    cost = _num(data.get("cost_actual_usd"))
    if cost is None:
        cost = _num(data.get("cost_estimate_usd"))
    rate = _num(sound.get("sample_rate"))
    channels = _num(sound.get("channels"))
    return [
        _text(sound.get("caption")),
        _num(sound.get("duration_s")),
        _text(lic.get("source")),
        _text(lic.get("license_id") or lic.get("license_name")),
        [_text(t) for t in tags] if isinstance(tags, list) else [],
        score,
        cost,
        _text(data.get("origin")),
        whole(rate),
        whole(channels),
        _text(sound.get("format")),
    ]


def _text(value: object) -> str:
    """A list column's text: lone surrogates (valid JSON escapes, but no UTF-8 can hold
    them: the index, the terminal and an export would fail on them) become U+FFFD."""
    text = str(value) if value else ""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text


def _count_names(path: str) -> int:
    """How many entries a namespace folder holds (bounds the size of a valid index)."""
    try:
        return len(os.listdir(path))
    except OSError:
        return 0


def _keys_match(index: CandidateIndex) -> bool:
    """Every row's id is what its file name decodes to (a crafted index could pair a
    file with another id: the list would show, and decisions go to, the wrong sound)."""
    if not index.key_checked:
        index.key_checked = names_match_keys(index.names, index.keys)
    return index.key_checked


_EMPTY_VALUES: list[Any] = ["", None, "", "", [], None, None, "", None, None, ""]


def _make_row(sound_id: str, rank: int, values: list[Any], unreadable: str | None) -> Row:
    # Positional on purpose: this runs 100k times per open and kwargs cost a third more.
    (caption, duration, source, license_id, tags, score, cost, origin, rate, ch, fmt) = values
    return Row(
        sound_id,
        rank,
        caption,
        duration,
        source,
        license_id,
        tuple(tags),
        score,
        cost,
        origin,
        rate,
        ch,
        fmt,
        True,
        unreadable,
    )


class CountHint:
    """How many candidates the last listing found, shared by the rows reader that
    learns it and the backend whose change token stats every candidate of a small
    session only."""

    def __init__(self) -> None:
        self.value = 0


class MappingRows:
    """List rows of any candidates mapping, each read and parsed (no index)."""

    def __init__(self, ns: MutableMapping[str, dict[str, Any]], problems: Problems) -> None:
        self.ns = ns
        self.problems = problems

    def count_hint(self) -> int:
        return len(self.ns)

    def candidate_ids(self) -> list[str]:
        return sorted(self.ns)

    def rows(
        self,
        progress: Callable[[int, int], None] | None = None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]:
        keys = list(self.ns)
        rows = []
        for rank, key in enumerate(keys):
            value = read_value(self.ns, "candidates", key, self.problems)
            if value is None:
                problem = self.problems.get("candidates", key)
                reason = problem.reason if problem else "unreadable"
                rows.append(_make_row(key, rank, _EMPTY_VALUES, reason))
            else:
                rows.append(_make_row(key, rank, row_values(value), None))
            if progress is not None and (rank % 1000 == 0 or rank == len(keys) - 1):
                progress(rank + 1, len(keys))
        return rows

    def quick_rows(self) -> list[Row] | None:
        return None

    def page(self, query: PageQuery) -> Page | None:
        return None

    def view_ids(self, query: PageQuery) -> list[str] | None:
        return None

    def search_texts(self) -> tuple[list[str], list[str]] | None:
        return None

    def rows_of(self, ids: Sequence[str]) -> dict[str, Row] | None:
        return None

    def verify(self, progress: Callable[[int, int], None] | None = None) -> int | None:
        return None

    def prepare_filter(self) -> bool:
        return False

    def search_ready(self) -> bool:
        return False


class IndexedRows:
    """Candidate ids and list rows of a session on files, from the compact index."""

    def __init__(
        self,
        ns: FileNamespace,
        state: StateBackend,
        problems: Problems,
        decisions: DecisionReads,
        hint: CountHint,
    ) -> None:
        self.ns = ns
        self.state = state
        self.problems = problems
        self.decisions = decisions
        self.hint = hint
        self._index: CandidateIndex | None = None
        self._index_conn: sqlite3.Connection | None = None
        #: (scanned_ns, digest, rows, search index built) of the open index connection.
        self._index_info: tuple[int, bytes, int, bool] | None = None
        self._index_verified = False
        # The index connection serves the opening, the load, the poll and the filter's
        # worker: one at a time (a view fills a temp table). Rows for the screen come
        # through a connection of their own, so painting never waits for a filter.
        self._db_lock = threading.RLock()
        self._rows_lock = threading.Lock()
        self._rows_conn: sqlite3.Connection | None = None

    def count_hint(self) -> int:
        return self.hint.value

    def candidate_ids(self) -> list[str]:
        """Candidate ids from file names only (fast, for the first paint)."""
        # The index maps names to keys (a pure function of the name, so even a stale
        # index is right); keep it loaded: rows() comes next and reuses it.
        index = self._load_index()
        known = index.key_of_name() if index is not None and _keys_match(index) else None
        keys = self.ns.listed_keys(known=known)
        self.problems.set_scan("candidates", self.ns.problems)
        # change_token() stats every candidate of a small session only: tell it the
        # size now, or its first call (right after the first paint) stats 100k files.
        self.hint.value = len(keys)
        keys.sort()
        return keys

    def rows(
        self,
        progress: Callable[[int, int], None] | None = None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]:
        """All list rows, ranked by (first-seen file mtime, id), from the compact index.

        Only files whose (name, mtime, size) changed since the index was written are
        parsed, one at a time: full candidate dicts are never all held at once.
        Unreadable files give a row with ``unreadable`` set and are in the problems.
        ``partial`` receives the rows parsed so far in batches while files are parsed (a
        first open of a big session), so a list can fill in progressively; their ``rank``
        is provisional until the returned list.
        """
        return self._rows_indexed(self.ns, progress, partial)

    def quick_rows(self) -> list[Row] | None:
        """The stored index's rows after a names-only check: no stat of every file.

        For the first paint of a big session (about half the cost of :meth:`rows` at
        100k files: the per-file ``fstatat`` is skipped). The names match the folder,
        but a file rewritten in place since the index was written still shows its old
        values, so call :meth:`rows` next for the exact list (it also refreshes the
        problems). None when there is no usable index or the folder's names differ
        from it.
        """
        path = self.state.index_path()
        if self._index is None and path is not None and not os.path.lexists(path):
            # A session foley made and we never opened: listing its folder here only to
            # learn there is no index would be a second listing before the first frame.
            return None
        try:
            names = os.listdir(self.ns.path)
        except FileNotFoundError:
            names = []
        except OSError:
            return None
        index = self._load_index(len(names))
        if index is None:
            return None
        expected = set(index.names)
        expected.update(name for _, name, _ in index.problems)
        current = set(names)
        current.difference_update([name for name in names if name[:1] == "."])
        if current != expected:
            return None
        self.hint.value = len(current)  # as in candidate_ids()
        return index.rows()

    def page(self, query: PageQuery) -> Page | None:
        """One screen of the list straight from the stored index: O(screen), not O(session).

        Picks and rejects are read first (they decide the status filter and the layer
        and onset sorts); the rows come from the SQLite index, ``verified`` only once
        :meth:`rows` has checked every file's (mtime, size) in this process. None when
        there is no usable index (call :meth:`rows`).
        """
        with self._db_lock:
            view = self._view_of(query)
            if view is None:
                return None
            db, searchable, placed, rejected, row_count = view
            offset = query.offset
            try:
                if query.around is not None:
                    at = index_db.position(
                        db,
                        query.around,
                        sort=query.sort,
                        status=query.status,
                        query=query.query,
                        picks=placed,
                        rejects=rejected,
                        searchable=searchable,
                        row_count=row_count,
                    )
                    if at is not None:
                        offset = max(0, at - query.limit // 2)
                return index_db.page(
                    db,
                    sort=query.sort,
                    status=query.status,
                    query=query.query,
                    offset=offset,
                    limit=query.limit,
                    picks=placed,
                    rejects=rejected,
                    verified=self._index_verified,
                    searchable=searchable,
                    row_count=row_count,
                )
            except sqlite3.Error:
                self._close_index_db()  # damaged since it was checked: rows() rebuilds it
                return None

    def view_ids(self, query: PageQuery) -> list[str] | None:
        """Every id of the view ``query`` asks for (its offset, limit and ``around``
        aside), in view order, from the stored index: what a paged list shows, with no
        row built. None when there is no usable index."""
        with self._db_lock:
            view = self._view_of(query)
            if view is None:
                return None
            db, searchable, placed, rejected, _ = view
            try:
                return index_db.view_keys(
                    db,
                    sort=query.sort,
                    status=query.status,
                    query=query.query,
                    picks=placed,
                    rejects=rejected,
                    searchable=searchable,
                )
            except sqlite3.Error:
                self._close_index_db()
                return None

    def search_texts(self) -> tuple[list[str], list[str]] | None:
        """Every id in rank order and its ``/`` search text, from the stored index (one
        read, so the two agree); None when there is no usable index."""
        with self._db_lock:
            db = self._index_db()
            if db is None:
                return None
            try:
                return index_db.search_texts(db)
            except sqlite3.Error:
                self._close_index_db()
                return None

    def _view_of(
        self, query: PageQuery
    ) -> tuple[sqlite3.Connection, bool, dict[str, tuple[Any, Any]], list[str], int] | None:
        """The checked connection, whether its search index is built (built now when the
        query needs it), the decisions as the index's SQL takes them and the row count."""
        db = self._index_db()
        if db is None:
            return None
        checked = self._index_info
        assert checked is not None
        searchable = checked[3]
        long_terms = any(len(term) >= 3 for term in query.query.split())
        # The trigram index is built on first use (seconds at 100k): build it now, then
        # answer from it (call prepare_filter() from a worker to do it early).
        if not searchable and long_terms and self.prepare_filter():
            db = self._index_db()
            if db is None or self._index_info is None:
                return None
            checked = self._index_info
            searchable = checked[3]
        picks = self.decisions.picks() if query.picks is None else query.picks
        placed = {
            p.sound_id: (p.layer, p.onset if isinstance(p.onset, int | float) else None)
            for p in picks.values()
        }
        rejected = list(self.decisions.rejects() if query.rejects is None else query.rejects)
        return db, searchable, placed, rejected, checked[2]

    def rows_of(self, ids: Sequence[str]) -> dict[str, Row] | None:
        """The rows of ``ids`` from the stored index (an id it does not hold is left
        out): the screen of a paged list. None when there is no usable index."""
        with self._rows_lock:
            if self._rows_conn is None:
                path = self.state.index_path()
                if path is None or not index_schema.is_regular(path):
                    return None
                try:
                    db = index_schema.connect(path, readonly=True)
                    if index_schema.check(db) is None:
                        db.close()
                        return None
                except sqlite3.Error:
                    return None
                self._rows_conn = db
            try:
                return index_db.rows_by_key(self._rows_conn, ids)
            except sqlite3.Error:
                self._close_rows_conn()
                return None

    def _close_rows_conn(self) -> None:
        if self._rows_conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._rows_conn.close()
            self._rows_conn = None

    def verify(self, progress: Callable[[int, int], None] | None = None) -> int | None:
        """What :meth:`rows` does (every file checked, the changed ones parsed, the
        stored index brought up to date) without building a row, and without keeping
        the index in memory: a paged list reads the rows of its screen from the file.
        The number of candidates; None when no index could be written."""
        with self._db_lock:
            self._rows_indexed(self.ns, progress, build=False)
            self._index = None  # the columns of every row: not held for a paged list
            with self._rows_lock:
                self._close_rows_conn()  # the file may have been replaced
            if self._index_db() is None or self._index_info is None:
                # No index is written for an empty folder: nothing to page yet.
                return 0 if self.hint.value == 0 else None
            return self._index_info[2]

    def _index_db(self) -> sqlite3.Connection | None:
        """A checked read-only connection to the stored index (kept while it is current)."""
        if self._index_conn is not None:
            return self._index_conn
        path = self.state.index_path()
        if path is None or not index_schema.is_regular(path):
            return None
        try:
            db = index_schema.connect(path, readonly=True)
        except sqlite3.Error:
            return None
        try:
            checked = index_schema.check(db)
        except sqlite3.Error:
            checked = None
        if checked is None:
            db.close()
            return None
        self._index_conn, self._index_info = db, checked
        return db

    def prepare_filter(self) -> bool:
        """Build the stored index's trigram search index if it is not built yet (seconds
        at 100k candidates: call it from a worker after the first paint). True when the
        ``/`` filter of :meth:`page` can use it."""
        path = self.state.index_path()
        if path is None or not index_schema.is_regular(path):
            return False
        if self._index_info is not None and self._index_info[3]:
            return True
        self._close_index_db()
        return index_db.build_search(path)

    def search_ready(self) -> bool:
        return self._index_info is not None and self._index_info[3]

    def _close_index_db(self) -> None:
        with self._db_lock:
            if self._index_conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._index_conn.close()
                self._index_conn = None
            self._index_info = None

    def _load_index(self, expected_rows: int | None = None) -> CandidateIndex | None:
        if self._index is None:
            path = self.state.index_path()
            if path is not None and not os.path.lexists(path):
                return None  # never indexed: no listing to bound a file that is not there
            if expected_rows is None:
                expected_rows = _count_names(self.ns.path)
            loaded = self.state.read_index(expected_rows)
            # A damaged, foreign or crafted index reads as none: it is only a cache.
            self._index = loaded if isinstance(loaded, CandidateIndex) else None
        return self._index

    def _rows_indexed(
        self,
        ns: FileNamespace,
        progress: Callable[[int, int], None] | None,
        partial: Callable[[list[Row]], None] | None = None,
        *,
        build: bool = True,
    ) -> list[Row]:
        """The rows of every file checked (see :meth:`rows`); ``build`` False: the same
        check and index update, no row built (an empty list), and when nothing changed
        the stored index is not even loaded (:meth:`verify`)."""
        started = time.time_ns()
        try:
            check_folder(ns.path)
        except OSError as exc:  # candidates/ is a link out of the session: nothing read
            self.problems.set_scan(
                "candidates", [StoreProblem("candidates", "", ns.path, exc.strerror or str(exc))]
            )
            self.hint.value = 0
            return []
        temps: list[str] = []
        names, mtimes, sizes = scan_stats(ns.path, temps=temps)
        if temps:  # an interrupted add of ours: swept here, off the first paint
            self.problems.recovered(sweep_temp_names(ns.path, temps))
        digest = scan_digest(names, mtimes, sizes)
        self.hint.value = len(names)
        if not build and self._index_db() is not None and self._index_info is not None:
            scanned, stored_digest, _, _ = self._index_info
            if digest == stored_digest and (not mtimes or max(mtimes) < scanned - RACY_NS):
                # As the hot path below, from the stored index's info alone.
                self._index_verified = True
                if progress is not None:
                    progress(0, 0)
                return []
        old = self._load_index(len(names))
        if old is not None and not _keys_match(old):
            old = None  # a crafted index naming files with other ids: rebuilt
        if (
            old is not None
            and digest == old.digest
            and (not mtimes or max(mtimes) < old.scanned_ns - RACY_NS)
        ):
            # Same names, mtimes and sizes in the same order, none young enough to change
            # within a clock tick: the stored rows are exact. The hot path of opening.
            self._index_problems(ns, old)
            self._index_verified = True
            if progress is not None:
                progress(0, 0)
            return old.rows() if build else []
        index = self._rebuild_index(
            ns, old, names, mtimes, sizes, started, digest, progress, partial
        )
        self._index = index
        self._index_problems(ns, index)
        if old is not None or names:
            self._close_index_db()
            with contextlib.suppress(OSError, sqlite3.Error):
                self.state.write_index(index)
        self._index_verified = True
        return index.rows() if build else []

    def _index_problems(self, ns: FileNamespace, index: CandidateIndex) -> None:
        """Report the index's foreign names, folders and unreadable rows as problems."""
        self.problems.set_scan(
            "candidates",
            [
                StoreProblem("candidates", key, os.path.join(ns.path, name), reason)
                for key, name, reason in index.problems
            ],
        )
        unreadable = index.unreadable
        if unreadable.count(None) != len(unreadable):
            names = index.names
            for i, reason in enumerate(unreadable):
                if reason is not None:
                    path = os.path.join(ns.path, names[i])
                    self.problems.note(StoreProblem("candidates", index.keys[i], path, reason))
        if self.problems.keys_in("candidates"):
            self.problems.keep_only("candidates", set(index.keys))  # files now gone

    def _rebuild_index(
        self,
        ns: FileNamespace,
        old: CandidateIndex | None,
        names: list[str],
        mtimes: list[int],
        sizes: list[int],
        started: int,
        digest: bytes,
        progress: Callable[[int, int], None] | None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> CandidateIndex:
        """Compare the scan with the index file by file; parse only new/changed files."""
        positions = old.positions() if old is not None else {}
        racy_before = old.scanned_ns - RACY_NS if old is not None else 0
        rows: list[tuple[Any, ...]] = []
        keep: list[int] = []  # positions of unchanged rows in the old index
        todo: list[tuple[str, str, int, int, int]] = []  # key, name, mtime, size, order
        problems: list[tuple[str, str, str]] = []
        for name, mtime, size in zip(names, mtimes, sizes, strict=True):
            i = positions.get(name)
            if old is not None and i is not None:
                if old.mtimes[i] == mtime and old.sizes[i] == size and mtime < racy_before:
                    keep.append(i)
                    continue
                todo.append((old.keys[i], name, mtime, size, old.orders[i]))
                continue
            key = decode_name(name)
            if key is None:
                problems.append((name, name, "foreign file name (foley cannot read it)"))
                continue
            todo.append((key, name, mtime, size, mtime))
        total = len(todo)
        failed: list[tuple[str, str, int, int, int]] = []
        emitted = 0  # rows[:emitted] were handed to ``partial`` already
        for done, (key, name, mtime, size, order) in enumerate(todo):
            try:
                data = read_object(os.path.join(ns.path, name), retry=False)
            except FileNotFoundError:
                continue
            except IsADirectoryError:
                problems.append((key, name, "a folder, not a file"))
                continue
            except UnsafeFileError as exc:  # a link, FIFO, device or oversized file
                rows.append((order, name, mtime, size, _reason(exc), key, *_EMPTY_VALUES))
                continue
            except (DecodeError, OSError):
                failed.append((key, name, mtime, size, order))
                continue
            rows.append((order, name, mtime, size, None, key, *row_values(data)))
            self.problems.clear("candidates", key)
            if done % 1000 == 0:
                if progress is not None:
                    progress(done, total)
                if partial is not None and len(rows) > emitted:
                    partial([_make_row(t[5], t[0], list(t[6:]), None) for t in rows[emitted:]])
                    emitted = len(rows)
        # One shared retry window (~50 ms) for every file that failed, not 50 ms each.
        for delay in (*RETRY_DELAYS, None):
            if not failed:
                break
            still = []
            for key, name, mtime, size, order in failed:
                path = os.path.join(ns.path, name)
                try:
                    data = read_object(path, retry=False)
                except FileNotFoundError:
                    continue
                except (DecodeError, OSError) as exc:
                    if delay is None:  # out of retries: an unreadable row, reported
                        reason = _reason(exc)
                        rows.append((order, name, mtime, size, reason, key, *_EMPTY_VALUES))
                    still.append((key, name, mtime, size, order))
                    continue
                rows.append((order, name, mtime, size, None, key, *row_values(data)))
                self.problems.clear("candidates", key)
            failed = still
            if failed and delay is not None:
                time.sleep(delay)
        if progress is not None:
            progress(total, total)
        if old is not None and keep:
            return CandidateIndex.merged(
                old, keep, rows, scanned_ns=started, digest=digest, problems=problems
            )
        return CandidateIndex.from_rows(rows, scanned_ns=started, digest=digest, problems=problems)
