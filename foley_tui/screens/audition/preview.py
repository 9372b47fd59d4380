"""Previewer: hearing and seeing the highlighted candidate, for the audition screen.

A widget with nothing to draw that the screen composes: it owns the player's state on
screen (playhead, errors), the candidate dicts and resolved sources it caches, what the
details pane and the waveform show for the highlighted row, and the prefetch that warms
the player for the next key. All its IO (reading a candidate file, finding and sniffing
its audio, the shared store and remote fetch, waveform peaks, prefetch) runs in its own
thread workers, which post their results to this widget: the UI thread reads no session
file and no audio (a row not read yet says "reading…" if that takes a moment; a play of
it starts when its audio is found). What the screen must redraw (the status line, the
footer) goes back as a :class:`~foley_tui.audition.change.Change` through ``apply``.

It composes :class:`~foley_tui.screens.audition.panes.Panes` (the waveform or
spectrogram) and :class:`~foley_tui.screens.audition.transport.Transport` (pause, A/B,
click-to-seek, the readout, skip-silence).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from textual import work
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from foley_tui.audio.base import Player, PlayerState, PlayerStatus, Source, Unplayable
from foley_tui.audition.change import Change
from foley_tui.audition.model import AuditionModel
from foley_tui.config import Settings
from foley_tui.domain import Pick, Reject, Row
from foley_tui.screens.audition.panes import Panes
from foley_tui.screens.audition.reports import (
    DetailsRead,
    PeaksReady,
    PlayerStateChanged,
    PlayheadMoved,
    SourceResolved,
    SpectrogramReady,
    worker_failure,
)
from foley_tui.screens.audition.transport import Transport
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from foley_tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from foley_tui.audio.blob import RemoteAudio
    from foley_tui.library.source import FolderSource
    from foley_tui.store.history import LedgerWatch

CANDIDATE_CACHE = 256
READING_NOTICE_S = 0.08
"""The details pane says "reading…" once a candidate's read takes longer than this."""
SOURCE_CACHE = 1024


