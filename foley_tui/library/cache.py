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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foley_tui.library import ucs
from foley_tui.library.metadata import FileMeta, read_metadata
from foley_tui.library.scan import Found, Skipped, walk

SCHEMA_VERSION = 1
#: Files read per batch (one transaction; the progress callback runs between batches).
BATCH = 256
#: Below this many files to read, a refresh reads them in its own thread; above it, in
#: worker processes (metadata parsing is Python: one process per CPU is the speed-up).
PROCESS_THRESHOLD = 400

_DDL = (
    "CREATE TABLE IF NOT EXISTS info(k TEXT PRIMARY KEY, v ANY)",
    "CREATE TABLE IF NOT EXISTS files(rel TEXT PRIMARY KEY, size INTEGER NOT NULL, "
    "mtime_ns INTEGER NOT NULL, sha256 TEXT, meta TEXT NOT NULL, fields TEXT NOT NULL)",
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

    entries: list[Entry] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    read: int = 0
    """Files read (new or changed since the cache)."""
    removed: int = 0
    moved: list[tuple[str, str]] = field(default_factory=list)
    """(old path, new path) of the files found again at another path by content."""

    @property
    def problems(self) -> list[tuple[str, str]]:
        """(path, reason) of every file or link that cannot be auditioned."""
        found = [(e.rel, e.meta.problem) for e in self.entries if e.meta.problem]
        return [*found, *((s.rel, s.reason) for s in self.skipped)]


Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: phase ``walk`` (total 0: unknown yet) or ``read``."""


def read_file(root: str, rel: str) -> tuple[str | None, FileMeta]:
    """(SHA-256 or None, metadata) of one file (module level: worker processes run it)."""
    path = Path(root) / rel
    meta = read_metadata(path)
    if meta.problem is not None and meta.problem.startswith("cannot be read"):
        return None, meta
    try:
        with open(path, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        meta.problem = f"cannot be read ({exc.strerror or exc})"
        return None, meta
    return digest, meta


def _read_many(root: str, rels: list[str]) -> Iterator[tuple[str, str | None, FileMeta]]:
    if len(rels) < PROCESS_THRESHOLD or (os.cpu_count() or 1) < 2:
        for rel in rels:
            yield (rel, *read_file(root, rel))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn: the caller is a thread of a running app; forking it copies its locks.
    context = multiprocessing.get_context("spawn")
    workers = min(os.cpu_count() or 2, 4)
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        results = pool.map(read_file, [root] * len(rels), rels, chunksize=64)
        for rel, result in zip(rels, results, strict=True):
            yield (rel, *result)


def _meta_json(meta: FileMeta) -> str:
    return json.dumps(
        {
            "format": meta.format,
            "duration_s": meta.duration_s,
            "sample_rate": meta.sample_rate,
            "bit_depth": meta.bit_depth,
            "channels": meta.channels,
            "description": meta.description,
            "library": meta.library,
            "vendor": meta.vendor,
            "ucs": [
                meta.ucs.catid,
                meta.ucs.category,
                meta.ucs.subcategory,
                meta.ucs.fx_name,
                meta.ucs.creator,
                meta.ucs.source,
                list(meta.ucs.keywords),
            ],
            "problem": meta.problem,
            "warning": meta.warning,
        },
        ensure_ascii=False,
    )


def _meta_of(text: str, fields: dict[str, str] | None = None) -> FileMeta:
    data: dict[str, Any] = json.loads(text)
    u = data.get("ucs") or ["", "", "", "", "", "", []]
    return FileMeta(
        format=data.get("format") or "",
        duration_s=data.get("duration_s"),
        sample_rate=data.get("sample_rate"),
        bit_depth=data.get("bit_depth"),
        channels=data.get("channels"),
        description=data.get("description") or "",
        library=data.get("library") or "",
        vendor=data.get("vendor") or "",
        ucs=ucs.UcsFields(u[0], u[1], u[2], u[3], u[4], u[5], tuple(u[6])),
        fields=fields or {},
        problem=data.get("problem"),
        warning=data.get("warning"),
    )


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
        with db:
            for statement in _DDL:
                db.execute(statement)
            found = dict(db.execute("SELECT k, v FROM info").fetchall())
            if found.get("version") not in (None, SCHEMA_VERSION) or found.get("root") not in (
                None,
                str(self.root),
            ):
                db.execute("DELETE FROM files")
                db.execute("DELETE FROM skipped")
            db.execute("INSERT OR REPLACE INTO info VALUES ('version', ?)", (SCHEMA_VERSION,))
            db.execute("INSERT OR REPLACE INTO info VALUES ('root', ?)", (str(self.root),))

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.close()

    # ------------------------------------------------------------------ reads
    def entries(self) -> list[Entry]:
        """What the cache knows, in path order (no walk: the first paint of a revisit)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT rel, size, mtime_ns, sha256, meta FROM files ORDER BY rel"
            ).fetchall()
        return [
            Entry(rel, size, mtime, sha, _meta_of(meta)) for rel, size, mtime, sha, meta in rows
        ]

    def skipped(self) -> list[Skipped]:
        with self._lock:
            rows = self._db.execute("SELECT rel, reason FROM skipped ORDER BY rel").fetchall()
        return [Skipped(rel, reason) for rel, reason in rows]

    def fields(self, rel: str) -> dict[str, str]:
        """Every embedded field of the file at ``rel`` (empty when not cached)."""
        with self._lock:
            row = self._db.execute("SELECT fields FROM files WHERE rel = ?", (rel,)).fetchone()
        return dict(json.loads(row[0])) if row else {}

    def paths_of(self, sha256: str) -> list[str]:
        """Every path of the folder holding this content (duplicates share a sound)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT rel FROM files WHERE sha256 = ? ORDER BY rel", (sha256,)
            ).fetchall()
        return [rel for (rel,) in rows]

    def by_sound_prefix(self, hex16: str) -> list[Entry]:
        """The entries whose content hash starts with ``hex16`` (a ``local:`` sound id)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT rel, size, mtime_ns, sha256, meta, fields FROM files "
                "WHERE sha256 >= ? AND sha256 < ? ORDER BY rel",
                (hex16, hex16 + "g"),
            ).fetchall()
        return [
            Entry(rel, size, mtime, sha, _meta_of(meta, json.loads(fields)))
            for rel, size, mtime, sha, meta, fields in rows
        ]

    # ------------------------------------------------------------------ refresh
    def refresh(
        self, progress: Progress | None = None, stop: Callable[[], bool] | None = None
    ) -> Refresh:
        """Walk the folder, read what changed, and store it (see the module docstring).
        ``stop``: checked between batches; a stopped refresh keeps what it stored."""
        report = progress or (lambda phase, done, total: None)
        found: list[Found] = []
        result = Refresh()
        for item in walk(self.root):
            if isinstance(item, Found):
                found.append(item)
                if len(found) % 2000 == 0:
                    report("walk", len(found), 0)
            else:
                result.skipped.append(item)
        with self._lock:
            known = {
                rel: (size, mtime, sha)
                for rel, size, mtime, sha in self._db.execute(
                    "SELECT rel, size, mtime_ns, sha256 FROM files"
                )
            }
        current = {f.rel for f in found}
        gone = {rel: known[rel][2] for rel in known.keys() - current}
        to_read = [f for f in found if known.get(f.rel, (None, None))[:2] != (f.size, f.mtime_ns)]
        stats = {f.rel: f for f in found}
        report("read", 0, len(to_read))
        with self._lock, self._db:
            self._db.execute("DELETE FROM skipped")
            self._db.executemany(
                "INSERT OR REPLACE INTO skipped VALUES (?, ?)",
                ((s.rel, s.reason) for s in result.skipped),
            )
        batch: list[tuple[Any, ...]] = []
        done = 0
        fresh_by_sha: dict[str, str] = {}
        for rel, sha, meta in _read_many(str(self.root), [f.rel for f in to_read]):
            info = stats[rel]
            batch.append(
                (
                    rel,
                    info.size,
                    info.mtime_ns,
                    sha,
                    _meta_json(meta),
                    json.dumps(meta.fields, ensure_ascii=False),
                )
            )
            if sha and rel not in known:
                fresh_by_sha.setdefault(sha, rel)
            done += 1
            if len(batch) >= BATCH:
                self._store(batch)
                batch = []
                report("read", done, len(to_read))
                if stop is not None and stop():
                    break
        if batch:
            self._store(batch)
        if gone and (stop is None or not stop()):
            with self._lock, self._db:
                self._db.executemany("DELETE FROM files WHERE rel = ?", ((r,) for r in gone))
            result.removed = len(gone)
            result.moved = sorted(
                (old, fresh_by_sha[sha]) for old, sha in gone.items() if sha in fresh_by_sha
            )
        result.read = done
        report("read", done, len(to_read))
        result.entries = [e for e in self.entries() if e.rel in current]
        return result

    def _store(self, rows: Iterable[tuple[Any, ...]]) -> None:
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)", rows)
