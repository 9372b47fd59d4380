"""The audition list's data: rows, decisions, filter, status filter and sort.

Headless (no textual import) so the ordering rules are plain unit-testable code. The list
widget renders ``Listing.view`` (a list of sound ids); the screen owns one ``Listing`` and
re-applies it when rows, decisions or view settings change.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Protocol

from foley_tui.audition.events import PENDING, EventInfo, grouped, is_candidate, is_header
from foley_tui.audition.filtering import ViewCache, keep_order
from foley_tui.domain import LAYERS, Pick, Reject, Row, Status
from foley_tui.marks import Marks, is_decision_state, marks_of_state
from foley_tui.scene.placement import Placement, effective_placement
from foley_tui.store.records import Verdicts

UNPICKED_EVENTS = "events without a pick"
"""The status filter showing the candidates of the scene events that still have no pick."""

#: Shows only candidates rated at least N (``rated ≥ 3``).
RATED = "rated ≥ "
#: Shows only the hidden candidates (every other filter leaves them out).
HIDDEN = "hidden"
STATUS_FILTERS: tuple[str, ...] = (
    "all",
    "undecided",
    "picked",
    "rejected",
    UNPICKED_EVENTS,
    f"{RATED}1",
    f"{RATED}3",
    f"{RATED}5",
    HIDDEN,
)
SORTS: tuple[str, ...] = ("rank", "caption", "duration", "layer", "onset", "score", "rating")

LIBRARY_SORTS: tuple[str, ...] = (
    "rank",
    "name",
    "folder",
    "caption",
    "category",
    "library",
    "duration",
    "rate",
    "bits",
    "channels",
    "format",
    "layer",
    "onset",
)
"""The sorts of a library folder's list (``s`` cycles through them): a librarian's
columns; ``caption`` is the embedded description. ``name``, ``folder``, ``category``,
``library`` and ``bits`` order by the folder's index (:attr:`Listing.extra_sorts`)."""
AGENT_SORTS: tuple[str, ...] = (*SORTS, "library", "rate", "channels", "format")
"""What ``s`` cycles through in an agent's session: its own sorts, then the librarian's
columns its rows hold (``library`` is the sound's source library)."""
AGENT_FILE_SORTS: tuple[str, ...] = ("name", "folder", "category", "bits")
"""Librarian's sorts of an agent's session by what only its candidate files say (file
name, folder, UCS category, bit depth): offered once the load has read them (sessions
up to the size whose candidates it reads, as for scene events)."""
_ALL_SORTS = frozenset(SORTS) | frozenset(LIBRARY_SORTS) | frozenset(AGENT_SORTS)
#: What a row says while a decision of ours on it is being written.
SAVING = "saving…"
#: What a row says when the store did not answer that write in time (it may have landed).
NOT_CONFIRMED = "not confirmed"

_INF = float("inf")
_rank = attrgetter("rank")

ROWS_KEPT = 3000
"""Rows a paged listing keeps (a few screens either way of the cursor); the others are
read again from the session's index when they are shown."""
PAGE_IN = 120
"""Rows of the view read in at once on each side of a row shown and not held."""
#: The sorts and status filters the stored index orders and filters by itself.
SQL_SORTS = frozenset(
    {"rank", "caption", "duration", "score", "layer", "rate", "channels", "format"}
)
SQL_STATUS = frozenset({"all", "undecided", "picked", "rejected"})


class RowSource(Protocol):
    """Where a paged listing reads its view and rows: the session's stored index
    (:class:`~foley_tui.store.SessionStore` is one)."""

    def view_ids(
        self,
        *,
        sort: str = "rank",
        status: str = "all",
        query: str = "",
        picks: Mapping[str, Pick] | None = None,
        rejects: Mapping[str, Reject] | None = None,
    ) -> list[str] | None: ...

    def rows_of(self, ids: Sequence[str]) -> Mapping[str, Row] | None: ...

    def search_texts(self) -> tuple[list[str], list[str]] | None: ...

    def prepare_filter(self) -> bool: ...