class Previewer(Widget):
    """The player, details, waveform and prefetch of one audition screen."""

    DEFAULT_CSS = "Previewer { display: none; }"

    def __init__(
        self,
        model: AuditionModel,
        player: Player,
        settings: Settings,
        *,
        apply: Callable[[Change], None],
        ledger: Callable[[], LedgerWatch],
        library: FolderSource | None = None,
    ) -> None:
        """``apply``: the screen's one way to show a Change; ``ledger``: the session's
        conversation, for the messages attached to the highlighted candidate;
        ``library``: the folder the session auditions (its paths and embedded fields go
        in the details)."""
        super().__init__()
        self.model = model
        self.library = library
        self.player = player
        self.settings = settings
        self.apply = apply
        self.ledger = ledger
        self.playing_id: str | None = None
        self.audio_checked = False
        self._flush_pending = False
        self._prefetch_pending = False
        self.audio_problems: dict[str, str] = {}
        """What the decoder found wrong in a sound's audio, by sound id (found in this
        run, or remembered in our state from an earlier one)."""
        self._noted: set[str] = set()
        """Sounds whose finding a worker was given to remember in our state."""
        self._prefetched: tuple[str | None, str | None] = (None, None)
        """(highlighted, next undecided) last handed to the prefetch worker."""
        self._candidates: OrderedDict[str, dict[str, Any] | None] = OrderedDict()
        self._sources: OrderedDict[str, Source | Unplayable] = OrderedDict()
        self._asking: set[str] = set()
        """Sounds with no local audio whose shared (Redis) audio a worker is looking up."""
        self._play_after: tuple[str, float, bool] | None = None
        """A play asked for while its sound was being read or looked up: started on the
        answer."""
        self.panes = Panes(self, model, self.show_details)
        self.transport = Transport(self, player)
        self._timer: Timer | None = None
        self._reading: str | None = None
        """The highlighted row whose candidate a worker is reading for the details."""
        self._play_seq = 0
        """Bumped by every play: a cold play's worker starts only if still the latest."""
        self._play_lock = threading.Lock()
        """Held around each play() call: a superseded cold play never lands last."""
        self._widgets: dict[type[Widget], Widget] = {}

    # -- lifecycle --------------------------------------------------------------------
    def start(self) -> None:
        """Follow the player (called by the screen once it is mounted)."""
        self.sync_settings()
        self.player.set_state_callback(self._on_player_state)
        # Runs only while something plays (an idle app should cost no CPU).
        self._timer = self.set_interval(1 / 20, self.tick, pause=True)
        self.check_audio()
        self._read_problems()

    def on_unmount(self) -> None:
        self.player.set_state_callback(None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        failure = worker_failure(event)
        if failure is not None:
            self.notify(failure, severity="error", timeout=8)

    def _widget(self, kind: type[Widget]) -> Any:
        """The screen's widget of that kind (composed once: asked once)."""
        widget = self._widgets.get(kind)
        if widget is None:
            widget = self._widgets[kind] = self.screen.query_one(kind)
        return widget

    def sync_settings(self) -> None:
        view = self.model.view
        self.player.set_loop(view.loop)
        self.player.set_volume_db(view.volume_db)
        self.player.set_loudness_match(view.loudness_match)

    def forget(self) -> None:
        """Candidate files changed on disk: cached dicts and sources may be stale."""
        self._candidates.clear()
        self._sources.clear()
        self._asking.clear()
        self._prefetched = (None, None)

    # -- the player's state -----------------------------------------------------------
    def _on_player_state(self, status: PlayerStatus) -> None:
        # Called from the audio thread: post_message is thread-safe.
        self.post_message(PlayerStateChanged(status))

    def check_audio(self) -> None:
        """Once the player is up (it may start in the background), refresh the status
        line's device. (The app says "no audio", once per run: ``FoleyApp._audio_ready``.)"""
        if self.audio_checked or self.player.starting:
            return
        self.audio_checked = True
        # Prefetch hints given while a deferred player was starting were dropped: again.
        self._prefetched = (None, None)
        self.schedule_prefetch()
        self.apply(Change(status=True))

    def on_player_state_changed(self, message: PlayerStateChanged) -> None:
        status = message.status
        self._widget(StatusLine).set_output(status.underruns, status.output_note)
        self.check_audio()
        playing = status.state is PlayerState.PLAYING
        self.panes.playing(playing)
        if playing and self._timer is not None:
            self._timer.resume()
        else:
            self.post_message(PlayheadMoved(status.position_s, status.duration_s))
        if status.error:
            self.notify(status.error, title="Playback", severity="error")
        if status.warning and self.playing_id is not None:
            self.audio_problem(self.playing_id, status.warning)
        self.apply(Change())  # the footer's seek key follows the player's source

    def tick(self) -> None:
        status = self.player.status()
        self.transport.tick(status)
        self._widget(StatusLine).set_output(status.underruns, status.output_note)
        self.post_message(PlayheadMoved(status.position_s, status.duration_s))
        if status.state is not PlayerState.PLAYING and self._timer is not None:
            self._timer.pause()

    def on_playhead_moved(self, message: PlayheadMoved) -> None:
        if self.playing_id == self.model.cursor:
            self.panes.playhead(message.position_s, message.duration_s)
        self.panes.playing(self.player.status().state is PlayerState.PLAYING)
        readout = self.transport.readout(message.position_s, message.duration_s)
        self._widget(StatusLine).set_clock(readout)

    @property
    def has_source(self) -> bool:
        return self.player.status().source is not None

    # -- playing ----------------------------------------------------------------------
    def play(self, sound_id: str, start_s: float = 0.0, *, exact: bool = False) -> None:
        """Play ``sound_id`` from ``start_s``; from the top (0, not ``exact``) with
        skip-silence on, from where the sound starts."""
        source = self._sources.get(sound_id)
        if source is None or (isinstance(source, Unplayable) and sound_id in self._asking):
            # Not found yet (the prefetch usually has: then nothing is read here) or the
            # shared store is being asked: it starts on the answer, if still wanted.
            self._play_after = (sound_id, start_s, exact)
            if source is None:
                self._read(sound_id, group="resolve")
            return
        self._play_after = None
        if isinstance(source, Unplayable):
            self.notify(f"Can't play: {source.reason}", severity="warning", timeout=4)
            return
        self.playing_id = sound_id
        self._start(source, self.transport.start_of(sound_id, source, start_s, exact=exact))

    def _start(self, source: Source, start_s: float) -> None:
        """play() on the UI thread when it reads no file (the prefetch warmed the head:
        the fast path), else from a worker: opening and decoding a file is a read, and
        nothing on the UI thread reads audio. A later play supersedes a cold one still
        opening (it never starts after it)."""
        self._play_seq += 1
        seq = self._play_seq
        player = self.player
        if player.is_warm(source, start_s):
            with self._play_lock:  # at most a cold open in flight (a regular file)
                player.play(source, start_s)
            return

        def cold() -> None:
            with self._play_lock:
                if seq == self._play_seq:
                    player.play(source, start_s)

        self.run_worker(cold, thread=True, group="play", exit_on_error=False, name="play (cold)")

    def play_stop(self, sound_id: str) -> None:
        status = self.player.status()
        if status.state is PlayerState.PLAYING and self.playing_id == sound_id:
            self.stop()
        else:
            self.play(sound_id)

    def stop(self) -> None:
        """Stop, and drop a cold play still opening its file (it would start after)."""
        self._play_seq += 1
        self.player.stop()

    # -- candidates and sources -------------------------------------------------------
    def remote_audio(self) -> RemoteAudio | None:
        """The session's shared audio (Redis), not asked while its store is known to be
        down: an unreachable host would hold each lookup worker for the connect timeout.
        (The sources resolved meanwhile are forgotten when it is back.)"""
        return None if self.model.store_down else self.model.store.remote_audio()

    def _read(self, sound_id: str, *, group: str) -> None:
        """Read ``sound_id``'s candidate and find its audio on this machine (stats and a
        sniff) in a worker; the answer comes back as :class:`DetailsRead`."""
        store = self.model.store
        row = self.model.listing.rows.get(sound_id)
        why = row.unreadable if row and row.unreadable else "candidate file missing"

        def work() -> None:
            candidate = store.candidate(sound_id)
            source: Source | Unplayable
            if candidate is None:
                source = Unplayable(f"candidate unreadable: {why}")
            else:
                # Imported on first use: keeps it (and urllib) out of the first paint.
                from foley_tui.audio.resolve import resolve

                source = resolve(candidate, store.data_dir, allow_network=False)
            self.post_message(DetailsRead(sound_id, candidate, source))

        self.run_worker(
            work, thread=True, group=group, exclusive=True, exit_on_error=False, name="read"
        )

    def on_details_read(self, message: DetailsRead) -> None:
        """A worker read a candidate: cache it (its shared audio is asked for next when
        it has none here); show it, or play it, if that was waiting."""
        sound_id, candidate, source = message.sound_id, message.candidate, message.source
        previous = self._sources.get(sound_id)
        self._candidates[sound_id] = candidate
        self._candidates.move_to_end(sound_id)
        if len(self._candidates) > CANDIDATE_CACHE:
            self._candidates.popitem(last=False)
        remote = None
        if isinstance(source, Unplayable) and candidate is not None and not message.asked:
            remote = self.remote_audio()
        if remote is not None and isinstance(source, Unplayable) and candidate is not None:
            source = Unplayable(f"{source.reason}; asking {remote.where}…", source.kind)
            self._sources[sound_id] = source
            self._ask(sound_id, candidate)
        else:
            self._remember(sound_id, source)
        self._answered(sound_id, source, previous)

    def _ask(self, sound_id: str, candidate: Mapping[str, Any]) -> None:
        """Look the sound's audio up in the shared store (and the network, when allowed)
        in a worker; :meth:`on_source_resolved` takes the answer."""
        if sound_id in self._asking:
            return
        self._asking.add(sound_id)
        self._ask_shared(sound_id, candidate, network=self.settings.allow_network)

    @work(thread=True, group="shared-audio", exit_on_error=False, name="shared audio")
    def _ask_shared(self, sound_id: str, candidate: Mapping[str, Any], *, network: bool) -> None:
        self._fetch_source(sound_id, candidate, network=network)

    def _remember(self, sound_id: str, source: Source | Unplayable) -> None:
        self._sources[sound_id] = source
        if len(self._sources) > SOURCE_CACHE:
            self._sources.popitem(last=False)
        candidate_list: CandidateList = self._widget(CandidateList)
        if isinstance(source, Unplayable):
            candidate_list.unplayable.add(sound_id)
        else:
            candidate_list.unplayable.discard(sound_id)
        candidate_list.refresh_row(sound_id)

    def on_source_resolved(self, message: SourceResolved) -> None:
        sound_id, source = message.sound_id, message.source
        previous = self._sources.get(sound_id)
        self._asking.discard(sound_id)
        self._remember(sound_id, source)
        self._answered(sound_id, source, previous)

    def _answered(
        self, sound_id: str, source: Source | Unplayable, previous: Source | Unplayable | None
    ) -> None:
        """Start a play that waited for this answer; show the details that waited (or
        the row the cursor moved to meanwhile), or news of the highlighted row."""
        pending, self._play_after = self._play_after, None
        if pending is not None and pending[0] == sound_id:
            self.play(sound_id, pending[1], exact=pending[2])
        elif pending is not None:
            self._play_after = pending
        reading, cursor = self._reading, self.model.cursor
        if reading is not None and (reading == sound_id or reading != cursor):
            self.show_details()
        elif sound_id == cursor and source != previous:
            # The prefetch worker resolves rows ahead of the cursor: re-show only on news.
            self.panes.peaks_for = None
            self.show_details()

    # -- details and waveform ---------------------------------------------------------
    def schedule_details(self) -> None:
        """Show the details after the next frame: the list repaints first (and a held
        key's many moves collapse into one details load)."""
        if not self._flush_pending:
            self._flush_pending = True
            self.call_after_refresh(self._flush_details)

    def _flush_details(self) -> None:
        self._flush_pending = False
        self.show_details()

    @property
    def details_pending(self) -> bool:
        """Details to show: scheduled, or the highlighted row's file still being read."""
        return self._flush_pending or self._reading is not None

    def _known(self, sound_id: str) -> bool:
        """The candidate (and where its audio is, or why not) were read already."""
        return sound_id in self._candidates and sound_id in self._sources

    def audio_problem(self, sound_id: str, problem: str, *, count: int = 0) -> None:
        """The decoder found ``problem`` in the sound's audio (and played it as silence):
        marked in the list and shown in its details from now on, said once, and (with
        ``count``, the samples a whole read of the file replaced) remembered in our state
        for the next run."""
        source = self._sources.get(sound_id)
        if count and isinstance(source, Source) and sound_id not in self._noted:
            self._noted.add(sound_id)
            self._note_problem(sound_id, source.path, problem, count)
        if self.audio_problems.get(sound_id) == problem:
            return
        first = sound_id not in self.audio_problems
        self.audio_problems[sound_id] = problem
        self._mark_troubled({sound_id})
        if first:
            self.notify(problem, title="Audio", severity="warning")
        if sound_id == self.model.cursor and self._known(sound_id):
            self.show_details()

    def _mark_troubled(self, sound_ids: set[str]) -> None:
        candidate_list: CandidateList = self._widget(CandidateList)
        new = sound_ids - candidate_list.troubled
        candidate_list.troubled |= new
        if len(new) == 1:
            candidate_list.refresh_row(next(iter(new)))
        elif new:
            candidate_list.refresh_rows()

    @work(thread=True, group="sound-problems", exit_on_error=False, name="remember audio problem")
    def _note_problem(self, sound_id: str, path: Any, note: str, count: int) -> None:
        """(Worker.) Remember a finding in our state, with the file's size and mtime (a
        changed file is a new file); never in foley's files."""
        from foley_tui.audio.decode import NONFINITE_PROBLEM
        from foley_tui.store.sound_problems import FileStamp, SoundProblem, sound_problems_of

        stamp = FileStamp.of(path)
        if stamp is None:
            return
        try:
            sound_problems_of(self.model.store).note(
                sound_id, SoundProblem(NONFINITE_PROBLEM, note, count, stamp)
            )
        except (OSError, ValueError) as exc:
            self.app.call_from_thread(
                self.notify,
                f"could not remember the audio problem of {sound_id}: {exc}",
                title="Audio",
                severity="warning",
            )

    @work(thread=True, group="sound-problems", exit_on_error=False, name="read audio problems")
    def _read_problems(self) -> None:
        """(Worker.) What earlier runs found wrong in the session's audio, for the files
        that have not changed since: marked in the list before they are played again."""
        from foley_tui.store.sound_problems import sound_problems_of

        found = sound_problems_of(self.model.store).read()
        if found:
            notes = {sound_id: problem.note for sound_id, problem in found.items()}
            self.app.call_from_thread(self._problems_read, notes)

    def _problems_read(self, notes: dict[str, str]) -> None:
        for sound_id, note in notes.items():
            self.audio_problems.setdefault(sound_id, note)
            self._noted.add(sound_id)
        self._mark_troubled(set(notes))
        cursor = self.model.cursor
        if cursor in notes and self._known(cursor):
            self.show_details()

    def show_details(self) -> None:
        details: Details = self._widget(Details)
        sound_id = self.model.cursor
        if sound_id is None:
            self._reading = None
            details.show(None, None, None, None, None)
            self.panes.clear("")
            return
        row = self.model.listing.rows.get(sound_id)
        if not self._known(sound_id):
            # Read by a worker (the file may be slow, huge or not a file at all); the
            # pane is shown when it comes (details_read).
            if self._reading != sound_id:
                self._reading = sound_id
                self._read(sound_id, group="details")
                # A read takes a millisecond or two: say "reading…" only if it lasts
                # (no flicker while stepping through the list).
                self.set_timer(READING_NOTICE_S, lambda: self._still_reading(sound_id, row))
            return
        self._reading = None
        candidate = self._candidates[sound_id]
        source = self._sources[sound_id] if candidate is not None else None
        decisions = self.model.listing.decisions
        decision: Pick | Reject | None = decisions.picks.get(sound_id) or decisions.rejects.get(
            sound_id
        )
        conflict = decisions.rejects.get(sound_id) if sound_id in decisions.picks else None
        messages = self.ledger().for_sound(sound_id)
        library = self.library.details(sound_id) if self.library is not None else None
        problem = self.audio_problems.get(sound_id)
        details.show(
            sound_id,
            candidate,
            row,
            decision,
            source,
            conflict,
            messages,
            library,
            problems=(problem,) if problem else (),
            marks=self.model.listing.marks.get(sound_id),
        )
        self.schedule_prefetch()
        if isinstance(source, Source):
            self.panes.show(sound_id, source)
        elif self.panes.peaks_for != sound_id:
            self.panes.unplayable(
                sound_id, f"⊘ {source.reason}" if source else "⊘ candidate unreadable"
            )
            asked = sound_id in self._asking  # that worker tries the network too
            if self.settings.allow_network and candidate is not None and not asked:
                self._fetch_preview(sound_id, candidate)

    def _still_reading(self, sound_id: str, row: Row | None) -> None:
        if self._reading == sound_id:
            self._widget(Details).show_reading(sound_id, row)
            self.panes.clear("")

    @work(thread=True, group="fetch", exclusive=True, exit_on_error=False, name="fetch preview")
    def _fetch_preview(self, sound_id: str, candidate: Mapping[str, Any]) -> None:
        self._fetch_source(sound_id, candidate, network=True)

    def _fetch_source(self, sound_id: str, candidate: Mapping[str, Any], *, network: bool) -> None:
        """(Worker.) Every rule, the shared store's and (``network``) the web's included."""
        from foley_tui.audio.resolve import resolve

        store = self.model.store
        source = resolve(
            candidate, store.data_dir, allow_network=network, remote=self.remote_audio()
        )
        self.post_message(SourceResolved(sound_id, source))

    def on_peaks_ready(self, message: PeaksReady) -> None:
        if message.problem:
            count = message.nonfinite if message.exact else 0  # the whole file was read
            self.audio_problem(message.sound_id, message.problem, count=count)
        self.transport.measured(message.sound_id, message.first_sound_s)
        self.panes.peaks_ready(message)

    def on_spectrogram_ready(self, message: SpectrogramReady) -> None:
        playing = self.playing_id == message.sound_id
        self.panes.spectrogram_ready(message, self.player.status().position_s if playing else None)

    def skip_silence_changed(self) -> None:
        source = self._sources.get(self.model.cursor or "")
        self.panes.skip_silence_changed(source if isinstance(source, Source) else None)

    # -- prefetch: warm the player for the next key -----------------------------------
    def schedule_prefetch(self) -> None:
        """Prefetch after the next frame, never inside a key handler: a decision shows the
        details synchronously, and starting a worker there would delay its autoplay."""
        if not self._prefetch_pending:
            self._prefetch_pending = True
            self.call_after_refresh(self._prefetch_around)

    def _prefetch_around(self) -> None:
        """Hand the highlighted candidate and the one auto-advance would move to next (the
        next undecided) to the prefetch worker, so either key's play() reads no file."""
        self._prefetch_pending = False
        model = self.model
        sound_id = model.cursor
        if sound_id is None:
            return
        target = model.listing.next_undecided(model.cursor_index)
        next_id = model.listing.view[target] if target is not None else None
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
        store = self.model.store
        for sound_id, source in wanted:
            if worker.is_cancelled:
                return
            if source is None:
                candidate = store.candidate(sound_id)
                if candidate is None:
                    continue
                from foley_tui.audio.resolve import resolve

                resolved = resolve(
                    candidate,
                    store.data_dir,
                    allow_network=False,
                    remote=self.remote_audio(),
                )
                # The dict too: showing this row's details then reads nothing.
                self.post_message(DetailsRead(sound_id, candidate, resolved, asked=True))
                if not isinstance(resolved, Source):
                    continue
                source = resolved
            self.player.prefetch(source)
