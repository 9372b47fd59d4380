"""AuditionScreen: move through candidates, hear them, decide, place; all persisted.

The screen owns the session state (a :class:`Listing`: rows, decisions, view) and the
store; widgets only render it. A decision goes to the store first and only then changes
the row, so what is on screen is always what is on disk. Slow IO (listing and indexing the
session, polling for other writers, waveform peaks, prefetching) runs in thread workers
that post messages; the main thread applies them.

The screen is put together from parts, each in its own module:

- :mod:`~foley_tui.screens.audition_bindings`: every key, with ids and tooltips;
- :mod:`~foley_tui.screens.audition_base`: state, status line, undo availability;
- :mod:`~foley_tui.screens.audition_loading`: the load and poll workers;
- :mod:`~foley_tui.screens.audition_details`: details, sources, waveform, prefetch;
- :mod:`~foley_tui.screens.audition_preview`: the player's state and preview actions;
- :mod:`~foley_tui.screens.audition_decide`: decide and place actions;
- this module: layout, mounting, moving, the view (filter, status filter, sort), help.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState

from foley_tui.screens.audition_bindings import (
    _NEEDS_ROW,
    ALL_BINDINGS,
    BINDING_IDS,
    BINDING_SECTIONS,
)
from foley_tui.screens.audition_decide import DecisionActions
from foley_tui.screens.audition_loading import SessionLoading
from foley_tui.screens.audition_preview import VOLUME_RANGE_DB, VOLUME_STEP_DB
from foley_tui.screens.help import HelpEntry, HelpScreen
from foley_tui.screens.scene_actions import open_timeline, play_in_context
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from foley_tui.widgets.listing import SORTS, STATUS_FILTERS, ViewSettings
from foley_tui.widgets.status_line import StatusLine
from foley_tui.widgets.waveform import Waveform

__all__ = [
    "ALL_BINDINGS",
    "BINDING_IDS",
    "BINDING_SECTIONS",
    "VOLUME_RANGE_DB",
    "VOLUME_STEP_DB",
    "AuditionScreen",
    "FilterInput",
]


class FilterInput(Input):
    """The ``/`` filter box: Enter keeps the filter, Escape clears it."""

    BINDINGS = [
        Binding(
            "escape",
            "clear_filter",
            "Clear filter",
            id="filter-clear",
            tooltip="Clear the filter and return to the list",
        ),
    ]

    def action_clear_filter(self) -> None:
        self.value = ""
        self.screen.query_one(CandidateList).focus()


class AuditionScreen(SessionLoading, DecisionActions):
    """The main screen of a session."""

    BINDINGS = list(ALL_BINDINGS)

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(id="main"):
            with Horizontal(id="body"):
                yield CandidateList(self.listing, id="list")
                with VerticalScroll(id="details-pane"):
                    yield Details(id="details")
            yield Waveform(id="waveform")
            yield FilterInput(placeholder="filter: caption, tags, id, source", id="filter")
            yield StatusLine(id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        try:
            meta = self.store.meta()
        except Exception as exc:  # a torn metadata file must not stop the session opening
            self.notify(f"Session settings unreadable: {exc}", severity="warning")
        else:
            self.session_title = meta.title or self.store.session_id
            self._restore_cursor = meta.cursor
            self.view_settings = ViewSettings.from_dict(meta.view, self.view_settings)
        try:
            self.store.mark_opened()  # makes this the session `foley-tui` resumes
        except OSError as exc:
            self.notify(f"Could not record the session as opened: {exc}", severity="warning")
        filter_input = self.query_one(FilterInput)
        filter_input.value = self.view_settings.query
        filter_input.display = bool(self.view_settings.query)
        self.player.set_loop(self.view_settings.loop)
        self.player.set_volume_db(self.view_settings.volume_db)
        self.player.set_loudness_match(self.view_settings.loudness_match)
        self.player.set_state_callback(self._on_player_state)
        self._check_audio()
        self.candidate_list.focus()
        self._refresh_undo()
        self._update_status()
        self.query_one(Waveform).clear("")
        # Runs only while something plays (an idle app should cost no CPU).
        self._playhead_timer = self.set_interval(1 / 20, self._tick_playhead, pause=True)
        self._load()

    def on_unmount(self) -> None:
        self.player.set_state_callback(None)

    # -- highlight ------------------------------------------------------------------
    @on(CandidateList.Highlighted)
    def _highlighted(self, event: CandidateList.Highlighted) -> None:
        if event.sound_id is not None:
            try:
                self.store.set_cursor(event.sound_id)
            except OSError as exc:
                self.notify(f"Cursor not saved: {exc}", severity="error")
        self._schedule_details()
        self._bindings_changed()

    # -- actions: checks ------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _NEEDS_ROW and self.current_id is None:
            return False
        if action == "undo":
            return True if self._can_undo else None
        if action == "redo":
            return True if self._can_redo else None
        if action == "seek":
            return True if self.player.status().source is not None else None
        if action == "sessions":
            return _sessions_available() and getattr(self.app, "service", None) is not None
        return True

    # -- actions: scene (foley_tui/screens/scene_actions.py) -------------------------
    def action_timeline(self) -> None:
        open_timeline(self)

    def action_in_context(self) -> None:
        play_in_context(self)

    # -- actions: move --------------------------------------------------------------
    def _moved(self, before: str | None) -> None:
        self._user_moved = True
        self._last_toggle = None  # another key came in between: not a held key
        after = self.current_id
        if after is not None and after != before and self.view_settings.autoplay:
            self._play(after)

    def action_move(self, delta: int) -> None:
        before = self.current_id
        self.candidate_list.move_by(delta)
        self._moved(before)

    def action_page(self, direction: int) -> None:
        before = self.current_id
        self.candidate_list.move_by(direction * self.candidate_list.page)
        self._moved(before)

    def action_first(self) -> None:
        before = self.current_id
        self.candidate_list.move_to(0)
        self._moved(before)

    def action_last(self) -> None:
        before = self.current_id
        self.candidate_list.move_to(len(self.listing.view) - 1)
        self._moved(before)

    def action_next_undecided(self) -> None:
        before = self.current_id
        target = self.listing.next_undecided(self.candidate_list.cursor)
        if target is None:
            target = self.listing.next_undecided(-1)
        if target is None:
            self.notify("No undecided candidate left in this view.", timeout=3)
            return
        self.candidate_list.move_to(target)
        self._moved(before)

    # -- actions: view --------------------------------------------------------------
    def action_filter(self) -> None:
        filter_input = self.query_one(FilterInput)
        filter_input.display = True
        filter_input.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if event.value == self.view_settings.query:
            return
        self.view_settings.query = event.value
        self._reapply(keep=self.current_id)
        self._save_view()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.candidate_list.focus()

    def on_descendant_blur(self, event: Any) -> None:
        filter_input = self.query_one(FilterInput)
        if event.widget is filter_input and not filter_input.value:
            filter_input.display = False

    def action_cycle_status(self) -> None:
        vs = self.view_settings
        vs.status_filter = STATUS_FILTERS[(STATUS_FILTERS.index(vs.status_filter) + 1) % 4]
        self._reapply(keep=self.current_id)
        self._save_view()

    def action_cycle_sort(self) -> None:
        vs = self.view_settings
        vs.sort = SORTS[(SORTS.index(vs.sort) + 1) % len(SORTS)]
        self._reapply(keep=self.current_id)
        self.notify(f"Sort: {vs.sort}", timeout=2)
        self._save_view()

    def action_sessions(self) -> None:
        open_sessions = getattr(self.app, "open_sessions", None)
        if open_sessions is not None:
            open_sessions()

    def help_entries(self) -> list[HelpEntry]:
        keymap: Mapping[str, str] = getattr(self.app, "keymap", {})
        entries = []
        for section, bindings in BINDING_SECTIONS:
            for binding in bindings:
                keys = keymap.get(binding.id or "", binding.key)
                shown = ", ".join(
                    self.app.get_key_display(Binding(k.strip(), "")) for k in keys.split(",")
                )
                entries.append(
                    HelpEntry(
                        section, shown, binding.description, binding.tooltip, binding.id or ""
                    )
                )
        return entries

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.help_entries()))

    def action_quit(self) -> None:
        self.save_position()
        self.app.exit()

    def save_position(self) -> None:
        """Put the cursor on disk now (writes may be coalesced by the store)."""
        try:
            if self.current_id is not None:
                self.store.set_cursor(self.current_id)
            self.store.flush()
        except OSError as exc:
            self.notify(f"Cursor not saved: {exc}", severity="error")

    # -- errors ---------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker failures become visible."""
        if event.state is WorkerState.ERROR:
            worker = event.worker
            self.notify(f"{worker.name} failed: {worker.error}", severity="error", timeout=8)
            if worker.group == "load":
                self._loading = "load failed"
                self._update_status()


def _sessions_available() -> bool:
    return importlib.util.find_spec("foley_tui.screens.sessions") is not None
