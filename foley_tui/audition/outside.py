"""Changes another process made to the session (foley's agent, a second foley-tui).

The poll worker reads them with :func:`read_outside` (per file: only what changed is
read); the model merges them with :func:`merge_decisions`. Headless: never imports
textual.
"""

from __future__ import annotations

from collections.abc import Mapping

from foley_tui.audition.change import Outside
from foley_tui.audition.events import EVENT_SCAN_LIMIT
from foley_tui.audition.listing import Decisions, Listing
from foley_tui.domain import Row
from foley_tui.store import SessionStore
from foley_tui.store.changes import DecisionWatch


def read_outside(
    store: SessionStore,
    watch: DecisionWatch,
    current: Mapping[str, Row],
    generation: int,
    *,
    paged: bool = False,
) -> Outside | None:
    """Compare the session's files with what we know (``current``: the rows listed),
    per file; read only what changed. None when nothing did. ``paged``: the list reads
    its rows from the stored index: that is brought up to date and the ids come back
    instead of the rows."""
    snapshot = watch.snapshot()
    diff = watch.diff(snapshot)
    if diff.empty:
        return None
    # Each folder is read only when a file in it changed (the store re-parses only
    # the files whose stat changed).
    picks = store.picks() if diff.picks else None
    rejects = store.rejects() if diff.rejects else None
    rows: list[Row] | None = None
    events: dict[str, object] | None = None
    ids: list[str] | None = None
    if diff.candidates and paged and store.verify() is not None:
        ids = store.view_ids() or []
    elif diff.candidates:
        rows = store.rows()
        if len(rows) <= EVENT_SCAN_LIMIT:
            # A rewritten candidate may carry a new scene event with the same columns:
            # the events are read again (as the loader reads them) to regroup the list.
            events = {}
            for row in rows:
                candidate = store.candidate(row.sound_id)
                events[row.sound_id] = candidate.get("event") if candidate is not None else None
        if len(rows) == len(current) and all(current.get(r.sound_id) == r for r in rows):
            rows = None
    problems = tuple(str(p) for p in store.problems()) if diff.decisions or rows or ids else ()
    undo = store.undo_redo() if diff.journal else None  # read here, not on the UI thread
    # Our marks are written with a journal record: read again when the journal moved.
    marks = store.marks() if diff.journal else None
    return Outside(
        generation, snapshot, diff, picks, rejects, rows, problems, undo, events, marks, ids
    )


def merge_marks(listing: Listing, outside: Outside) -> set[str]:
    """Take the marks ``outside`` read; the ids whose marks changed."""
    if outside.marks is None:
        return set()
    changed = _differing(listing.marks, outside.marks)
    listing.marks = dict(outside.marks)
    return changed


def merge_decisions(decisions: Decisions, outside: Outside) -> set[str]:
    """Take the picks and rejects ``outside`` read; the ids whose decision changed."""
    changed: set[str] = set()
    if outside.picks is not None:
        changed.update(_differing(decisions.picks, outside.picks))
        decisions.picks = dict(outside.picks)
    if outside.rejects is not None:
        changed.update(_differing(decisions.rejects, outside.rejects))
        decisions.rejects = dict(outside.rejects)
    return changed


def _differing(old: Mapping[str, object], new: Mapping[str, object]) -> set[str]:
    """Ids added, removed or changed between two decision maps."""
    changed = {sid for sid, value in new.items() if old.get(sid) != value}
    changed.update(sid for sid in old if sid not in new)
    return changed
