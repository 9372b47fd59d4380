"""The audition list's data: rows, decisions, filter, status filter and sort.

Headless (no textual import) so the ordering rules are plain unit-testable code. The list
widget renders ``Listing.view`` (a list of sound ids); the screen owns one ``Listing`` and
re-applies it when rows, decisions or view settings change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

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
        self.rows: dict[str, Row] = {}
        """The list columns by id; empty until loaded (first paint has ids only)."""
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
        for row in rows:
            self.rows[row.sound_id] = row
        self._search.clear()

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
        only scans. Safe from a worker thread: the texts are
        dropped if the rows change meanwhile."""
        self._search.prepare(self.ids, self.rows)

    def apply(self, settings: ViewSettings) -> list[str]:
        """Recompute and return ``view`` for ``settings``."""
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
        if wanted == UNPICKED_EVENTS:
            events = self.events
            done = {key for key in self.members if self.progress(key)[0]}
            ids = [sid for sid in ids if sid in events and events[sid] not in done]
        elif wanted != "all":
            # A conflict (picked and rejected) shows under both "picked" and "rejected".
            picks, rejects = self.decisions.picks, self.decisions.rejects
            if wanted == "picked":
                ids = [sid for sid in ids if sid in picks]
            elif wanted == "rejected":
                ids = [sid for sid in ids if sid in rejects]
            elif wanted == "undecided":
                ids = [sid for sid in ids if sid not in picks and sid not in rejects]
        marks = self.marks
        if wanted == HIDDEN:
            ids = [sid for sid in ids if sid in marks and marks[sid].hidden]
        elif marks:
            ids = [sid for sid in ids if sid not in marks or not marks[sid].hidden]
        if wanted.startswith(RATED):
            least = int(wanted.removeprefix(RATED))
            ids = [sid for sid in ids if sid in marks and marks[sid].rating >= least]
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

    def _sort_inputs(self, sort: str) -> Hashable:
        """What a sort's order depends on besides the rows (the cached order is kept
        while it is the same)."""
        picks = self.decisions.picks
        if sort == "layer":
            return frozenset((sid, p.layer) for sid, p in picks.items())
        if sort == "onset":
            return frozenset((sid, p.onset) for sid, p in picks.items())
        if sort == "rating":
            return frozenset((sid, m.rating) for sid, m in self.marks.items() if m.rating)
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
