"""SessionLoader: load a session, then follow other writers (the audition screen's IO).

A widget with nothing to draw that the screen composes. The first paint is the opening's
page (read since the app started, :mod:`foley_tui.audition.opening`) or, without a stored
index, the ids; the load worker then brings the whole list, every file checked; the poll
worker asks the model to compare the session's files with what it knows, per file, and
to read only what changed; the ledger worker follows the conversation and the agent's
spend. Workers never touch widgets: they post messages to this widget, which hands them
to the model and the model's :class:`~foley_tui.audition.change.Change` to the screen's
``apply``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from textual import work
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from foley_tui.audition.change import Change
from foley_tui.audition.events import EVENT_SCAN_LIMIT
from foley_tui.audition.model import AuditionModel
from foley_tui.audition.opening import Opening, OpeningRead
from foley_tui.config import Settings
from foley_tui.domain import Candidate, Row
from foley_tui.screens.audition.reports import (
    EventsRead,
    FileColumnsRead,
    FollowBroken,
    IdsListed,
    IdsPaged,
    LoadProgress,
    MarksRead,
    OutsideChanged,
    RowsLoaded,
    RowsParsed,
    SessionOpened,
    StoreReachability,
    UndoRead,
    worker_failure,
)
from foley_tui.startup import resume_gc

if TYPE_CHECKING:
    from foley_tui.store.backend import Feed
    from foley_tui.store.history import LedgerWatch


#: The longest the load waits for the first rows to be on screen. A bound for a screen
#: that is never drawn, not a time to expect: on a loaded machine the first paint can
#: come seconds after the load starts, and starting the load's folder listings then would
#: slow the paint down by as much.
PAINT_WAIT_S = 10.0


class SessionLoader(Widget):
    """The load, poll and ledger workers of one audition screen."""

    DEFAULT_CSS = "SessionLoader { display: none; }"

    def __init__(
        self,
        model: AuditionModel,
        opening: OpeningRead,
        settings: Settings,
        *,
        apply: Callable[[Change], None],
    ) -> None:
        """``apply``: the screen's one way to show a Change."""
        super().__init__()
        self.model = model
        self.opening = opening
        """The session's settings and first page, being read since the app started."""
        self.settings = settings
        self.apply = apply
        self.opened = False
        """Set once the opening was applied."""
        self.painted = threading.Event()
        """Set once the first rows are on screen (the load worker waits for it)."""
        self._ledger_watch: LedgerWatch | None = None
        self._polling = False
        """Set once the whole list is in and the session's files are polled."""

    def start(self) -> None:
        """The first frame: the opening when it was read by now (else it comes as
        :class:`SessionOpened`), then the load worker."""
        opening = self.opening.ready()
        if opening is not None:
            self.open(opening)
        else:
            self.apply(Change(status=True))
        self._load()

    def open(self, opening: Opening) -> None:
        """Apply the session's settings and first page."""
        self.opened = True
        self.apply(self.model.open(opening))
        if opening.page is not None:
            self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        """The rows are on screen: the load worker may go on, and the collector paused for
        start-up resumes (see :mod:`foley_tui.startup`)."""
        self.painted.set()
        resume_gc(freeze=True)

    @work(thread=True, group="load", exclusive=True, exit_on_error=False, name="load session")
    def _load(self) -> None:
        """First paint: the opening's page from the stored index when there is one (the
        whole list then comes with every file checked), else the index's rows when its
        names still match the folder, else the file names; then the exact rows."""
        store = self.model.store
        post = self.post_message
        opening = self.opening.wait()
        assert opening is not None  # wait() without a timeout returns it
        if not self.opened:  # the screen mounted before it was read
            post(SessionOpened(opening))
        # Before the rows: a hidden row never shows (marks are one small read). Unreadable
        # now: the list shows every row, and the next poll tries again.
        with contextlib.suppress(OSError):
            post(MarksRead(store.marks(), self.model.generation))
        if self.model.pages and self._load_paged(opening):
            return
        if opening.page is None:
            # The opening read the decisions when the saved view was one to page.
            if opening.decided:
                picks, rejects = opening.picks, opening.rejects
            else:
                picks, rejects = store.picks(), store.rejects()
            quick = store.quick_rows()
            if quick is not None:
                ids = [row.sound_id for row in quick]
                post(IdsListed(ids, picks, rejects, rows=quick))
            else:
                post(IdsListed(store.candidate_ids(), picks, rejects))
        # Let the main thread paint the rows before this thread competes for the GIL
        # with seconds of index work (the change token below lists the whole folder).
        self.painted.wait(timeout=PAINT_WAIT_S)
        generation = self.model.generation
        try:
            can_undo, can_redo = store.undo_redo()  # the whole journal, once
        except OSError:
            can_undo = can_redo = False  # unreadable now: nothing offered
        post(UndoRead(can_undo, can_redo, generation))
        # Taken before the rows are read, so a write during the load shows on the next poll.
        self.model.begin_load()
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= 0.05 or done >= total:
                last = now
                post(LoadProgress(done, total))

        def parsed(batch: list[Row]) -> None:
            post(RowsParsed(batch))

        rows = store.rows(progress=progress, partial=parsed)
        problems = [str(p) for p in store.problems()]
        generation = self.model.generation  # a decision made after this wins over the read
        message = RowsLoaded(rows, problems, store.picks(), store.rejects())
        message.generation = generation
        post(message)
        # Now, not at the first paint: importing dol takes long enough, holding the
        # import lock the UI thread may need to paint, to delay the first frame when it
        # ran right after it.
        store.warm()
        if len(rows) <= EVENT_SCAN_LIMIT:
            events = {}
            columns: dict[str, tuple[str, str, str, int | None]] = {}
            for row in rows:
                candidate = store.candidate(row.sound_id)
                if candidate is None:
                    continue
                event = candidate.get("event")
                if isinstance(event, Mapping):
                    events[row.sound_id] = event
                cand = Candidate(candidate)
                folder, name = cand.file_place
                columns[row.sound_id] = (name, folder, cand.ucs_category, cand.bit_depth)
            if events:
                post(EventsRead(events))
            post(FileColumnsRead(columns))

    def _load_paged(self, opening: Opening) -> bool:
        """(Load worker.) A list that pages its rows in: every file checked and the
        stored index brought up to date, then the ids of the whole list, no row held.
        False when the store keeps no index to page from (the whole list is loaded)."""
        store = self.model.store
        if opening.page is not None:
            # Let the main thread paint the first page before this thread competes
            # for the GIL with the check of every file.
            self.painted.wait(timeout=PAINT_WAIT_S)
        self.model.begin_load()  # before the files are checked: a write meanwhile is polled
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= 0.05 or done >= total:
                last = now
                self.post_message(LoadProgress(done, total))

        if store.verify(progress=progress) is None:
            return False
        ids = store.view_ids() or []
        generation = self.model.generation  # a decision made after this wins over the read
        problems = [str(p) for p in store.problems()]
        self.post_message(IdsPaged(ids, problems, store.picks(), store.rejects(), generation))
        try:
            can_undo, can_redo = store.undo_redo()  # the whole journal, once
        except OSError:
            can_undo = can_redo = False
        self.post_message(UndoRead(can_undo, can_redo, generation))
        store.warm()
        return True

    # -- what the workers report ------------------------------------------------------
    def on_session_opened(self, message: SessionOpened) -> None:
        self.open(message.opening)

    def on_ids_listed(self, message: IdsListed) -> None:
        m = message
        self.apply(self.model.listed(m.ids, m.picks, m.rejects, m.rows))
        self.call_after_refresh(self._painted)

    def on_marks_read(self, message: MarksRead) -> None:
        self.apply(self.model.marks_read(message.marks, message.generation))

    def on_undo_read(self, message: UndoRead) -> None:
        m = message
        self.apply(self.model.undo_read(m.can_undo, m.can_redo, m.generation))

    def on_load_progress(self, message: LoadProgress) -> None:
        self.apply(self.model.progress(message.done, message.total))

    def on_rows_parsed(self, message: RowsParsed) -> None:
        self.apply(self.model.rows_parsed(message.rows))

    def on_rows_loaded(self, message: RowsLoaded) -> None:
        m = message
        self.apply(self.model.loaded_rows(m.rows, m.picks, m.rejects, m.problems, m.generation))
        self._follow_writers()

    def on_ids_paged(self, message: IdsPaged) -> None:
        m = message
        self.apply(self.model.paged_loaded(m.ids, m.picks, m.rejects, m.problems, m.generation))
        if not self.painted.is_set():
            self.call_after_refresh(self._painted)
        self._follow_writers()

    def on_events_read(self, message: EventsRead) -> None:
        self.apply(self.model.events_loaded(message.events))

    def on_file_columns_read(self, message: FileColumnsRead) -> None:
        self.apply(self.model.file_columns_read(message.columns))

    def on_outside_changed(self, message: OutsideChanged) -> None:
        self.apply(self.model.apply_outside(message.outside))

    def on_store_reachability(self, message: StoreReachability) -> None:
        """The shared store went down or came back: say so; the screen stays as it is
        (a decision meanwhile is refused with the store's own message). Sources resolved
        while it was down said "unreachable": they are forgotten when it is back."""
        self.model.store_down = "" if message.up else self.model.store.label + " down"
        self.apply(Change(status=True, candidates=message.up))
        if message.up:
            self.notify("The session store is reachable again.", title="Store back", timeout=4)
        else:
            self.notify(
                f"{message.error or 'the store is unreachable'}. Decisions are refused until "
                "it is back; reconnecting by itself.",
                title="Store unreachable",
                severity="error",
                timeout=10,
            )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        failure = worker_failure(event)
        if failure is not None:
            self.notify(failure, severity="error", timeout=8)
            if event.worker.group == "load":
                self.model.loading = "load failed"
                self.apply(Change(status=True))

    # -- following other writers ------------------------------------------------------
    def _follow_writers(self) -> None:
        """The rows are in: start following other writers. A store with a change feed
        (Redis) is followed with blocking reads, no polling; files are polled."""
        feed = self.model.store.change_feed()
        if feed is not None:
            self._follow(feed)
            return
        self._polling = True
        self.set_interval(self.settings.poll_interval_s, self._tick)

    @work(thread=True, group="follow", exit_on_error=False, name="follow session")
    def _follow(self, feed: Feed) -> None:
        """Wake on each change of the shared session; say when the server goes away and
        comes back (then catch up)."""
        worker = get_current_worker()
        try:
            while not worker.is_cancelled:
                change = feed.wait()
                if change.kind == "broken":
                    self.post_message(FollowBroken(change.error or "the change stream"))
                    return
                if change.kind in ("down", "up"):
                    self.post_message(StoreReachability(change.kind == "up", change.error))
                if change.kind in ("changed", "up"):
                    try:
                        self._check_outside()
                    except OSError as exc:  # went down between the wake-up and the read
                        self.post_message(StoreReachability(False, str(exc)))
        finally:
            feed.close()

    def on_follow_broken(self, message: FollowBroken) -> None:
        """The change stream cannot be read: say which key, and poll instead."""
        self.notify(message.error, title="Store data", severity="error", timeout=10)
        self.set_interval(self.settings.poll_interval_s, self._tick)

    def _tick(self) -> None:
        if not any(w.group == "poll" and w.is_running for w in self.workers):
            self._poll()

    def poll_now(self) -> None:
        """Look for other writers' changes now (another part of the app knows the files
        changed). Before the whole list is in, the load's own read is the look: the poll
        starts after it (a poll's rows then could be overwritten by the load's older ones)."""
        if self._polling:  # a change feed (Redis) brings changes by itself
            self._tick()

    @work(thread=True, group="poll", exit_on_error=False, name="watch session")
    def _poll(self) -> None:
        self._check_outside()

    def _check_outside(self) -> None:
        """A few scans; files are read only when they changed since we last looked."""
        outside = self.model.check_outside()
        if outside is not None:
            self.post_message(OutsideChanged(outside))

    # -- the conversation and the agent's spend ----------------------------------------
    @property
    def ledger_watch(self) -> LedgerWatch:
        """The conversation and spend the screen shows (details, status line); made by
        the first poll, after the first frame (its modules are not needed before)."""
        if self._ledger_watch is None:
            from foley_tui.store.history import LedgerWatch

            self._ledger_watch = LedgerWatch(self.model.store)
        return self._ledger_watch

    @property
    def spent_usd(self) -> float:
        """The agent's spend as last polled (none before the first poll)."""
        return self._ledger_watch.usage.cost_usd if self._ledger_watch is not None else 0.0

    def poll_ledger(self) -> None:
        """Messages and spend written by another process: a stat of each file, the new
        lines when it moved, in a worker (one at a time)."""
        if not any(w.group == "ledger" and w.is_running for w in self.workers):
            self._read_ledger(self.ledger_watch)

    @work(thread=True, group="ledger", exit_on_error=False, name="ledger")
    def _read_ledger(self, watch: LedgerWatch) -> None:
        try:
            messages, usage = watch.poll()
        except OSError:
            return  # a transient read error: the next tick tries again
        if messages or usage:
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                self.app.call_from_thread(self.apply, Change(details=messages, status=usage))
