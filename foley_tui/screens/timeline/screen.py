"""TimelineScreen: the session's picks against time, played as a scene.

``t`` from the audition screen opens it. The picks sit in lanes by layer (beds span their
sentence), unresolved anchors in an "unplaced" lane; a cursor moves between picks and
the audition keys for layer, onset, nudges, undo and preview volume work on the pick under
it (written through and journaled like every decision). ``P`` plays the scene with a
moving playhead; ``T`` taps the highlighted pick's onset to the playhead, less the
device's output latency. Esc stops the scene when it plays, else goes back.

The screen composes :class:`~foley_tui.widgets.timeline.TimelineView` and applies what the
headless :class:`~foley_tui.scene.timeline.TimelineModel` decides. Every store call it makes
(a write, the picks read back after it, undo, what a dialog's confirm is checked against)
runs in :class:`~foley_tui.screens.timeline.writer.TimelineWriter`'s worker, never on the
UI thread: a stalled store leaves the keys working and the status line saying "saving…".
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from foley_tui.audio.base import SCENE_HOW, Player, PlayerState
from foley_tui.audition.stale import Baseline
from foley_tui.domain import ValidationError
from foley_tui.keys.bindings import binding_objects
from foley_tui.scene.build import SceneModel, build_scene
from foley_tui.scene.contract import DEFAULT_MIX, FLAT, WOVEN, Mix
from foley_tui.scene.narration import Narration
from foley_tui.scene.reading import clock
from foley_tui.scene.timeline import Edit, TimelineModel
from foley_tui.screens.onset import OnsetChoice, OnsetScreen
from foley_tui.screens.sessions_modals import ConfirmModal
from foley_tui.screens.timeline.play import Controls, ScenePlayback
from foley_tui.screens.timeline.writer import Task, TimelineWriter
from foley_tui.store import SessionStore, StoreWriteError
from foley_tui.store.errors import StoreTimeoutError
from foley_tui.widgets.key_hints import KeyHints

if TYPE_CHECKING:
    from foley_tui.widgets.timeline import TimelineView

#: Preview volume step and range (as the audition screen's).
VOLUME_STEP_DB = 2.0
VOLUME_RANGE_DB = (-40.0, 12.0)
#: Playhead refresh rate while the scene plays.
PLAYHEAD_HZ = 20
#: How often the timeline checks the store for changes made by another process.
POLL_S = 1.0
#: Ticks without a scene playing before the playhead timer rests (a scene just started
#: may report itself a moment later; a stopped one gets its last tick).
IDLE_TICKS = PLAYHEAD_HZ


#: What the title says of each mix, and the notice when ``w`` switches to it.
MIX_TITLES: dict[Mix, str] = {WOVEN: "woven mix", FLAT: "flat mix"}
MIX_NOTICES: dict[Mix, str] = {
    WOVEN: "Woven mix: as foley's weave will mix it (its levels, ducking and master)",
    FLAT: "Flat mix: every sound at unity (L: loudness match)",
}


#: What the status line says while a write is outstanding.
SAVING = "saving…"


@dataclass(frozen=True, slots=True)
class _Refused:
    """A confirm that wrote nothing: the session changed under its dialog."""

    why: str


#: The timeline's keys, from the one registry (:mod:`foley_tui.keys.keymap`): the audition
#: keys it honours keep their audition ids and keys; the new ones (zoom, scroll, mute,
#: solo, loop region, tap, play scene) use keys no audition action available here uses.
TIMELINE_BINDINGS = tuple(binding_objects("timeline"))


class TimelineScreen(Screen[None]):
    """The scene's timeline (see the module docstring)."""

    BINDINGS = list(TIMELINE_BINDINGS)

    DEFAULT_CSS = """
    TimelineScreen #timeline-title { height: 1; background: $panel; padding: 0 1; }
    TimelineScreen #timeline-status { height: auto; padding: 0 1; color: $text-muted; }
    TimelineScreen TimelineView { margin: 1 0 0 0; }
    """

    def __init__(
        self,
        store: SessionStore,
        player: Player,
        *,
        narration: Narration | None = None,
        loudness_match: bool = False,
        volume_db: float = 0.0,
        on_volume: Callable[[float], None] | None = None,
        scene: SceneModel | None = None,
        token: object = None,
        mix: Mix = DEFAULT_MIX,
        on_mix: Callable[[Mix], None] | None = None,
        allow_network: bool = False,
    ) -> None:
        """``scene`` and ``token``: the picks and the session's change token, read by the
        caller's worker (:func:`~foley_tui.screens.audition.scene_actions.open_timeline`); read
        here when not given (a headless caller). ``allow_network``: the settings' network
        access (a spot reaches remote sounds at their URL)."""
        super().__init__()
        self.store = store
        self.player = player
        self.narration = narration
        self.loudness_match = loudness_match
        self.volume_db = volume_db
        self._on_volume = on_volume
        self.model = TimelineModel(scene if scene is not None else self._build(), mix=mix)
        self._on_mix = on_mix
        self.allow_network = allow_network
        self.playback = ScenePlayback(self)
        self._was_playing = False
        self._playhead: Timer | None = None
        self._idle_ticks = 0
        """Ticks since the playhead timer last saw a scene playing."""
        self.following_playhead = False
        """Whether the playhead timer runs (it rests while no scene plays)."""
        self._looping = False
        self._token: object = token if scene is not None else self._change_token()
        self._view: TimelineView | None = None
        self.writer = TimelineWriter(on_change=self._show_status)
        """Runs the store calls (see the module docstring)."""
        self._live = False
        """Mounted and not leaving: only then do its actions run (see check_action)."""

    def _build(self) -> SceneModel:
        # The store's picks only: each pick's audio is looked up (file headers read) and
        # measured in workers (timeline_play.ScenePlayback), never on the UI thread.
        return build_scene(self.store, narration=self.narration, resolve_audio=False)

    # -- layout ----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        from foley_tui.widgets.timeline import TimelineView

        with Vertical():
            yield Static(self._title(), id="timeline-title")
            self._view = TimelineView(self.model, id="timeline")
            yield self._view
            yield Static("", id="timeline-status")
        yield KeyHints()
        yield self.writer

    def on_mount(self) -> None:
        self._live = True
        self._show()
        # The playhead is followed only while a scene may be playing: an idle timeline
        # wakes once a second (the poll), not twenty times.
        self._playhead = self.set_interval(1 / PLAYHEAD_HZ, self._tick)
        self.following_playhead = True  # until it sees that no scene plays
        self.set_interval(POLL_S, self._poll)
        self.call_after_refresh(self._fit)

    def _change_token(self) -> object:
        try:
            return self.store.change_token()
        except OSError:
            return None

    def _poll(self) -> None:
        """Another process (foley's agent, a second foley-tui) changed the picks: redraw.
        The folders are compared and the picks re-read in a worker, never on the UI
        thread; one poll at a time."""
        if any(w.group == "timeline-poll" and w.is_running for w in self.workers):
            return
        if self.writer.busy:
            return  # our own write's answer redraws; the next poll looks again
        seen = self._token

        def work() -> None:
            token = self._change_token()
            if token is None or token == seen:
                return
            scene = self._build() if seen is not None else None
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                self.app.call_from_thread(self._outside, seen, token, scene)

        self.run_worker(work, thread=True, group="timeline-poll", exit_on_error=False)

    def _outside(self, seen: object, token: object, scene: SceneModel | None) -> None:
        """(UI thread.) The poll's answer; dropped when our own write moved the token on
        meanwhile (that write rebuilt the model already)."""
        if self._token != seen:
            return
        self._token = token
        if scene is None:
            return
        self.model.rebuild(scene)
        self._show()
        if not self.scene_playing:
            self._prefetch()

    def _fit(self) -> None:
        self.model.ensure_visible(self.view.lane_cells)
        self.view.refresh_model()
        self._prefetch()
        narration = self.model.scene.narration
        if narration is not None and self.model.scene.narration_problem is None:
            self.run_worker(
                lambda: self._narration_peaks(narration.path),
                thread=True,
                group="narration-peaks",
                exclusive=True,
            )

    def _narration_peaks(self, path: Any) -> None:
        """Worker: the narration's waveform, 50 buckets a second (a long one sampled)."""
        from foley_tui.audio.decode import DecodeError, probe
        from foley_tui.audio.peaks import exact_peaks, overview_peaks

        try:
            duration = probe(path).duration_s
            buckets = max(min(int(duration * 50), 200_000), 1)
            result = (
                exact_peaks(path, buckets) if duration <= 600 else overview_peaks(path, buckets)
            )
        except (DecodeError, OSError):
            return
        self.app.call_from_thread(self.view.set_narration_peaks, result.peaks, result.duration_s)

    @property
    def view(self) -> TimelineView:
        # Held from compose, never queried: a timer or a worker's answer that comes while
        # the screen is being removed still finds it.
        assert self._view is not None, "composed before any use"
        return self._view

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys reach the screen that is on top when the app handles them: between its
        push and its mount, and once it is leaving (``t``, Escape), the timeline takes
        none. A key queued behind ``t`` then goes to the list it returns to, never to a
        pick of a timeline being removed; no action runs half on a screen that is going."""
        return self._live and self.app.screen is self

    def _title(self) -> str:
        scene = self.model.scene
        narration = (
            f"narration: {scene.narration.path.name} ({len(scene.words)} words)"
            if scene.narration is not None
            else "no narration: symbolic onsets cannot be placed"
        )
        if scene.narration_problem:
            narration = f"narration problem: {scene.narration_problem}"
        placed, unplaced = len(scene.placed), len(scene.unplaced)
        mix = MIX_TITLES[self.model.mix]
        region = self.model.loop_region
        loop = ""
        if self._looping and region is not None:
            loop = f" · loop {clock(region[0])} to {clock(region[1])}"
        return (
            f"Timeline · {mix} · {placed} placed, {unplaced} unplaced · {narration} · "
            f"{self.model.zoom:g} s/col{loop}"
        )

    def _show(self) -> None:
        self.view.looping = self._looping and self.model.loop_region is not None
        self.query_one("#timeline-title", Static).update(self._title())
        self._show_status()
        self.view.refresh_model()

    def _show_status(self) -> None:
        if not self._live:
            return  # not mounted yet, or leaving: nothing to redraw
        current = self.model.current
        status = self.model.describe(current) if current is not None else "no picks yet"
        if self.writer.saving:
            status = f"{SAVING} · {status}"
        self.query_one("#timeline-status", Static).update(status)

    # -- playhead --------------------------------------------------------------------
    @property
    def scene_playing(self) -> bool:
        status = self.player.status()
        return (
            status.source is not None
            and status.source.how == SCENE_HOW
            and status.state is PlayerState.PLAYING
        )

    def follow_playhead(self) -> None:
        """A scene was started: follow its playhead (the timer rests again once the
        scene has stopped)."""
        self._idle_ticks = 0
        if self._playhead is not None and not self.following_playhead:
            self.following_playhead = True
            self._playhead.resume()

    def _tick(self) -> None:
        status = self.player.status()
        playing = (
            status.source is not None
            and status.source.how == SCENE_HOW
            and status.state is not PlayerState.STOPPED
        )
        self.view.playhead_s = status.position_s if playing else None
        if playing:
            self.model.ensure_visible(self.view.lane_cells, status.position_s)
        elif self._was_playing:
            self._prefetch()  # the stopped scene's premix is spent: P again starts warm
        self._was_playing = playing
        self._idle_ticks = 0 if playing else self._idle_ticks + 1
        if self._idle_ticks > IDLE_TICKS and self._playhead is not None:
            self.following_playhead = False
            self._playhead.pause()

    # -- actions: move and view ------------------------------------------------------
    def action_move(self, step: int) -> None:
        if self.model.move(step) is not None:
            self.model.ensure_visible(self.view.lane_cells)
            self._show()

    def action_move_lane(self, step: int) -> None:
        if self.model.move_lane(step) is not None:
            self.model.ensure_visible(self.view.lane_cells)
            self._show()

    def action_zoom(self, step: int) -> None:
        self.model.zoom_step(step, self.view.lane_cells)
        self._show()

    def action_scroll(self, direction: int) -> None:
        self.model.scroll(direction * max(self.view.lane_cells // 4, 1), self.view.lane_cells)
        self._show()

    def _leave(self) -> None:
        self._live = False
        self.dismiss(None)

    def action_back(self) -> None:
        self._stop_scene()
        self._leave()

    def action_escape(self) -> None:
        status = self.player.status()
        if status.state is not PlayerState.STOPPED and status.source is not None:
            self.player.stop()
            self.view.playhead_s = None
            return
        self._leave()

    # -- actions: play ---------------------------------------------------------------
    def _start_s(self) -> float:
        if self._looping and self.model.loop_region is not None:
            return self.model.loop_region[0]
        return self.model.offset_s

    def controls(self) -> Controls:
        """The mute, solo and loop region the scene should have now."""
        region = self.model.loop_region if self._looping else None
        return frozenset(self.model.muted), frozenset(self.model.soloed), region

    def _prefetch(self) -> None:
        self.playback.prefetch(self._start_s())

    def action_play_scene(self) -> None:
        if self.scene_playing:
            self._stop_scene()
            return
        self.playback.play(self._start_s())

    def action_play_pick(self) -> None:
        current = self.model.current
        if current is None:
            return
        status = self.player.status()
        if (
            status.state is PlayerState.PLAYING
            and status.source is not None
            and (status.source.how != SCENE_HOW)
        ):
            self.player.stop()
            return
        self.playback.play_pick(current.sound_id)

    def _stop_scene(self) -> None:
        if self.scene_playing:
            self.player.stop()
        self.view.playhead_s = None

    def _changed_controls(self) -> None:
        """Mute/solo/loop changed: heard by a playing scene at its next audio block."""
        self.playback.changed_controls(self.scene_playing, self._start_s())
        self._show()

    def action_mute(self) -> None:
        current = self.model.current
        if current is None:
            return
        lane = self.model.lane_of(current)
        muted = self.model.toggle_mute(lane)
        self.notify(f"{lane} {'muted' if muted else 'unmuted'}", timeout=2)
        self._changed_controls()

    def action_solo(self) -> None:
        current = self.model.current
        if current is None:
            return
        lane = self.model.lane_of(current)
        soloed = self.model.toggle_solo(lane)
        self.notify(f"{lane} {'soloed' if soloed else 'unsoloed'}", timeout=2)
        self._changed_controls()

    def action_loop_edge(self, edge: str) -> None:
        status = self.player.status()
        current = self.model.current
        if self.scene_playing:
            at = status.position_s
        elif current is not None and current.onset_s is not None:
            at = current.onset_s if edge == "start" else current.end_s or current.onset_s
        else:
            at = self.model.offset_s
        a, b = self.model.set_loop_edge(at, start=edge == "start")
        self.notify(f"Loop region {clock(a)} to {clock(b)}", timeout=2)
        self._changed_controls()

    def action_toggle_loop(self) -> None:
        if self.model.loop_region is None:
            self.model.set_loop_edge(self.model.offset_s, start=True)
        self._looping = not self._looping
        self.notify("Loop on" if self._looping else "Loop off", timeout=2)
        self._changed_controls()

    @property
    def mix(self) -> Mix:
        return self.model.mix

    @property
    def loudness_applies(self) -> bool:
        """Loudness matching (``L``) applies to the flat mix only."""
        return self.loudness_match and self.model.mix == FLAT

    def action_toggle_mix(self) -> None:
        """``w``: the woven mix (as foley's weave) or the flat one (unity); a playing scene
        starts again where it is, in the other mix."""
        mix = self.model.toggle_mix()
        if self._on_mix is not None:
            self._on_mix(mix)
        self.notify(MIX_NOTICES[mix], timeout=3)
        self._show()
        if self.scene_playing:
            at = self.player.status().position_s
            self.playback.play(at, rebuild=True)
        else:
            self._prefetch()

    def action_volume(self, direction: int) -> None:
        low, high = VOLUME_RANGE_DB
        self.volume_db = max(low, min(high, self.volume_db + direction * VOLUME_STEP_DB))
        self.player.set_volume_db(self.volume_db)
        if self._on_volume is not None:
            self._on_volume(self.volume_db)
        self.notify(f"Volume {self.volume_db:+.0f} dB", timeout=1)

    # -- actions: hand off ------------------------------------------------------------
    def action_spot(self) -> None:
        """Spot the scene to a folder (a dialog; the bundle is written in its worker)."""
        from foley_tui.screens.spot import SpotScreen

        self._stop_scene()
        self.app.push_screen(
            SpotScreen(self.store, narration=self.model.scene.narration, network=self.allow_network)
        )

    # -- actions: decide -------------------------------------------------------------
    def _write(self, what: Callable[[], object], opened: Baseline | None = None) -> None:
        """Write ``what`` in the writer's worker (after a dialog's ``opened`` check), then
        read the picks back there; the redraw happens on the answer."""

        def run() -> tuple[object, SceneModel] | _Refused:
            if opened is not None:
                why = opened.changed(self.store.picks_ns)
                if why is not None:
                    return _Refused(why)
            what()
            return self._change_token(), self._build()

        def then(outcome: object) -> None:
            if isinstance(outcome, _Refused):
                self.notify(outcome.why, title="Store", severity="warning", timeout=10)
            elif isinstance(outcome, tuple):
                self._rebuilt(*outcome)
            else:
                self._failed(outcome)

        self.writer.submit(Task(run, then))

    def _failed(self, outcome: object) -> None:
        if isinstance(outcome, StoreTimeoutError):
            # It may still land: the poll shows what the store holds once it answers.
            self._token = object()
            self.notify(
                f"Not confirmed: {outcome}. It may still land; the timeline shows what the "
                "store holds when it answers.",
                title="Store",
                severity="error",
                timeout=8,
            )
        elif isinstance(outcome, (StoreWriteError, ValidationError, OSError)):
            self.notify(f"Not saved: {outcome}", title="Store", severity="error", timeout=8)
        else:
            self.notify(f"Not saved: {outcome!r}", title="Store", severity="error", timeout=8)

    def _rebuilt(self, token: object, scene: SceneModel, cursor: str | None = None) -> None:
        """(UI thread.) A write's answer: the picks as the store holds them after it."""
        if not self._live:
            return  # the timeline is leaving: the list's poll shows what was written
        self._token = token  # our own write: not an outside change
        self.model.rebuild(scene)
        if cursor is not None and self.model.pick(cursor) is not None:
            self.model.cursor = cursor
        self.model.ensure_visible(self.view.lane_cells)
        self._show()
        self._prefetch()

    def _opened(self, sound_ids: list[str]) -> Baseline:
        """The records a dialog's confirm is checked against, read by the writer's worker
        behind the writes asked before it (a key pressed just before the dialog opened is
        ours, not a change under it)."""
        captions: dict[str, str] = {}
        for sid in sound_ids:
            pick = self.model.pick(sid)
            captions[sid] = pick.caption if pick is not None else sid
        baseline = Baseline(captions)
        picks = self.store.picks_ns
        # Read by the worker that runs the confirm's check after it: always there by then.
        self.writer.submit(Task(lambda: baseline.read(picks, sound_ids), write=False))
        return baseline

    def action_set_layer(self, layer: str) -> None:
        current = self.model.current
        if current is None:
            return
        sound_id = current.sound_id
        self._write(lambda: self.store.set_layer(sound_id, layer))  # type: ignore[arg-type]

    def action_edit_onset(self) -> None:
        current = self.model.current
        if current is None:
            return
        sound_id = current.sound_id
        opened = self._opened([sound_id])

        def done(choice: OnsetChoice | None) -> None:
            if choice is not None:
                self._write(lambda: self.store.set_onset(sound_id, choice.onset), opened)

        self.app.push_screen(
            OnsetScreen(
                current.caption,
                current.stored_onset,
                layer=current.layer,
                loop=current.placement.loop,
                words=self.model.scene.words,
            ),
            done,
        )

    def _apply(self, edit: Edit | None, verb: str) -> None:
        if edit is None:
            return
        if edit.replaces_anchor is None:
            self._write(lambda: self.store.set_onset(edit.sound_id, edit.onset))
            return

        opened = self._opened([edit.sound_id])

        def answered(yes: bool | None) -> None:
            if yes:
                self._write(lambda: self.store.set_onset(edit.sound_id, edit.onset), opened)

        self.app.push_screen(
            ConfirmModal(
                f"{verb}: replace the anchor?",
                f"The onset is foley's anchor {edit.replaces_anchor!r}. Replace it with "
                f"{clock(edit.onset)} (a number: it no longer follows the narration)?",
                yes_label="Replace",
            ),
            answered,
        )

    def action_nudge(self, delta: float) -> None:
        self._apply(self.model.nudge(delta), "Nudge")

    def action_tap(self) -> None:
        if not self.scene_playing:
            self.notify("Tap while the scene plays (P).", timeout=2)
            return
        latency = self.player.latency_s
        self._apply(self.model.tap(self.player.status().position_s, latency), "Tap")

    def action_undo(self) -> None:
        self._journal(undo=True)

    def action_redo(self) -> None:
        self._journal(undo=False)

    def _journal(self, *, undo: bool) -> None:
        def run() -> tuple[object, SceneModel, str] | None:
            entry = self.store.undo() if undo else self.store.redo()
            if entry is None:
                return None
            return self._change_token(), self._build(), entry.sound_id

        def then(outcome: object) -> None:
            if outcome is None:
                self.notify(f"Nothing to {'undo' if undo else 'redo'}.", timeout=2)
            elif isinstance(outcome, tuple):
                token, scene, sound_id = outcome
                self._rebuilt(token, scene, cursor=sound_id)
                self.notify(f"{'Undid' if undo else 'Redid'} a decision", timeout=2)
            elif isinstance(outcome, StoreTimeoutError):
                self._failed(outcome)
            elif isinstance(outcome, (StoreWriteError, OSError)):
                self.notify(str(outcome), title="Store", severity="error", timeout=8)
            else:
                self._failed(outcome)

        self.writer.submit(Task(run, then))