class PagedRows(Mapping[str, Row]):
    """The rows of a paged listing by id: every id of the session is in it, but a row is
    only read (from the :class:`RowSource`) when asked for, a screen at a time, and only
    the last :data:`ROWS_KEPT` are held. A 100k-file folder's list holds its ids, not
    100k rows."""

    def __init__(self, ids: list[str], source: RowSource, keep: int = ROWS_KEPT) -> None:
        self._ids = ids
        self._set: set[str] | None = None
        self._source = source
        self._keep = keep
        self._held: OrderedDict[str, Row] = OrderedDict()

    def __contains__(self, key: object) -> bool:
        if self._set is None:
            self._set = set(self._ids)
        return key in self._set

    def __getitem__(self, key: str) -> Row:
        row = self.get(key)
        if row is None:
            raise KeyError(key)
        return row

    def get(self, key: str, default: Any = None) -> Any:
        row = self._held.get(key)
        if row is None:
            if key not in self:
                return default
            self.read([key])
            row = self._held.get(key)
            if row is None:
                return default
        self._held.move_to_end(key)
        return row

    def read(self, ids: Sequence[str]) -> None:
        """Read the rows of ``ids`` not held yet, in one query."""
        missing = [sid for sid in ids if sid not in self._held and is_candidate(sid)]
        if not missing:
            return
        found = self._source.rows_of(missing) or {}
        held = self._held
        for sid in missing:
            row = found.get(sid)
            if row is not None:
                held[sid] = row
        while len(held) > self._keep:
            held.popitem(last=False)

    @property
    def held(self) -> int:
        """How many rows are in memory now."""
        return len(self._held)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


