"""The ``=`` key's search: rank the session against the highlighted candidate in a
worker, then open :class:`~foley_tui.screens.audition.similar.SimilarScreen`.

A widget with nothing to draw that the screen composes (like the loader and the
previewer): it runs its own worker, which posts :class:`SimilarFound` to it. The first
search of a session analyses every candidate's audio (once: the features are cached by
content hash), so it runs off the UI thread and says so; the view's module is imported
only then (nothing of it is needed to start).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from foley_tui.audition.model import AuditionModel
from foley_tui.screens.audition.reports import SimilarFound, worker_failure

if TYPE_CHECKING:
    from foley_tui.screens.audition.preview import Previewer

#: How many neighbours the view lists.
SHOWN = 20


class SimilarSearch(Widget):
    """Starts the search and shows its answer, for one audition screen."""

    DEFAULT_CSS = "SimilarSearch { display: none; }"

    def __init__(
        self, model: AuditionModel, previewer: Previewer, highlight: Callable[[str], None]
    ) -> None:
        """``highlight``: puts the list's cursor on a sound (Enter in the view)."""
        super().__init__()
        self.model = model
        self.previewer = previewer
        self.highlight = highlight

    def start(self, sound_id: str | None) -> None:
        if sound_id is None:
            return
        store, ids = self.model.store, list(self.model.listing.rows)
        caption = self.model.caption(sound_id)
        self.notify(f"Comparing {len(ids)} sounds with {caption}…", timeout=3)

        def work() -> None:
            from foley_tui.audition.similar import SimilarError, find_similar

            worker = get_current_worker()
            try:
                result = find_similar(
                    store, sound_id, k=SHOWN, ids=ids, cancelled=lambda: worker.is_cancelled
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
        failure = worker_failure(event)
        if failure is not None:
            self.notify(failure, severity="error", timeout=8)

    def on_similar_found(self, message: SimilarFound) -> None:
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
