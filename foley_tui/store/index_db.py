"""The candidate index on disk: ``.foley-tui/index.sqlite`` (stdlib ``sqlite3``).

The index is a cache in a folder that travels with the session (copies, imports, other
machines), so it is read as untrusted input: what it may do is bounded by SQLite, not by
a deserialiser. Every connection turns the dangerous parts off (``trusted_schema``
off: no function of a crafted schema runs; ``mmap_size`` 0; ``cell_size_check`` on; a
soft and a hard heap limit), the file must be under a size bound for the session's
file count, its schema must be exactly the one we create (compared statement by
statement), ``quick_check`` must pass, and every column must hold its declared type.
Anything else, or any SQLite error later, reads as "no index": it is rebuilt from
foley's files. An export never reads the index. The hardened connection and the
schema/trust checks live in :mod:`foley_tui.store.index_schema`; this module is the
read/write API (load, save, the search index, paging).

Tables: ``info`` (layout version, scan time, scan digest, row count), ``columns`` (the
whole list, one blob per column (:mod:`foley_tui.store.index_columns`): what opening a
session loads),
``rows`` (one per candidate file in rank order: file stats, the list columns and a
lowercased search text: what a page is queried from),
``problems`` (foreign names and folders of the scan) and ``rows_fts``, an FTS5 trigram
index of the search text for the ``/`` filter, filled on first use (terms of one or two
characters are a scan: trigrams cannot match them). Writes build a new file beside the old one and
``os.replace`` it: a crash leaves the old index or the new one, never a mix.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from foley_tui.domain import LAYERS, Row
from foley_tui.store import index_columns
from foley_tui.store.codec import decode_name
from foley_tui.store.index import CandidateIndex, gc_paused
from foley_tui.store.index_schema import (
    DDL,
    LAYOUT,
    VALUE_NAMES,
    VALUE_SQL,
    check,
    connect,
    is_regular,
    size_ok,
)

INDEX_FILE = "index.sqlite"
#: Separator of the tags column (a tag holding it is shown with a space instead).
TAG_SEP = "\x1f"


def load(path: str, *, expected_rows: int | None = None) -> CandidateIndex | None:
    """The stored index, or None for anything but an intact index of ours (rebuild).

    The whole list is loaded from the ``columns`` table (one blob per column, see
    :mod:`foley_tui.store.index_columns`: a few C-speed decodes instead of 100k row
    tuples), each column checked for its length and its value types.
    """
    if not is_regular(path) or not size_ok(path, expected_rows):
        return None
    with gc_paused():
        return _load(path, expected_rows)


def _load(path: str, expected_rows: int | None) -> CandidateIndex | None:
    try:
        db = connect(path, readonly=True)
    except sqlite3.Error:
        return None
    try:
        checked = check(db)
        if checked is None:
            return None
        scanned, digest, count, _ = checked
        if expected_rows is not None and count > expected_rows + 16:
            return None  # more rows than files: not this folder's index
        blobs = dict(db.execute("SELECT k, v FROM columns LIMIT 64"))
    except (sqlite3.Error, MemoryError, OverflowError):
        return None  # a damaged page, a foreign file...: rebuilt
    finally:
        db.close()
    try:
        return index_columns.decode(blobs, count, scanned, digest)
    except (ValueError, TypeError, KeyError, RecursionError, MemoryError):
        return None


def search_text(caption: str, tags: Sequence[str], key: str, source: str) -> str:
    """What the ``/`` filter matches, exactly as the list does: lowercased fields."""
    return "\n".join((caption, " ".join(tags), key, source)).lower()


def save(path: str, index: CandidateIndex) -> None:
    """Write ``index`` to ``path`` atomically (a new file, then ``os.replace``)."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.urandom(4).hex()}.tmp")
    try:
        db = connect(tmp, readonly=False)
        try:
            db.execute("PRAGMA journal_mode = OFF")  # a fresh file: nothing to roll back
            db.execute("PRAGMA synchronous = OFF")  # a cache: a lost index is a re-scan
            with db:
                # Indexes after the rows: one bulk build instead of an insert per row.
                tables = [s for s in DDL if not s.startswith("CREATE INDEX")]
                for statement in tables:
                    db.execute(statement)
                db.executemany(
                    "INSERT INTO info(k, v) VALUES (?, ?)",
                    [
                        ("layout", LAYOUT),
                        ("scanned_ns", index.scanned_ns),
                        ("digest", index.digest),
                        ("rows", len(index)),
                        ("fts", 0),  # the search index is built on first use
                    ],
                )
                db.executemany(
                    "INSERT INTO rows(pos, ord, name, mtime, size, unreadable, key, "
                    f"{VALUE_NAMES}, fold, search) VALUES (" + ", ".join(["?"] * 20) + ")",
                    _db_rows(index),
                )
                db.executemany(
                    "INSERT INTO problems(key, name, reason) VALUES (?, ?, ?)", index.problems
                )
                db.executemany(
                    "INSERT INTO columns(k, v) VALUES (?, ?)", index_columns.encode(index)
                )
                for statement in DDL:
                    if statement not in tables:
                        db.execute(statement)
        finally:
            db.close()
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _db_rows(index: CandidateIndex) -> Iterable[tuple[Any, ...]]:
    names, keys, values = index.names, index.keys, index.values
    captions, tags_col, sources = values[0], values[4], values[2]
    joined: dict[int, str] = {}
    for i in range(len(keys)):
        tags = tags_col[i]
        text = joined.get(id(tags))
        if text is None:
            text = TAG_SEP.join(t.replace(TAG_SEP, " ") for t in tags)
            joined[id(tags)] = text
        row = [col[i] for col in values]
        row[4] = text
        caption = captions[i]
        yield (
            i,
            index.orders[i],
            names[i],
            index.mtimes[i],
            index.sizes[i],
            index.unreadable[i],
            keys[i],
            *row,
            caption.lower(),
            search_text(caption, tags, keys[i], sources[i]),
        )


