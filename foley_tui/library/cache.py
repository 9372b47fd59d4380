"""The cached index of a library folder: every sound file's size, mtime, content hash
and metadata, so a revisit reads only what changed.

One SQLite file per folder under ``$XDG_CACHE_HOME/foley-tui/library/``, named by a
hash of the folder's real path (the same folder reached through a link or a relative
path shares it). A refresh walks the tree, keeps the rows whose (size, mtime) match,
reads the rest (metadata and SHA-256), and drops the rows of files gone. A file that
disappears from one path while a file of the same content appears at another is a move.
The cache is only a cache: a damaged or unwritable one is rebuilt or kept in memory.
The library folder itself is only ever read.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foley_tui.library import ucs
from foley_tui.library.metadata import FileMeta
from foley_tui.library.reading import CHUNK, KEYWORD_SEP, File, Reader, read_row
from foley_tui.library.scan import Found, Skipped, walk

SCHEMA_VERSION = 2
#: Rows stored per transaction (the progress callback runs between batches).
BATCH = 1000
#: On a first visit, how many files are read (in the refresh's own thread) before the
#: rest of the tree is listed: a screen of rows or so.
FIRST_BATCH = 64

_COLUMNS = (
    "rel, size, mtime_ns, sha256, format, duration, rate, bits, channels, description, "
    "library, vendor, catid, category, subcategory, fx_name, creator, source, keywords, "
    "problem, warning"
)
_DDL = (
    "CREATE TABLE IF NOT EXISTS info(k TEXT PRIMARY KEY, v ANY)",
    "CREATE TABLE IF NOT EXISTS files(rel TEXT PRIMARY KEY, size INTEGER NOT NULL, "
    "mtime_ns INTEGER NOT NULL, sha256 TEXT, format TEXT NOT NULL, duration REAL, "
    "rate INTEGER, bits INTEGER, channels INTEGER, description TEXT NOT NULL, "
    "library TEXT NOT NULL, vendor TEXT NOT NULL, catid TEXT NOT NULL, "
    "category TEXT NOT NULL, subcategory TEXT NOT NULL, fx_name TEXT NOT NULL, "
    "creator TEXT NOT NULL, source TEXT NOT NULL, keywords TEXT NOT NULL, problem TEXT, "
    "warning TEXT, fields TEXT NOT NULL, synced TEXT)",
    "CREATE INDEX IF NOT EXISTS files_sha ON files(sha256)",
    "CREATE TABLE IF NOT EXISTS skipped(rel TEXT PRIMARY KEY, reason TEXT NOT NULL)",
)


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/foley-tui/library`` (``~/.cache/foley-tui/library``)."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "foley-tui" / "library"


def cache_path_for(real_root: Path, base: Path | None = None) -> Path:
    """The cache file of the folder whose real path is ``real_root``."""
    digest = hashlib.sha256(os.fsencode(real_root)).hexdigest()[:32]
    return (base or cache_root()) / f"{digest}.sqlite"


def sound_id_of(sha256: str) -> str:
    """The sound id ``add`` gives a file of this content."""
    return f"local:{sha256[:16]}"


@dataclass(frozen=True, slots=True)
class Entry:
    """One sound file of the folder. ``meta.fields`` is empty on entries listed from the
    cache (see :meth:`LibraryIndex.fields`): a 100k-file list does not hold them all."""

    rel: str
    size: int
    mtime_ns: int
    sha256: str | None
    meta: FileMeta

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @property
    def folder(self) -> str:
        """The folder relative to the root (empty at the root)."""
        return self.rel.rsplit("/", 1)[0] if "/" in self.rel else ""

    @property
    def sound_id(self) -> str | None:
        return sound_id_of(self.sha256) if self.sha256 else None


@dataclass(slots=True)
class Refresh:
    """What a refresh found."""

    files: int = 0
    """Sound files in the folder."""
    skipped: list[Skipped] = field(default_factory=list)
    read: int = 0
    """Files read (new or changed since the cache)."""
    removed: int = 0
    moved: list[tuple[str, str]] = field(default_factory=list)
    """(old path, new path) of the files found again at another path by content."""
    problems: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) of every file or link that cannot be auditioned."""


Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: phase ``walk`` (total 0: unknown yet) or ``read``."""


def _entry_of(row: Sequence[Any], fields: dict[str, str] | None = None) -> Entry:
    (rel, size, mtime, sha, fmt, duration, rate, bits, channels, description, library) = row[:11]
    (vendor, catid, category, sub, fx_name, creator, source, keywords, problem, warning) = row[
        11:21
    ]
    words = tuple(keywords.split(KEYWORD_SEP)) if keywords else ()
    meta = FileMeta(
        fmt,
        duration,
        rate,
        bits,
        channels,
        description,
        library,
        vendor,
        ucs.UcsFields(catid, category, sub, fx_name, creator, source, words),
        fields or {},
        problem,
        warning,
    )
    return Entry(rel, size, mtime, sha, meta)


class _Stopped(Exception):
    """The refresh's ``stop`` said so between two batches."""


