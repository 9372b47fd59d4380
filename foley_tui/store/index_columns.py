"""The ``columns`` table of the stored index: the whole list, one blob per column.

Opening a session loads these blobs, so each column is kept in the form that is
cheapest to read back *and* to check, since the file is untrusted (it travels with the
session, see :mod:`foley_tui.store.index_db`). A blob starts with its kind:

- ``s``: text values joined by NUL, UTF-8 (one C-speed ``split``; every value is a str
  by construction). Used for the text columns when no value holds a NUL.
- ``f``: packed float64, NaN for "no value" (the numbers are finite by construction:
  an infinity is refused on reading).
- ``t``: the tags as a dictionary: how many distinct tag tuples, each one's length,
  each row's tuple number (packed int64), then every distinct tuple's tags joined by
  NUL (UTF-8). Rows with the same tags share one tuple.
- ``j``: JSON, for anything else (and as the fallback of the three above).

The file stats (``orders``, ``mtimes``, ``sizes``) are plain packed int64. Every length,
count and index is checked against the row count and the blob's size before it is
used, so a crafted blob cannot allocate beyond its own size, index out of range or put a
value of another type in a column: anything off makes the index read as absent
(rebuilt from foley's files).

Headless: never imports textual.
"""

from __future__ import annotations

import array
import json
import math
from collections.abc import Sequence
from itertools import accumulate, chain
from typing import Any

from foley_tui.store.index import VALUE_COLUMNS, CandidateIndex, _types

PACKED = ("orders", "mtimes", "sizes")
#: Columns of str values (``s`` or ``j``).
TEXT = frozenset({"names", "keys", "caption", "source", "license_id", "origin", "format"})
#: Columns of float-or-None values (``f`` or ``j``).
FLOATS = frozenset(name for name, allowed in VALUE_COLUMNS if float in allowed)
OTHER = ("unreadable", "problems")
KEYS = frozenset({*PACKED, "names", "keys", *OTHER, *(name for name, _ in VALUE_COLUMNS)})

_NAN = math.nan


class BadColumn(ValueError):
    """A stored column that is not what we write (the index is rebuilt)."""


# ---------------------------------------------------------------------------- writing
def encode(index: CandidateIndex) -> list[tuple[str, bytes]]:
    """Every column of ``index`` as (key, blob)."""
    out = [
        ("orders", index.orders.tobytes()),
        ("mtimes", index.mtimes.tobytes()),
        ("sizes", index.sizes.tobytes()),
        ("names", _encode_text(index.names)),
        ("keys", _encode_text(index.keys)),
        ("unreadable", _json(list(index.unreadable))),
        ("problems", _json([list(p) for p in index.problems])),
    ]
    for (name, _), col in zip(VALUE_COLUMNS, index.values, strict=True):
        if name == "tags":
            out.append((name, _encode_tags(col)))
        elif name in TEXT:
            out.append((name, _encode_text(col)))
        elif name in FLOATS:
            out.append((name, _encode_floats(col)))
        else:
            out.append((name, _json(list(col))))
    return out


def _json(value: Any) -> bytes:
    return b"j" + json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


def _encode_text(col: Sequence[str]) -> bytes:
    joined = "\0".join(col)
    if col and joined.count("\0") == len(col) - 1:
        try:
            return b"s" + joined.encode("utf-8")
        except UnicodeEncodeError:  # a file name with undecodable bytes: JSON escapes it
            pass
    return _json(list(col))


def _encode_floats(col: Sequence[float | None]) -> bytes:
    if not all(type(v) is float for v in col if v is not None):
        return _json(list(col))
    return b"f" + array.array("d", [_NAN if v is None else v for v in col]).tobytes()


def _encode_tags(col: Sequence[tuple[str, ...]]) -> bytes:
    number: dict[tuple[str, ...], int] = {}
    rows = array.array("q", [number.setdefault(tags, len(number)) for tags in col])
    total = sum(map(len, number))
    flat = "\0".join(chain.from_iterable(number))
    if total and flat.count("\0") != total - 1:  # a tag holds NUL
        return _json([list(t) for t in col])
    try:
        text = flat.encode("utf-8")
    except UnicodeEncodeError:
        return _json([list(t) for t in col])
    lengths = array.array("q", map(len, number))
    head = len(number).to_bytes(8, "little", signed=True)
    return b"t" + head + lengths.tobytes() + rows.tobytes() + text


