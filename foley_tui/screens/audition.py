"""AuditionScreen: move through candidates, hear them, decide, place; all persisted.

The screen owns the session state (a :class:`Listing`: rows, decisions, view) and the
store; widgets only render it. A decision goes to the store first and only then changes
the row, so what is on screen is always what is on disk. Slow IO (listing and indexing the
session, polling for other writers, waveform peaks) runs in thread workers that post
messages; the main thread applies them.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState, get_current_worker

from foley_tui.audio.base import Player, PlayerState, Source, Unplayable
from foley_tui.config import Settings
from foley_tui.messages import (
    IdsListed,
    LoadProgress,
    PeaksReady,
    PlayerStateChanged,
    PlayheadMoved,
    RowsLoaded,
    SourceResolved,
    StoreChanged,
)
from foley_tui.model import LAYERS, Pick, Reject, Row, Status, ValidationError
from foley_tui.screens.help import HelpEntry, HelpScreen
from foley_tui.screens.onset import OnsetChoice, OnsetScreen
from foley_tui.screens.reason import RejectReasonScreen
from foley_tui.store import SessionStore
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from foley_tui.widgets.listing import SORTS, STATUS_FILTERS, Listing, ViewSettings
from foley_tui.widgets.status_line import StatusInfo, StatusLine
from foley_tui.widgets.waveform import Waveform

T = TypeVar("T")

VOLUME_STEP_DB = 2.0
VOLUME_RANGE_DB = (-40.0, 12.0)


def _b(
    key: str,
    action: str,
    description: str,
    binding_id: str,
    tooltip: str,
    *,
    show: bool = False,
    key_display: str | None = None,
) -> Binding:
    return Binding(
        key,
        action,
        description,
        show=show,
        id=binding_id,
        tooltip=tooltip,
        key_display=key_display,
    )


# (section, bindings): the help screen and the palette list them in this order.
BINDING_SECTIONS: tuple[tuple[str, tuple[Binding, ...]], ...] = (
    (
        "Move",
        (
            _b("up,k", "move(-1)", "Up", "cursor-up", "Highlight the previous candidate"),
            _b("down,j", "move(1)", "Down", "cursor-down", "Highlight the next candidate"),
            _b("pageup", "page(-1)", "Page up", "page-up", "Move up one screen"),
            _b("pagedown", "page(1)", "Page down", "page-down", "Move down one screen"),
            _b("g,home", "first", "First", "first", "Go to the first candidate"),
            _b("G,end", "last", "Last", "last", "Go to the last candidate"),
            _b(
                "n",
                "next_undecided",
                "Next undecided",
                "next-undecided",
                "Go to the next candidate without a verdict",
            ),
        ),
    ),
    (
        "Preview",
        (
            _b(
                "space",
                "play_stop",
                "Play",
                "play-stop",
                "Play the highlighted candidate, or stop it",
                show=True,
                key_display="space",
            ),
            _b(
                "enter",
                "play_start",
                "Play from start",
                "play-start",
                "Play the highlighted candidate from its start",
            ),
            _b("escape", "stop", "Stop", "stop", "Stop playback"),
            _b("left", "seek(-1)", "Back 1 s", "seek-back", "Seek back one second"),
            _b("right", "seek(1)", "Forward 1 s", "seek-forward", "Seek forward one second"),
            _b("shift+left", "seek(-5)", "Back 5 s", "seek-back-long", "Seek back five seconds"),
            _b(
                "shift+right",
                "seek(5)",
                "Forward 5 s",
                "seek-forward-long",
                "Seek forward five seconds",
            ),
            _b(
                "a",
                "toggle_autoplay",
                "Autoplay",
                "autoplay",
                "Play each candidate as it is highlighted",
            ),
            _b("r", "toggle_loop", "Loop", "loop", "Loop the preview"),
            _b("+", "volume(1)", "Volume up", "volume-up", "Preview volume up 2 dB"),
            _b("-", "volume(-1)", "Volume down", "volume-down", "Preview volume down 2 dB"),
            _b(
                "L",
                "toggle_loudness",
                "Loudness match",
                "loudness-match",
                "Play every candidate at the same loudness (-23 LUFS)",
            ),
        ),
    ),
    (
        "Decide",
        (
            _b("p", "pick", "Pick", "pick", "Pick the candidate (again to unpick)", show=True),
            _b(
                "x", "reject", "Reject", "reject", "Reject the candidate (again to undo)", show=True
            ),
            _b(
                "X",
                "reject_reason",
                "Reject why…",
                "reject-reason",
                "Reject with a reason the agent can use",
            ),
            _b("c", "clear", "Clear", "clear", "Clear the verdict (undecided)"),
            _b(
                "u", "undo", "Undo", "undo", "Undo the last decision (survives restarts)", show=True
            ),
            _b("ctrl+r", "redo", "Redo", "redo", "Redo the last undone decision"),
        ),
    ),
    (
        "Place",
        (
            *(
                _b(
                    str(i + 1),
                    f"set_layer('{layer}')",
                    f"Layer {layer}",
                    f"layer-{layer.replace('_', '-')}",
                    f"Set the layer to {layer} (picks the candidate)",
                )
                for i, layer in enumerate(LAYERS)
            ),
            _b(
                "o",
                "edit_onset",
                "Onset",
                "onset",
                "Edit the onset (seconds or m:ss.s)",
                show=True,
            ),
            _b(
                "[",
                "nudge_onset(-0.1)",
                "Onset -0.1 s",
                "onset-earlier",
                "Move the onset 0.1 s earlier",
            ),
            _b(
                "]", "nudge_onset(0.1)", "Onset +0.1 s", "onset-later", "Move the onset 0.1 s later"
            ),
            _b(
                "{",
                "nudge_onset(-1.0)",
                "Onset -1 s",
                "onset-earlier-long",
                "Move the onset 1 s earlier",
            ),
            _b(
                "}",
                "nudge_onset(1.0)",
                "Onset +1 s",
                "onset-later-long",
                "Move the onset 1 s later",
            ),
        ),
    ),
    (
        "View",
        (
            _b(
                "/",
                "filter",
                "Filter",
                "filter",
                "Filter on caption, tags, id and source (Enter keeps, Esc clears)",
                show=True,
            ),
            _b(
                "f",
                "cycle_status",
                "Show",
                "status-filter",
                "Cycle: all, undecided, picked, rejected",
            ),
            _b(
                "s",
                "cycle_sort",
                "Sort",
                "sort",
                "Cycle the sort: rank, caption, duration, layer, onset, score",
            ),
            _b("S", "sessions", "Sessions", "sessions", "Open the sessions screen"),
            _b(
                "question_mark,f1",
                "help",
                "Help",
                "help",
                "Show every key",
                show=True,
                key_display="?",
            ),
            _b("q", "quit", "Quit", "quit", "Save the cursor and quit", show=True),
        ),
    ),
)

ALL_BINDINGS: tuple[Binding, ...] = tuple(b for _, group in BINDING_SECTIONS for b in group)
BINDING_IDS: frozenset[str] = frozenset(b.id for b in ALL_BINDINGS if b.id)

# Actions that need a highlighted candidate.
_NEEDS_ROW = {
    "play_stop",
    "play_start",
    "pick",
    "reject",
    "reject_reason",
    "clear",
    "set_layer",
    "edit_onset",
    "nudge_onset",
}
# Toggle actions a held key must not flip back on the same row (see ``_repeat_guard``).
_TOGGLES = {"pick", "reject"}


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


class AuditionScreen(Screen[None]):
    """The main screen of a session."""

    BINDINGS = list(ALL_BINDINGS)

    REPEAT_GUARD_S = 0.4
    """A toggle repeated on the same row within this time is a held key, not a decision."""

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

    @property
    def candidate_list(self) -> CandidateList:
        return self.query_one(CandidateList)

    @property
    def current_id(self) -> str | None:
        return self.candidate_list.highlighted if self.is_mounted else None

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

    # -- loading and live updates -------------------------------------------------------
    @work(thread=True, group="load", exclusive=True, exit_on_error=False, name="load session")
    def _load(self) -> None:
        """List ids (instant first paint), then fill every column from the index."""
        store = self.store
        ids = store.candidate_ids()
        self.post_message(IdsListed(ids, store.picks(), store.rejects()))
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
        rows = store.rows(progress=progress)
        problems = [str(p) for p in store.problems()]
        self._token = token
        generation = self._generation
        message = RowsLoaded(rows, problems, store.picks(), store.rejects())
        message.generation = generation
        self.post_message(message)

    def on_ids_listed(self, message: IdsListed) -> None:
        self.listing.set_ids(list(message.ids))
        self.listing.decisions.picks = dict(message.picks)
        self.listing.decisions.rejects = dict(message.rejects)
        self._loading = f"columns 0/{len(message.ids):,}"
        self._reapply(keep=self._restore_cursor)
        self.call_after_refresh(self._painted.set)

    def on_load_progress(self, message: LoadProgress) -> None:
        if not self._loaded:
            self._loading = f"columns {message.done:,}/{message.total:,}"
            self._update_status()

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

    # -- view --------------------------------------------------------------------------
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
        if getattr(self.player, "starting", False):
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

    # -- highlight, details, waveform --------------------------------------------------
    @on(CandidateList.Highlighted)
    def _highlighted(self, event: CandidateList.Highlighted) -> None:
        if event.sound_id is not None:
            try:
                self.store.set_cursor(event.sound_id)
            except OSError as exc:
                self.notify(f"Cursor not saved: {exc}", severity="error")
        self._schedule_details()
        self._bindings_changed()

    def _schedule_details(self) -> None:
        """Show the details after the next frame: the list repaints first (and a held
        key's many moves collapse into one details load)."""
        if not self._details_pending:
            self._details_pending = True
            self.call_after_refresh(self._flush_details)

    def _flush_details(self) -> None:
        self._details_pending = False
        self._show_details()

    def _candidate(self, sound_id: str) -> dict[str, Any] | None:
        if sound_id in self._candidates:
            self._candidates.move_to_end(sound_id)
            return self._candidates[sound_id]
        candidate = self.store.candidate(sound_id)
        self._candidates[sound_id] = candidate
        if len(self._candidates) > 256:
            self._candidates.popitem(last=False)
        return candidate

    def _source(self, sound_id: str) -> Source | Unplayable:
        """Resolve locally (stats only; the network is tried in a worker when allowed)."""
        source = self._sources.get(sound_id)
        if source is None:
            candidate = self._candidate(sound_id)
            if candidate is None:
                row = self.listing.rows.get(sound_id)
                why = row.unreadable if row and row.unreadable else "candidate file missing"
                source = Unplayable(f"candidate unreadable: {why}")
            else:
                # Imported on first use: keeps it (and urllib) out of the first paint.
                from foley_tui.audio.resolve import resolve

                source = resolve(candidate, self.store.data_dir, allow_network=False)
            self._remember_source(sound_id, source)
        return source

    def _remember_source(self, sound_id: str, source: Source | Unplayable) -> None:
        self._sources[sound_id] = source
        if len(self._sources) > 1024:
            self._sources.popitem(last=False)
        if isinstance(source, Unplayable):
            self.candidate_list.unplayable.add(sound_id)
        else:
            self.candidate_list.unplayable.discard(sound_id)
        self.candidate_list.refresh_row(sound_id)

    def _show_details(self) -> None:
        details = self.query_one(Details)
        waveform = self.query_one(Waveform)
        sound_id = self.current_id
        if sound_id is None:
            details.show(None, None, None, None, None)
            waveform.clear("")
            return
        row = self.listing.rows.get(sound_id)
        candidate = self._candidate(sound_id)
        source = self._source(sound_id) if candidate is not None else None
        decisions = self.listing.decisions
        decision: Pick | Reject | None = decisions.picks.get(sound_id) or decisions.rejects.get(
            sound_id
        )
        details.show(sound_id, candidate, row, decision, source)
        self._schedule_prefetch()
        if self._peaks_for == sound_id:
            return
        self._peaks_for = sound_id
        if isinstance(source, Source):
            waveform.clear("waveform…")
            self._compute_peaks(sound_id, source)
        else:
            waveform.clear(f"⊘ {source.reason}" if source else "⊘ candidate unreadable")
            if self.settings.allow_network and candidate is not None:
                self._fetch_source(sound_id, candidate)

    @work(thread=True, group="fetch", exclusive=True, exit_on_error=False, name="fetch preview")
    def _fetch_source(self, sound_id: str, candidate: Mapping[str, Any]) -> None:
        from foley_tui.audio.resolve import resolve

        source = resolve(candidate, self.store.data_dir, allow_network=True)
        self.post_message(SourceResolved(sound_id, source))

    def on_source_resolved(self, message: SourceResolved) -> None:
        previous = self._sources.get(message.sound_id)
        self._remember_source(message.sound_id, message.source)
        # The prefetch worker resolves rows ahead of the cursor: re-show only on news.
        if message.sound_id == self.current_id and message.source != previous:
            self._peaks_for = None
            self._show_details()

    # -- prefetch: warm the player for the next key ------------------------------------
    def _schedule_prefetch(self) -> None:
        """Prefetch after the next frame, never inside a key handler: a decision shows the
        details synchronously, and starting a worker there would delay its autoplay."""
        if not self._prefetch_pending:
            self._prefetch_pending = True
            self.call_after_refresh(self._prefetch_around)

    def _prefetch_around(self) -> None:
        """Hand the highlighted candidate and the one auto-advance would move to next (the
        next undecided) to the prefetch worker, so either key's play() reads no file."""
        self._prefetch_pending = False
        sound_id = self.current_id
        if sound_id is None:
            return
        target = self.listing.next_undecided(self.candidate_list.cursor)
        next_id = self.listing.view[target] if target is not None else None
        if (sound_id, next_id) == self._prefetched:
            return
        self._prefetched = (sound_id, next_id)
        wanted: list[tuple[str, Source | None]] = []
        for wanted_id in (sound_id, next_id):
            if wanted_id is None:
                continue
            known = self._sources.get(wanted_id)
            if isinstance(known, Source):
                wanted.append((wanted_id, known))
            elif known is None:  # not resolved yet: the worker resolves it (stats only)
                wanted.append((wanted_id, None))
        if wanted:
            self._prefetch(wanted)

    @work(thread=True, group="prefetch", exclusive=True, exit_on_error=False, name="prefetch")
    def _prefetch(self, wanted: list[tuple[str, Source | None]]) -> None:
        worker = get_current_worker()
        for sound_id, source in wanted:
            if worker.is_cancelled:
                return
            if source is None:
                candidate = self.store.candidate(sound_id)
                if candidate is None:
                    continue
                from foley_tui.audio.resolve import resolve

                resolved = resolve(candidate, self.store.data_dir, allow_network=False)
                self.post_message(SourceResolved(sound_id, resolved))
                if not isinstance(resolved, Source):
                    continue
                source = resolved
            self.player.prefetch(source)

    @work(thread=True, group="peaks", exclusive=True, exit_on_error=False, name="waveform")
    def _compute_peaks(self, sound_id: str, source: Source) -> None:
        # numpy/soundfile load here, in the worker, not before the first paint.
        from foley_tui.audio.decode import DecodeError
        from foley_tui.audio.peaks import progressive_peaks

        worker = get_current_worker()
        width = max(self.query_one(Waveform).size.width, 40)
        try:
            for result in progressive_peaks(source, width):
                if worker.is_cancelled:
                    return
                self.post_message(
                    PeaksReady(sound_id, result.peaks, result.duration_s, result.exact)
                )
        except (DecodeError, OSError) as exc:
            self.post_message(PeaksReady(sound_id, (), 0.0, True, error=str(exc)))

    def on_peaks_ready(self, message: PeaksReady) -> None:
        if message.sound_id != self.current_id:
            return
        waveform = self.query_one(Waveform)
        if message.error:
            waveform.clear(f"⊘ {message.error}")
        else:
            waveform.set_peaks(message.peaks, message.duration_s)

    # -- player ------------------------------------------------------------------------
    def _on_player_state(self, status: Any) -> None:
        # Called from the audio thread: post_message is thread-safe.
        self.post_message(PlayerStateChanged(status))

    def _check_audio(self) -> None:
        """Once the player is up (it may start in the background), say if there is no
        sound, and refresh the status line's device."""
        if self._audio_checked or getattr(self.player, "starting", False):
            return
        self._audio_checked = True
        if not self.player.available:
            self.notify(
                self.player.unavailable_reason or "no output device",
                title="No audio",
                severity="warning",
                timeout=10,
            )
        self._update_status()

    def on_player_state_changed(self, message: PlayerStateChanged) -> None:
        self._check_audio()
        status = message.status
        waveform = self.query_one(Waveform)
        waveform.playing = status.state is PlayerState.PLAYING
        if waveform.playing:
            self._playhead_timer.resume()
        else:
            self.post_message(PlayheadMoved(status.position_s, status.duration_s))
        if status.error:
            self.notify(status.error, title="Playback", severity="error")
        self._bindings_changed()

    def _tick_playhead(self) -> None:
        status = self.player.status()
        self.post_message(PlayheadMoved(status.position_s, status.duration_s))
        if status.state is not PlayerState.PLAYING:
            self._playhead_timer.pause()

    def on_playhead_moved(self, message: PlayheadMoved) -> None:
        waveform = self.query_one(Waveform)
        if self._playing_id == self.current_id:
            waveform.position_s = message.position_s
            if message.duration_s > 0:
                waveform.duration_s = message.duration_s
        waveform.playing = self.player.status().state is PlayerState.PLAYING

    def _play(self, sound_id: str, start_s: float = 0.0) -> None:
        source = self._source(sound_id)
        if isinstance(source, Unplayable):
            self.notify(f"Can't play: {source.reason}", severity="warning", timeout=4)
            return
        self._playing_id = sound_id
        self.player.play(source, start_s)

    # -- actions: checks ---------------------------------------------------------------
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

    # -- actions: move -----------------------------------------------------------------
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

    # -- actions: preview --------------------------------------------------------------
    def action_play_stop(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        status = self.player.status()
        if status.state is PlayerState.PLAYING and self._playing_id == sound_id:
            self.player.stop()
        else:
            self._play(sound_id)

    def action_play_start(self) -> None:
        if (sound_id := self.current_id) is not None:
            self._play(sound_id, 0.0)

    def action_stop(self) -> None:
        self.player.stop()

    def action_seek(self, seconds: float) -> None:
        self.player.seek(float(seconds), relative=True)

    def action_toggle_autoplay(self) -> None:
        self.view_settings.autoplay = not self.view_settings.autoplay
        self.notify(f"Autoplay {'on' if self.view_settings.autoplay else 'off'}", timeout=2)
        self._save_view()

    def action_toggle_loop(self) -> None:
        self.view_settings.loop = not self.view_settings.loop
        self.player.set_loop(self.view_settings.loop)
        self._save_view()

    def action_volume(self, direction: int) -> None:
        low, high = VOLUME_RANGE_DB
        volume = self.view_settings.volume_db + direction * VOLUME_STEP_DB
        self.view_settings.volume_db = max(low, min(high, volume))
        self.player.set_volume_db(self.view_settings.volume_db)
        self._save_view()

    def action_toggle_loudness(self) -> None:
        self.view_settings.loudness_match = not self.view_settings.loudness_match
        self.player.set_loudness_match(self.view_settings.loudness_match)
        self._save_view()

    # -- actions: decide ---------------------------------------------------------------
    def _repeat_guard(self, action: str, sound_id: str) -> bool:
        """True when this toggle would undo the same toggle just made on the same row:
        a held key's auto-repeat landing on a row the cursor could not leave."""
        last = self._last_toggle
        return (
            last is not None
            and last[0] == action
            and last[1] == sound_id
            and time.monotonic() - last[2] < self.REPEAT_GUARD_S
        )

    def _write(
        self,
        sound_id: str,
        write: Callable[[], T],
        apply: Callable[[T], None],
        *,
        advance: bool = False,
    ) -> bool:
        """Write to the store first; only on success change the row. Synchronous, so key
        presses are applied one at a time to the row highlighted when each was handled."""
        try:
            result = write()
        except (OSError, ValidationError, ValueError, KeyError) as exc:
            self.notify(f"Not saved: {exc}", title="Store", severity="error", timeout=8)
            return False
        self._generation += 1
        apply(result)
        self._after_decision(sound_id, advance=advance)
        return True

    def _after_decision(self, sound_id: str, *, advance: bool) -> None:
        self._user_moved = True
        listing = self.listing
        cl = self.candidate_list
        old_index = cl.cursor
        vs = self.view_settings
        if vs.status_filter != "all" or vs.sort in ("layer", "onset"):
            listing.apply(vs)
            cl.refresh_data(keep=sound_id)
        else:
            cl.refresh_row(sound_id)
        moved = False
        if advance and self.settings.auto_advance:
            view = listing.view
            here = cl.cursor if cl.highlighted == sound_id else old_index - 1
            target = listing.next_undecided(here)
            if target is not None:
                cl.move_to(target)
                moved = True
            elif sound_id in view:
                cl.move_to(view.index(sound_id))
        self._refresh_undo()
        self._update_status()
        self._show_details()
        if moved and vs.autoplay and cl.highlighted is not None:
            self._play(cl.highlighted)

    def _toggle(self, action: str, sound_id: str) -> bool:
        if self._repeat_guard(action, sound_id):
            return False
        self._last_toggle = (action, sound_id, time.monotonic())
        return True

    def action_pick(self) -> None:
        sound_id = self.current_id
        if sound_id is None or not self._toggle("pick", sound_id):
            return
        decisions = self.listing.decisions
        if decisions.status(sound_id) is Status.PICKED:
            self._write(
                sound_id,
                lambda: self.store.drop_pick(sound_id),
                lambda _: decisions.clear(sound_id),
            )
        else:
            self._write(
                sound_id,
                lambda: self.store.add_pick(sound_id),
                lambda _: decisions.set_pick(Pick(sound_id)),
                advance=True,
            )

    def action_reject(self) -> None:
        sound_id = self.current_id
        if sound_id is None or not self._toggle("reject", sound_id):
            return
        decisions = self.listing.decisions
        if decisions.status(sound_id) is Status.REJECTED:
            self._write(
                sound_id, lambda: self.store.clear(sound_id), lambda _: decisions.clear(sound_id)
            )
        else:
            self._write(
                sound_id,
                lambda: self.store.add_reject(sound_id),
                lambda _: decisions.set_reject(Reject(sound_id)),
                advance=True,
            )

    def action_reject_reason(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return

        def done(reason: str | None) -> None:
            if reason is None:
                return
            self._write(
                sound_id,
                lambda: self.store.add_reject(sound_id, reason=reason),
                lambda _: self.listing.decisions.set_reject(Reject(sound_id, reason)),
                advance=True,
            )

        self.app.push_screen(RejectReasonScreen(self._caption(sound_id)), done)

    def action_clear(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        self._write(
            sound_id,
            lambda: self.store.clear(sound_id),
            lambda _: self.listing.decisions.clear(sound_id),
        )

    def action_undo(self) -> None:
        self._journal(undo=True)

    def action_redo(self) -> None:
        self._journal(undo=False)

    def _journal(self, *, undo: bool) -> None:
        try:
            entry = self.store.undo() if undo else self.store.redo()
        except OSError as exc:
            self.notify(f"Not saved: {exc}", title="Store", severity="error", timeout=8)
            return
        if entry is None:
            self.notify(f"Nothing to {'undo' if undo else 'redo'}.", timeout=2)
            self._refresh_undo()
            return
        self._generation += 1
        state = entry.before if undo else entry.after
        self.listing.decisions.apply_state(entry.sound_id, state)
        self._after_decision(entry.sound_id, advance=False)
        if entry.sound_id in self.listing.view:
            self.candidate_list.move_to(self.listing.view.index(entry.sound_id))
        verb = "Undid" if undo else "Redid"
        self.notify(f"{verb}: {self._caption(entry.sound_id)} → {state.get('status')}", timeout=2)

    # -- actions: place ----------------------------------------------------------------
    def action_set_layer(self, layer: str) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        self._write(
            sound_id,
            lambda: self.store.set_layer(sound_id, layer),  # type: ignore[arg-type]
            self.listing.decisions.set_pick,
        )

    def action_edit_onset(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        pick = self.listing.decisions.picks.get(sound_id)

        def done(choice: OnsetChoice | None) -> None:
            if choice is None:
                return
            self._write(
                sound_id,
                lambda: self.store.set_onset(sound_id, choice.onset),
                self.listing.decisions.set_pick,
            )

        self.app.push_screen(
            OnsetScreen(self._caption(sound_id), pick.onset if pick else None), done
        )

    def action_nudge_onset(self, delta: float) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        pick = self.listing.decisions.picks.get(sound_id)
        onset = max(0.0, round(((pick.onset if pick and pick.onset else 0.0) + delta), 3))
        self._write(
            sound_id, lambda: self.store.set_onset(sound_id, onset), self.listing.decisions.set_pick
        )

    # -- actions: view -----------------------------------------------------------------
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

    def _caption(self, sound_id: str) -> str:
        row = self.listing.rows.get(sound_id)
        return (row.caption if row and row.caption else sound_id)[:60]

    # -- errors ------------------------------------------------------------------------
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
