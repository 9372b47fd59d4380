"""SessionLoader: load a session, then follow other writers (the audition screen's IO).

A plain object the screen composes. The first paint is the opening's page (read since the
app started, :mod:`foley_tui.audition.opening`) or, without a stored index, the ids; the
load worker then brings the whole list, every file checked; the poll worker asks the
model to compare the session's files with what it knows, per file, and to read only what
changed. Workers never touch widgets: they post messages the screen hands to the model.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual.worker import get_current_worker

from foley_tui.audition.events import EVENT_SCAN_LIMIT
from foley_tui.audition.model import AuditionModel
from foley_tui.audition.opening import OpeningRead
from foley_tui.domain import Row
from foley_tui.screens.audition.reports import (
    EventsRead,
    IdsListed,
    LoadProgress,
    OutsideChanged,
    RowsLoaded,
    RowsParsed,
    SessionOpened,
    StoreReachability,
    UndoRead,
)

if TYPE_CHECKING:
    from foley_tui.screens.audition.screen import AuditionScreen
    from foley_tui.store.history import LedgerWatch


class SessionLoader:
    """The load worker and the poll worker of one audition screen."""

    def __init__(self, screen: AuditionScreen, model: AuditionModel, opening: OpeningRead) -> None:
        self.screen = screen
        self.model = model
        self.opening = opening
        """The session's settings and first page, being read since the app started."""
        self.opened = False
        """Set (by the screen) once the opening was applied."""
        self.painted = threading.Event()
        """Set once the first rows are on screen (the load worker waits for it)."""

    def start(self) -> None:
        self.screen.run_worker(
            self._load,
            thread=True,
            group="load",
            exclusive=True,
            exit_on_error=False,
            name="load session",
        )

    def _load(self) -> None:
        """First paint: the opening's page from the stored index when there is one (the
        whole list then comes with every file checked), else the index's rows when its
        names still match the folder, else the file names; then the exact rows."""
        store = self.model.store
        post = self.screen.post_message
        opening = self.opening.wait()
        assert opening is not None  # wait() without a timeout returns it
        if not self.opened:  # the screen mounted before it was read
            post(SessionOpened(opening))
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
        # with seconds of index work.
        self.painted.wait(timeout=1.0)
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
        # Now, not at the first paint: importing (dol, ~65 ms) holds the import lock the
        # UI thread may need to paint (measured: the first frame reached the terminal
        # ~150 ms later when this ran right after it).
        warm = getattr(store, "warm", None)
        if callable(warm):
            warm()
        if len(rows) <= EVENT_SCAN_LIMIT:
            events = {}
            for row in rows:
                candidate = store.candidate(row.sound_id)
                event = candidate.get("event") if candidate is not None else None
                if isinstance(event, Mapping):
                    events[row.sound_id] = event
            if events:
                post(EventsRead(events))

    def loaded(self) -> None:
        """The rows are in: start following other writers. A store with a change feed
        (Redis) is followed with blocking reads, no polling; files are polled."""
        make_feed = getattr(self.model.store, "change_feed", None)
        if callable(make_feed):
            self.screen.run_worker(
                lambda: self._follow(make_feed()),
                thread=True,
                group="follow",
                exit_on_error=False,
                name="follow session",
            )
            return
        self.screen.set_interval(self.screen.settings.poll_interval_s, self._tick)

    def _follow(self, feed: Any) -> None:
        """(Worker.) Wake on each change of the shared session; say when the server goes
        away and comes back (then catch up)."""
        worker = get_current_worker()
        try:
            while not worker.is_cancelled:
                change = feed.wait()
                if change.kind in ("down", "up"):
                    self.screen.post_message(StoreReachability(change.kind == "up", change.error))
                if change.kind in ("changed", "up"):
                    try:
                        self._poll()
                    except OSError as exc:  # went down between the wake-up and the read
                        self.screen.post_message(StoreReachability(False, str(exc)))
        finally:
            feed.close()

    def _tick(self) -> None:
        if not any(w.group == "poll" and w.is_running for w in self.screen.workers):
            self.screen.run_worker(
                self._poll, thread=True, group="poll", exit_on_error=False, name="watch session"
            )

    def _poll(self) -> None:
        """A few scans; files are read only when they changed since we last looked."""
        outside = self.model.check_outside()
        if outside is not None:
            self.screen.post_message(OutsideChanged(outside))

    def poll_ledger(self, watch: LedgerWatch) -> None:
        """Messages and spend written by another process: a stat of each file, the new
        lines when it moved, in a worker (one at a time); the screen hears of a change."""
        screen = self.screen
        if any(w.group == "ledger" and w.is_running for w in screen.workers):
            return

        def work() -> None:
            try:
                messages, usage = watch.poll()
            except OSError:
                return  # a transient read error: the next tick tries again
            if messages or usage:
                with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                    screen.app.call_from_thread(screen.ledger_changed, messages, usage)

        screen.run_worker(work, thread=True, group="ledger", exit_on_error=False, name="ledger")
