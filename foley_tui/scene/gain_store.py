"""The woven gains measured, kept across runs: one SQLite file in the user's cache dir.

It also keeps each file's content hash by its path and its ``stat`` facts (size,
modification and change times, inode), so a later run knows a file it has seen without
reading all of its bytes again; any change to the file (a write moves its change time,
which no tool can set back) makes it hashed afresh.

A woven gain (:func:`foley_tui.scene.contract.woven_gain`) is a pure function of a
sound's bytes, its layer, the span it is fitted to and foley's code: it is stored by the
sound's content hash, those parameters and foley's version, so the app that measured a
scene for the woven mix, a second ``spot`` or ``scene --json`` never measures a sound
again. A cache: losing it costs a measurement, never a decision, so an unreadable file is
replaced by an empty one and a failing write is ignored.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Bumped when what is stored changes meaning.
VERSION = 1


def default_path() -> Path:
    """``$XDG_CACHE_HOME/foley-tui/gains.sqlite`` (``~/.cache/foley-tui/...``)."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "foley-tui" / "gains.sqlite"


@lru_cache(maxsize=1)
def foley_version() -> str:
    """foley's version: a gain measured by another foley is measured again."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("foley")
    except PackageNotFoundError:
        return "unknown"


def gain_key(content: str, layer: str, span_s: float | None, loop: bool) -> str:
    """The stored key of a gain (foley's version and our format version included)."""
    span = "whole" if span_s is None else repr(float(span_s))
    return f"{VERSION}|{foley_version()}|{content}|{layer}|{span}|{int(loop)}"


class GainStore:
    """(reference dB, layer dB) by :func:`gain_key`, in one SQLite file (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _open(self) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=5)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                # A cache: a commit need not wait for the disk (a crash loses at most
                # the last measurements, never the file's consistency).
                db.execute("PRAGMA synchronous=NORMAL")
            except sqlite3.DatabaseError:  # not a database: a cache may be rebuilt
                db.close()
                self.path.unlink(missing_ok=True)
                db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=5)
            db.execute(
                "CREATE TABLE IF NOT EXISTS gains"
                " (key TEXT PRIMARY KEY, reference_db REAL NOT NULL, layer_db REAL NOT NULL)"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS hashes (path TEXT PRIMARY KEY, stat TEXT NOT NULL,"
                " content TEXT NOT NULL)"
            )
        except (OSError, sqlite3.Error):
            return None
        self._db = db
        return db

    def _one(self, sql: str, params: tuple[str, ...]) -> tuple[Any, ...] | None:
        """The first row ``sql`` answers, None when there is none or the cache cannot
        be read (a cache never fails its caller)."""
        with self._lock:
            db = self._open()
            if db is None:
                return None
            try:
                row: tuple[Any, ...] | None = db.execute(sql, params).fetchone()
            except sqlite3.Error:
                return None
        return row

    def _put(self, sql: str, params: tuple[str | float, ...]) -> None:
        """Run one write in its own transaction; a cache that cannot be written is left."""
        with self._lock:
            db = self._open()
            if db is None:
                return
            with contextlib.suppress(sqlite3.Error), db:
                db.execute(sql, params)

    def get(self, key: str) -> tuple[float, float] | None:
        row = self._one("SELECT reference_db, layer_db FROM gains WHERE key = ?", (key,))
        return None if row is None else (float(row[0]), float(row[1]))

    def put(self, key: str, reference_db: float, layer_db: float) -> None:
        self._put(
            "INSERT OR REPLACE INTO gains (key, reference_db, layer_db) VALUES (?, ?, ?)",
            (key, reference_db, layer_db),
        )

    def get_hash(self, path: str, stat: str) -> str | None:
        """The content hash of ``path`` when it was hashed with these ``stat`` facts."""
        row = self._one("SELECT content FROM hashes WHERE path = ? AND stat = ?", (path, stat))
        return None if row is None else str(row[0])

    def put_hash(self, path: str, stat: str, content: str) -> None:
        self._put(
            "INSERT OR REPLACE INTO hashes (path, stat, content) VALUES (?, ?, ?)",
            (path, stat, content),
        )

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


_STORES: dict[Path, GainStore] = {}
_STORES_LOCK = threading.Lock()


def shared_store() -> GainStore:
    """The store at :func:`default_path` (one per path in a process: the path follows
    ``XDG_CACHE_HOME``)."""
    path = default_path()
    with _STORES_LOCK:
        store = _STORES.get(path)
        if store is None:
            store = _STORES[path] = GainStore(path)
        return store
