"""The ``=`` key's search: rank the session against the highlighted candidate in a
worker, then open :class:`~foley_tui.screens.audition.similar.SimilarScreen`.

A line the screen composes above its status line, hidden but while a search analyses:
it runs its own worker, which posts :class:`SimilarFound` to it. The first search of a
session analyses every candidate's audio (once: the features are cached by content
hash), so it runs off the UI thread and shows a progress bar meanwhile
(:class:`SimilarProgress`); the view's module is imported only then (nothing of it is
needed to start).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from foley_tui.audition.model import AuditionModel
from foley_tui.screens.audition.reports import SimilarFound, SimilarProgress, worker_failure

if TYPE_CHECKING:
    from foley_tui.screens.audition.preview import Previewer

#: How many neighbours the view lists.
SHOWN = 20
#: Progress updates sent per second at most (each crosses from the worker to the UI).
PROGRESS_PER_S = 8


class SimilarSearch(Widget):
    """Starts the search and shows its answer, for one audition screen."""

    DEFAULT_CSS = """
    SimilarSearch { display: none; height: 1; layout: horizontal; padding: 0 1;
                    background: $panel; }
    SimilarSearch > Static { width: auto; color: $text-muted; padding-right: 1; }
    SimilarSearch > ProgressBar { width: 1fr; }
    """

    def __init__(
        self, model: AuditionModel, previewer: Previewer, highlight: Callable[[str], None]
    ) -> None:
        """``highlight``: puts the list's cursor on a sound (Enter in the view)."""
        super().__init__()
        self.model = model
        self.previewer = previewer
        self.highlight = highlight

    def compose(self) -> ComposeResult:
        # The bar is mounted only while a search analyses: a mounted ProgressBar runs
        # timers of its own (its ETA clock; its animation while it has no total), shown
        # or not, and an idle screen should wake for nothing.
        yield Static("", id="similar-label")

    def _drop_bar(self) -> None:
        for bar in self.query(ProgressBar):
            bar.remove()

    def start(self, sound_id: str | None) -> None:
        if sound_id is None:
            return
        store, ids = self.model.store, list(self.model.listing.rows)
        caption = self.model.caption(sound_id)
        self.notify(f"Comparing {len(ids)} sounds with {caption}…", timeout=3)

        def work() -> None:
            from foley_tui.audition.similar import SimilarError, find_similar

            worker = get_current_worker()
            shown = 0.0

            def progress(done: int, total: int) -> None:
                nonlocal shown
                now = time.monotonic()
                if done in (0, total) or now - shown >= 1 / PROGRESS_PER_S:
                    shown = now
                    self.post_message(SimilarProgress(done, total))

            try:
                result = find_similar(
                    store,
                    sound_id,
                    k=SHOWN,
                    ids=ids,
                    progress=progress,
                    cancelled=lambda: worker.is_cancelled,
                )
            except SimilarError as exc:
                self.post_message(SimilarFound(sound_id, None, str(exc)))
                return
            if not worker.is_cancelled:
                self.post_message(SimilarFound(sound_id, result, None))

        self.run_worker(
            work, thread=True, group="similar", exclusive=True, exit_on_error=False, name="similar"
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state in (WorkerState.ERROR, WorkerState.CANCELLED):
            self.display = False
            self._drop_bar()
        failure = worker_failure(event)
        if failure is not None:
            self.notify(failure, severity="error", timeout=8)

    def on_similar_progress(self, message: SimilarProgress) -> None:
        """Features are being computed: the bar shows how far (only the first search
        of a session's sounds analyses them; later ones read the cache)."""
        running = message.done < message.total
        self.display = running
        self.query_one("#similar-label", Static).update(
            f"Find similar: analysing {message.done:,} of {message.total:,} sounds (once)"
        )
        if not running:
            self._drop_bar()
            return
        bars = self.query(ProgressBar)
        if bars:
            bar = bars.first()
        else:
            bar = ProgressBar(total=message.total, show_eta=False, id="similar-progress")
            self.mount(bar)
        bar.update(total=message.total, progress=message.done)

    def on_similar_found(self, message: SimilarFound) -> None:
        self.display = False
        self._drop_bar()
        if message.result is None:
            self.notify(message.error or "no answer", title="Similar", severity="warning")
            return
        from foley_tui.screens.audition.similar import SimilarScreen

        def closed(sound_id: str | None) -> None:
            if sound_id is None:
                return
            if sound_id not in self.model.listing.view:
                self.notify("That sound is not in this view (filter).", timeout=3)
            self.highlight(sound_id)

        rows = self.model.listing.rows
        self.app.push_screen(SimilarScreen(message.result, rows, self.previewer), closed)