def build_search(path: str) -> bool:
    """Fill the trigram index of the ``/`` filter (once per index file; seconds at 100k,
    so the first paint never waits for it). True when it is (now) built."""
    try:
        db = connect(path, readonly=False)
    except sqlite3.Error:
        return False
    try:
        checked = check(db)
        if checked is None:
            return False
        if checked[3]:
            return True
        with db:
            db.execute("INSERT INTO rows_fts(rows_fts) VALUES ('rebuild')")
            db.execute("UPDATE info SET v = 1 WHERE k = 'fts'")
        return True
    except sqlite3.Error:
        return False
    finally:
        db.close()


# ---------------------------------------------------------------------------- paging
#: Sorts of the list and their SQL order (every order ends in the rank, then the id).
SORTS = ("rank", "caption", "duration", "score", "layer", "onset", "rate", "channels", "format")
STATUS_FILTERS = ("all", "undecided", "picked", "rejected")


#: What a Row is built from (see :func:`_rows_of`).
_ROW_COLUMNS = f"r.key, r.pos, {', '.join('r.' + n for n, _, _ in VALUE_SQL)}, r.unreadable, r.name"


@dataclass(frozen=True, slots=True)
class Page:
    """One screen of rows in view order, and how many rows the whole view holds.

    ``verified`` is False while the rows come from the stored index and no scan of this
    process has checked every file's (mtime, size) against it.
    """

    rows: list[Row]
    total: int
    offset: int
    verified: bool
    candidates: int | None = None
    """How many candidates the whole session has (the index's row count)."""


#: Each sort's order terms (SQL expression, descending?); every order ends in the rank.
_ORDER_TERMS: dict[str, tuple[tuple[str, bool], ...]] = {
    "rank": (("r.pos", False),),
    "caption": (("(r.fold = '')", False), ("r.fold", False), ("r.pos", False)),
    "duration": (("(r.duration IS NULL)", False), ("r.duration", False), ("r.pos", False)),
    "score": (("(r.score IS NULL)", False), ("r.score", True), ("r.pos", False)),
    "layer": (("(d.layer IS NULL)", False), ("d.layer", False), ("r.pos", False)),
    "onset": (("(d.onset IS NULL)", False), ("d.onset", False), ("r.pos", False)),
    "rate": (("(r.rate IS NULL)", False), ("r.rate", False), ("r.pos", False)),
    "channels": (("(r.channels IS NULL)", False), ("r.channels", False), ("r.pos", False)),
    "format": (("(r.format = '')", False), ("lower(r.format)", False), ("r.pos", False)),
}


def _order_sql(sort: str) -> str:
    return ", ".join(expr + (" DESC" if desc else "") for expr, desc in _ORDER_TERMS[sort])


