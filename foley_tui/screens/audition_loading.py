"""Loading a session and following other writers (the audition screen's IO workers).

The load worker lists ids first (an instant first paint), then fills every column from
the index; the poll worker checks a cheap change token and re-reads only what changed on
disk. Workers never touch widgets: they post messages the main thread applies.
"""

from __future__ import annotations

import os
import time

from textual import work

from foley_tui.messages import IdsListed, LoadProgress, RowsLoaded, RowsParsed, StoreChanged
from foley_tui.model import Row
from foley_tui.screens.audition_base import AuditionBase


class SessionLoading(AuditionBase):
    """Load the session in a worker, then poll for changes made by other processes."""

    @work(thread=True, group="load", exclusive=True, exit_on_error=False, name="load session")
    def _load(self) -> None:
        """First paint from the stored index when its names still match the folder (all
        columns at once), else from the file names; then the exact, validated rows."""
        store = self.store
        quick = store.quick_rows()
        if quick is not None:
            ids = [row.sound_id for row in quick]
            self.post_message(IdsListed(ids, store.picks(), store.rejects(), rows=quick))
        else:
            self.post_message(IdsListed(store.candidate_ids(), store.picks(), store.rejects()))
        # Let the main thread paint the rows before this thread competes for the GIL
        # with seconds of index work.
        self._painted.wait(timeout=1.0)
        # Taken before the rows are read, so a write during the load shows on the next poll.
        token = store.change_token()
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= 0.05 or done >= total:
                last = now
                self.post_message(LoadProgress(done, total))

        self._stamp = self._candidates_stamp()

        def parsed(batch: list[Row]) -> None:
            self.post_message(RowsParsed(batch))

        rows = store.rows(progress=progress, partial=parsed)
        problems = [str(p) for p in store.problems()]
        self._token = token
        generation = self._generation
        message = RowsLoaded(rows, problems, store.picks(), store.rejects())
        message.generation = generation
        self.post_message(message)

    def on_ids_listed(self, message: IdsListed) -> None:
        if message.rows is not None:
            self.listing.set_rows(message.rows)
            self._loading = f"checking {len(message.ids):,} files"
        else:
            self.listing.set_ids(list(message.ids))
            self._loading = f"columns 0/{len(message.ids):,}"
        self.listing.decisions.picks = dict(message.picks)
        self.listing.decisions.rejects = dict(message.rejects)
        self._reapply(keep=self._restore_cursor)
        self.call_after_refresh(self._painted.set)

    def on_load_progress(self, message: LoadProgress) -> None:
        if not self._loaded:
            self._loading = f"columns {message.done:,}/{message.total:,}"
            self._update_status()

    def on_rows_parsed(self, message: RowsParsed) -> None:
        if not self._loaded:  # a late batch must not overwrite the final rows
            self.listing.add_rows(message.rows)
            self.candidate_list.refresh_rows()

    def on_rows_loaded(self, message: RowsLoaded) -> None:
        # Until the user moves, the restored cursor (or the top) wins over whatever row the
        # provisional file-name order put under the cursor.
        keep = self.current_id if self._user_moved else self._restore_cursor
        self.listing.set_rows(message.rows)
        if message.generation == self._generation:  # else our own newer decisions win
            self.listing.decisions.picks = dict(message.picks)
            self.listing.decisions.rejects = dict(message.rejects)
        self._loaded = True
        self._loading = ""
        self._reapply(keep=keep)
        self._report_problems(message.problems)
        self.set_interval(self.settings.poll_interval_s, self._poll_tick)

    def _report_problems(self, problems: list[str]) -> None:
        new = [p for p in problems if p not in self._problems_seen]
        self._problems_seen.update(new)
        if new:
            shown = "\n".join(new[:5]) + (f"\n… and {len(new) - 5} more" if len(new) > 5 else "")
            self.notify(
                shown,
                title=f"{len(new)} unreadable entr{'y' if len(new) == 1 else 'ies'}",
                severity="warning",
                timeout=10,
            )

    def _poll_tick(self) -> None:
        if not any(w.group == "poll" and w.is_running for w in self.workers):
            self._poll()

    @work(thread=True, group="poll", exit_on_error=False, name="watch session")
    def _poll(self) -> None:
        """Cheap check (a few stats); re-read only when something changed on disk."""
        generation = self._generation
        token = self.store.change_token()
        if token == self._token:
            return
        picks = self.store.picks()
        rejects = self.store.rejects()
        stamp = self._candidates_stamp()
        rows: list[Row] | None = None
        if stamp is None or stamp != self._stamp or self.listing.total <= 5000:
            # Re-listing a big session costs seconds: only when candidates were added or
            # removed (the folder changed), not after every pick.
            rows = self.store.rows()
            current = self.listing.rows
            if len(rows) == len(current) and all(current.get(r.sound_id) == r for r in rows):
                rows = None
        self._stamp = stamp
        problems = [str(p) for p in self.store.problems()]
        self.post_message(StoreChanged(token, generation, rows, picks, rejects, problems))

    def _candidates_stamp(self) -> int | None:
        """The mtime of foley's ``candidates/`` folder (changes when a file is added or
        removed); None when the store is not on disk."""
        data_dir = self.store.data_dir
        if data_dir is None:
            return None
        folder = data_dir / "sessions" / self.store.session_id / "candidates"
        try:
            return os.stat(folder).st_mtime_ns
        except OSError:
            return None

    def on_store_changed(self, message: StoreChanged) -> None:
        if message.generation != self._generation:
            return  # we wrote meanwhile: our state is newer; the next poll re-reads
        self._token = message.token
        keep = self.current_id
        self.listing.decisions.picks = dict(message.picks)
        self.listing.decisions.rejects = dict(message.rejects)
        if message.rows is not None:
            self.listing.set_rows(message.rows)
            self._candidates.clear()
            self._sources.clear()
            self._prefetched = (None, None)
        self._refresh_undo()
        self._reapply(keep=keep)
        self._report_problems(message.problems)
