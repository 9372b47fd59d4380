"""What an audition intent changed (:class:`Change`) and what a poll found (:class:`Outside`).

Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass

from foley_tui.domain import Pick, Reject, Row
from foley_tui.marks import Marks
from foley_tui.store.changes import Diff, Snapshot


@dataclass(frozen=True, slots=True)
class Change:
    """What an intent changed. Fields left at their default changed nothing."""

    rows: frozenset[str] = frozenset()
    """Rows whose decision changed: repaint them."""
    view: bool = False
    """The view (which rows, in which order) was recomputed: refresh the whole list."""
    data: bool = False
    """Row contents were replaced (columns filled in, outside edits): drop row caches."""
    candidates: bool = False
    """Candidate files changed on disk: forget cached candidate dicts and sources."""
    cursor: str | None = None
    """Move the cursor to this row."""
    play: str | None = None
    """Start playing this row (autoplay after a move)."""
    undo: bool = False
    """Undo or redo availability changed: refresh the footer."""
    status: bool = False
    """Counts, view settings or the loading state changed: redraw the status line."""
    details: bool = False
    """The highlighted row's decision changed: redraw the details."""
    player: bool = False
    """A preview setting changed (loop, volume, loudness match): tell the player."""
    pane: bool = False
    """The waveform pane changed what it shows (waveform or spectrogram)."""
    notices: tuple[str, ...] = ()
    """Short messages for the user."""
    error: str | None = None
    """Why nothing was saved."""
    blocked: str | None = None
    """``"undo"`` or ``"redo"`` was refused because the sound changed outside foley-tui
    since its journal entry: the screen offers to skip past that entry."""
    problems: tuple[str, ...] = ()
    """Unreadable entries found by a load or a poll."""
    query: str | None = None
    """The view's filter was restored (the session's saved view): show it in the filter
    box."""

    def __or__(self, other: Change) -> Change:
        return Change(
            rows=self.rows | other.rows,
            view=self.view or other.view,
            data=self.data or other.data,
            candidates=self.candidates or other.candidates,
            cursor=other.cursor if other.cursor is not None else self.cursor,
            play=other.play if other.play is not None else self.play,
            undo=self.undo or other.undo,
            status=self.status or other.status,
            details=self.details or other.details,
            player=self.player or other.player,
            pane=self.pane or other.pane,
            notices=self.notices + other.notices,
            error=other.error or self.error,
            blocked=other.blocked or self.blocked,
            problems=self.problems + other.problems,
            query=other.query if other.query is not None else self.query,
        )

    @property
    def empty(self) -> bool:
        return self == Change()


@dataclass(frozen=True, slots=True)
class Outside:
    """What a poll found on disk (made by :meth:`AuditionModel.check_outside`)."""

    generation: int
    snapshot: Snapshot
    diff: Diff
    picks: dict[str, Pick] | None = None
    """Every pick, when a decision file changed."""
    rejects: dict[str, Reject] | None = None
    rows: list[Row] | None = None
    """Every row, when candidates were added, removed or rewritten."""
    problems: tuple[str, ...] = ()
    undo: tuple[bool, bool] | None = None
    """(can undo, can redo), read by the poll when the journal changed."""
    events: dict[str, object] | None = None
    """The scene event of each candidate added or rewritten (None: it has none)."""
    marks: dict[str, Marks] | None = None
    """Every sound's marks, read by the poll when the journal changed."""
    ids: list[str] | None = None
    """Every candidate id in rank order, when candidates changed and the list is paged
    (its rows are read from the stored index, brought up to date by the poll)."""
