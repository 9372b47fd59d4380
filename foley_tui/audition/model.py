"""AuditionModel: what a keypress means in a session, without a screen.

The model owns the listing (rows, decisions, the filtered and sorted view), the view
settings, the cursor, undo availability, the repeat guard, auto-advance and the
bookkeeping of outside changes. Every intent (pick, reject, clear, set layer/onset,
nudge, undo, redo, apply outside changes, view changes, loading steps) writes to the
store first and only then changes memory, and returns a :class:`Change` saying what
changed; the screen applies a Change in one place. An error leaves memory as it was and
comes back as ``Change.error``.

Threads: every method runs on one thread (the UI's), except :meth:`check_outside`, which
a poll worker runs (it only reads the store and returns an :class:`Outside` that the UI
thread hands to :meth:`apply_outside`), and the store calls of a decision when a
``writer`` is set: the decision is then resolved when its key arrives (the sound, what
to write) into a :class:`Job`, its row says "saving…", a worker makes the store calls
(:meth:`Job.write`) and the UI thread applies the outcome (:meth:`settle`). Without a
writer (headless callers, tests) a job runs at once, on the caller's thread.

Headless: never imports textual; tested in milliseconds against a temp-dir store.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from foley_tui.audition.change import Change, Outside
from foley_tui.audition.guard import RepeatGuard
from foley_tui.audition.listing import (
    AGENT_FILE_SORTS,
    AGENT_SORTS,
    Decisions,
    Listing,
    ViewSettings,
)
from foley_tui.audition.opening import Opening
from foley_tui.audition.outside import merge_decisions, merge_marks, read_outside
from foley_tui.audition.text import cut
from foley_tui.config import Settings
from foley_tui.domain import (
    Layer,
    Onset,
    Pick,
    Reject,
    Row,
    Status,
    ValidationError,
    validate_layer,
)
from foley_tui.marks import Marks, marks_of_state
from foley_tui.scene.reading import nudged
from foley_tui.store import JournalEntry, MarksEdit, SessionStore, UndoConflictError
from foley_tui.store.changes import DecisionWatch
from foley_tui.store.errors import StoreTimeoutError
from foley_tui.store.index_db import Page

VOLUME_STEP_DB = 2.0
VOLUME_RANGE_DB = (-40.0, 12.0)
#: A caption longer than this (in terminal cells) is cut with an ellipsis in dialogs.
CAPTION_CELLS = 200

_WRITE_ERRORS = (OSError, ValidationError, ValueError, KeyError)

ViewRunner = Callable[
    [Callable[[], "list[str] | None"], Callable[["list[str] | None"], "Change"]], None
]
"""Runs a paged view's query (the first function) in another thread, then its answer
through the second on the model's thread (see :attr:`AuditionModel.view_runner`)."""


@dataclass(frozen=True, slots=True)
class Written:
    """What a decision's worker brings back: the store's answer, the state of the sound
    when that answer was not a journal entry, and undo availability right after."""

    result: object = None
    state: dict[str, Any] | None = None
    undo: tuple[bool, bool] = (False, False)
    gone: bool = False
    """A ghost row whose pick foley's agent dropped meanwhile: nothing was written."""


@dataclass(frozen=True, slots=True)
class ReadBack:
    """The unconfirmed sounds as the store holds them, read once it answered again."""

    states: dict[str, dict[str, Any]]
    undo: tuple[bool, bool]
    generation: int


@dataclass(eq=False, slots=True)
class Job:
    """A decision resolved when its key arrived: the row it writes (None: an undo, whose
    sound the journal names), the store calls (``write``, run by a worker) and what the
    UI thread makes of their outcome (``settle``: the answer, or the exception)."""

    sound_id: str | None
    what: str
    write: Callable[[], Written]
    settle: Callable[[Written | BaseException], Change]
    advance: Status | None = None
    moved: bool = False
    """The cursor already moved on when the key arrived (a background write)."""
    moved_to: str | None = None
    """Where it moved then (a failed write brings it back while it is still there)."""


def attempt(
    write: Callable[[], Written],
    errors: type[BaseException] | tuple[type[BaseException], ...] = _WRITE_ERRORS,
) -> Written | BaseException:
    """Run a job's store calls; an expected failure is its outcome, not a raise."""
    try:
        return write()
    except errors as exc:
        return exc


