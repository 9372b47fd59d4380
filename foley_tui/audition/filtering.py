"""The list's ``/`` filter and sorts at 100k rows, within a keystroke.

A :class:`ViewCache` belongs to one :class:`~foley_tui.audition.listing.Listing` and
keeps what a view change would otherwise recompute for every row:

- the lowercased search text of every row (caption, tags, id, source: what the
  stored index's ``search`` column holds), built once per list of ids;
- the matches of the last few queries: typing narrows a query (every earlier term is
  inside a term of the new one), so only the earlier matches are scanned, and only for
  the terms they do not already guarantee; a backspace finds its query in the cache;
- each sort's order of the whole list, so filtering a sorted view is a filter of a
  sorted list, not a sort per keystroke.

Matching is C-speed (``str.__contains__`` mapped over the texts, then ``compress``): a
term matching every one of 100k rows costs a few milliseconds. The meaning is the list's
own: every whitespace-separated term is a substring of the row's search text.
Headless: never imports textual.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import compress, repeat
from typing import Any

from foley_tui.domain import Row

#: Queries whose matches are kept (each holds two lists of up to every row).
QUERIES_KEPT = 8
#: Texts scanned per C call (a few milliseconds: the interpreter may switch threads
#: between two of them).
SCAN_SLICE = 8192


def search_text(row: Row | None, sound_id: str) -> str:
    """What the filter matches for one row: the same text as the stored index's
    ``search`` column (:func:`foley_tui.store.index_db.search_text`); only the id while
    the row's columns are not loaded."""
    if row is None:
        return sound_id.lower()
    return "\n".join((row.caption, " ".join(row.tags), row.sound_id, row.source)).lower()


def search_texts(ids: Sequence[str], rows: Mapping[str, Row]) -> list[str]:
    """:func:`search_text` of every id, in order (the same text, spelled inline: this
    runs once per row of a big session)."""
    return [
        sid.lower()
        if r is None
        else f"{r.caption}\n{' '.join(r.tags)}\n{r.sound_id}\n{r.source}".lower()
        for sid, r in zip(ids, map(rows.get, ids), strict=True)
    ]


class ViewCache:
    """Search texts, recent matches and sort orders of one list of ids (see module doc).

    Owned by the thread that owns its listing (the UI thread), except :meth:`prepare`,
    which any thread may call. Call :meth:`clear` whenever the rows behind the ids
    change (the ids list is also compared by identity: a new list starts afresh).
    """

    def __init__(self, contains: Callable[[str, str], bool] = str.__contains__) -> None:
        """``contains(text, term)`` is the one text test, mapped over the texts in C
        (another one lets a caller count or change what is compared)."""
        self._contains = contains
        self._ids: list[str] | None = None
        self._texts: list[str] = []
        self._matches: OrderedDict[tuple[str, ...], tuple[list[str], list[str]]] = OrderedDict()
        self._orders: dict[tuple[str, Hashable], list[str]] = {}
        self._lock = threading.Lock()
        self._generation = 0
        """Bumped by every :meth:`clear`: texts prepared before it are stale."""

    def clear(self) -> None:
        """Forget everything (rows were added, replaced or filled in)."""
        with self._lock:
            self._generation += 1
            self._ids = None
            self._texts = []
        self._matches.clear()
        self._orders.clear()

    def _fresh(self, ids: list[str]) -> None:
        if self._ids is not ids:
            self.clear()
            with self._lock:
                self._ids = ids

    def prepare(self, ids: list[str], rows: Mapping[str, Row]) -> None:
        """Build the search texts of ``ids`` now (from a worker: the first keystroke of
        a filter then only scans). Kept only if the list did not change meanwhile."""
        with self._lock:
            generation = self._generation
            if self._texts and self._ids is ids:
                return
        texts = search_texts(ids, rows)
        with self._lock:
            same = self._ids is None or self._ids is ids
            if generation == self._generation and same and not self._texts:
                self._ids, self._texts = ids, texts

    def prepared(self, ids: list[str]) -> bool:
        """Whether the search texts of ``ids`` (this very list) are built."""
        with self._lock:
            return self._ids is ids and bool(self._texts)

    def prepare_texts(self, ids: list[str], texts: list[str]) -> None:
        """Take ``texts`` (one per id, in order, read elsewhere: a paged listing's from
        the stored index) as the search texts of ``ids``; kept only if the list did
        not change meanwhile (any thread)."""
        if len(texts) != len(ids):
            return
        with self._lock:
            if (self._ids is None or self._ids is ids) and not self._texts:
                self._ids, self._texts = ids, texts

    def matching(self, ids: list[str], rows: Mapping[str, Row], terms: Sequence[str]) -> list[str]:
        """``ids`` (in their order) whose search text holds every one of ``terms``
        (already lowercased). The result is shared with the cache: do not mutate it."""
        self._fresh(ids)
        key = tuple(sorted(set(terms)))
        if not key:
            return ids
        found = self._matches.get(key)
        if found is not None:
            self._matches.move_to_end(key)
            return found[0]
        texts = self._texts
        if not texts and ids:
            texts = search_texts(ids, rows)
            with self._lock:
                self._texts = texts
        base_ids, base_texts, todo = ids, texts, key
        for old, (old_ids, old_texts) in self._matches.items():
            # Every earlier term inside a new one: the new matches are among the old
            # (the smallest such set wins; of equal ones, the latest implies the most).
            if len(old_ids) <= len(base_ids) and all(any(o in t for t in key) for o in old):
                base_ids, base_texts = old_ids, old_texts
                todo = tuple(t for t in key if not any(t in o for o in old))
        # Longest first: the most selective term leaves the least for the others.
        for term in sorted(todo, key=len, reverse=True):
            # In slices: one C call over 100k texts would hold the GIL throughout, and
            # the UI thread paints the filter box while a worker runs this.
            mask: list[bool] = []
            for start in range(0, len(base_texts), SCAN_SLICE):
                part = base_texts[start : start + SCAN_SLICE]
                mask += map(self._contains, part, repeat(term))
            base_ids = list(compress(base_ids, mask))
            base_texts = list(compress(base_texts, mask))
        self._matches[key] = (base_ids, base_texts)
        if len(self._matches) > QUERIES_KEPT:
            self._matches.popitem(last=False)
        return base_ids

    def ordered(
        self,
        ids: list[str],
        sort: str,
        sort_key: Callable[[str], Any],
        depends_on: Hashable = None,
        compute: Callable[[], list[str] | None] | None = None,
    ) -> list[str]:
        """Every id of ``ids`` in ``sort`` order (``sorted(ids, key=sort_key)``, or what
        ``compute`` gives when it gives every id: an index's order), kept until
        :meth:`clear` or until ``depends_on`` (what the order depends on besides the
        rows, e.g. the picks' layers) differs. Shared: do not mutate it."""
        self._fresh(ids)
        cache_key = (sort, depends_on)
        order = self._orders.get(cache_key)
        if order is None:
            # One order per sort: an older one of the same sort is stale.
            for stale in [k for k in self._orders if k[0] == sort]:
                del self._orders[stale]
            found = compute() if compute is not None else None
            if found is None or len(found) != len(ids):
                found = sorted(ids, key=sort_key)
            order = self._orders[cache_key] = found
        return order


def keep_order(order: list[str], subset: list[str], whole: list[str]) -> list[str]:
    """The ids of ``subset`` (a filtered ``whole``) in ``order`` (a sorted ``whole``)."""
    if subset is whole:
        return list(order)
    wanted = set(subset)
    return [sid for sid in order if sid in wanted]
