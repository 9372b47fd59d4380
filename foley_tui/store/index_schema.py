"""Schema and trust checks of the candidate index (``.foley-tui/index.sqlite``).

The index travels with the session, so it is read as untrusted input (see
:mod:`foley_tui.store.index_db`): every connection here is hardened (``trusted_schema``
off, ``mmap_size`` 0, ``cell_size_check`` on, soft and hard heap limits), the file must
be a regular file under a size bound for the session's file count, and its schema must
be exactly the one :data:`DDL` creates (compared statement by statement) with sane
``info``. The read/write API over a checked file is :mod:`foley_tui.store.index_db`.

Headless: never imports textual.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from typing import Any

from foley_tui.store.index import VALUE_COLUMNS

#: Layout of the tables; a stored index of another layout is rebuilt.
LAYOUT = 4
#: SQLite's own memory (page cache, sorter, FTS merges) stays under these (bytes).
SOFT_HEAP_LIMIT = 64 << 20
HARD_HEAP_LIMIT = 512 << 20
#: An index file may hold this much per candidate file, plus a fixed allowance.
MAX_BYTES_PER_ROW = 16 << 10
MAX_BYTES_BASE = 16 << 20

VALUE_SQL = (
    ("caption", "TEXT NOT NULL", "text"),
    ("duration", "REAL", "real"),
    ("source", "TEXT NOT NULL", "text"),
    ("license", "TEXT NOT NULL", "text"),
    ("tags", "TEXT NOT NULL", "text"),
    ("score", "REAL", "real"),
    ("cost", "REAL", "real"),
    ("origin", "TEXT NOT NULL", "text"),
    ("rate", "INTEGER", "integer"),
    ("channels", "INTEGER", "integer"),
    ("format", "TEXT NOT NULL", "text"),
)
assert len(VALUE_SQL) == len(VALUE_COLUMNS)
VALUE_NAMES = ", ".join(name for name, _, _ in VALUE_SQL)

DDL = (
    "CREATE TABLE info(k TEXT PRIMARY KEY, v ANY) STRICT",
    "CREATE TABLE rows(pos INTEGER PRIMARY KEY, ord INTEGER NOT NULL, name TEXT NOT NULL, "
    "mtime INTEGER NOT NULL, size INTEGER NOT NULL, unreadable TEXT, key TEXT NOT NULL, "
    + ", ".join(f"{name} {decl}" for name, decl, _ in VALUE_SQL)
    + ", fold TEXT NOT NULL, search TEXT NOT NULL) STRICT",
    "CREATE TABLE problems(key TEXT NOT NULL, name TEXT NOT NULL, reason TEXT NOT NULL) STRICT",
    "CREATE TABLE columns(k TEXT PRIMARY KEY, v BLOB NOT NULL) STRICT",
    "CREATE VIRTUAL TABLE rows_fts USING fts5(search, content='rows', content_rowid='pos', "
    "tokenize='trigram case_sensitive 1')",
    # The saved cursor's row is found by its id on the way to the first frame: without
    # this, that is a scan of the whole table.
    "CREATE INDEX rows_key ON rows(key)",
)

_expected: frozenset[tuple[Any, ...]] | None = None


def expected_schema() -> frozenset[tuple[Any, ...]]:
    """Every ``sqlite_schema`` row our DDL makes (FTS5's shadow tables included)."""
    global _expected
    if _expected is None:
        db = sqlite3.connect(":memory:")
        try:
            for statement in DDL:
                db.execute(statement)
            _expected = frozenset(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema"))
        finally:
            db.close()
    return _expected


def _harden(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA trusted_schema = OFF")
    db.execute("PRAGMA mmap_size = 0")
    db.execute("PRAGMA cell_size_check = ON")
    db.execute(f"PRAGMA soft_heap_limit = {SOFT_HEAP_LIMIT}")
    db.execute(f"PRAGMA hard_heap_limit = {HARD_HEAP_LIMIT}")


def connect(path: str, *, readonly: bool) -> sqlite3.Connection:
    """A hardened connection; read-only ones never create or change the file."""
    if readonly:
        uri = "file:" + _quote_path(path) + "?mode=ro"
        # Autocommit: a page's temp-table statements must not open an implicit
        # transaction, whose read lock would then block every writer of the file.
        db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    else:
        db = sqlite3.connect(path, check_same_thread=False)
    try:
        _harden(db)
    except BaseException:
        db.close()
        raise
    return db


def _quote_path(path: str) -> str:
    from urllib.parse import quote

    return quote(os.path.abspath(path))


def check(db: sqlite3.Connection) -> tuple[int, bytes, int, bool] | None:
    """(scanned_ns, digest, row count, search index built) of an index whose schema is
    exactly ours and whose info is sane, else None. Constant time: the rows themselves
    are checked as they are read (types in Python; damaged pages are SQLite errors)."""
    schema = frozenset(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema"))
    if schema != expected_schema():
        return None
    info = dict(db.execute("SELECT k, v FROM info LIMIT 16"))
    scanned, digest, count, fts = (
        info.get("scanned_ns"),
        info.get("digest"),
        info.get("rows"),
        info.get("fts"),
    )
    if info.get("layout") != LAYOUT or type(scanned) is not int or type(digest) is not bytes:
        return None
    if type(count) is not int or count < 0 or fts not in (0, 1):
        return None
    return scanned, digest, count, fts == 1


def size_ok(path: str, expected_rows: int | None) -> bool:
    try:
        size = os.lstat(path).st_size
    except OSError:
        return False
    rows = expected_rows if expected_rows is not None else 0
    return size <= MAX_BYTES_BASE + MAX_BYTES_PER_ROW * rows


def is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
