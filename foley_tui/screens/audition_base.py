"""The audition screen's state and the helpers every part of it uses.

:class:`AuditionBase` owns the session state (a :class:`Listing`: rows, decisions, view),
the store and the player; the parts of the screen (loading, details, preview, decisions)
are subclasses of it, put together in :class:`~foley_tui.screens.audition.AuditionScreen`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from textual.screen import Screen
from textual.timer import Timer

from foley_tui.audio.base import Player, Source, Unplayable
from foley_tui.config import Settings
from foley_tui.store import SessionStore
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.listing import Listing, ViewSettings
from foley_tui.widgets.status_line import StatusInfo, StatusLine


class AuditionBase(Screen[None]):
    """Session state, the status line, undo availability and the footer's refresh."""

    _playhead_timer: Timer
    """Set on mount; runs only while something plays."""

    def __init__(self, store: SessionStore, player: Player, settings: Settings) -> None:
        super().__init__()
        self.store = store
        self.player = player
        self.settings = settings
        self.listing = Listing()
        # Textual sets ``-narrow`` / ``-wide`` on the screen from the terminal width; the
        # details pane hides when narrow (app.tcss).
        self.HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (settings.details_min_width, "-wide")]
        self.view_settings = ViewSettings(
            autoplay=settings.autoplay,
            loop=settings.loop,
            volume_db=settings.volume_db,
            loudness_match=settings.loudness_match,
        )
        self.session_title = store.session_id
        self._restore_cursor: str | None = None
        self._loading = "listing…"
        self._loaded = False
        self._token: Hashable | None = None
        self._generation = 0
        """Bumped by every decision we make, so a poll that raced with it is discarded."""
        self._last_toggle: tuple[str, str, float] | None = None
        self._can_undo = False
        self._can_redo = False
        self._candidates: OrderedDict[str, dict[str, Any] | None] = OrderedDict()
        self._sources: OrderedDict[str, Source | Unplayable] = OrderedDict()
        self._playing_id: str | None = None
        self._peaks_for: str | None = None
        self._problems_seen: set[str] = set()
        self._user_moved = False
        self._binding_state: tuple[bool, ...] = ()
        self._details_pending = False
        self._prefetch_pending = False
        self._prefetched: tuple[str | None, str | None] = (None, None)
        """(highlighted, next undecided) last handed to the prefetch worker."""
        self._stamp: int | None = None
        self._painted = threading.Event()
        """Set once the first rows are on screen (the load worker waits for it)."""
        self._audio_checked = False

    # -- state helpers --------------------------------------------------------------
    @property
    def candidate_list(self) -> CandidateList:
        return self.query_one(CandidateList)

    @property
    def current_id(self) -> str | None:
        return self.candidate_list.highlighted if self.is_mounted else None

    def _reapply(self, keep: str | None) -> None:
        """Recompute the view and keep the cursor on ``keep`` when it is still shown (the
        list re-posts ``Highlighted``, which refreshes the details)."""
        self.listing.apply(self.view_settings)
        self.candidate_list.refresh_data(keep=keep)
        self._update_status()

    def _save_view(self) -> None:
        try:
            self.store.set_view(self.view_settings.to_dict())
        except (OSError, ValueError) as exc:
            self.notify(f"View settings not saved: {exc}", severity="error")
        self._update_status()

    def _update_status(self) -> None:
        if not self.is_mounted:
            return
        picked, rejected, undecided, total = self.listing.counts()
        vs = self.view_settings
        view = []
        if vs.query:
            view.append(f'filter "{vs.query}"')
        if vs.status_filter != "all":
            view.append(f"showing {vs.status_filter} ({len(self.listing.view)})")
        elif vs.query:
            view.append(f"{len(self.listing.view)} shown")
        if vs.sort != "rank":
            view.append(f"sort {vs.sort}")
        if vs.autoplay:
            view.append("autoplay")
        if vs.loop:
            view.append("loop")
        if vs.volume_db:
            view.append(f"vol {vs.volume_db:+.0f} dB")
        if vs.loudness_match:
            view.append("LUFS match")
        available = self.player.available
        if self.player.starting:
            device, available = "audio starting…", True
        elif available:
            device = self.player.device_name
        else:
            device = f"no audio: {self.player.unavailable_reason or 'no output device'}"
        self.query_one(StatusLine).show(
            StatusInfo(
                title=self.session_title,
                picked=picked,
                rejected=rejected,
                undecided=undecided,
                total=total,
                cost_usd=self.listing.picks_cost(),
                device=device,
                audio_ok=available,
                loading=self._loading,
                view=" · ".join(view),
            )
        )

    def _refresh_undo(self) -> None:
        try:
            self._can_undo = self.store.can_undo()
            self._can_redo = self.store.can_redo()
        except OSError:
            self._can_undo = self._can_redo = False
        self._bindings_changed()

    def _bindings_changed(self) -> None:
        """Refresh the footer only when what ``check_action`` depends on changed: a footer
        refresh rebuilds its keys, too costly to do on every cursor move."""
        state = (
            self.current_id is not None,
            self._can_undo,
            self._can_redo,
            self.player.status().source is not None,
        )
        if state != self._binding_state:
            self._binding_state = state
            self.refresh_bindings()

    def _caption(self, sound_id: str) -> str:
        row = self.listing.rows.get(sound_id)
        return (row.caption if row and row.caption else sound_id)[:60]
