"""The compact per-session candidate index in memory, and the scan check.

Opening a 100k session must not parse 100k JSON files: the list columns are kept in an
index beside foley's folders (stored in SQLite by :mod:`foley_tui.store.index_db`), held
in memory as *columns* (one tuple per list column, the per-file stats as packed 64-bit
arrays), so loading it builds the Row values and nothing else. Repeated values
(sources, licences, tags) are shared objects.

Validation is one pass over the folder: every non-hidden name with its (mtime_ns, size)
from ``fstatat``, in directory order, hashed into a digest. When the digest equals the
one stored with the index (and no file is young enough to change within one clock
tick) nothing changed and the stored rows are returned as they are; otherwise the
caller compares file by file and re-parses only what changed.

Headless: never imports textual.
"""

from __future__ import annotations

import array
import bisect
import contextlib
import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from typing import Any

from foley_tui.domain import Row

_DIGEST_SIZE = 32

#: Value columns, in Row field order after (sound_id, rank), with the types they may hold.
VALUE_COLUMNS: tuple[tuple[str, frozenset[type]], ...] = (
    ("caption", frozenset({str})),
    ("duration_s", frozenset({float, type(None)})),
    ("source", frozenset({str})),
    ("license_id", frozenset({str})),
    ("tags", frozenset({tuple})),
    ("score", frozenset({float, type(None)})),
    ("cost_usd", frozenset({float, type(None)})),
    ("origin", frozenset({str})),
    ("sample_rate", frozenset({int, type(None)})),
    ("channels", frozenset({int, type(None)})),
    ("format", frozenset({str})),
)
_TAGS = 4
_WIDTH = len(VALUE_COLUMNS)


#: A list of at least this many rows ends its build with one full collection.
COLLECT_ROWS = 10_000


@contextlib.contextmanager
def gc_paused(*, collect: bool = False) -> Iterator[None]:
    """No cyclic garbage collection meanwhile: loading 100k rows makes a million objects
    at once (none in a cycle), and the collector would walk the growing heap again and
    again while they are made (a third of loading an index). Refcounting still frees
    everything; the collector runs again afterwards as it was.

    ``collect``: then run one full collection here, at the end of the load. Left young,
    the new objects would be walked by the next young collections and their promotion
    would soon trigger a full one: several walks of the whole heap at moments nobody
    chose, in the middle of a keystroke as likely as not. Once in the oldest generation,
    a full collection waits for the heap to grow by a quarter. (``gc.freeze()`` would
    save even that one, but whatever is alive then, the screens of the session being
    left included, would never be collected after.)"""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect:
            gc.collect()
        if was_on:
            gc.enable()


def scan_stats(
    path: str, *, temps: list[str] | None = None
) -> tuple[list[str], list[int], list[int]]:
    """Every non-hidden name of a folder with its (mtime_ns, size), in directory order.

    One ``fstatat`` per entry relative to the open folder (no path walk per file). A
    file that vanishes meanwhile is left out. A missing folder is empty. ``temps``, when
    given, receives the hidden names ending in ``.tmp`` (what an interrupted write of
    ours may leave: found by the same pass, at no extra cost).
    """
    names: list[str] = []
    mtimes: list[int] = []
    sizes: list[int] = []
    try:
        dir_fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return names, mtimes, sizes
    add_name, add_mtime, add_size = names.append, mtimes.append, sizes.append
    try:
        # scandir of a descriptor: DirEntry.stat() is an fstatat relative to it, and it
        # is a little cheaper per call than os.stat(name, dir_fd=...) with keywords.
        with os.scandir(dir_fd) as iterator:
            for entry in iterator:
                name = entry.name
                if name[0] == ".":
                    if temps is not None and name[-4:] == ".tmp":
                        temps.append(name)
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                add_name(name)
                add_mtime(st.st_mtime_ns)
                add_size(st.st_size)
    finally:
        os.close(dir_fd)
    return names, mtimes, sizes