def _view_sql(
    db: sqlite3.Connection,
    *,
    sort: str,
    status: str,
    query: str,
    picks: Mapping[str, tuple[str | None, float | None]] | None,
    rejects: Iterable[str],
    searchable: bool,
) -> tuple[str, list[Any], bool]:
    """The ``FROM ... WHERE`` of a view (the decisions loaded into a temp table), its
    parameters, and whether it filters anything."""
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r}")
    if status not in STATUS_FILTERS:
        raise ValueError(f"unknown status filter {status!r}")
    picks = picks or {}
    layer_rank: dict[str, int] = {layer: i for i, layer in enumerate(LAYERS)}
    db.execute(
        "CREATE TEMP TABLE IF NOT EXISTS decided(key TEXT PRIMARY KEY, status TEXT, "
        "layer INTEGER, onset REAL)"
    )
    db.execute("DELETE FROM temp.decided")
    db.executemany(
        "INSERT OR REPLACE INTO temp.decided VALUES (?, 'rejected', NULL, NULL)",
        ((key,) for key in rejects),
    )
    db.executemany(
        "INSERT OR REPLACE INTO temp.decided VALUES (?, 'picked', ?, ?)",
        (
            (key, layer_rank.get(layer) if layer else None, onset)
            for key, (layer, onset) in picks.items()
        ),
    )
    where: list[str] = []
    params: list[Any] = []
    if status == "undecided":
        where.append("d.key IS NULL")
    elif status != "all":
        where.append("d.status = ?")
        params.append(status)
    phrases: list[str] = []
    for term in query.lower().split():
        if len(term) >= 3 and searchable:
            phrases.append('"' + term.replace('"', '""') + '"')
        else:
            where.append("instr(r.search, ?) > 0")
            params.append(term)
    if phrases:  # one MATCH: FTS5 intersects the terms' row lists itself
        where.insert(0, "r.pos IN (SELECT rowid FROM rows_fts WHERE rows_fts MATCH ?)")
        params.insert(0, " AND ".join(phrases))
    clause = (" WHERE " + " AND ".join(where)) if where else ""
    return f"FROM rows r LEFT JOIN temp.decided d ON d.key = r.key{clause}", params, bool(where)


def _dense(db: sqlite3.Connection, row_count: int) -> bool:
    """Whether the rows' positions run 0 .. ``row_count`` - 1 (as :func:`save` writes
    them, one row each), so a row's offset in the whole list is its ``pos``. Two lookups
    of the primary key. A crafted file whose count lies only places its first page at a
    wrong offset until the whole list (every file checked) replaces it."""
    if row_count <= 0:
        return False
    (low,) = db.execute("SELECT min(pos) FROM rows").fetchone()
    (high,) = db.execute("SELECT max(pos) FROM rows").fetchone()
    return bool(low == 0 and high == row_count - 1)


def position(
    db: sqlite3.Connection,
    key: str,
    *,
    sort: str = "rank",
    status: str = "all",
    query: str = "",
    picks: Mapping[str, tuple[str | None, float | None]] | None = None,
    rejects: Iterable[str] = (),
    searchable: bool = True,
    row_count: int | None = None,
) -> int | None:
    """Where ``key`` is in the view (its offset), None when the view does not show it.

    The row is found by its id (indexed); in the whole list in rank order its offset is
    its position (see :func:`_dense`), else one count of the rows that come before its
    order values, no sort (so a saved cursor deep in a big session is painted first)."""
    base, params, filtered = _view_sql(
        db,
        sort=sort,
        status=status,
        query=query,
        picks=picks,
        rejects=rejects,
        searchable=searchable,
    )
    terms = _ORDER_TERMS[sort]
    glue = " AND " if " WHERE " in base else " WHERE "
    found = db.execute(
        f"SELECT {', '.join(expr for expr, _ in terms)} {base}{glue}r.key = ? LIMIT 1",
        [*params, key],
    ).fetchone()
    if found is None:
        return None
    if sort == "rank" and not filtered and row_count is not None and _dense(db, row_count):
        return int(found[0])
    # Lexicographic "before": t0 < k0 OR (t0 IS k0 AND (t1 < k1 OR (...))); ``IS`` is
    # equality that holds for NULLs, which the IS NULL terms have already ordered.
    before, values = "", list[Any]()
    for (expr, desc), value in reversed(list(zip(terms, found, strict=True))):
        less = f"{expr} {'>' if desc else '<'} ?"
        if before:
            before = f"({less} OR ({expr} IS ? AND {before}))"
            values = [value, value, *values]
        else:
            before, values = f"({less})", [value]
    (count,) = db.execute(f"SELECT count(*) {base}{glue}{before}", [*params, *values]).fetchone()
    return int(count)


