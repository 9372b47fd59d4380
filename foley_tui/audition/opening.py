"""Opening a session: what its first frame needs, read off the UI thread.

The session's settings (title, saved cursor, view) and, when the session has a stored
index, the screen of its saved view around the saved
cursor (:meth:`SessionStore.page`: the same work at 1k or 100k candidates) with the picks
and rejects. :class:`OpeningRead` reads all this in a thread started with the app, so the
read overlaps Textual's own start-up and the first frame can already show the rows; a
screen that mounts before it is done gets it from its load worker instead. Recording the
session as opened (the one that ``foley-tui`` resumes) happens here too. Undo availability
is not part of it: a long journal is read whole once (seconds at 100k entries), after the
first paint (the loader's worker).

Headless: never imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from foley_tui.audition.listing import ViewSettings
from foley_tui.domain import Pick, Reject
from foley_tui.store import SessionMeta, SessionStore
from foley_tui.store.index_db import STATUS_FILTERS as PAGED_STATUS
from foley_tui.store.index_db import Page

FIRST_PAGE_ROWS = 240
"""Rows of the first paint from the stored index: a tall terminal's screen, with room to
move a few pages either way before the whole list is in."""


@dataclass
class Opening:
    """What the first frame of a session needs (see the module docstring)."""

    meta: SessionMeta | None = None
    notices: list[str] = field(default_factory=list)
    """Why something could not be read or recorded (the session opens anyway)."""
    page: Page | None = None
    """The first screen from the stored index; None without a usable index or for a view
    the index cannot order (then the whole list is the first paint)."""
    picks: dict[str, Pick] = field(default_factory=dict)
    rejects: dict[str, Reject] = field(default_factory=dict)
    decided: bool = False
    """``picks`` and ``rejects`` were read (for the page; the load reuses them when the
    index gave no page, so a first paint reads the decisions once)."""

    @classmethod
    def read(cls, store: SessionStore) -> Opening:
        """Read it now (the thread of :class:`OpeningRead`, or a headless caller)."""
        opening = cls()
        try:
            opening.meta = store.meta()
        except Exception as exc:  # a torn metadata file must not stop the session opening
            opening.notices.append(f"Session settings unreadable: {exc}")
        try:
            store.mark_opened()  # makes this the session `foley-tui` resumes
        except OSError as exc:
            opening.notices.append(f"Could not record the session as opened: {exc}")
        meta = opening.meta
        view = ViewSettings.from_dict(meta.view, ViewSettings()) if meta else ViewSettings()
        if pageable(view):
            # Read once: the page's status filter and sorts need them, and so does the
            # first paint.
            opening.picks, opening.rejects = store.picks(), store.rejects()
            opening.decided = True
            opening.page = first_page(
                store, view, meta.cursor if meta else None, opening.picks, opening.rejects
            )
        return opening


def pageable(view: ViewSettings) -> bool:
    """Whether the stored index can order and filter ``view`` (onset order puts anchors
    apart from numbers; the event filter needs the candidates' events)."""
    return view.status_filter in PAGED_STATUS and view.sort != "onset"


def first_page(
    store: SessionStore,
    view: ViewSettings,
    cursor: str | None,
    picks: Mapping[str, Pick],
    rejects: Mapping[str, Reject],
) -> Page | None:
    """The screen of ``view`` around ``cursor`` from the stored index, or None."""
    try:
        return store.page(
            sort=view.sort,
            status=view.status_filter,
            query=view.query,
            limit=FIRST_PAGE_ROWS,
            around=cursor,
            picks=picks,
            rejects=rejects,
        )
    except (OSError, ValueError):
        return None


class OpeningRead:
    """:meth:`Opening.read` in a background thread, started at once."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._done = threading.Event()
        self._opening: Opening | None = None
        self._thread = threading.Thread(target=self._run, name="open session", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._opening = Opening.read(self.store)
        except Exception as exc:  # never leave the screen waiting: open with defaults
            self._opening = Opening(notices=[f"Session could not be opened fully: {exc}"])
        finally:
            self._done.set()

    def ready(self) -> Opening | None:
        """The opening if it has been read (never waits: the UI thread asks this)."""
        return self._opening if self._done.is_set() else None

    def wait(self, timeout: float | None = None) -> Opening | None:
        """Wait for it (a worker's call); None when ``timeout`` passed first."""
        self._done.wait(timeout)
        return self.ready()