@dataclass(slots=True)
class ViewSettings:
    """What the user chose to see; saved per session with ``SessionStore.set_view``."""

    query: str = ""
    status_filter: str = "all"
    sort: str = "rank"
    autoplay: bool = False
    loop: bool = False
    volume_db: float = 0.0
    loudness_match: bool = False
    skip_silence: bool = True
    """A preview from the top starts at the first audible sample (never a placement)."""
    spectrogram: bool = False
    """The waveform pane shows the spectrogram."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "filter": self.query,
            "status_filter": self.status_filter,
            "sort": self.sort,
            "autoplay": self.autoplay,
            "loop": self.loop,
            "volume_db": self.volume_db,
            "loudness_match": self.loudness_match,
            "skip_silence": self.skip_silence,
            "spectrogram": self.spectrogram,
        }

    def cycle_status(self) -> str:
        """Show the next status filter; it is returned."""
        i = STATUS_FILTERS.index(self.status_filter)
        self.status_filter = STATUS_FILTERS[(i + 1) % len(STATUS_FILTERS)]
        return self.status_filter

    def cycle_sort(self, sorts: tuple[str, ...] = SORTS) -> str:
        """Sort by the next of ``sorts``; it is returned."""
        i = sorts.index(self.sort) if self.sort in sorts else -1
        self.sort = sorts[(i + 1) % len(sorts)]
        return self.sort

    def labels(self, shown: int) -> list[str]:
        """The view's active settings, as the status line shows them (most important
        first: the status line drops from the end when it is too narrow)."""
        vs = self
        parts = []
        if vs.query:
            parts.append(f'filter "{vs.query}"')
        if vs.status_filter != "all":
            parts.append(f"showing {vs.status_filter} ({shown})")
        elif vs.query:
            parts.append(f"{shown} shown")
        if vs.sort != "rank":
            parts.append(f"sort {vs.sort}")
        if vs.autoplay:
            parts.append("autoplay")
        if vs.loop:
            parts.append("loop")
        if vs.volume_db:
            parts.append(f"vol {vs.volume_db:+.0f} dB")
        if vs.loudness_match:
            parts.append("LUFS match")
        if not vs.skip_silence:
            parts.append("silence kept")
        return parts

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], defaults: ViewSettings) -> ViewSettings:
        """Tolerant: a missing or bad value (hand-edited, older version) keeps the default."""

        def pick(key: str, kind: type | tuple[type, ...], default: Any) -> Any:
            value = data.get(key, default)
            if isinstance(value, bool) and kind is not bool:
                return default
            return value if isinstance(value, kind) else default

        status_filter = pick("status_filter", str, defaults.status_filter)
        sort = pick("sort", str, defaults.sort)
        return cls(
            query=pick("filter", str, defaults.query),
            status_filter=status_filter if status_filter in STATUS_FILTERS else "all",
            sort=sort if sort in _ALL_SORTS else "rank",
            autoplay=pick("autoplay", bool, defaults.autoplay),
            loop=pick("loop", bool, defaults.loop),
            volume_db=float(pick("volume_db", (int, float), defaults.volume_db)),
            loudness_match=pick("loudness_match", bool, defaults.loudness_match),
            skip_silence=pick("skip_silence", bool, defaults.skip_silence),
            spectrogram=pick("spectrogram", bool, defaults.spectrogram),
        )


def _page_key(settings: ViewSettings) -> tuple[str, str, str]:
    return (settings.sort, settings.status_filter, settings.query)


@dataclass(slots=True)
class Decisions:
    """The picks and rejects of a session, kept in memory and updated on each write."""

    picks: dict[str, Pick] = field(default_factory=dict)
    rejects: dict[str, Reject] = field(default_factory=dict)

    def status(self, sound_id: str) -> Status:
        picked = sound_id in self.picks
        if sound_id in self.rejects:
            return Status.CONFLICT if picked else Status.REJECTED
        return Status.PICKED if picked else Status.UNDECIDED

    def apply_state(self, sound_id: str, state: Mapping[str, Any]) -> None:
        """Apply a journal state (raw records, or the older ``{"status": ...}`` form)."""
        verdicts = Verdicts.from_state(sound_id, state)
        self.picks.pop(sound_id, None)
        self.rejects.pop(sound_id, None)
        if verdicts.pick is not None:
            self.picks[sound_id] = Pick.from_dict(verdicts.pick, sound_id)
        if verdicts.reject is not None:
            self.rejects[sound_id] = Reject.from_dict(verdicts.reject, sound_id)

    def set_pick(self, pick: Pick) -> None:
        self.rejects.pop(pick.sound_id, None)
        self.picks[pick.sound_id] = pick

    def set_reject(self, reject: Reject) -> None:
        self.picks.pop(reject.sound_id, None)
        self.rejects[reject.sound_id] = reject

    def clear(self, sound_id: str) -> None:
        self.picks.pop(sound_id, None)
        self.rejects.pop(sound_id, None)


class Listing:
    """All rows of a session plus the filtered, sorted ``view`` shown by the list."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        """Every candidate id, in the default (rank) order."""
        self.rows: Mapping[str, Row] = {}
        """The list columns by id; empty until loaded (first paint has ids only). A
        paged listing's is a :class:`PagedRows` (see :meth:`set_paged`)."""
        self.source: RowSource | None = None
        """Where a paged listing reads its view and rows (see :meth:`set_paged`)."""
        self.decisions = Decisions()
        self.marks: dict[str, Marks] = {}
        """Our marks (rating, hidden, region) by id: only marked sounds are in it."""
        self.view: list[str] = []
        """What the list shows: sound ids, and event headers (:func:`events.is_header`)."""
        self.events: dict[str, str] = {}
        """Sound id -> its scene event's key (only candidates that carry an event)."""
        self.event_info: dict[str, EventInfo] = {}
        """Event key -> the event (query, suggested layer and onset)."""
        self.members: dict[str, list[str]] = {}
        """Event key -> its candidates, in rank order."""
        self.events_read = False
        """True once the candidates' events were read (big sessions skip them)."""
        self._search = ViewCache()
        self.extra_sorts: dict[str, Callable[[], Mapping[str, Any]]] = {}
        """Sorts by values the rows do not hold (a library folder's columns): sort name ->
        a function giving each sound id's value (asked when that sort's order is built)."""
        self.pending: dict[str, int] = {}
        """Sound id -> decisions of ours on it being written by a worker ("saving…")."""
        self.unconfirmed: set[str] = set()
        """Sounds whose write the store did not answer in time: it may have landed or not
        ("not confirmed") until they are read back."""
        self._ids_set: set[str] | None = None
        self._page: tuple[list[str], int, tuple[str, str, str]] | None = None
        """The first paint's page: (its view with :data:`PENDING` around the fetched
        rows, the session's size, the view settings it was fetched for); None once the
        whole list is in (:meth:`set_ids`, :meth:`set_rows`)."""
        self._page_span = (0, 0)
        """Where the fetched rows are in the page's view (the rest is placeholders)."""

    def saving(self, sound_id: str) -> None:
        """A decision on ``sound_id`` is on its way to the store."""
        self.pending[sound_id] = self.pending.get(sound_id, 0) + 1

    def saved(self, sound_id: str) -> None:
        """One decision on ``sound_id`` has its answer (or failed)."""
        left = self.pending.get(sound_id, 0) - 1
        if left > 0:
            self.pending[sound_id] = left
        else:
            self.pending.pop(sound_id, None)

    def note(self, sound_id: str) -> str | None:
        """What the row says about a write of ours in flight: "saving…", "not confirmed"."""
        if sound_id in self.pending:
            return SAVING
        if sound_id in self.unconfirmed:
            return NOT_CONFIRMED
        return None

    @property
    def provisional(self) -> bool:
        """Only one page of the list is known (the first paint of a big session)."""
        return self._page is not None

    @property
    def total(self) -> int:
        return self._page[1] if self._page is not None else len(self.ids)

    def shown(self) -> int:
        """How many candidates the view shows: its event headers are not candidates (the
        rows of a first paint not fetched yet are)."""
        view = self.view
        if not self.events:  # no event, no header: no need to look at every entry
            return len(view)
        return sum(1 for entry in view if not is_header(entry))

    def contains(self, sound_id: str) -> bool:
        if self._page is not None:
            return True  # not known yet: no pick is a ghost before the list is in
        rows = self.rows
        if isinstance(rows, PagedRows):
            return sound_id in rows  # its set of every id: one of them is enough
        if self._ids_set is None:
            self._ids_set = set(self.ids)
        return sound_id in self._ids_set

    def set_page(
        self, rows: list[Row], offset: int, shown: int, total: int, settings: ViewSettings
    ) -> None:
        """First paint of a big session: one page of the view (``rows`` at ``offset`` of
        ``shown`` entries, fetched from the stored index for ``settings``) in a session
        of ``total`` candidates. The rest of the view is :data:`PENDING` until
        :meth:`set_ids` or :meth:`set_rows` brings the whole list (a view change
        meanwhile shows the fetched rows only)."""
        self.rows = {row.sound_id: row for row in rows}
        self.ids = [row.sound_id for row in rows]
        self._ids_set = None
        self._search.clear()
        tail = max(shown - offset - len(rows), 0)
        view = [PENDING] * offset + self.ids + [PENDING] * tail
        self._page = (view, total, _page_key(settings))
        self._page_span = (offset, offset + len(self.ids))

    def set_ids(self, ids: list[str]) -> None:
        """First paint: ids only (no Row objects: 100k of them would delay the paint);
        rows render as pending until :meth:`set_rows`."""
        self.ids = ids
        self.rows = {}
        self._ids_set = None
        self._page = None
        self._search.clear()

    def add_rows(self, rows: list[Row]) -> None:
        """Fill in the columns of rows parsed so far while loading; the ids and their
        order stay as listed until :meth:`set_rows`."""
        held = self.rows
        if not isinstance(held, dict):
            return  # a paged listing reads its rows when they are shown
        for row in rows:
            held[row.sound_id] = row
        self._search.clear()

    @property
    def rows_held(self) -> int:
        """How many rows are in memory now (a paged listing's: the few screens read)."""
        rows = self.rows
        return rows.held if isinstance(rows, PagedRows) else len(rows)

    @property
    def paged(self) -> bool:
        """The rows are read from :attr:`source` as they are shown (not all held)."""
        return isinstance(self.rows, PagedRows)

    def set_paged(self, ids: list[str]) -> None:
        """Every candidate id in rank order, their rows read from :attr:`source` when
        shown. The view changes only with :meth:`set_view` (a query's answer, see
        :meth:`paged_view`): until then the list shows what it showed."""
        assert self.source is not None
        self.rows = PagedRows(ids, self.source)
        self.ids = ids
        self._ids_set = None
        self._page = None
        self._search.clear()

    def set_view(self, view: list[str], terms: Sequence[str] = ()) -> None:
        """The view a paged query answered, the ghost picks matching ``terms`` last."""
        self.view = view + [g for g in self.ghosts() if all(t in g.lower() for t in terms)]

    def page_in(self, index: int) -> None:
        """Read the rows of the view around ``index`` (a row about to be shown) that a
        paged listing does not hold: one query for a screen or so either way."""
        rows = self.rows
        if isinstance(rows, PagedRows):
            rows.read(self.view[max(0, index - PAGE_IN) : index + PAGE_IN])

    def paged_view(
        self,
        settings: ViewSettings,
        decisions: Decisions,
        marks: Mapping[str, Marks],
    ) -> list[str] | None:
        """The view of ``settings`` for a paged listing, as :meth:`apply` makes it but
        with no row: the ``/`` filter scans the search texts read from :attr:`source`
        (once; then cached and narrowed as :class:`ViewCache` does), the index gives the
        order of the sorts it knows (once per sort), the rest is done over the ids. Any
        thread, one at a time (``decisions`` and ``marks`` are the caller's copies);
        None when the index cannot answer."""
        source = self.source
        if source is None:
            return None
        whole = self.ids
        ids = whole
        terms = settings.query.lower().split()
        if terms:
            if not self._search.prepared(whole):
                read = source.search_texts()
                if read is None or read[0] != whole:
                    return None  # the index changed meanwhile: the next load asks again
                self._search.prepare_texts(whole, read[1])
                if not self._search.prepared(whole):
                    return None
            ids = self._search.matching(whole, self.rows, terms)
        ids = self._status_filtered(ids, settings.status_filter, decisions, marks)
        sort = settings.sort
        if sort != "rank" and whole:
            if sort in SQL_SORTS:

                def compute() -> list[str] | None:
                    return source.view_ids(
                        sort=sort, picks=decisions.picks, rejects=decisions.rejects
                    )

                inputs = self._sort_inputs(sort, decisions, marks)
                order = self._search.ordered(whole, sort, lambda sid: 0, inputs, compute)
            else:
                key = self._id_key(sort, decisions, marks)
                order = self._search.ordered(
                    whole, sort, key, self._sort_inputs(sort, decisions, marks)
                )
            ids = keep_order(order, ids, whole)
        elif ids is whole:
            ids = list(whole)
        return grouped(ids, self.events)

    def _id_key(
        self, sort: str, decisions: Decisions, marks: Mapping[str, Marks]
    ) -> Callable[[str], Any]:
        """The order of a sort the index does not know, by id alone (ties: rank)."""
        provider = self.extra_sorts.get(sort)
        if provider is not None:
            values = provider()

            def extra_key(sid: str) -> tuple[int, Any]:
                value = values.get(sid)
                if value is None or value == "":
                    return (1, 0)
                return (0, value.lower() if isinstance(value, str) else value)

            return extra_key
        picks = decisions.picks
        if sort == "rating":
            none = Marks()
            return lambda sid: -marks.get(sid, none).rating
        if sort == "onset":

            def onset_key(sid: str) -> tuple[int, float]:
                pick = picks.get(sid)
                onset = pick.onset if pick else None
                if isinstance(onset, str):
                    return (1, 0.0)
                if onset is None:
                    return (2, 0.0)
                return (0, float(onset))

            return onset_key
        return lambda sid: 0  # a sort this session's index cannot order: rank order

    def set_rows(self, rows: list[Row]) -> None:
        # The store returns rows in rank order; keep it so the default sort is a copy.
        ranks = list(map(_rank, rows))
        if ranks != sorted(ranks):
            rows = sorted(rows, key=lambda r: (r.rank, r.sound_id))
        self.rows = {row.sound_id: row for row in rows}
        self.ids = list(self.rows)
        self._ids_set = None
        self._page = None
        self._search.clear()

    def prepare_search(self) -> None:
        """Build every row's search text now, so the first keystroke of a ``/`` filter
        only scans (a paged listing's: the index's search index). Safe from a worker
        thread: the texts are dropped if the rows change meanwhile."""
        if self.paged and self.source is not None:
            whole = self.ids
            if not self._search.prepared(whole):
                read = self.source.search_texts()
                if read is not None and read[0] == whole:
                    self._search.prepare_texts(whole, read[1])
            return
        rows = self.rows
        assert isinstance(rows, dict)
        self._search.prepare(self.ids, rows)

    def apply(self, settings: ViewSettings) -> list[str]:
        """Recompute and return ``view`` for ``settings`` (a paged listing's view comes
        from :meth:`paged_view` and :meth:`set_view`: it is returned as it is)."""
        if self.paged:
            return self.view
        if self._page is not None and self._page[2] == _page_key(settings):
            # The page was fetched for this view (the index knows no marks: hidden rows
            # are left out here). Only the fetched rows are looked at: the rest of a big
            # session's view is placeholders, and this runs on the way to the first frame.
            view = self._page[0]
            start, end = self._page_span
            shown = [sid for sid in view[start:end] if not self.is_hidden(sid)]
            if len(shown) == end - start:
                self.view = list(view)
            else:
                self.view = view[:start] + shown + view[end:]
            return self.view
        ids: list[str] = self.ids
        wanted = settings.status_filter
        # The text filter first, over the whole list: its matches are cached and a
        # longer query only narrows them (see audition/filtering.py).
        terms = settings.query.lower().split()
        if terms:
            ids = self._search.matching(self.ids, self.rows, terms)
        ids = self._status_filtered(ids, wanted, self.decisions, self.marks)
        if settings.sort != "rank" and self.rows:  # ids are kept in rank order
            rows = self.rows
            pending = Row("", rank=len(rows), complete=False)
            key = self.sort_key(settings.sort)
            order = self._search.ordered(
                self.ids,
                settings.sort,
                lambda sid: key(rows.get(sid) or pending),
                self._sort_inputs(settings.sort),
            )
            ids = keep_order(order, ids, self.ids)
        self.view = grouped(list(ids), self.events)
        if wanted in ("all", "picked"):
            # Picks with no cached candidate: shown last so they can be seen and cleared.
            self.view += [g for g in self.ghosts() if all(t in g.lower() for t in terms)]
        return self.view

    def _status_filtered(
        self, ids: list[str], wanted: str, decisions: Decisions, marks: Mapping[str, Marks]
    ) -> list[str]:
        """``ids`` (in their order) that the status filter ``wanted`` shows; a hidden
        sound only under the hidden filter."""
        if wanted == UNPICKED_EVENTS:
            events = self.events
            done = {key for key in self.members if self.progress(key)[0]}
            ids = [sid for sid in ids if sid in events and events[sid] not in done]
        elif wanted != "all":
            # A conflict (picked and rejected) shows under both "picked" and "rejected".
            picks, rejects = decisions.picks, decisions.rejects
            if wanted == "picked":
                ids = [sid for sid in ids if sid in picks]
            elif wanted == "rejected":
                ids = [sid for sid in ids if sid in rejects]
            elif wanted == "undecided":
                ids = [sid for sid in ids if sid not in picks and sid not in rejects]
        if wanted == HIDDEN:
            ids = [sid for sid in ids if sid in marks and marks[sid].hidden]
        elif marks:
            ids = [sid for sid in ids if sid not in marks or not marks[sid].hidden]
        if wanted.startswith(RATED):
            least = int(wanted.removeprefix(RATED))
            ids = [sid for sid in ids if sid in marks and marks[sid].rating >= least]
        return ids

    def is_ghost(self, sound_id: str) -> bool:
        """A pick (or a row) with no cached candidate, once the list is in."""
        return bool(self.ids) and self._page is None and not self.contains(sound_id)

    def ghosts(self) -> list[str]:
        """Picks with no cached candidate (foley's ``plan`` drops them), sorted; none
        before the ids are listed."""
        if not self.ids or self._page is not None:
            return []
        contains = self.contains
        return sorted(sid for sid in self.decisions.picks if not contains(sid))

    def set_events(self, events: Mapping[str, Mapping[str, Any]]) -> None:
        """The scene event of each candidate that has one (sound id -> event dict)."""
        self.events = {}
        self.event_info = {}
        self.members = {}
        self.events_read = True
        for sid in self.ids:
            event = events.get(sid)
            if event is None:
                continue
            info = EventInfo.of(event)
            self.events[sid] = info.key
            self.event_info.setdefault(info.key, info)
            self.members.setdefault(info.key, []).append(sid)

    def update_events(self, read: Mapping[str, object]) -> bool:
        """The scene events another process's writes left (sound id -> event, None: it
        has none); True when any changed (the list regroups)."""
        events: dict[str, Mapping[str, Any]] = {
            sid: event for sid, event in read.items() if isinstance(event, Mapping)
        }
        before = dict(self.events)
        self.set_events(events)
        return self.events != before

    def placement(self, sound_id: str) -> Placement | None:
        """The effective placement of a pick (what ``foley plan`` will use), None when the
        sound is not picked or its event is unknown (events not read) and the pick does
        not set both halves."""
        pick = self.decisions.picks.get(sound_id)
        if pick is None:
            return None
        key = self.events.get(sound_id)
        if key is None and not self.events_read and (pick.layer is None or pick.onset is None):
            return None
        candidate = {"event": json.loads(key)} if key is not None else {}
        return effective_placement(candidate, {"layer": pick.layer, "onset": pick.onset})

    def progress(self, key: str) -> tuple[int, int]:
        """(picked, candidates) of one event."""
        members = self.members.get(key, [])
        picks = self.decisions.picks
        return sum(1 for sid in members if sid in picks), len(members)

    def event_rivals(self, sound_id: str) -> list[str]:
        """The other picks of ``sound_id``'s scene event (none when it is already picked
        or has no event)."""
        key = self.events.get(sound_id)
        picks = self.decisions.picks
        if key is None or sound_id in picks:
            return []
        return [sid for sid in self.members.get(key, []) if sid != sound_id and sid in picks]

    def _sort_inputs(
        self,
        sort: str,
        decisions: Decisions | None = None,
        marks: Mapping[str, Marks] | None = None,
    ) -> Hashable:
        """What a sort's order depends on besides the rows (the cached order is kept
        while it is the same)."""
        picks = (decisions or self.decisions).picks
        if sort == "layer":
            return frozenset((sid, p.layer) for sid, p in picks.items())
        if sort == "onset":
            return frozenset((sid, p.onset) for sid, p in picks.items())
        if sort == "rating":
            marked = self.marks if marks is None else marks
            return frozenset((sid, m.rating) for sid, m in marked.items() if m.rating)
        return None

    def apply_state(self, sound_id: str, state: Mapping[str, Any]) -> None:
        """Apply a journal state: its decision (picks and rejects), its marks, or both."""
        marks = marks_of_state(state)
        if marks is not None:
            self.set_marks(sound_id, marks)
        if is_decision_state(state):
            self.decisions.apply_state(sound_id, state)

    def is_hidden(self, sound_id: str) -> bool:
        found = self.marks.get(sound_id)
        return found is not None and found.hidden

    def set_marks(self, sound_id: str, marks: Marks) -> None:
        if marks.empty:
            self.marks.pop(sound_id, None)
        else:
            self.marks[sound_id] = marks

    def sort_key(self, sort: str) -> Any:
        """The key that orders rows under ``sort`` (rank, then id, breaks ties)."""
        picks = self.decisions.picks
        provider = self.extra_sorts.get(sort)
        if provider is not None:
            values = provider()

            def extra_key(r: Row) -> tuple[int, Any, int, str]:
                value = values.get(r.sound_id)
                if value is None or value == "":
                    return (1, 0, r.rank, r.sound_id)
                return (0, value.lower() if isinstance(value, str) else value, r.rank, r.sound_id)

            return extra_key
        if sort in ("rate", "channels"):
            field = "sample_rate" if sort == "rate" else "channels"
            return lambda r: (
                _INF if getattr(r, field) is None else getattr(r, field),
                r.rank,
                r.sound_id,
            )
        if sort == "format":
            return lambda r: (r.format.lower() or "\uffff", r.rank, r.sound_id)
        if sort == "library":  # an agent's session: the source library (a folder's: above)
            return lambda r: (r.source.lower() or "\uffff", r.rank, r.sound_id)
        if sort == "caption":
            return lambda r: (r.caption.lower() or "\uffff", r.rank, r.sound_id)
        if sort == "duration":
            return lambda r: (_INF if r.duration_s is None else r.duration_s, r.rank, r.sound_id)
        if sort == "score":
            # Best first; unscored last.
            return lambda r: (_INF if r.score is None else -r.score, r.rank, r.sound_id)
        if sort == "rating":
            marks = self.marks
            none = Marks()
            # Best first; unrated last.
            return lambda r: (-marks.get(r.sound_id, none).rating, r.rank, r.sound_id)
        if sort == "layer":
            order = {layer: i for i, layer in enumerate(LAYERS)}

            def layer_key(r: Row) -> tuple[int, int, str]:
                pick = picks.get(r.sound_id)
                layer = pick.layer if pick else None
                return (order[layer] if layer else len(order), r.rank, r.sound_id)

            return layer_key
        if sort == "onset":

            def onset_key(r: Row) -> tuple[int, float, int, str]:
                pick = picks.get(r.sound_id)
                onset = pick.onset if pick else None
                # Numbers first, then anchors (text), then unset onsets.
                if isinstance(onset, str):
                    return (1, 0.0, r.rank, r.sound_id)
                if onset is None:
                    return (2, 0.0, r.rank, r.sound_id)
                return (0, float(onset), r.rank, r.sound_id)

            return onset_key
        return lambda r: (r.rank, r.sound_id)

    def next_undecided(self, after: int) -> int | None:
        """Index in ``view`` of the first undecided row after ``after``, or None."""
        status = self.decisions.status
        view = self.view
        for index in range(after + 1, len(view)):
            if is_candidate(view[index]) and status(view[index]) is Status.UNDECIDED:
                return index
        return None

    def cursor_after(
        self, sound_id: str, cursor: str | None, index: int, *, advance: bool, moved: bool
    ) -> str | None:
        """Where the cursor goes after a decision on ``sound_id`` (None: it stays).

        ``cursor``/``index``: the row highlighted when the key was pressed (``cursor`` is
        None when the view was recomputed, so ``index`` may no longer be it). With
        ``advance`` it goes to the next undecided row after the decided one (after where
        it was, when the decision filtered it out), else stays on it; ``moved`` (the view
        was recomputed) keeps it on the decided row when that is still shown."""
        view = self.view
        if advance:
            if sound_id == cursor:
                here = index
            elif sound_id in view:
                here = view.index(sound_id)
            else:  # filtered out: continue from where it was
                here = index - 1
            target = self.next_undecided(here)
            if target is not None:
                return view[target]
            return sound_id if sound_id in view else None
        if moved and sound_id in view:
            return sound_id
        return None

    def candidate_at(self, index: int, step: int = 1) -> int | None:
        """``index`` if it is a candidate, else the nearest candidate in the ``step``
        direction (then the other way); None when the view has none."""
        view = self.view
        for direction in (step, -step):
            i = index
            while 0 <= i < len(view):
                if not is_header(view[i]):
                    return i
                i += direction
        return None

    def next_event(self, index: int, step: int) -> int | None:
        """The first candidate of the next (``step`` 1) or previous (-1) event group."""
        view = self.view
        headers = [i for i, entry in enumerate(view) if is_header(entry)]
        if not headers:
            return None
        current = max((h for h in headers if h <= index), default=-1)
        if step > 0:
            later = [h for h in headers if h > index]
            target = later[0] if later else None
        else:
            earlier = [h for h in headers if h < current]
            target = earlier[-1] if earlier else None
        if target is None:
            return None
        return self.candidate_at(target + 1)

    def counts(self) -> tuple[int, int, int, int]:
        """(picked, rejected, undecided, total) over the session's candidates; a conflict
        (picked and rejected) counts in both and is not undecided."""
        contains = self.contains
        picked = {sid for sid in self.decisions.picks if contains(sid)}
        rejected = {sid for sid in self.decisions.rejects if contains(sid)}
        total = self.total
        return len(picked), len(rejected), max(total - len(picked | rejected), 0), total

    def conflicts(self) -> int:
        """Candidates both picked and rejected."""
        rejects = self.decisions.rejects
        return sum(1 for sid in self.decisions.picks if sid in rejects and self.contains(sid))

    def picks_cost(self) -> float:
        """The cost of the picks (actual, else estimate), over the rows that know it."""
        total = 0.0
        for sid in self.decisions.picks:
            row = self.rows.get(sid)
            if row is not None and row.cost_usd is not None:
                total += row.cost_usd
        return total