def scan_digest(names: Sequence[str], mtimes: Sequence[int], sizes: Sequence[int]) -> bytes:
    """A stable digest of a scan (names, mtimes and sizes, in order): a few ms at 100k."""
    import hashlib  # here, by the load worker: OpenSSL's module is not needed to start

    digest = hashlib.blake2b(digest_size=_DIGEST_SIZE)
    digest.update(len(names).to_bytes(8, "little"))
    digest.update("\0".join(names).encode("utf-8", "surrogateescape"))
    digest.update(array.array("q", mtimes).tobytes())
    digest.update(array.array("q", sizes).tobytes())
    return digest.digest()


class CandidateIndex:
    """The index in memory: per-row columns in rank order (first-seen mtime, then name).

    ``values`` holds the eleven Row value columns (see :data:`VALUE_COLUMNS`). ``problems``
    are the foreign names and folders the scan that built it found, as (key, name,
    reason): unchanged folder, unchanged problems.
    """

    __slots__ = (
        "_names",
        "_names_blob",
        "_positions",
        "_rows",
        "digest",
        "key_checked",
        "keys",
        "mtimes",
        "orders",
        "problems",
        "scanned_ns",
        "sizes",
        "unreadable",
        "values",
    )

    def __init__(
        self,
        *,
        scanned_ns: int,
        digest: bytes,
        names: list[str] | None,
        names_blob: str | None,
        mtimes: array.array[int],
        sizes: array.array[int],
        orders: array.array[int],
        unreadable: Sequence[str | None],
        keys: Sequence[str],
        values: Sequence[Sequence[Any]],
        problems: Sequence[tuple[str, str, str]],
    ) -> None:
        self.scanned_ns = scanned_ns
        self.digest = digest
        self._names = names
        self._names_blob = names_blob
        self.mtimes = mtimes
        self.sizes = sizes
        self.orders = orders
        self.unreadable = unreadable
        self.keys = keys
        self.values = values
        self.problems = problems
        self._positions: dict[str, int] | None = None
        self._rows: list[Row] | None = None
        #: True once every (name, key) pair was checked (see rows._keys_match).
        self.key_checked = False

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def names(self) -> list[str]:
        """File names by rank (split from the stored blob on first use)."""
        if self._names is None:
            blob = self._names_blob or ""
            self._names = blob.split("\0") if blob or self.keys else []
        return self._names

    def positions(self) -> dict[str, int]:
        """File name -> row position (built once, on the slow path only)."""
        if self._positions is None:
            self._positions = dict(zip(self.names, range(len(self.keys)), strict=True))
        return self._positions

    def key_of_name(self) -> dict[str, str]:
        """File name -> sound id, from the index (decoding every file name again would cost
        far more than this lookup table)."""
        return dict(zip(self.names, self.keys, strict=True))

    def rows(self) -> list[Row]:
        """Row objects in rank order, built column-wise (no per-row Python loop).

        Built once per index and shared (a reopen lists the stored rows for the first
        paint, then returns the same rows once every file is checked): each call returns
        a new list of the same Row objects, which nobody mutates.
        """
        if self._rows is None:
            with gc_paused(collect=len(self.keys) >= COLLECT_ROWS):
                self._rows = list(
                    map(
                        Row,
                        self.keys,
                        range(len(self.keys)),
                        *self.values,
                        repeat(True),
                        self.unreadable,
                    )
                )
        return list(self._rows)

    def row_tuple(self, i: int) -> tuple[Any, ...]:
        """Row ``i`` as (order, name, mtime, size, unreadable, key, *values)."""
        return (
            self.orders[i],
            self.names[i],
            self.mtimes[i],
            self.sizes[i],
            self.unreadable[i],
            self.keys[i],
            *(col[i] for col in self.values),
        )

    @classmethod
    def from_rows(
        cls,
        rows: Iterable[tuple[Any, ...]],
        *,
        scanned_ns: int,
        digest: bytes,
        problems: Sequence[tuple[str, str, str]],
    ) -> CandidateIndex:
        """Build from (order, name, mtime, size, unreadable, key, *values) tuples (any order)."""
        ordered = sorted(rows, key=lambda item: (item[0], item[1]))
        if not ordered:
            empty: tuple[Any, ...] = ()
            return cls(
                scanned_ns=scanned_ns,
                digest=digest,
                names=[],
                names_blob="",
                mtimes=array.array("q"),
                sizes=array.array("q"),
                orders=array.array("q"),
                unreadable=empty,
                keys=empty,
                values=tuple(empty for _ in VALUE_COLUMNS),
                problems=tuple(problems),
            )
        columns = list(zip(*ordered, strict=True))
        # Floats are not shared: 0.0 == -0.0 would merge two different values.
        values: list[tuple[Any, ...]] = [
            tuple(col) if float in allowed else _shared(col)
            for col, (_, allowed) in zip(columns[6:], VALUE_COLUMNS, strict=True)
        ]
        tag_memo: dict[str, str] = {}
        tuple_memo: dict[tuple[str, ...], tuple[str, ...]] = {}
        values[_TAGS] = tuple(
            tuple_memo.setdefault(t, t)
            for t in (
                tuple([tag_memo.setdefault(s, s) for s in tags]) for tags in columns[6 + _TAGS]
            )
        )
        return cls(
            scanned_ns=scanned_ns,
            digest=digest,
            names=list(columns[1]),
            names_blob=None,
            mtimes=array.array("q", columns[2]),
            sizes=array.array("q", columns[3]),
            orders=array.array("q", columns[0]),
            unreadable=_shared(columns[4]),
            keys=tuple(columns[5]),
            values=tuple(values),
            problems=tuple(problems),
        )

    @classmethod
    def merged(
        cls,
        old: CandidateIndex,
        keep: list[int],
        rows: Iterable[tuple[Any, ...]],
        *,
        scanned_ns: int,
        digest: bytes,
        problems: Sequence[tuple[str, str, str]],
    ) -> CandidateIndex:
        """``old``'s rows at positions ``keep`` plus ``rows`` (tuples as for
        :meth:`from_rows`), in rank order: the same result as ``from_rows`` over all of
        them, built column by column. When foley adds or rewrites a few files in a 100k
        session, this is what re-listing costs (no per-row tuple for the kept rows)."""
        extra = sorted(rows, key=lambda item: (item[0], item[1]))
        keep = sorted(keep)
        names, orders = old.names, old.orders
        # Pieces: ("keep", a, b) = keep[a:b] of the old columns, or one new row.
        pieces: list[tuple[int, int] | tuple[Any, ...]] = []
        done = 0
        for item in extra:
            at = bisect.bisect_right(
                keep, (item[0], item[1]), lo=done, key=lambda i: (orders[i], names[i])
            )
            if at > done:
                pieces.append((done, at))
            pieces.append(item)
            done = at
        if done < len(keep):
            pieces.append((done, len(keep)))

        def column(source: Sequence[Any], field: int) -> list[Any]:
            out: list[Any] = []
            for piece in pieces:
                if len(piece) == 2:
                    out.extend(map(source.__getitem__, keep[piece[0] : piece[1]]))
                else:
                    out.append(piece[field])
            return out

        values = [column(col, 6 + k) for k, col in enumerate(old.values)]
        values[_TAGS] = [tuple(tags) for tags in values[_TAGS]]
        return cls(
            scanned_ns=scanned_ns,
            digest=digest,
            names=column(names, 1),
            names_blob=None,
            mtimes=array.array("q", column(old.mtimes, 2)),
            sizes=array.array("q", column(old.sizes, 3)),
            orders=array.array("q", column(orders, 0)),
            unreadable=tuple(column(old.unreadable, 4)),
            keys=tuple(column(old.keys, 5)),
            values=tuple(tuple(col) for col in values),
            problems=tuple(problems),
        )


def _types(values: Iterable[Any]) -> set[type]:
    return set(map(type, values))


def _shared(column: Sequence[Any]) -> tuple[Any, ...]:
    """The column with equal values as one object (marshal then writes and loads each
    distinct value once). One memo per column: its values share one type family, so
    ``1 == 1.0 == True`` cannot merge values of different types."""
    memo: dict[Any, Any] = {}
    out = []
    for value in column:
        try:
            out.append(memo.setdefault(value, value))
        except TypeError:  # unhashable: kept as it is
            out.append(value)
    return tuple(out)
