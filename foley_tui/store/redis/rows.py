"""The rows reader of a Redis session: its rows index (a hash of each candidate's list
columns and a sorted set of their order), read one screen at a time (:meth:`page`) or
whole, and kept in step with the candidates hash. A part of the session store built by
:class:`~foley_tui.store.redis.session.RedisSessionBackend`; headless.
"""

from __future__ import annotations

import bisect
import gc
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from foley_tui.domain import Row
from foley_tui.safe_io import MAX_RECORD_BYTES
from foley_tui.store.backend import PageQuery
from foley_tui.store.errors import StoreProblem
from foley_tui.store.index_db import STATUS_FILTERS, Page
from foley_tui.store.reads import Problems
from foley_tui.store.redis.namespace import RedisBackend, RedisHash, row_json, too_large
from foley_tui.store.rows import _EMPTY_VALUES, _make_row


class RedisRows:
    """Candidate rows from the Redis rows index (see the module docstring)."""

    def __init__(
        self,
        backend: RedisBackend,
        session_id: str,
        raw: dict[str, RedisHash],
        problems: Problems,
    ) -> None:
        self.backend = backend
        self.session_id = session_id
        self.raw = raw
        self.problems = problems
        self._quick: tuple[tuple[Any, ...], list[Row]] | None = None

    def count_hint(self) -> int:
        return len(self.raw["candidates"])

    def prepare_filter(self) -> bool:
        return False

    def view_ids(self, query: PageQuery) -> list[str] | None:
        return None  # the list holds a Redis session's rows: no paged list

    def search_texts(self) -> tuple[list[str], list[str]] | None:
        return None

    def rows_of(self, ids: Sequence[str]) -> dict[str, Row] | None:
        return None

    def verify(self, progress: Callable[[int, int], None] | None = None) -> int | None:
        return None

    def search_ready(self) -> bool:
        return False

    def candidate_ids(self) -> list[str]:
        return sorted(self.raw["candidates"])

    def quick_rows(self) -> list[Row] | None:
        """Every row, for a first paint: :meth:`rows`, kept so that the exact read the
        loader makes next costs one round trip when nothing was written meanwhile (the
        rows index is kept by the writes themselves: it is exact already)."""
        token = self._rows_token()
        rows = self.rows()
        self._quick = (token, rows)
        return rows

    def _rows_token(self) -> tuple[Any, ...]:
        """Changes with any write to the candidates (ours, or straight into the hash)."""
        keys = self.backend.keys
        sid = self.session_id
        with self.backend.errors("could not read the candidate list"):
            pipe = self.backend.client.pipeline(transaction=False)
            pipe.hget(keys.nsver(sid), "candidates")
            pipe.hlen(keys.ns(sid, "candidates"))
            pipe.zcard(keys.order(sid))
            pipe.hlen(keys.rows(sid))
            return tuple(pipe.execute())

    def page(self, query: PageQuery) -> Page | None:
        """One screen of the list in first-seen order straight from the rows index, a few
        round trips whatever the session's size: all rows, or those picked, rejected or
        undecided (then the decisions' ids are read and ranked too: O(decisions + screen)).
        With ``around`` (the saved cursor), the screen is centred on that row when the
        view holds it. A sorted or searched view needs every row: None, call
        :meth:`rows`; None too when the index lags the candidates hash (written around
        our namespace: :meth:`rows` re-indexes). ``picks``/``rejects`` are not needed:
        the decisions' ids come in the page's own round trip.
        """
        sort, status, around = query.sort, query.status, query.around
        if sort != "rank" or status not in STATUS_FILTERS or query.query.strip():
            return None
        keys = self.backend.keys
        sid = self.session_id
        offset = max(int(query.offset), 0)
        limit = max(int(query.limit), 1)
        client = self.backend.client
        with self.backend.errors("could not read the candidate list"):
            pipe = client.pipeline(transaction=False)
            pipe.zcard(keys.order(sid))
            pipe.hlen(keys.ns(sid, "candidates"))
            pipe.hlen(keys.rows(sid))
            pipe.zrank(keys.order(sid), around if around is not None else "")
            if status != "all":  # the decisions decide what the view holds
                pipe.hkeys(self.raw["picks"].key)
                pipe.hkeys(self.raw["rejects"].key)
            total, hashed, indexed, at, *decisions = pipe.execute()
            if not total == hashed == indexed:
                return None
            at = None if at is None else int(at)
            candidates = int(total)
            if status == "all":
                if at is not None:
                    offset = max(0, at - limit // 2)
                ids = _decode(client.zrange(keys.order(sid), offset, offset + limit - 1))
                ranked = list(enumerate(ids, start=offset))
            else:
                picked, rejected = (set(_decode(names)) for names in decisions)
                decided = picked if status == "picked" else rejected - picked
                if status == "undecided":
                    decided = picked | rejected
                marks = self._ranks(sorted(decided))
                if status == "undecided":
                    total, offset, ranked = self._undecided(marks, int(total), offset, limit, at)
                else:
                    total = len(marks)
                    where = {key: i for i, (_, key) in enumerate(marks)}
                    if around is not None and around in where:
                        offset = max(0, where[around] - limit // 2)
                    ranked = marks[offset : offset + limit]
            raws = (
                [
                    _capped_row(v)
                    for v in self.backend.capped_hmget(keys.rows(sid), [k for _, k in ranked])
                ]
                if ranked
                else []
            )
        rows = [
            _row_of(key, rank, values)
            for (rank, key), values in zip(ranked, _parse_rows(list(raws)), strict=True)
        ]
        return Page(rows, total=int(total), offset=offset, verified=True, candidates=candidates)

    def _ranks(self, ids: list[str]) -> list[tuple[int, str]]:
        """(position in the list, id) of each id the list holds, in list order."""
        if not ids:
            return []
        pipe = self.backend.client.pipeline(transaction=False)
        order = self.backend.keys.order(self.session_id)
        for key in ids:
            pipe.zrank(order, key)
        return sorted(
            (int(r), k) for r, k in zip(pipe.execute(), ids, strict=True) if r is not None
        )

    def _undecided(
        self, marks: list[tuple[int, str]], total: int, offset: int, limit: int, at: int | None
    ) -> tuple[int, int, list[tuple[int, str]]]:
        """(view size, offset, the screen's (position, id)) of the undecided rows: the
        list order with the decided positions ``marks`` left out."""
        decided = [rank for rank, _ in marks]
        skip = set(decided)
        if at is not None and at not in skip:
            offset = max(0, at - bisect.bisect_left(decided, at) - limit // 2)
        start = offset  # the list position of the offset-th undecided row: the least p
        while True:  # with p = offset + (decided positions <= p)
            nxt = offset + bisect.bisect_right(decided, start)
            if nxt == start:
                break
            start = nxt
        end = start + limit - 1  # widened by the decided rows inside the window
        while True:
            inside = bisect.bisect_right(decided, end) - bisect.bisect_left(decided, start)
            wider = start + limit - 1 + inside
            if wider == end:
                break
            end = wider
        ids = _decode(
            self.backend.client.zrange(self.backend.keys.order(self.session_id), start, end)
        )
        ranked = [(start + i, k) for i, k in enumerate(ids) if start + i not in skip][:limit]
        return total - len(decided), offset, ranked

    def rows(
        self,
        progress: Callable[[int, int], None] | None = None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]:
        """All list rows from the rows index: two replies, no candidate fetched (except
        candidates written around our namespace, which are indexed here once)."""
        quick, self._quick = self._quick, None
        if quick is not None and quick[0] == self._rows_token():
            if progress is not None:
                progress(len(quick[1]), len(quick[1]))
            return quick[1]
        keys = self.backend.keys
        sid = self.session_id
        with self.backend.errors("could not read the candidate list"):
            pipe = self.backend.client.pipeline(transaction=False)
            pipe.zrange(keys.order(sid), 0, -1)
            self.backend.capped_hgetall(keys.rows(sid), MAX_RECORD_BYTES, client=pipe)
            pipe.hlen(keys.ns(sid, "candidates"))
            order_raw, rows_raw, total = pipe.execute()
        order = [k.decode("utf-8", "surrogateescape") for k in order_raw]
        stored = {
            bytes(rows_raw[i]).decode("utf-8", "surrogateescape"): _row_bytes(rows_raw[i + 1])
            for i in range(0, len(rows_raw), 2)
        }
        if total != len(order) or len(stored) != len(order):
            order, stored = self._reindex(order, stored)
        # 100k rows are 100k lists and Row tuples made at once: the cyclic GC would walk
        # them again and again while they are built (none can be part of a cycle).
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            return self._build_rows(order, stored, progress)
        finally:
            if gc_was_on:
                gc.enable()

    def _build_rows(
        self,
        order: list[str],
        stored: dict[str, bytes],
        progress: Callable[[int, int], None] | None,
    ) -> list[Row]:
        parsed = _parse_rows([stored.get(key) for key in order])
        # Problems are dropped for rows readable again (one pass, not a lookup per row).
        reported = self.problems.keys_in("candidates")
        rows: list[Row] = []
        for rank, (key, values) in enumerate(zip(order, parsed, strict=True)):
            if isinstance(values, list) and len(values) == len(_EMPTY_VALUES):
                rows.append(_make_row(key, rank, values, None))
                if key in reported:
                    self.problems.clear("candidates", key)
            else:
                row = _row_of(key, rank, values)
                reason = row.unreadable or "unreadable"
                self.problems.note(
                    StoreProblem("candidates", key, self.raw["candidates"].key, reason)
                )
                rows.append(row)
        if progress is not None:
            progress(len(rows), len(rows))
        return rows

    def _reindex(
        self, order: list[str], stored: dict[str, bytes]
    ) -> tuple[list[str], dict[str, bytes]]:
        """Index candidates someone wrote straight into the hash; drop rows of gone ones."""
        keys = self.backend.keys
        sid = self.session_id
        present = set(self.raw["candidates"])
        missing = sorted(present - set(order) | (present - set(stored)))
        gone = [k for k in order if k not in present]
        pipe = self.backend.client.pipeline(transaction=False)
        for start in range(0, len(missing), 1000):
            chunk = missing[start : start + 1000]
            for key, value in zip(chunk, self.raw["candidates"].get_many(chunk), strict=True):
                if value is None:
                    continue
                row = (
                    json.dumps({"unreadable": too_large(value, MAX_RECORD_BYTES)}).encode()
                    if isinstance(value, int)
                    else row_json(value)
                )
                stored[key] = row
                pipe.hset(keys.rows(sid), key, row)
                score = self.backend.client.incr(keys.version(sid))
                pipe.zadd(keys.order(sid), {key: score}, nx=True)
        if gone:
            pipe.zrem(keys.order(sid), *gone)
            pipe.hdel(keys.rows(sid), *gone)
        with self.backend.errors("could not update the candidate index"):
            pipe.execute()
            order = [
                k.decode("utf-8", "surrogateescape")
                for k in self.backend.client.zrange(keys.order(sid), 0, -1)
            ]
        return order, stored


def _row_bytes(value: bytes | int) -> bytes:
    """A rows-index entry as read capped: an over-cap one (never ours) says why."""
    if isinstance(value, int):
        return json.dumps({"unreadable": too_large(value, MAX_RECORD_BYTES)}).encode()
    return bytes(value)


def _capped_row(value: bytes | int | None) -> bytes | None:
    return None if value is None else _row_bytes(value)


def _decode(names: Iterable[bytes]) -> list[str]:
    return [k.decode("utf-8", "surrogateescape") for k in names]


def _row_of(key: str, rank: int, values: Any) -> Row:
    """A list row from a parsed rows-index entry (an unreadable one says why)."""
    if isinstance(values, list) and len(values) == len(_EMPTY_VALUES):
        return _make_row(key, rank, values, None)
    reason = values.get("unreadable") if isinstance(values, dict) else None
    return _make_row(key, rank, _EMPTY_VALUES, str(reason or "unreadable"))


def _parse_rows(raws: list[bytes | None]) -> list[Any]:
    """Every rows-index entry parsed: one ``json.loads`` of them all as one array (a
    100k-row session parses in a fraction of the time of 100k calls); when one entry is
    damaged, each is parsed on its own so only that row reads as unreadable."""
    if all(raw is not None for raw in raws):
        try:
            values = json.loads(b"[" + b",".join(raws) + b"]")  # type: ignore[arg-type]
        except ValueError:
            values = None
        if isinstance(values, list) and len(values) == len(raws):
            return values
    out: list[Any] = []
    for raw in raws:
        try:
            out.append(json.loads(raw) if raw is not None else None)
        except ValueError:
            out.append(None)
    return out