class LibraryIndex:
    """The cached index of one folder (see the module docstring). Thread-safe: one lock
    around the connection."""

    def __init__(self, root: Path, *, cache_dir: Path | None = None) -> None:
        self.root = Path(os.path.realpath(Path(root).expanduser()))
        self.path = cache_path_for(self.root, cache_dir)
        self._lock = threading.Lock()
        self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False)
            self._init(db)
            return db
        except sqlite3.DatabaseError:
            # A damaged cache is rebuilt: it only holds what the folder can tell again.
            with contextlib.suppress(OSError):
                self.path.unlink()
            try:
                db = sqlite3.connect(self.path, check_same_thread=False)
                self._init(db)
                return db
            except sqlite3.Error:
                pass
        except OSError:
            pass
        db = sqlite3.connect(":memory:", check_same_thread=False)
        self._init(db)
        return db

    def _init(self, db: sqlite3.Connection) -> None:
        db.execute("PRAGMA journal_mode = WAL")
        # A cache: a commit need not reach the disk (a crash loses at most the last
        # batches, read again next time), and a scan commits every batch, so waiting for
        # each fsync on a busy disk would pace the whole scan.
        db.execute("PRAGMA synchronous = NORMAL")
        with db:
            db.execute(_DDL[0])
            found = dict(db.execute("SELECT k, v FROM info").fetchall())
            if found.get("version") != SCHEMA_VERSION or found.get("root") != str(self.root):
                # Another layout (or a file that is not ours): start over, it is a cache.
                db.execute("DROP TABLE IF EXISTS files")
                db.execute("DROP TABLE IF EXISTS skipped")
                db.execute("DELETE FROM info")
            for statement in _DDL[1:]:
                db.execute(statement)
            db.execute("INSERT OR REPLACE INTO info VALUES ('version', ?)", (SCHEMA_VERSION,))
            db.execute("INSERT OR REPLACE INTO info VALUES ('root', ?)", (str(self.root),))

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.close()

    # ------------------------------------------------------------------ reads
    def entries(self) -> list[Entry]:
        """What the cache knows, in path order (no walk)."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM files ORDER BY rel").fetchall()
        return [_entry_of(row) for row in rows]

    def count(self) -> int:
        with self._lock:
            (n,) = self._db.execute("SELECT count(*) FROM files").fetchone()
        return int(n)

    def skipped(self) -> list[Skipped]:
        with self._lock:
            rows = self._db.execute("SELECT rel, reason FROM skipped ORDER BY rel").fetchall()
        return [Skipped(rel, reason) for rel, reason in rows]

    def problems(self) -> list[tuple[str, str]]:
        """(path, reason) of every file listed but not auditionable, and of every entry
        the walk skipped, in path order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT rel, problem FROM files WHERE problem IS NOT NULL "
                "UNION ALL SELECT rel, reason FROM skipped ORDER BY 1"
            ).fetchall()
        return [(rel, reason) for rel, reason in rows]

    def fields(self, rel: str) -> dict[str, str]:
        """Every embedded field of the file at ``rel`` (empty when not cached)."""
        with self._lock:
            row = self._db.execute("SELECT fields FROM files WHERE rel = ?", (rel,)).fetchone()
        return dict(json.loads(row[0])) if row else {}

    def of_content(self, sha256: str, *, with_fields: bool = False) -> list[Entry]:
        """Every file of this content, in path order (duplicates share one sound)."""
        return self._of_contents([sha256], with_fields)[sha256]

    def _of_contents(self, shas: Sequence[str], with_fields: bool) -> dict[str, list[Entry]]:
        out: dict[str, list[Entry]] = {sha: [] for sha in shas}
        with self._lock:
            for start in range(0, len(shas), 500):
                part = list(shas[start : start + 500])
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT {_COLUMNS}, fields FROM files WHERE sha256 IN ({marks}) ORDER BY rel",
                    part,
                ).fetchall()
                for row in rows:
                    fields = json.loads(row[-1]) if with_fields else None
                    out[row[3]].append(_entry_of(row, fields))
        return out

    def sound_prefix(self, hex16: str) -> str | None:
        """The full content hash of a ``local:`` sound id's 16 hex digits, if cached."""
        with self._lock:
            row = self._db.execute(
                "SELECT sha256 FROM files WHERE sha256 >= ? AND sha256 < ? LIMIT 1",
                (hex16, hex16 + "g"),
            ).fetchone()
        return row[0] if row else None

    def column_values(self, column: str) -> dict[str, Any]:
        """One column's value per content hash (the first playable path's), for a sort
        or the category list."""
        if column not in ("rel", "bits", "category", "catid", "library", "vendor", "folder"):
            raise ValueError(f"not a sortable column: {column}")
        expr = column
        if column == "folder":
            expr = "rel"
        elif column == "category":  # as the column shows it: CATEGORY/SUB, else the CatID
            expr = (
                "CASE WHEN category <> '' THEN category || CASE WHEN subcategory <> '' "
                "THEN '/' || subcategory ELSE '' END ELSE catid END"
            )
        with self._lock:
            rows = self._db.execute(
                f"SELECT sha256, {expr} FROM files WHERE sha256 IS NOT NULL AND problem IS NULL "
                "ORDER BY rel DESC"
            ).fetchall()
        out = dict(rows)  # the first path in order wins (the rows come last first)
        if column == "folder":
            out = {sha: rel.rsplit("/", 1)[0] if "/" in rel else "" for sha, rel in out.items()}
        return out

    # ------------------------------------------------------------------ sync state
    def unsynced(self, session_id: str) -> list[str]:
        """The content hashes whose candidate ``session_id`` has not had since they
        changed (new, re-read, or a path of the same content added or removed)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT sha256 FROM files WHERE sha256 IS NOT NULL AND synced IS NOT ?",
                (session_id,),
            ).fetchall()
        return sorted(sha for (sha,) in rows)

    def sounds_of(self, shas: Sequence[str]) -> dict[str, list[Entry]]:
        """The files of each content hash, in path order."""
        return self._of_contents(shas, False)

    def mark_synced(self, session_id: str, shas: Iterable[str]) -> None:
        with self._lock, self._db:
            self._db.executemany(
                "UPDATE files SET synced = ? WHERE sha256 = ?",
                ((session_id, sha) for sha in shas),
            )

    # ------------------------------------------------------------------ refresh
    def refresh(
        self,
        progress: Progress | None = None,
        stop: Callable[[], bool] | None = None,
        stored: Callable[[], None] | None = None,
    ) -> Refresh:
        """Walk the folder, read what changed, and store it (see the module docstring).
        The files to read go to the reader as the walk finds them (worker processes read
        a big folder while the rest of it is listed). ``stop``: checked between batches;
        a stopped refresh keeps what it stored. ``stored``: called after each batch is
        stored (rows can fill in meanwhile)."""
        report = progress or (lambda phase, done, total: None)
        result = Refresh()
        with self._lock:
            known = {
                rel: (size, mtime, sha)
                for rel, size, mtime, sha in self._db.execute(
                    "SELECT rel, size, mtime_ns, sha256 FROM files"
                )
            }
        root = str(self.root)
        current: set[str] = set()
        batch: list[tuple[Any, ...]] = []
        fresh_by_sha: dict[str, str] = {}
        done = 0
        total = 0  # files to read: known once the walk is over

        def take(rows: Iterable[tuple[Any, ...]], *, now: bool = False) -> None:
            nonlocal batch, done
            for row in rows:
                rel, sha = row[0], row[3]
                batch.append(row)
                if sha and rel not in known:
                    # The rows come in no particular order: the first new path of a
                    # content, in path order, is where a file of that content moved.
                    first = fresh_by_sha.get(sha)
                    if first is None or rel < first:
                        fresh_by_sha[sha] = rel
                done += 1
            if batch and (now or len(batch) >= BATCH):
                self._store(batch)
                batch = []
                report("read", done, total)
                if stored is not None:
                    stored()
                if stop is not None and stop():
                    raise _Stopped

        stopped = False
        # A first visit has nothing to show until files are read: the first few found
        # are read and stored at once, before the rest of the tree is even listed, so
        # the list's first rows do not wait for a walk and a read of the whole folder.
        early: list[File] | None = [] if not known else None
        with Reader(root) as reader:
            try:
                for item in walk(self.root):
                    if not isinstance(item, Found):
                        result.skipped.append(item)
                        continue
                    current.add(item.rel)
                    listed = (item.size, item.mtime_ns)
                    if early is not None:
                        early.append((item.rel, *listed))
                        if len(early) == FIRST_BATCH:
                            take([read_row(root, f) for f in early], now=True)
                            early = None
                    elif known.get(item.rel, (None, None))[:2] != listed:
                        reader.add((item.rel, *listed))
                        if reader.added % CHUNK == 0:
                            take(reader.ready())
                    if len(current) % 5000 == 0:
                        report("walk", len(current), 0)
                result.files = len(current)
                for found in early or ():  # a tree smaller than the first batch
                    reader.add(found)
                total = reader.added + (FIRST_BATCH if not known and early is None else 0)
                report("read", done, total)
                with self._lock, self._db:
                    self._db.execute("DELETE FROM skipped")
                    self._db.executemany(
                        "INSERT OR REPLACE INTO skipped VALUES (?, ?)",
                        ((s.rel, s.reason) for s in result.skipped),
                    )
                for row in reader.finish():
                    take((row,))
                take((), now=True)
            except _Stopped:
                stopped = True
        gone = {rel: known[rel][2] for rel in known.keys() - current} if not stopped else {}
        if gone:
            shas = {sha for sha in gone.values() if sha}
            with self._lock, self._db:
                self._db.executemany("DELETE FROM files WHERE rel = ?", ((r,) for r in gone))
                # The remaining paths of a content lost one: its candidate's tags change.
                self._db.executemany(
                    "UPDATE files SET synced = NULL WHERE sha256 = ?", ((sha,) for sha in shas)
                )
            result.removed = len(gone)
            result.moved = sorted(
                (old, fresh_by_sha[sha]) for old, sha in gone.items() if sha in fresh_by_sha
            )
        result.read = done
        result.problems = self.problems()
        report("read", done, total)
        return result

    def _store(self, rows: list[tuple[Any, ...]]) -> None:
        marks = ",".join("?" * len(rows[0]))
        with self._lock, self._db:
            self._db.executemany(f"INSERT OR REPLACE INTO files VALUES ({marks})", rows)
            # A new path of a known content changes that content's candidate (its tags).
            self._db.executemany(
                "UPDATE files SET synced = NULL WHERE sha256 = ?",
                ((row[3],) for row in rows if row[3]),
            )