def page(
    db: sqlite3.Connection,
    *,
    sort: str = "rank",
    status: str = "all",
    query: str = "",
    offset: int = 0,
    limit: int = 100,
    picks: Mapping[str, tuple[str | None, float | None]] | None = None,
    rejects: Iterable[str] = (),
    verified: bool = False,
    searchable: bool = True,
    row_count: int | None = None,
) -> Page:
    """A page of the view (sort, status filter, ``/`` filter) straight from the index.

    ``picks`` maps picked ids to (layer, numeric onset or None) (the layer and onset
    sorts); ``rejects`` are the rejected ids. Each whitespace-separated term of ``query``
    must be a substring of the row's search text (as the list filters); terms of three
    characters or more go through the trigram index, shorter ones are a scan.
    """
    base, params, where = _view_sql(
        db,
        sort=sort,
        status=status,
        query=query,
        picks=picks,
        rejects=rejects,
        searchable=searchable,
    )
    if not where and row_count is not None:
        total = row_count  # the whole list: no need to count it
    else:
        (total,) = db.execute(f"SELECT count(*) {base}", params).fetchone()
    offset = max(0, min(offset, max(total - 1, 0)))
    columns = _ROW_COLUMNS
    if sort == "rank" and not where and row_count is not None and _dense(db, row_count):
        # The whole list in rank order: the page starts at its position (OFFSET would
        # step over every row before it, a scan of most of a big session).
        found = db.execute(
            f"SELECT {columns} {base} WHERE r.pos >= ? ORDER BY r.pos LIMIT ?",
            [*params, offset, max(0, limit)],
        ).fetchall()
    else:
        found = db.execute(
            f"SELECT {columns} {base} ORDER BY {_order_sql(sort)} LIMIT ? OFFSET ?",
            [*params, max(0, limit), offset],
        ).fetchall()
    rows = _rows_of(found)
    return Page(rows, total, offset, verified, row_count)


def _rows_of(found: list[Any]) -> list[Row]:
    """The Rows of the index rows ``found`` (``_ROW_COLUMNS``), each checked: a crafted
    row naming another sound would send a decision to the wrong file."""
    for row in found:
        if not (type(row[0]) is str and type(row[1]) is int and type(row[2]) is str):
            raise sqlite3.DatabaseError("a row of the wrong types")
        if type(row[-1]) is not str or decode_name(row[-1]) != row[0]:
            raise sqlite3.DatabaseError("a row whose id is not its file's")
    return [
        Row(
            key,
            pos,
            caption,
            duration,
            source,
            license_id,
            tuple(tags.split(TAG_SEP)) if tags else (),
            score,
            cost,
            origin,
            rate,
            channels,
            fmt,
            True,
            unreadable,
        )
        for (
            key,
            pos,
            caption,
            duration,
            source,
            license_id,
            tags,
            score,
            cost,
            origin,
            rate,
            channels,
            fmt,
            unreadable,
            _name,
        ) in found
    ]


def view_keys(
    db: sqlite3.Connection,
    *,
    sort: str = "rank",
    status: str = "all",
    query: str = "",
    picks: Mapping[str, tuple[str | None, float | None]] | None = None,
    rejects: Iterable[str] = (),
    searchable: bool = True,
) -> list[str]:
    """Every sound id of the view (sort, status filter, ``/`` filter), in view order: the
    whole list a paged listing shows, without a row object for any of them (the rows of
    the screen come with :func:`rows_by_key`)."""
    base, params, _ = _view_sql(
        db,
        sort=sort,
        status=status,
        query=query,
        picks=picks,
        rejects=rejects,
        searchable=searchable,
    )
    found = db.execute(f"SELECT r.key {base} ORDER BY {_order_sql(sort)}", params).fetchall()
    keys = [key for (key,) in found]
    if any(type(key) is not str for key in keys):
        raise sqlite3.DatabaseError("a key of the wrong type")
    return keys


def rows_by_key(db: sqlite3.Connection, keys: Sequence[str]) -> dict[str, Row]:
    """The rows of ``keys`` (by the indexed id; an id the index does not hold is left
    out), as :func:`page` builds them."""
    out: dict[str, Row] = {}
    for start in range(0, len(keys), 500):
        part = list(keys[start : start + 500])
        marks = ",".join("?" * len(part))
        found = db.execute(
            f"SELECT {_ROW_COLUMNS} FROM rows r WHERE r.key IN ({marks})", part
        ).fetchall()
        for row in _rows_of(found):
            out[row.sound_id] = row
    return out


def search_texts(db: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """Every id in rank order with its search text (what ``/`` matches, as
    :func:`search_text` wrote it): a paged list's filter scans these, not rows."""
    keys: list[str] = []
    texts: list[str] = []
    add_key, add_text = keys.append, texts.append
    for key, text in db.execute("SELECT key, search FROM rows ORDER BY pos"):
        if type(key) is not str or type(text) is not str:
            raise sqlite3.DatabaseError("a search text of the wrong type")
        add_key(key)
        add_text(text)
    return keys, texts