@dataclass
class AuditionModel:
    """One session being auditioned: see the module docstring."""

    store: SessionStore
    settings: Settings = field(default_factory=Settings)
    clock: Callable[[], float] = time.monotonic
    """Time source of the repeat guard (tests pass a fake one)."""

    def __post_init__(self) -> None:
        self.listing = Listing()
        s = self.settings
        self.view = ViewSettings(
            autoplay=s.autoplay,
            loop=s.loop,
            volume_db=s.volume_db,
            loudness_match=s.loudness_match,
            skip_silence=s.skip_silence,
        )
        self.title = self.store.session_id
        self.sorts: tuple[str, ...] = AGENT_SORTS
        """What ``s`` cycles through (a library folder's list has its own columns)."""
        self.cursor: str | None = None
        """The highlighted row."""
        self.cursor_index = 0
        """Its index in ``listing.view``."""
        self._reported: str | None = None
        """The row the list last reported (autoplay and saving react to news only)."""
        self.restore_cursor: str | None = None
        """Where the session was left: the cursor goes there until the user moves."""
        self.user_moved = False
        self.loading = "listing…"
        self.loaded = False
        self.store_down = ""
        """Non-empty while the shared store is unreachable (the status line says so, and
        no shared audio is asked for)."""
        self.can_undo = False
        self.can_redo = False
        self.generation = 0
        """Bumped by every write of ours, so a poll that raced with it is discarded."""
        self._guard = RepeatGuard(self.clock)
        self._watch: DecisionWatch = self.store.decision_watch()
        self.reread_journal = False
        """An undo or redo was not confirmed: the journal is read back with the sounds."""
        self.writer: Callable[[Job], None] | None = None
        """Runs a decision's store calls off this thread (the screen's worker), then
        hands the outcome to :meth:`settle`; None: run them at once."""
        self._check: Callable[[], None] | None = None
        """Run before the store calls of the next job (see :meth:`checked`)."""
        self.pages = False
        """The list reads its view and rows from the session's stored index, a screen at
        a time, rather than holding every row (see :meth:`page_rows`)."""
        self.view_runner: ViewRunner | None = None
        """Runs a paged view's query off this thread (the screen's worker), then hands
        its answer back here; None: run it at once."""
        self._view_seq = 0
        """Bumped by each view asked for: an older query's answer is dropped."""
        self._view_shown = 0
        self._view_lock = threading.Lock()
        self._moves = 0
        """Cursor moves by the user (a view answered later keeps the row moved to)."""

    def page_rows(self) -> None:
        """Read the list from the session's stored index as it is shown (a library
        folder's: 100k rows are not held), when the store keeps one; the view of each
        settings is then a query of that index, run by :attr:`view_runner`."""
        self.pages = True
        self.listing.source = self.store

    # ------------------------------------------------------------------ opening
    def open(self, opening: Opening | None = None) -> Change:
        """Apply the session's settings (title, cursor, view) and, when the stored index
        gave one, the first page, as :class:`Opening` read them. Headless callers pass
        nothing: it is read now, with undo availability (the screen gets that from its
        load worker: :meth:`undo_read`)."""
        change = Change()
        if opening is None:
            opening = Opening.read(self.store)
            change = self._refresh_undo()
        meta = opening.meta
        if meta is not None:
            self.title = meta.title or self.store.session_id
            self.restore_cursor = meta.cursor
            self.view = ViewSettings.from_dict(meta.view, self.view)
        change |= Change(
            status=True,
            player=True,
            pane=True,
            notices=tuple(opening.notices),
            query=self.view.query,
        )
        if opening.page is not None:
            change |= self.page_listed(opening.page, opening.picks, opening.rejects)
        return change

    def undo_read(self, can_undo: bool, can_redo: bool, generation: int) -> Change:
        """Undo availability read by the load worker (the journal read whole, once);
        a decision made since (``generation`` moved on) knows better."""
        if generation != self.generation:
            return Change()
        before = (self.can_undo, self.can_redo)
        self.can_undo, self.can_redo = can_undo, can_redo
        return Change(undo=(can_undo, can_redo) != before)

    def marks_read(self, marks: Mapping[str, Marks], generation: int) -> Change:
        """Our marks, read by the load worker (a mark made since knows better)."""
        if generation != self.generation:
            return Change()
        self.listing.marks = {sid: m for sid, m in marks.items() if not m.empty}
        return self._reapply(keep=self.cursor) | Change(data=True)

    def page_listed(
        self, page: Page, picks: Mapping[str, Pick], rejects: Mapping[str, Reject]
    ) -> Change:
        """First paint of a session with a stored index: the screen of the view around
        the saved cursor (the whole list follows with :meth:`listed` or
        :meth:`loaded_rows`)."""
        total = page.candidates if page.candidates is not None else page.total
        self.listing.set_page(page.rows, page.offset, page.total, total, self.view)
        self.listing.decisions.picks = dict(picks)
        self.listing.decisions.rejects = dict(rejects)
        self.loading = f"checking {total:,} files"
        keep = self.restore_cursor
        if keep is None or keep not in self.listing.rows:
            keep = page.rows[0].sound_id if page.rows else None
        return self._reapply(keep=keep)

    def listed(
        self,
        ids: Sequence[str],
        picks: Mapping[str, Pick],
        rejects: Mapping[str, Reject],
        rows: list[Row] | None = None,
    ) -> Change:
        """First paint: the candidate ids (or provisional rows from the stored index)."""
        if rows is not None:
            self.listing.set_rows(rows)
            self.loading = f"checking {len(ids):,} files"
        else:
            self.listing.set_ids(list(ids))
            self.loading = f"columns 0/{len(ids):,}"
        self.listing.decisions.picks = dict(picks)
        self.listing.decisions.rejects = dict(rejects)
        return self._reapply(keep=self.cursor if self.user_moved else self.restore_cursor)

    def progress(self, done: int, total: int) -> Change:
        if self.loaded:
            return Change()
        self.loading = f"columns {done:,}/{total:,}"
        return Change(status=True)

    def rows_parsed(self, rows: list[Row]) -> Change:
        if self.loaded:  # a late batch must not overwrite the final rows
            return Change()
        self.listing.add_rows(rows)
        return Change(data=True)

    def begin_load(self) -> None:
        """Called by the load worker before it reads rows: a write made during the load
        shows on the first poll."""
        self._watch.accept(self._watch.snapshot())

    def loaded_rows(
        self,
        rows: list[Row],
        picks: Mapping[str, Pick],
        rejects: Mapping[str, Reject],
        problems: Sequence[str],
        generation: int,
    ) -> Change:
        """Every row with all its columns."""
        # Until the user moves, the restored cursor (or the top) wins over whatever row the
        # provisional file-name order put under the cursor.
        keep = self.cursor if self.user_moved else self.restore_cursor
        self.listing.set_rows(rows)
        return self._settle_load(keep, picks, rejects, problems, generation)

    def paged_loaded(
        self,
        ids: list[str],
        picks: Mapping[str, Pick],
        rejects: Mapping[str, Reject],
        problems: Sequence[str],
        generation: int,
    ) -> Change:
        """Every file checked and the stored index current (a paged list): the ids in
        rank order; the view is that index's answer for the view settings."""
        keep = self.cursor if self.user_moved else self.restore_cursor
        self.listing.set_paged(ids)
        return self._settle_load(keep, picks, rejects, problems, generation)

    def _settle_load(
        self,
        keep: str | None,
        picks: Mapping[str, Pick],
        rejects: Mapping[str, Reject],
        problems: Sequence[str],
        generation: int,
    ) -> Change:
        """What every load ends with, whole or paged: the decisions read (unless ours are
        newer), loaded, and the view reapplied on the row to keep."""
        if generation == self.generation:  # else our own newer decisions win
            self.listing.decisions.picks = dict(picks)
            self.listing.decisions.rejects = dict(rejects)
        self.loaded = True
        self.loading = ""
        # What the load cleaned up (stale temp files of an interrupted add), said once.
        swept = tuple(self.store.take_recovered())
        return self._reapply(keep=keep) | Change(data=True, problems=tuple(problems), notices=swept)

    # ------------------------------------------------------------------ cursor
    def sync_cursor(self, sound_id: str | None, index: int) -> None:
        """Where the list's cursor is right now. The screen calls this before every
        intent: a key pressed right after a move arrives before the list's ``Highlighted``
        message does, and must act on the row the user sees."""
        self.cursor = sound_id
        self.cursor_index = index

    def highlight(self, sound_id: str | None, index: int, *, by_user: bool) -> Change:
        """The list reports its cursor on ``sound_id`` (at ``index`` of the view)."""
        before = self._reported
        self._reported = sound_id
        self.cursor = sound_id
        self.cursor_index = index
        change = Change()
        if sound_id is not None and sound_id != before:
            try:
                self.store.set_cursor(sound_id)  # coalesced by the store
            except OSError as exc:
                change |= Change(error=f"Cursor not saved: {exc}")
        if by_user:
            self.user_moved = True
            self._moves += 1
            self._guard.reset()  # another key came in between: not a held key
            if sound_id is not None and sound_id != before and self.view.autoplay:
                change |= Change(play=sound_id)
        return change

    def next_undecided(self) -> Change:
        target = self.listing.next_undecided(self.cursor_index)
        if target is None:
            target = self.listing.next_undecided(-1)
        if target is None:
            return Change(notices=("No undecided candidate left in this view.",))
        self.user_moved = True
        self._guard.reset()
        sound_id = self.listing.view[target]
        play = sound_id if self.view.autoplay and sound_id != self.cursor else None
        return Change(cursor=sound_id, play=play)

    def events_loaded(self, events: Mapping[str, Mapping[str, Any]]) -> Change:
        """The scene event of each candidate (read by the load worker): group the list."""
        self.listing.set_events(events)
        return self._reapply(keep=self.cursor) if self.listing.events else Change()

    def file_columns_read(self, columns: Mapping[str, tuple[str, str, str, int | None]]) -> Change:
        """(Load worker.) Each candidate's file name, folder, UCS category and bit depth
        from its file: an agent's session can now be sorted by them too (a library
        folder's list orders by its own index)."""
        if self.sorts != AGENT_SORTS:
            return Change()
        for i, sort in enumerate(AGENT_FILE_SORTS):
            self.listing.extra_sorts[sort] = _values_of(
                {sid: value[i] for sid, value in columns.items()}
            )
        self.sorts = (*AGENT_SORTS, *AGENT_FILE_SORTS)
        if self.view.sort in AGENT_FILE_SORTS:
            return self._reapply(keep=self.cursor)
        return Change()

    def next_event(self, step: int) -> Change:
        """``e`` / ``E``: the first candidate of the next / previous scene event."""
        target = self.listing.next_event(self.cursor_index, step)
        if target is None:
            which = "next" if step > 0 else "previous"
            return Change(notices=(f"No {which} scene event in this view.",))
        self.user_moved = True
        sound_id = self.listing.view[target]
        play = sound_id if self.view.autoplay and sound_id != self.cursor else None
        return Change(cursor=sound_id, play=play)

    def unsettled(self) -> list[str]:
        """What the app leaves unsaid when it quits now: decisions still being written and
        writes the store did not confirm (they may have landed)."""
        listing = self.listing
        notes = [
            f"not confirmed: the decision on {sid} (the store did not answer; it may have "
            "landed: check it with `foley-tui picks` / `rejects`)"
            for sid in sorted(listing.unconfirmed)
            if sid not in listing.pending
        ]
        notes += [
            f"still being saved as the app quit: the decision on {sid}"
            for sid in sorted(listing.pending)
        ]
        return notes

    def save_position(self) -> str | None:
        """Put the cursor on disk now; the error message when it could not be."""
        try:
            if self.cursor is not None:
                self.store.set_cursor(self.cursor)
            self.store.flush()
        except OSError as exc:
            return f"Cursor not saved: {exc}"
        return None

    # ------------------------------------------------------------------ decide
    def status_of(self, sound_id: str) -> Status:
        return self.listing.decisions.status(sound_id)

    def pick(self) -> Change:
        """``p``: pick the highlighted row and advance; on a picked row, unpick it; on a
        conflict the pick wins (the reject goes) and it never toggles off. Decided by the
        store on the files as they are (under its lock), not on what memory last saw."""
        return self._toggle("pick", self.store.toggle_pick, Status.PICKED)

    def reject(self) -> Change:
        """``x``: reject and advance; on a rejected row, clear it; on a conflict the
        reject wins (the pick goes)."""
        return self._toggle("reject", self.store.toggle_reject, Status.REJECTED)

    def reject_with(self, sound_id: str, reason: str) -> Change:
        """Reject ``sound_id`` with a reason (the ``X`` dialog) and advance."""
        return self._write(
            sound_id, lambda: self.store.set_reject(sound_id, reason), advance=Status.REJECTED
        )

    def clear(self) -> Change:
        sound_id = self.cursor
        if sound_id is None:
            return Change()
        return self._write(sound_id, lambda: self.store.clear(sound_id))

    def set_layer(self, layer: str) -> Change:
        sound_id = self.cursor
        if sound_id is None:
            return Change()
        try:
            checked: Layer | None = validate_layer(layer)
        except ValidationError as exc:
            return Change(error=f"Not saved: {exc}")
        return self._write(sound_id, lambda: self.store.update_pick(sound_id, layer=checked))

    def set_onset(self, sound_id: str, onset: Onset) -> Change:
        return self._write(sound_id, lambda: self.store.update_pick(sound_id, onset=onset))

    def nudge(
        self,
        delta: float,
        *,
        replace_anchor: bool = False,
        words: Sequence[Mapping[str, Any]] = (),
        sound_id: str | None = None,
    ) -> Change:
        """Move a row's onset (the highlighted one unless ``sound_id``) by ``delta``
        seconds (picking it if needed), rounded to the millisecond and never below zero.
        An anchor onset is not a number to move: only with ``replace_anchor`` (the user
        confirmed) it becomes one, moved from where foley reads it (:meth:`nudged_to`)."""
        sound_id = sound_id if sound_id is not None else self.cursor
        if sound_id is None:
            return Change()
        pick = self.listing.decisions.picks.get(sound_id)
        onset = pick.onset if pick is not None else None
        if isinstance(onset, str) and not replace_anchor:
            return Change(notices=("the onset is an anchor; confirm to replace it",))
        shown_words = list(words)

        def write() -> JournalEntry | None:
            # From the onset the store holds when this nudge's turn comes (after the
            # nudges still being written before it), not the one shown at the key.
            now = self.store.verdicts(sound_id).pick
            stored = now.get("onset") if isinstance(now, dict) else None
            if isinstance(stored, str) and not replace_anchor:
                raise ValidationError("the onset is an anchor now; confirm to replace it")
            held = stored if isinstance(stored, str | int | float) else None
            target = self._nudged_from(sound_id, held, delta, shown_words)
            return self.store.update_pick(sound_id, onset=target)

        return self._write(sound_id, write)

    def nudged_to(
        self, sound_id: str, delta: float, words: Sequence[Mapping[str, Any]] = ()
    ) -> float:
        """Where a nudge of ``delta`` puts ``sound_id``'s onset: an anchor moves from where
        the narration's ``words`` put it (else an absolute anchor's seconds, else 0:00)."""
        pick = self.listing.decisions.picks.get(sound_id)
        return self._nudged_from(sound_id, pick.onset if pick else None, delta, words)

    def _nudged_from(
        self,
        sound_id: str,
        onset: Onset | None,
        delta: float,
        words: Sequence[Mapping[str, Any]] = (),
    ) -> float:
        pick = self.listing.decisions.picks.get(sound_id)
        placement = self.listing.placement(sound_id)
        layer = placement.layer if placement is not None else (pick.layer if pick else None)
        loop = placement.loop if placement is not None else False
        return nudged(onset, layer, delta, words=list(words), loop=loop)

    def undo(self) -> Change:
        return self._journal(undo=True)

    def redo(self) -> Change:
        return self._journal(undo=False)

    def skip(self, *, undo: bool) -> Change:
        """Step past the undo (or redo) entry a refused undo stopped on: a ``skip`` entry
        in the journal, so redo and other processes agree; no decision file changes."""
        verb = "undo" if undo else "redo"

        def write() -> Written:
            entry = self.store.skip_undo() if undo else self.store.skip_redo()
            return Written(entry, undo=self._undo_after_write(wrote=entry is not None))

        def settle(outcome: Written | BaseException) -> Change:
            if isinstance(outcome, BaseException):
                return Change(error=f"Not saved: {outcome}")
            entry = outcome.result
            if not isinstance(entry, JournalEntry):  # read under the store's lock just now
                return self._set_undo(outcome.undo)
            notice = (
                f"Skipped the {verb} of {self.caption(entry.sound_id)}: its files are as they are"
            )
            return self._set_undo(outcome.undo) | Change(notices=(notice,))

        return self._submit(Job(None, f"skip {verb}", write, settle))

    def _journal(self, *, undo: bool) -> Change:
        verb = "undo" if undo else "redo"

        def write() -> Written:
            entry = self.store.undo() if undo else self.store.redo()
            return Written(entry, undo=self._undo_after_write(wrote=entry is not None))

        def settle(outcome: Written | BaseException) -> Change:
            if isinstance(outcome, UndoConflictError):
                return Change(error=f"Not saved: {outcome}", blocked=verb)
            if isinstance(outcome, BaseException):
                return Change(error=f"Not saved: {outcome}")
            entry = outcome.result
            if not isinstance(entry, JournalEntry):  # read under the store's lock just now
                return self._set_undo(outcome.undo) | Change(notices=(f"Nothing to {verb}.",))
            self.generation += 1
            state = entry.before if undo else entry.after
            hidden = self.listing.is_hidden(entry.sound_id)
            for sid, before, after in entry.changes():  # a group (pick and drop) as one
                self.listing.apply_state(sid, before if undo else after)
            change = self._after_write(
                entry.sound_id,
                advance=False,
                hid=hidden != self.listing.is_hidden(entry.sound_id),
                undo=outcome.undo,
            ) | Change(rows=frozenset(sid for sid, _b, _a in entry.also))
            if entry.sound_id in self.listing.view:
                change = replace(change, cursor=entry.sound_id)
            marks = marks_of_state(state)
            now = state.get("status") if marks is None else marks.describe()
            done = "Undid" if undo else "Redid"
            notice = f"{done}: {self.caption(entry.sound_id)} → {now}"
            return change | Change(notices=(notice,))

        return self._submit(Job(None, verb, write, settle))

    # -- the write path -------------------------------------------------------------
    def _toggle(
        self, action: str, write: Callable[[str], JournalEntry | None], decided: Status
    ) -> Change:
        """Pick and reject toggle alike; the cursor advances only when the row ended up
        ``decided`` (not when the key toggled it off)."""
        sound_id = self.cursor
        if sound_id is None or not self._guard.allows(action, sound_id):
            return Change()
        return self._write(sound_id, lambda: write(sound_id), advance=decided)

    def _write(
        self, sound_id: str, write: Callable[[], object], *, advance: Status | None = None
    ) -> Change:
        """Write to the store first; only on success change memory, to what the journal
        entry says the files now hold (a write that changed nothing re-reads the sound:
        memory was behind the files). The cursor advances when the row is now
        ``advance``.

        A key on a ghost row (a pick with no cached candidate) whose pick foley's agent
        dropped since the list was drawn writes nothing: the row goes instead."""
        ghost = self.listing.is_ghost(sound_id)

        def run() -> Written:
            if ghost and self._pick_gone(sound_id):
                return Written(gone=True)
            result = write()
            state = None
            if not isinstance(result, JournalEntry):
                state = self.store.verdicts(sound_id).to_state()
            return Written(result, state, self._undo_after_write())

        def settle(outcome: Written | BaseException) -> Change:
            if isinstance(outcome, BaseException):
                return Change(error=f"Not saved: {outcome}")
            if outcome.gone:
                self.listing.decisions.picks.pop(sound_id, None)
                self.listing.decisions.rejects.pop(sound_id, None)
                notice = f"{sound_id}: foley's agent dropped this pick meanwhile; nothing written"
                return self._reapply(keep=None) | Change(
                    notices=(notice,), rows=frozenset({sound_id}), status=True
                )
            self.generation += 1
            decisions = self.listing.decisions
            also: frozenset[str] = frozenset()
            result = outcome.result
            if isinstance(result, JournalEntry):
                for sid, _before, after in result.changes():
                    self.listing.apply_state(sid, after)
                also = frozenset(sid for sid, _b, _a in result.also)
            elif outcome.state is not None:
                decisions.apply_state(sound_id, outcome.state)
            moves = advance is not None and decisions.status(sound_id) is advance
            return self._after_write(
                sound_id, advance=moves and not job.moved, undo=outcome.undo, settled=job.moved
            ) | Change(rows=also)

        job = Job(sound_id, "decision", run, settle, advance=advance)
        return self._submit(job)

    def _undo_after_write(self, *, wrote: bool = True) -> tuple[bool, bool]:
        """(Worker.) Undo availability right after a write of ours (``wrote``): the
        journal as read is recorded first, so the next poll has nothing to do."""
        try:
            if wrote:
                self._watch.own_journal()
            return self.store.undo_redo(fresh=False)
        except OSError:
            return (False, False)

    def checked(self, check: Callable[[], None], intent: Callable[[], Change]) -> Change:
        """Run ``intent`` with ``check`` run first by the worker that writes the job it
        makes, before its store calls: a dialog's confirm checks there that the session
        did not change under the dialog, and ``check`` raises to refuse (nothing is
        written; the row says why, as for any write that failed)."""
        self._check = check
        try:
            return intent()
        finally:
            self._check = None

    def _submit(self, job: Job) -> Change:
        """Run a job: at once without a writer; else its row says "saving…" (and, when
        the decision is one that advances, the cursor moves on now, as the key asked)
        while the writer runs it, and :meth:`settle` applies its outcome."""
        check, self._check = self._check, None
        if check is not None:
            write = job.write

            def checked() -> Written:
                check()
                return write()

            job.write = checked
        if self.writer is None:
            return job.settle(attempt(job.write))
        self.generation += 1  # a poll that read before this write is out of date
        change = Change(status=True)
        sound_id = job.sound_id
        if sound_id is not None:
            self.listing.saving(sound_id)
            change |= Change(rows=frozenset({sound_id}), details=True)
            if (
                job.advance is not None
                and self.settings.auto_advance
                and self.status_of(sound_id) is not job.advance
            ):
                cursor = self.listing.cursor_after(
                    sound_id, self.cursor, self.cursor_index, advance=True, moved=False
                )
                if cursor is not None and cursor != sound_id:
                    job.moved, job.moved_to = True, cursor
                    self.user_moved = True
                    play = cursor if self.view.autoplay else None
                    change |= Change(cursor=cursor, play=play)
        self.writer(job)
        return change

    def settle(self, job: Job, outcome: Written | BaseException) -> Change:
        """(UI thread.) A job's outcome, from the writer. A write the store did not
        answer in time may still land: its row says "not confirmed" until the sound is
        read back (:meth:`read_back`), and it is never written again."""
        sound_id = job.sound_id
        if sound_id is not None:
            self.listing.saved(sound_id)
        back = Change()
        if isinstance(outcome, BaseException) and job.moved and self.cursor == job.moved_to:
            back = Change(cursor=sound_id)  # the row the key was for: it is not saved
        if isinstance(outcome, StoreTimeoutError):
            rows = frozenset({sound_id}) if sound_id is not None else frozenset()
            if sound_id is not None:
                self.listing.unconfirmed.add(sound_id)
            else:
                self.reread_journal = True
            error = (
                f"Not confirmed: {outcome}. The {job.what} may still land; it is read back "
                "when the store answers."
            )
            return Change(rows=rows, details=True, status=True, error=error) | back
        if sound_id is not None:
            self.listing.unconfirmed.discard(sound_id)
        rows = frozenset({sound_id}) if sound_id is not None else frozenset()
        return job.settle(outcome) | Change(rows=rows, status=True) | back

    def read_back(self, sound_ids: Sequence[str]) -> ReadBack:
        """(Worker.) The sounds whose write was not confirmed, as the store holds them
        now, with undo availability; raises OSError while the store does not answer."""
        self.store.writes_settled()  # a queued write has run (or is gone) by now
        states = {sid: self.store.verdicts(sid).to_state() for sid in sound_ids}
        return ReadBack(states, self.store.undo_redo(), self.generation)

    def apply_read_back(self, read: ReadBack) -> Change:
        """(UI thread.) Show what the store holds for the unconfirmed sounds."""
        self.reread_journal = False
        rows = frozenset(read.states)
        notices = []
        for sid, state in read.states.items():
            if sid not in self.listing.unconfirmed:
                continue  # a later decision of ours settled it meanwhile
            self.listing.unconfirmed.discard(sid)
            if sid in self.listing.pending:
                continue  # a later write is on its way: its answer will show
            self.listing.decisions.apply_state(sid, state)
            status = self.listing.decisions.status(sid)
            notices.append(f"Read back {self.caption(sid)}: {status.value}")
        change = self._set_undo(read.undo)
        if self._view_depends_on_decisions():
            change |= self._reapply(keep=self.cursor)
        return change | Change(rows=rows, status=True, details=True, notices=tuple(notices))

    def _pick_gone(self, sound_id: str) -> bool:
        try:
            return self.store.picks_ns.get(sound_id) is None
        except (OSError, ValueError):
            return False

    # -- marks: rating, hidden, region ------------------------------------------------
    def rate(self, step: int) -> Change:
        """``.`` / ``,``: one star more or less (0 to 5), journaled like a decision."""
        sound_id = self.cursor
        if sound_id is None:
            return Change()
        return self._mark(sound_id, MarksEdit(rating_step=step))

    def toggle_hidden(self) -> Change:
        """``H``: hide the candidate (it leaves the view, the cursor moves on) or, in the
        hidden view, show it again."""
        sound_id = self.cursor
        if sound_id is None:
            return Change()
        return self._mark(sound_id, MarksEdit(toggle_hidden=True))

    def set_region_point(
        self, which: str, position_s: float | None, duration_s: float | None
    ) -> Change:
        """``(`` / ``)``: the region's in (or out) point at ``position_s`` (None clears
        it); refused, nothing written, when it would be outside the sound or in >= out."""
        sound_id = self.cursor
        if sound_id is None:
            return Change()
        edit = (
            MarksEdit(region_in=position_s) if which == "in" else MarksEdit(region_out=position_s)
        )
        return self._mark(sound_id, edit, duration_s=duration_s)

    def _mark(
        self,
        sound_id: str,
        edit: MarksEdit,
        *,
        duration_s: float | None = None,
    ) -> Change:
        was_hidden = self.listing.is_hidden(sound_id)

        def write() -> Written:
            entry = self.store.update_marks(sound_id, edit, duration_s=duration_s)
            return Written(entry, undo=self._undo_after_write(wrote=entry is not None))

        def settle(outcome: Written | BaseException) -> Change:
            if isinstance(outcome, BaseException):
                return Change(error=f"Not saved: {outcome}")
            entry = outcome.result
            if not isinstance(entry, JournalEntry):
                return Change()
            self.generation += 1
            for sid, _before, after in entry.changes():
                self.listing.apply_state(sid, after)
            hid = was_hidden != self.listing.is_hidden(sound_id)
            change_ = self._after_write(sound_id, advance=False, hid=hid, undo=outcome.undo)
            marks = self.listing.marks.get(sound_id, Marks())
            return change_ | Change(notices=(f"{self.caption(sound_id)}: {marks.describe()}",))

        return self._submit(Job(sound_id, "mark", write, settle))

    def event_rivals(self, sound_id: str) -> list[str]:
        """With ``one_pick_per_event``: the other picks of the scene event that picking
        ``sound_id`` would drop (none when it is already picked or has no event)."""
        if not self.settings.one_pick_per_event:
            return []
        return self.listing.event_rivals(sound_id)

    def agents_picks(self, sound_ids: list[str]) -> list[str]:
        """Those of ``sound_ids`` whose pick is not in our journal: foley's agent made it."""
        ours = self.store.journaled_sounds()
        return [sid for sid in sound_ids if sid not in ours]

    def pick_dropping(self, sound_id: str, others: list[str]) -> Change:
        """Pick ``sound_id`` and drop ``others`` (its event's other picks): all or
        nothing, one journal entry, one undo."""
        return self._write(
            sound_id, lambda: self.store.pick_and_drop(sound_id, others), advance=Status.PICKED
        )

    def _after_write(
        self,
        sound_id: str,
        *,
        advance: bool,
        undo: tuple[bool, bool],
        hid: bool = False,
        settled: bool = False,
    ) -> Change:
        """``hid``: the sound was hidden or shown (it leaves or joins the view).
        ``settled``: the cursor moved on when the key arrived (a background write): it
        stays where the user is now."""
        self.user_moved = True
        listing = self.listing
        vs = self.view
        view_changed = vs.status_filter != "all" or vs.sort in ("layer", "onset", "rating")
        view_changed = view_changed or hid
        view_changed = view_changed or not listing.contains(sound_id)  # a ghost pick
        if view_changed and listing.paged:
            return self._after_write_paged(sound_id, advance=advance, undo=undo, settled=settled)
        if view_changed:
            listing.apply(vs)
        if settled and self.cursor != sound_id:
            keep = self.cursor if view_changed and self.cursor in listing.view else None
            return self._set_undo(undo) | Change(
                rows=frozenset({sound_id}),
                view=view_changed,
                cursor=keep,
                status=True,
                details=True,
            )
        cursor = listing.cursor_after(
            sound_id,
            self.cursor if not view_changed else None,
            self.cursor_index,
            advance=advance and self.settings.auto_advance,
            moved=view_changed,
        )
        play = cursor if cursor is not None and cursor != sound_id and vs.autoplay else None
        return self._set_undo(undo) | Change(
            rows=frozenset({sound_id}),
            view=view_changed,
            cursor=cursor,
            play=play,
            status=True,
            details=True,
        )

    def _after_write_paged(
        self, sound_id: str, *, advance: bool, undo: tuple[bool, bool], settled: bool
    ) -> Change:
        """:meth:`_after_write` of a decision that changes a paged listing's view: the
        view is a query answered later, so the cursor goes where it would go in the view
        shown now (the decided row still in it) and the answer keeps it there."""
        done = Change(rows=frozenset({sound_id}), status=True, details=True)
        if settled and self.cursor != sound_id:
            return self._set_undo(undo) | done | self._query_view(keep=self.cursor)
        cursor = self.listing.cursor_after(
            sound_id,
            self.cursor,
            self.cursor_index,
            advance=advance and self.settings.auto_advance,
            moved=False,
        )
        play = cursor if cursor is not None and cursor != sound_id and self.view.autoplay else None
        keep = cursor if cursor is not None else self.cursor
        return (
            self._set_undo(undo)
            | done
            | Change(cursor=cursor, play=play)
            | self._query_view(keep=keep)
        )

    def _refresh_undo(self) -> Change:
        """Undo/redo availability, read from the journal now."""
        try:
            now = self.store.undo_redo()
        except OSError:
            now = (False, False)
        return self._set_undo(now)

    def _set_undo(self, now: tuple[bool, bool]) -> Change:
        before = (self.can_undo, self.can_redo)
        self.can_undo, self.can_redo = now
        return Change(undo=now != before)

    # ------------------------------------------------------------------ view
    def _reapply(self, keep: str | None) -> Change:
        if self.listing.paged:
            return self._query_view(keep)
        self.listing.apply(self.view)
        return Change(view=True, cursor=keep, status=True)

    def _query_view(self, keep: str | None) -> Change:
        """Ask the stored index for the view (a paged listing): in :attr:`view_runner`'s
        thread when there is one, the newest query winning (an older one still waiting
        is skipped, one answering late is dropped); the list keeps showing what it shows
        until the answer comes."""
        self._view_seq += 1
        seq = self._view_seq
        settings = replace(self.view)
        now = self.listing.decisions
        decisions = Decisions(dict(now.picks), dict(now.rejects))
        marks = dict(self.listing.marks)
        moves = self._moves
        listing = self.listing

        def query() -> list[str] | None:
            with self._view_lock:  # one at a time: the next one waiting may be stale
                if seq != self._view_seq:
                    return None
                return listing.paged_view(settings, decisions, marks)

        def done(view: list[str] | None) -> Change:
            if seq != self._view_seq or listing is not self.listing:
                return Change()
            self._view_shown = seq
            if view is None:  # the index is gone (being rebuilt): the next load asks again
                return Change(status=True)
            listing.set_view(view, settings.query.lower().split())
            # The row moved to since the view was asked for wins over the one kept then.
            cursor = keep if moves == self._moves else self.cursor
            return Change(view=True, cursor=cursor, status=True)

        if self.view_runner is None:
            return done(query())
        self.view_runner(query, done)
        return Change(status=True)

    @property
    def view_pending(self) -> bool:
        """A paged view was asked for and its answer is not shown yet."""
        return self._view_seq != self._view_shown

    def _save_view(self) -> Change:
        try:
            self.store.set_view(self.view.to_dict())
        except (OSError, ValueError) as exc:
            return Change(status=True, error=f"View settings not saved: {exc}")
        return Change(status=True)

    def set_query(self, query: str) -> Change:
        if query == self.view.query:
            return Change()
        self.view.query = query
        return self._reapply(keep=self.cursor) | self._save_view()

    def cycle_status(self) -> Change:
        self.view.cycle_status()
        return self._reapply(keep=self.cursor) | self._save_view()

    def cycle_sort(self) -> Change:
        sort = self.view.cycle_sort(self.sorts)
        return (
            self._reapply(keep=self.cursor) | Change(notices=(f"Sort: {sort}",)) | self._save_view()
        )

    def toggle_autoplay(self) -> Change:
        self.view.autoplay = not self.view.autoplay
        notice = f"Autoplay {'on' if self.view.autoplay else 'off'}"
        return Change(notices=(notice,)) | self._save_view()

    def toggle_loop(self) -> Change:
        self.view.loop = not self.view.loop
        return Change(player=True) | self._save_view()

    def step_volume(self, direction: int) -> Change:
        return self.set_volume(self.view.volume_db + direction * VOLUME_STEP_DB)

    def set_volume(self, volume_db: float) -> Change:
        low, high = VOLUME_RANGE_DB
        self.view.volume_db = max(low, min(high, volume_db))
        return Change(player=True) | self._save_view()

    def toggle_loudness(self) -> Change:
        self.view.loudness_match = not self.view.loudness_match
        return Change(player=True) | self._save_view()

    def toggle_skip_silence(self) -> Change:
        """Previews start at the first sound, or at 0 (placements and mixes never skip)."""
        self.view.skip_silence = not self.view.skip_silence
        said = "from the first sound" if self.view.skip_silence else "from 0 (silence kept)"
        return Change(notices=(f"Previews start {said}.",)) | self._save_view()

    def toggle_spectrogram(self) -> Change:
        self.view.spectrogram = not self.view.spectrogram
        return Change(pane=True) | self._save_view()

    def toggles(self) -> list[str]:
        """The view's active settings, as the status line shows them."""
        return self.view.labels(self.listing.shown())

    def caption(self, sound_id: str) -> str:
        """The row's caption as dialogs and notices name it: whole (they wrap), but cut by
        terminal cells at :data:`CAPTION_CELLS` (a caption is data, of any length)."""
        row = self.listing.rows.get(sound_id)
        return cut(row.caption if row and row.caption else sound_id, CAPTION_CELLS)

    # ------------------------------------------------------------------ outside changes
    def check_outside(self) -> Outside | None:
        """(Poll worker.) What changed on disk since we last looked (see
        :func:`~foley_tui.audition.outside.read_outside`); None when nothing did."""
        return read_outside(
            self.store, self._watch, self.listing.rows, self.generation, paged=self.listing.paged
        )

    def apply_outside(self, outside: Outside) -> Change:
        """Merge what another process wrote, keeping the cursor on its row."""
        if outside.generation != self.generation:
            return Change()  # we wrote meanwhile: the next poll looks again
        self._watch.accept(outside.snapshot)
        changed = merge_decisions(self.listing.decisions, outside)
        marked = merge_marks(self.listing, outside)
        changed |= marked
        change = self._set_undo(outside.undo) if outside.undo is not None else Change()
        change |= Change(problems=outside.problems)
        regroup = False
        if outside.rows is not None:
            self.listing.set_rows(outside.rows)
            change |= Change(data=True, candidates=True)
        if outside.ids is not None:  # a paged list: the candidates changed in its index
            self.listing.set_paged(outside.ids)
            change |= Change(data=True, candidates=True)
        if outside.events is not None and self.listing.events_read:
            regroup = self.listing.update_events(outside.events)  # a changed event
            if regroup:
                change |= Change(data=True)
        # A ghost pick (no cached candidate) the agent added or dropped is shown or goes.
        ghosts = any(self.listing.is_ghost(sid) for sid in changed)
        if (
            outside.rows is not None
            or outside.ids is not None
            or regroup
            or marked
            or (changed and (ghosts or self._view_depends_on_decisions()))
        ):
            change |= self._reapply(keep=self.cursor)
        if changed:
            change |= Change(rows=frozenset(changed), status=True, details=self.cursor in changed)
        return change

    def _view_depends_on_decisions(self) -> bool:
        return self.view.status_filter != "all" or self.view.sort in ("layer", "onset")


def _values_of(values: Mapping[str, Any]) -> Callable[[], Mapping[str, Any]]:
    """A sort's provider of values known already."""
    return lambda: values