# ---------------------------------------------------------------------------- reading
def decode(blobs: dict[Any, Any], count: int, scanned: int, digest: bytes) -> CandidateIndex | None:
    """The index held by ``blobs`` (the ``columns`` table) of ``count`` rows, or None
    when any column is not exactly what :func:`encode` writes."""
    if set(blobs) != KEYS or not all(type(v) is bytes for v in blobs.values()):
        return None
    try:
        packed = [_packed(blobs[name], count) for name in PACKED]
        names = _text(blobs["names"], count)
        keys = _text(blobs["keys"], count)
        unreadable = _json_column(blobs["unreadable"], count)
        if not _types(unreadable) <= {str, type(None)}:
            return None
        problems = _json_value(blobs["problems"])
        if type(problems) is not list or not all(
            type(p) is list and len(p) == 3 and _types(p) <= {str} for p in problems
        ):
            return None
        values: list[tuple[Any, ...]] = []
        for name, allowed in VALUE_COLUMNS:
            blob = blobs[name]
            if name == "tags":
                values.append(_tags(blob, count))
            elif name in TEXT:
                values.append(tuple(_text(blob, count)))
            elif name in FLOATS and blob[:1] == b"f":
                values.append(_floats(blob, count))
            else:
                values.append(_checked_json(blob, count, allowed))
    except (BadColumn, UnicodeDecodeError, OverflowError):
        return None
    return CandidateIndex(
        scanned_ns=scanned,
        digest=digest,
        names=names,
        names_blob=None,
        mtimes=packed[1],
        sizes=packed[2],
        orders=packed[0],
        unreadable=tuple(unreadable),
        keys=tuple(keys),
        values=tuple(values),
        problems=tuple(tuple(p) for p in problems),
    )


def _packed(blob: bytes, count: int) -> array.array[int]:
    if len(blob) != 8 * count:
        raise BadColumn("a packed column of the wrong length")
    column = array.array("q")
    column.frombytes(blob)
    return column


def _text(blob: bytes, count: int) -> list[str]:
    if blob[:1] == b"s":
        text = str(memoryview(blob)[1:], "utf-8")
        values = text.split("\0") if count else []
        if len(values) != count or (not count and text):
            raise BadColumn("a text column of the wrong length")
        return values
    values = _json_column(blob, count)
    if not _types(values) <= {str}:
        raise BadColumn("a text column holding other values")
    return values


def _floats(blob: bytes, count: int) -> tuple[float | None, ...]:
    if len(blob) != 1 + 8 * count:
        raise BadColumn("a number column of the wrong length")
    column = array.array("d")
    column.frombytes(memoryview(blob)[1:])
    if math.inf in column or -math.inf in column:
        raise BadColumn("an infinite number")
    return tuple([None if v != v else v for v in column.tolist()])


def _tags(blob: bytes, count: int) -> tuple[tuple[str, ...], ...]:
    if blob[:1] != b"t":
        col = _json_column(blob, count)
        if not _types(col) <= {list} or not _types(chain.from_iterable(col)) <= {str}:
            raise BadColumn("a tags column holding other values")
        memo: dict[tuple[str, ...], tuple[str, ...]] = {}
        return tuple(memo.setdefault(t, t) for t in map(tuple, col))
    if len(blob) < 9:
        raise BadColumn("a tags column without its header")
    distinct = int.from_bytes(blob[1:9], "little", signed=True)
    text_at = 9 + 8 * distinct + 8 * count
    if distinct < 0 or text_at > len(blob) or (count and not distinct):
        raise BadColumn("a tags column of the wrong size")
    lengths = array.array("q")
    lengths.frombytes(blob[9 : 9 + 8 * distinct])
    rows = array.array("q")
    rows.frombytes(blob[9 + 8 * distinct : text_at])
    if (lengths and min(lengths) < 0) or (rows and (min(rows) < 0 or max(rows) >= distinct)):
        raise BadColumn("a tags column out of range")
    total = sum(lengths)
    text = str(memoryview(blob)[text_at:], "utf-8")
    flat = text.split("\0") if total else []
    if len(flat) != total or (not total and text):
        raise BadColumn("a tags column of the wrong length")
    ends = list(accumulate(lengths))
    starts = [0, *ends[:-1]]
    tuples = list(map(tuple, map(flat.__getitem__, map(slice, starts, ends))))
    return tuple(map(tuples.__getitem__, rows))


def _json_value(blob: bytes) -> Any:
    if blob[:1] != b"j":
        raise BadColumn("an unknown column kind")
    try:
        return json.loads(memoryview(blob)[1:].tobytes(), parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise BadColumn(str(exc)) from None


def _json_column(blob: bytes, count: int) -> list[Any]:
    values = _json_value(blob)
    if type(values) is not list or len(values) != count:
        raise BadColumn("a column of the wrong length")
    return values


def _checked_json(blob: bytes, count: int, allowed: frozenset[type]) -> tuple[Any, ...]:
    col = _json_column(blob, count)
    found = _types(col)
    if not found <= set(allowed) | ({int} if float in allowed else set()):
        raise BadColumn("a column holding values of another type")
    if float in allowed:
        # NaN cannot be in (parse_constant refuses it) but 1e999 reads as infinity.
        if math.inf in col or -math.inf in col:
            raise BadColumn("an infinite number")
        if int in found:  # a JSON int in a float column
            col = [float(v) if type(v) is int else v for v in col]
    return tuple(col)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} in a stored column")
