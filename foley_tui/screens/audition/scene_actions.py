"""The audition screen's two scene keys: ``t`` (the timeline) and ``C`` (the highlighted
candidate in context: :class:`InContext`, a widget with nothing to draw that owns its
workers).

``C`` never reads audio on the UI thread: the scene build (the store's picks, each pick's
audio lookup, loudness measured for sounds that declare none) and the player's first
premix run in a worker; the key returns at once, the sound starts when it is ready, a
second ``C`` supersedes the first (the older build never plays), and a failure becomes a
notice. After a first ``C``, the resting row's scene is built ahead (:class:`InContext`).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from foley_tui.audio.base import Player
from foley_tui.audition.model import AuditionModel
from foley_tui.config import Settings
from foley_tui.screens.audition.reports import worker_failure

if TYPE_CHECKING:
    from foley_tui.audio.base import Scene
    from foley_tui.scene.build import SceneModel
    from foley_tui.scene.contract import Mix
    from foley_tui.scene.narration import Narration

#: The worker group of ``C`` (exclusive: a new press cancels the build in flight).
IN_CONTEXT_GROUP = "in-context"
#: The worker group building the resting row's scene ahead (exclusive too).
IN_CONTEXT_AHEAD_GROUP = "in-context-ahead"

#: Serialises "still wanted? then play" across in-context workers, so a superseded build
#: that finishes late can never start after the build that replaced it.
_PLAY_LOCK = threading.Lock()


def open_timeline(screen: Any) -> None:
    """Push the timeline over the audition screen (it shares the store and the player).
    The session's picks and change token are read in a worker first, never on the UI
    thread; the timeline appears when they are in (a second ``t`` meanwhile is one)."""
    from foley_tui.screens.timeline.screen import TimelineScreen

    store = screen.store
    narration = screen.links.narration
    view = screen.view_settings

    def volume(db: float) -> None:
        screen.set_volume_db(db)

    def mix(chosen: Mix) -> None:
        screen.in_context.mix = chosen  # C plays the mix the timeline last chose

    def push(scene: SceneModel, token: object) -> None:
        if screen.app.screen is not screen:
            return  # the user went elsewhere meanwhile
        screen.app.push_screen(
            TimelineScreen(
                store,
                screen.player,
                narration=narration,
                loudness_match=view.loudness_match,
                volume_db=view.volume_db,
                on_volume=volume,
                scene=scene,
                token=token,
                mix=screen.in_context.mix,
                on_mix=mix,
                allow_network=screen.settings.allow_network,
            )
        )

    def work() -> None:
        try:
            token = store.change_token()
        except OSError:
            token = None
        # The scene model is imported when first used, not when the app starts.
        from foley_tui.scene.build import build_scene

        try:
            scene = build_scene(store, narration=narration, resolve_audio=False)
        except Exception as exc:  # a failure is a notice, never a crash of the UI
            screen.app.call_from_thread(
                screen.notify, f"Cannot open the timeline: {exc}", severity="error", timeout=8
            )
            return
        screen.app.call_from_thread(push, scene, token)

    screen.run_worker(
        work,
        name="open timeline",
        group="timeline-open",
        thread=True,
        exclusive=True,
        exit_on_error=False,
    )


class InContext(Widget):
    """``C`` for the audition screen: builds the highlighted candidate's scene in a
    worker and plays it; once the user has pressed ``C`` in this session (comparing takes
    in context), the scene of each row the cursor rests on is built and premixed ahead
    (``Player.prefetch_scene``), so the next ``C`` only swaps it in, as fast as a
    prefetched preview. A prefetched scene is used only while the session's picks, the
    loudness match and the pre-roll are what it was built from."""

    DEFAULT_CSS = "InContext { display: none; }"

    REST_S = 0.3
    """How long the cursor rests on a row before its scene is built ahead."""

    def __init__(
        self,
        model: AuditionModel,
        player: Player,
        settings: Settings,
        narration: Narration | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.narration = narration
        self.player = player
        self.settings = settings
        self.used = False
        chosen = str(settings.scene_mix)
        self.mix: Mix = "flat" if chosen == "flat" else "woven"
        """The mix ``C`` plays (the setting, then what the timeline's ``w`` chose)."""
        self._analysed = False
        self.ready: tuple[tuple[Any, ...], Scene, float, str] | None = None
        """(key, scene, start, what the notice says) of the scene built ahead."""
        self._timer: Timer | None = None

    def _settings(self) -> tuple[float, bool, Mix]:
        """The pre-roll, whether loudness matching applies (the flat mix only), the mix."""
        loudness = bool(self.model.view.loudness_match) and self.mix == "flat"
        return float(self.settings.context_pre_roll_s), loudness, self.mix

    def key(self, sound_id: str) -> tuple[Any, ...]:
        """What a scene built for ``sound_id`` depends on (the picks as the screen knows
        them: ours and those other processes wrote)."""
        picks = self.model.listing.decisions.picks
        placed = frozenset((sid, p.layer, repr(p.onset)) for sid, p in picks.items())
        return (
            sound_id,
            placed,
            *self._settings(),
            id(self.narration),
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        failure = worker_failure(event)
        if failure is not None:
            self.notify(failure, severity="error", timeout=8)

    def rested(self, sound_id: str | None) -> None:
        """The highlight moved: build this row's scene ahead once it rests there."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if not self.used or sound_id is None:
            return
        if self.ready is not None and self.ready[0] == self.key(sound_id):
            return
        self._timer = self.set_timer(self.REST_S, lambda: self._build(sound_id, False))

    def play(self, sound_id: str | None) -> None:
        """``C`` on ``sound_id`` (the highlighted row): the scene built ahead when it is
        still right, else build it now."""
        if sound_id is None:
            return
        self.used = True
        ready = self.ready
        if ready is not None and ready[0] == self.key(sound_id):
            _, scene, start, said = ready
            player = self.player

            def swap() -> None:
                # Still a worker: the player swaps the prepared voice in, but if another
                # screen's prefetch took its place it would open the files again.
                with _PLAY_LOCK:
                    if not get_current_worker().is_cancelled:
                        player.play_scene(scene, start)

            self.run_worker(
                swap,
                name="play in context",
                group=IN_CONTEXT_GROUP,
                thread=True,
                exclusive=True,
                exit_on_error=False,
            )
            self.notify(said, timeout=3)
            return
        self._build(sound_id, True)

    def _build(self, sound_id: str, play: bool) -> None:
        """Build ``sound_id``'s scene in a worker; play it (``C``) or premix it ahead."""
        store = self.model.store
        player = self.player
        app = self.app
        narration = self.narration
        pre_roll, loudness_match, mix = self._settings()
        key = self.key(sound_id)
        if play and mix == "woven" and not self._analysed:
            from foley_tui.scene.contract import ANALYSING_NOTE

            self._analysed = True  # the first woven C measures; later ones reuse it
            self.notify(ANALYSING_NOTE, timeout=4)

        def notify(message: str, **kwargs: Any) -> None:
            if play:
                app.call_from_thread(self.notify, message, **kwargs)

        def work() -> None:
            from foley_tui.scene.build import build_scene, in_context, same_event_picks
            from foley_tui.scene.reading import clock

            worker = get_current_worker()
            try:
                model = build_scene(store, narration=narration)
                found = in_context(model, store, sound_id, pre_roll_s=pre_roll)
                if found is None:
                    subject = model.pick(sound_id)
                    why = subject.reading.note if subject else "its onset does not resolve"
                    if not worker.is_cancelled:
                        notify(f"No place in the scene: {why}", severity="warning", timeout=4)
                    return
                subject, start = found
                scene = model.to_scene(
                    mix=mix,
                    loudness_match=loudness_match,
                    extra=subject,
                    leave_out=same_event_picks(model, store, sound_id),
                )
                said = (
                    f"In context ({mix} mix) at {clock(subject.onset_s or 0.0)} "
                    f"({subject.reading.summary}), from {clock(start)}"
                )
                if not play:
                    player.prefetch_scene(scene, start)
                    if not worker.is_cancelled:
                        app.call_from_thread(self._built, key, scene, start, said)
                    return
                with _PLAY_LOCK:
                    if worker.is_cancelled:
                        return
                    player.play_scene(scene, start)
            except Exception as exc:  # any failure is a notice, never a crash of the UI
                if not worker.is_cancelled:
                    notify(f"Cannot play in context: {exc}", severity="error", timeout=8)
                return
            notify(said, timeout=3)

        self.run_worker(
            work,
            name="play in context" if play else "in context ahead",
            group=IN_CONTEXT_GROUP if play else IN_CONTEXT_AHEAD_GROUP,
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _built(self, key: tuple[Any, ...], scene: Scene, start: float, said: str) -> None:
        self.ready = (key, scene, start, said)
