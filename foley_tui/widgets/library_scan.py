"""LibraryScan: the progress line of a library folder's scan, which owns the scan.

On mount it walks the folder, reads what changed and caches the changed candidates
(:meth:`foley_tui.library.source.FolderSource.refresh`) in a thread worker, so a huge
folder never blocks the UI; the list fills in meanwhile through the session's own
outside-change watch. It posts :class:`LibraryScan.Scanned` when done and then hides.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from textual import work
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from foley_tui.library.source import FolderSource, RefreshResult

#: Progress lines drawn per second at most (each crosses from the worker to the UI).
PROGRESS_PER_S = 8
#: The longest the scan waits for the list's first paint before it starts anyway (a bound
#: for a list never drawn: on a loaded machine the first paint can take seconds, and the
#: scan's walk and reads would slow it down).
FIRST_PAINT_WAIT_S = 10.0
#: How long the summary stays once the scan is done.
SUMMARY_S = 6.0

_PHASES = {"walk": "listing", "read": "reading", "cache": "caching"}


class LibraryScan(Static):
    """One line: what the scan of the folder is doing, then what it found."""

    DEFAULT_CSS = """
    LibraryScan { height: 1; padding: 0 1; color: $text-muted; background: $panel; }
    """

    class Synced(Message):
        """Candidates were cached: the list may look for them now."""

    class Scanned(Message):
        """The scan finished (``result``) or failed (``error``)."""

        def __init__(self, result: RefreshResult | None, error: str | None = None) -> None:
            super().__init__()
            self.result = result
            self.error = error

    def __init__(
        self,
        source: FolderSource,
        store: Any,
        *,
        after: threading.Event | None = None,
        id: str | None = None,
    ) -> None:
        """``after``: set once the list's first rows are on screen; the scan (seconds of
        Python in a big folder) starts then, so it does not compete with the first paint."""
        super().__init__(f"Scanning {source.root} …", id=id)
        self.source = source
        self.store = store
        self.after = after
        self._shown = 0.0
        self.done = False

    def on_mount(self) -> None:
        self.scan()

    @work(thread=True, group="library", exclusive=True, exit_on_error=False, name="library scan")
    def scan(self) -> None:
        worker = get_current_worker()
        if self.after is not None:
            self.after.wait(timeout=FIRST_PAINT_WAIT_S)

        def progress(phase: str, done: int, total: int) -> None:
            now = time.monotonic()
            if now - self._shown < 1 / PROGRESS_PER_S and done != total:
                return
            self._shown = now
            what = _PHASES.get(phase, phase)
            count = f"{done:,} of {total:,}" if total else f"{done:,}"
            text = f"{self.source.name}: {what} {count} files…"
            self.app.call_from_thread(self.update, text)

        try:
            result = self.source.refresh(
                self.store,
                progress,
                stop=lambda: worker.is_cancelled,
                synced=self._synced,
            )
        except Exception as exc:  # a vanished folder, a full disk: say so, keep the list
            self.post_message(self.Scanned(None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Scanned(result))

    def _synced(self) -> None:
        self.post_message(self.Synced())

    def on_library_scan_scanned(self, message: Scanned) -> None:
        self.done = True
        if message.result is not None:
            self.update(f"{self.source.name}: {message.result.summary()}")
        else:
            self.update(f"{self.source.name}: scan failed ({message.error})")
        self.set_timer(SUMMARY_S, self._hide)

    def _hide(self) -> None:
        self.display = False
