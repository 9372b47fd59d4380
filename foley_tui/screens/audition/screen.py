"""AuditionScreen: move through candidates, hear them, decide, place; all persisted.

One class that composes its parts instead of inheriting them:

- :class:`~foley_tui.audition.model.AuditionModel` (headless) decides what a key means:
  listing, decisions, view, cursor, undo, auto-advance, outside changes. Each intent
  returns a :class:`~foley_tui.audition.change.Change`, applied in :meth:`apply` only;
- :class:`~foley_tui.screens.audition.loader.SessionLoader` loads the session and follows
  other writers in its own workers;
- :class:`~foley_tui.screens.audition.preview.Previewer` plays, shows details and the
  waveform, and prefetches, in its own workers;
- both are widgets with nothing to draw: their workers post to them, and they hand the
  model's Changes to :meth:`AuditionScreen.apply`;
- the widgets own their keys (the list its cursor, the filter box its Esc); every key is
  in :mod:`foley_tui.keys.keymap`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker

from foley_tui.audio.base import Player
from foley_tui.audition.change import Change
from foley_tui.audition.listing import LIBRARY_SORTS, Listing, ViewSettings
from foley_tui.audition.model import AuditionModel
from foley_tui.audition.opening import OpeningRead
from foley_tui.config import Settings
from foley_tui.keys.bindings import bindings
from foley_tui.keys.keymap import bound_keys, specs
from foley_tui.screens.audition.dialogs import DecisionDialogs
from foley_tui.screens.audition.links import AppLinks
from foley_tui.screens.audition.loader import SessionLoader
from foley_tui.screens.audition.preview import Previewer
from foley_tui.screens.audition.reports import worker_failure
from foley_tui.screens.audition.scene_actions import InContext, open_timeline
from foley_tui.screens.audition.similar_search import SimilarSearch
from foley_tui.screens.audition.writer import DecisionWriter
from foley_tui.store import SessionStore
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from foley_tui.widgets.filter_input import FilterInput
from foley_tui.widgets.key_hints import KeyHints
from foley_tui.widgets.library_scan import LibraryScan
from foley_tui.widgets.spectrogram import Spectrogram
from foley_tui.widgets.status_line import StatusLine, status_info
from foley_tui.widgets.waveform import SeekRequested, Waveform

if TYPE_CHECKING:
    from foley_tui.library.source import FolderSource

__all__ = ["AuditionScreen"]

NEEDS_ROW = frozenset(
    {
        "play_stop",
        "play_start",
        "pick",
        "reject",
        "reject_reason",
        "clear",
        "set_layer",
        "edit_onset",
        "nudge_onset",
        "in_context",
        "similar",
        "rate",
        "toggle_hidden",
        "region",
    }
)
"""Actions that need a highlighted candidate."""


#: The sorts ordered by the folder's index, not by the rows (see Listing.extra_sorts).
EXTRA_SORTS = ("name", "folder", "category", "library", "bits")

#: How often the screen looks for messages and spend written by other processes.
LEDGER_POLL_S = 1.0


class AuditionScreen(Screen[None]):
    """The main screen of a session."""

    BINDINGS = bindings("audition")

    def __init__(
        self,
        store: SessionStore,
        player: Player,
        settings: Settings,
        opening: OpeningRead | None = None,
        library: FolderSource | None = None,
        links: AppLinks | None = None,
    ) -> None:
        """``opening``: the session's first frame being read since the app started (read
        from now when not given). ``library``: the folder this session auditions (its
        list then shows a librarian's columns and the folder is scanned on mount).
        ``links``: what the app lends the screen (its narration, keymap, sessions)."""
        super().__init__()
        self.links = links or AppLinks()
        self.store = store
        self.library = library
        self.player = player
        self.settings = settings
        self.model = AuditionModel(store, settings)
        # Cursor and view saves between two flushes are written behind, off this thread.
        store.meta_doc.write_behind = True
        if library is not None:
            # A folder of 100k sounds: the list reads its rows from the session's index
            # as they are shown, and each view is a query of that index in a worker.
            self.model.page_rows()
            self.model.view_runner = self._run_view
            self.model.sorts = LIBRARY_SORTS
            self.model.listing.extra_sorts = {
                sort: functools.partial(library.sort_values, sort) for sort in EXTRA_SORTS
            }
        self.loader = SessionLoader(
            self.model, opening or OpeningRead(store), settings, apply=self.apply
        )
        self.previewer = Previewer(
            self.model,
            player,
            settings,
            apply=self.apply,
            ledger=lambda: self.loader.ledger_watch,
            library=library,
        )
        # Decisions are written by its workers, in key order: never on this thread.
        self.writer = DecisionWriter(self.model, apply=self.apply)
        self.dialogs = DecisionDialogs(self, self.model)
        self.in_context = InContext(self.model, player, settings, self.links.narration)
        self.similar = SimilarSearch(
            self.model, self.previewer, lambda sid: self.candidate_list.move_to_id(sid)
        )
        # Textual sets ``-narrow`` / ``-wide`` on the screen from the terminal width; the
        # details pane hides when narrow (app.tcss).
        self.HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (settings.details_min_width, "-wide")]
        # The class for the terminal's width now: the first Resize then changes no class
        # (a class change restyles every widget and lays the screen out again, on the way
        # to the first frame).
        try:
            width = self.app.size.width
        except RuntimeError:  # no running app (NoActiveAppError): Textual sets it later
            pass
        else:
            wide = width >= settings.details_min_width
            # Styles are applied when the screen mounts: no restyle now.
            self.set_class(True, "-wide" if wide else "-narrow", update=False)
        self._binding_state: tuple[bool, ...] = ()
        self._list: CandidateList | None = None
        # The play key as remapped, less any key of the app's own (checked before the
        # screen's when Textual looks a key up).
        app_keys = frozenset().union(*(bound_keys(s.id, self.links.keymap) for s in specs("app")))
        self._play_keys = bound_keys("play-stop", self.links.keymap) - app_keys
        self._problems_seen: set[str] = set()
        self._quitting = False
        self._quit_done = False

    def _run_view(
        self,
        query: Callable[[], list[str] | None],
        done: Callable[[list[str] | None], Change],
    ) -> None:
        """A paged view's query in a worker thread; its answer is applied here."""

        def work() -> None:
            view = query()
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                self.app.call_from_thread(lambda: self.apply(done(view)))

        self.run_worker(work, thread=True, group="view", exit_on_error=False, name="view")

    # -- state the parts and the app read ---------------------------------------------
    @property
    def listing(self) -> Listing:
        return self.model.listing

    @property
    def view_settings(self) -> ViewSettings:
        return self.model.view

    @property
    def candidate_list(self) -> CandidateList:
        # Asked for every binding each time the key hints are drawn (check_action): the
        # list composed once is kept rather than queried again.
        if self._list is None:
            self._list = self.query_one(CandidateList)
        return self._list

    @property
    def current_id(self) -> str | None:
        return self.candidate_list.highlighted if self.is_mounted else None

    # -- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield CandidateList(self.model.listing, id="list")
            # Not focusable: the list keeps the focus (Tab included), so the keys always
            # act on the row shown highlighted; the pane scrolls with the mouse.
            with VerticalScroll(id="details-pane", can_focus=False):
                yield Details(id="details")
        yield Waveform(id="waveform")
        yield Spectrogram(id="spectrogram")
        if self.library is not None:
            yield FilterInput(
                placeholder="filter: file, folder, description, category, library, keywords",
                id="filter",
            )
            yield LibraryScan(
                self.library, self.store, after=self.loader.painted, id="library-scan"
            )
        else:
            yield FilterInput(placeholder="filter: caption, tags, id, source", id="filter")
        yield self.similar  # a progress line while find-similar analyses
        yield StatusLine(id="status")
        yield KeyHints(compact=True)
        yield self.loader
        yield self.writer
        yield self.previewer
        yield self.in_context

    def on_mount(self) -> None:
        # The footer is drawn from this state: no refresh until it changes.
        self._binding_state = self._binding_inputs()
        if self.library is not None:
            self.candidate_list.library = self.library.columns
        self.previewer.start()
        self.candidate_list.focus()
        self.query_one(Waveform).clear("")
        self.query_one(Spectrogram).clear("")
        # Read since the app started: when it is in, the first frame has the rows.
        self.loader.start()
        # Messages and spend another process (the agent) wrote appear live.
        self.call_after_refresh(self.loader.poll_ledger)
        self.set_interval(LEDGER_POLL_S, self.loader.poll_ledger, name="ledger-poll")

    # -- the one place a Change reaches the widgets ------------------------------------
    def apply(self, change: Change) -> None:
        cl = self.candidate_list
        if change.query is not None:
            filter_input = self.query_one(FilterInput)
            filter_input.value = change.query
            filter_input.display = bool(change.query)
        if change.candidates:
            self.previewer.forget()
        if change.view:
            cl.refresh_data(keep=change.cursor)
        elif change.data:
            cl.refresh_rows()
        else:
            for sound_id in change.rows:
                cl.refresh_row(sound_id)
        if change.cursor is not None and not change.view:
            cl.move_to_id(change.cursor)
        # The list's Highlighted message comes later (it bubbles); the model must know the
        # row now, before the next message (a worker's result) is applied.
        self.model.sync_cursor(cl.highlighted, cl.cursor)
        if change.player:
            self.previewer.sync_settings()
        if change.pane:
            self.previewer.panes.sync()
        if change.status:
            self.update_status()
        if change.details:
            self.previewer.show_details()
        self._bindings_changed()
        for notice in change.notices:
            self.notify(notice, timeout=3)
        if change.error:
            self.notify(change.error, title="Store", severity="error", timeout=8)
        if change.blocked is not None:
            self.dialogs.offer_skip(change.blocked == "undo", change.error or "")
        if change.problems:
            self._report_problems(change.problems)
        if change.play is not None and change.play == self.current_id:
            self.previewer.play(change.play)

    def run_intent(self, intent: Callable[[], Change]) -> None:
        """Run a model intent on the row under the list's cursor now, then apply it."""
        cl = self.candidate_list
        self.model.sync_cursor(cl.highlighted, cl.cursor)
        self.apply(intent())

    def update_status(self) -> None:
        # Not ``is_mounted``: that is still False inside on_mount, where the opening is
        # applied, and the first frame must carry the counts (the line is composed).
        lines = self.query(StatusLine)
        if not lines:
            return
        spent = self.loader.spent_usd
        lines.first().show(status_info(self.model, self.player, spent, self.model.store_down))

    def _bindings_changed(self) -> None:
        """Refresh the footer only when what ``check_action`` depends on changed: a footer
        refresh rebuilds its keys, too costly to do on every cursor move."""
        state = self._binding_inputs()
        if state != self._binding_state:
            self._binding_state = state
            self.refresh_bindings()

    def _binding_inputs(self) -> tuple[bool, ...]:
        """What :meth:`check_action` reads."""
        return (
            self.current_id is not None,
            self.model.can_undo,
            self.model.can_redo,
            self.previewer.has_source,
        )

    def _report_problems(self, problems: tuple[str, ...]) -> None:
        new = [p for p in dict.fromkeys(problems) if p not in self._problems_seen]
        self._problems_seen.update(new)
        if new:
            shown = "\n".join(new[:5]) + (f"\n… and {len(new) - 5} more" if len(new) > 5 else "")
            title = f"{len(new)} unreadable entr{'y' if len(new) == 1 else 'ies'}"
            self.notify(shown, title=title, severity="warning", timeout=10)

    # -- what the list and the workers report -----------------------------------------
    def on_library_scan_synced(self, message: LibraryScan.Synced) -> None:
        """The scan cached candidates: look for them now, not at the next poll (a first
        visit's first rows are its first batch)."""
        self.loader.poll_now()

    def on_library_scan_scanned(self, message: LibraryScan.Scanned) -> None:
        """The folder's scan is done: its columns may have changed (the candidates it
        wrote come in through the outside-change watch); say what cannot be played."""
        self.candidate_list.refresh_rows()
        self.previewer.schedule_details()
        result = message.result
        if result is None:
            self.notify(message.error or "scan failed", title="Library", severity="error")
            return
        problems = result.refresh.problems
        if problems:
            shown = "\n".join(f"{rel}: {why}" for rel, why in problems[:5])
            more = f"\n… and {len(problems) - 5} more" if len(problems) > 5 else ""
            self.notify(
                shown + more,
                title=f"{len(problems)} not playable",
                severity="warning",
                timeout=10,
            )

    @on(CandidateList.Highlighted)
    def _highlighted(self, event: CandidateList.Highlighted) -> None:
        self.apply(self.model.highlight(event.sound_id, event.index, by_user=event.by_user))
        self.previewer.schedule_details()
        self.in_context.rested(event.sound_id)

    def on_seek_requested(self, message: SeekRequested) -> None:
        self.previewer.transport.seek_to(self.current_id, message.position_s)

    def on_spectrogram_resized(self, message: Spectrogram.Resized) -> None:
        self.previewer.panes.resized()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failure of the screen's own workers (the loader's and the previewer's say
        theirs) is a notice."""
        failure = worker_failure(event)
        if failure is not None:
            self.notify(failure, severity="error", timeout=8)

    # -- actions ----------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in NEEDS_ROW and self.current_id is None:
            return False
        if action == "undo":
            return True if self.model.can_undo else None
        if action == "redo":
            return True if self.model.can_redo else None
        if action == "seek":
            return True if self.previewer.has_source else None
        if action == "ab":
            return True if len(self.previewer.transport.auditioned) == 2 else None
        if action == "category_filter":
            return self.library is not None
        if action == "sessions":
            return _sessions_available() and self.links.open_sessions is not None
        return True

    def action_timeline(self) -> None:
        open_timeline(self)

    def action_in_context(self) -> None:
        self.in_context.play(self.current_id)

    def set_volume_db(self, volume_db: float) -> None:
        """The preview volume, set from another screen (the timeline)."""
        self.run_intent(lambda: self.model.set_volume(volume_db))

    def action_next_event(self, step: int) -> None:
        self.run_intent(lambda: self.model.next_event(step))

    def action_next_undecided(self) -> None:
        self.run_intent(self.model.next_undecided)

    def play_key(self, key: str) -> bool:
        """The play key pressed on the list: played now, before Textual builds the chain
        of bindings from the focused widget to the app to look the key up (most of the
        UI's share of key-to-sound). True when played; False leaves the key to Textual's
        own lookup, which then finds the same binding or the key's other meaning: another
        widget has the focus (a text box types the space), a widget is maximised, or the
        action does not apply (no row).

        What Textual's lookup does besides is not needed here: none of this screen's
        widgets has a tooltip for the key to hide."""
        if key not in self._play_keys or self.maximized is not None:
            return False
        if self._list is None or self.focused is not self._list:
            return False
        if not self.check_action("play_stop", ()):
            return False
        self.action_play_stop()
        return True

    def action_play_stop(self) -> None:
        if (sound_id := self.current_id) is not None:
            self.previewer.play_stop(sound_id)

    def action_play_start(self) -> None:
        if (sound_id := self.current_id) is not None:
            self.previewer.play(sound_id, 0.0)

    def action_stop(self) -> None:
        self.previewer.stop()

    def action_seek(self, seconds: float) -> None:
        self.player.seek(float(seconds), relative=True)

    def action_toggle_pause(self) -> None:
        self.previewer.transport.toggle_pause(self.current_id)

    def action_ab(self) -> None:
        other = self.previewer.transport.ab()
        if other is not None:
            self.candidate_list.move_to_id(other)

    def action_rate(self, step: int) -> None:
        self.run_intent(lambda: self.model.rate(int(step)))

    def action_toggle_hidden(self) -> None:
        self.run_intent(self.model.toggle_hidden)

    def action_region(self, which: str) -> None:
        """``(`` / ``)``: at the playhead of the highlighted candidate's preview; with
        nothing of it playing, the point is cleared."""
        sound_id = self.current_id
        if sound_id is None:
            return
        position, duration = self.previewer.transport.playhead_of(sound_id)
        row = self.model.listing.rows.get(sound_id)
        if duration is None and row is not None:
            duration = row.duration_s
        self.run_intent(lambda: self.model.set_region_point(which, position, duration))

    def action_toggle_skip_silence(self) -> None:
        self.run_intent(self.model.toggle_skip_silence)
        self.previewer.skip_silence_changed()

    def action_toggle_spectrogram(self) -> None:
        self.run_intent(self.model.toggle_spectrogram)

    def action_similar(self) -> None:
        self.similar.start(self.current_id)

    def action_toggle_autoplay(self) -> None:
        self.run_intent(self.model.toggle_autoplay)

    def action_toggle_loop(self) -> None:
        self.run_intent(self.model.toggle_loop)

    def action_volume(self, direction: int) -> None:
        self.run_intent(lambda: self.model.step_volume(direction))

    def action_toggle_loudness(self) -> None:
        self.run_intent(self.model.toggle_loudness)

    def action_pick(self) -> None:
        self.dialogs.pick()

    def action_reject(self) -> None:
        self.run_intent(self.model.reject)

    def action_reject_reason(self) -> None:
        self.dialogs.reject_reason()

    def action_clear(self) -> None:
        self.run_intent(self.model.clear)

    def action_undo(self) -> None:
        self.run_intent(self.model.undo)

    def action_redo(self) -> None:
        self.run_intent(self.model.redo)

    def action_set_layer(self, layer: str) -> None:
        self.run_intent(lambda: self.model.set_layer(layer))

    def action_edit_onset(self) -> None:
        self.dialogs.edit_onset()

    def action_nudge_onset(self, delta: float) -> None:
        self.dialogs.nudge_onset(delta)

    def action_filter(self) -> None:
        filter_input = self.query_one(FilterInput)
        filter_input.display = True
        filter_input.focus()
        # The rows' search texts, built while the user starts typing (not on the first key).
        self.run_worker(
            self.model.listing.prepare_search,
            thread=True,
            group="search",
            exit_on_error=False,
            name="prepare filter",
        )

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.run_intent(lambda: self.model.set_query(event.value))

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.candidate_list.focus()

    def on_descendant_blur(self, event: Any) -> None:
        filter_input = self.query_one(FilterInput)
        if event.widget is filter_input and not filter_input.value:
            filter_input.display = False

    def action_cycle_status(self) -> None:
        self.run_intent(self.model.cycle_status)

    def action_cycle_sort(self) -> None:
        self.run_intent(self.model.cycle_sort)

    def action_category_filter(self) -> None:
        """A library folder's categories: the chosen one becomes the ``/`` filter."""
        library = self.library
        if library is None:
            self.notify("Categories come with a library folder (foley-tui open DIR).")
            return
        from foley_tui.screens.category import CategoryScreen  # not needed to start

        def chosen(query: str | None) -> None:
            if query is None:
                return
            filter_input = self.query_one(FilterInput)
            filter_input.value = query  # its Changed message sets the model's query
            filter_input.display = bool(query)
            self.candidate_list.focus()

        self.app.push_screen(CategoryScreen(library.categories()), chosen)

    def action_sessions(self) -> None:
        if self.links.open_sessions is not None:
            self.links.open_sessions()

    def action_messages(self) -> None:
        """Open the conversation panel; a message attached to the highlighted candidate
        shows in its details when the panel closes."""
        sound_id = self.current_id
        caption = self.model.caption(sound_id) if sound_id is not None else None

        def closed(_: None) -> None:
            self.loader.poll_ledger()

        from foley_tui.screens.messages import MessagesScreen  # not needed to start

        self.app.push_screen(MessagesScreen(self.store, sound_id=sound_id, caption=caption), closed)

    def action_help(self) -> None:
        from foley_tui.screens.help import HelpScreen, help_entries  # not needed to start

        self.app.push_screen(HelpScreen(help_entries(self.app, self.links.keymap)))

    def action_quit(self) -> None:
        """Quit once the decisions made so far have their answer (a second ``q`` does
        not wait); what was not saved is said on the terminal after the app is gone."""
        if self._quitting or self.writer.outstanding == 0:
            self._quit()
            return
        self._quitting = True
        waiting = self.writer.outstanding
        self.notify(
            f"Quitting once {waiting} decision{'s are' if waiting > 1 else ' is'} saved "
            "(q again: quit now).",
            title="Saving",
            timeout=10,
        )
        self.writer.when_idle(self._quit)

    def _quit(self) -> None:
        if self._quit_done:
            return
        self._quit_done = True
        self.save_position(leaving=True)
        self.app.exit()

    def save_position(self, *, leaving: bool = False) -> None:
        """Put the cursor on disk now (writes may be coalesced by the store). ``leaving``:
        the app is quitting; what was not saved goes to the terminal after it."""
        error = self.model.save_position()
        notes = [error] if error is not None else []
        if leaving:
            notes += self.model.unsettled()
            keep = self.links.exit_notes
            if keep is not None:
                keep.extend(n for n in notes if n not in keep)
                return
        for note in notes:
            self.notify(note, severity="error")


@functools.cache
def _sessions_available() -> bool:
    return importlib.util.find_spec("foley_tui.screens.sessions") is not None
