"""The timeline's scene playback: prefetch, ``P``, a pick alone, live mute/solo/loop.

Every audio lookup (file headers, a shared store's blobs), loudness measure and premix
runs in a worker, never on the UI thread:

* the scene is built and its first stems premixed in a worker when the timeline opens,
  after every change and after a scene stops, so ``P`` on the UI thread only hands the
  prepared scene to the player (as fast as a preview);
* ``P`` before that is ready (or from a scrolled view) builds and starts the scene in a
  worker; the key returns at once and a second ``P`` supersedes the first;
* mute and solo change the scene's controls, which the player's bus reads at every audio
  block (heard at once, also on a prefetched scene); a new loop region changes the
  premix, so it is prefetched again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from textual.worker import get_current_worker

from foley_tui.scene.build import build_scene
from foley_tui.scene.contract import ANALYSING_NOTE, WOVEN
from foley_tui.scene.reading import clock

if TYPE_CHECKING:
    from foley_tui.audio.base import Scene

#: (muted lanes, soloed lanes, loop region or None)
Controls: TypeAlias = tuple[frozenset[str], frozenset[str], tuple[float, float] | None]


class ScenePlayback:
    """Scene playback for a timeline screen (``screen`` gives the store, the player, the
    settings and :meth:`controls`)."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.prefetched: Scene | None = None  # the scene P plays, premixed
        self._prefetched_start = 0.0  # where it was premixed from
        self._generation = 0  # bumped by every prefetch: a stale one is never kept
        self.playing: Scene | None = None  # the scene last started (live controls)

    # -- controls ------------------------------------------------------------------
    def apply_controls(self, scene: Scene) -> None:
        """Give ``scene`` the timeline's mute, solo and loop region (UI thread)."""
        muted, soloed, region = self.screen.controls()
        for lane in {*scene.muted, *muted}:
            scene.set_muted(lane, lane in muted)
        for lane in {*scene.soloed, *soloed}:
            scene.set_soloed(lane, lane in soloed)
        if region != scene.loop_region:
            scene.set_loop_region(region)

    def changed_controls(self, scene_playing: bool, start: float) -> None:
        """Mute/solo/loop changed: the playing scene hears it at its next audio block; a
        prefetched scene takes mute and solo as they are (they apply after its premix)
        and is prefetched again only for a new loop region (that changes the premix)."""
        if scene_playing and self.playing is not None:
            self.apply_controls(self.playing)
        elif (
            self.prefetched is not None and self.screen.controls()[2] == self.prefetched.loop_region
        ):
            self.apply_controls(self.prefetched)
        else:
            self.prefetch(start)

    # -- building (workers) --------------------------------------------------------
    def _mixer_scene(self) -> Scene:
        """Worker: the picks with their audio looked up (and, with loudness match on,
        measured) as the mixer's scene, with the timeline's controls."""
        screen = self.screen
        model = build_scene(screen.store, narration=screen.narration)
        scene = model.to_scene(mix=screen.mix, loudness_match=screen.loudness_applies)
        screen.app.call_from_thread(self.apply_controls, scene)
        return scene

    def prefetch(self, start: float) -> None:
        """Build the scene and premix its first stems from ``start`` in a worker."""
        screen = self.screen
        self.prefetched = None
        self._generation += 1
        generation = self._generation

        def work() -> None:
            scene = self._mixer_scene()
            screen.player.prefetch_scene(scene, start)
            screen.app.call_from_thread(self._ready, generation, scene, start)

        screen.run_worker(
            work, group="scene-prefetch", thread=True, exclusive=True, exit_on_error=False
        )

    def _ready(self, generation: int, scene: Scene, start: float) -> None:
        if generation == self._generation:
            self.prefetched, self._prefetched_start = scene, start

    # -- playing -------------------------------------------------------------------
    def play(self, start: float, *, rebuild: bool = False) -> None:
        """P: the prefetched scene at once, else build and start it in a worker (with
        ``rebuild``, always: the mix changed). A first woven build reads and measures
        every sound (then cached): the user is told it is being analysed."""
        scene = self.prefetched
        if (
            rebuild
            or scene is None
            or self._prefetched_start != start
            or scene.mix != self.screen.mix
        ):
            if self.screen.mix == WOVEN:
                self.screen.notify(ANALYSING_NOTE, timeout=4)
            self.screen.run_worker(
                lambda: self._build_and_play(start),
                name="play the scene",
                group="scene-play",
                thread=True,
                exclusive=True,
                exit_on_error=False,
            )
            return
        self.prefetched = None  # its premix is spent by this play
        self.apply_controls(scene)
        self._start(scene, start)

    def _build_and_play(self, start: float) -> None:
        """Worker: P before the prefetch was ready."""
        app = self.screen.app
        worker = get_current_worker()
        try:
            scene = self._mixer_scene()
            if worker.is_cancelled:
                return
            if not scene.voices:
                app.call_from_thread(self._start, scene, start)
                return
            self.playing = scene
            self.screen.player.play_scene(scene, start)
            app.call_from_thread(self.screen.follow_playhead)
        except Exception as exc:  # a notice, never a crash of the UI
            app.call_from_thread(
                self.screen.notify, f"Cannot play the scene: {exc}", severity="error", timeout=8
            )
            return
        app.call_from_thread(
            self.screen.notify, f"Playing the scene from {clock(start)}", timeout=2
        )

    def _start(self, scene: Scene, start: float) -> None:
        if not scene.voices:
            self.screen.notify("Nothing to play: no placed, playable pick and no narration.")
            return
        self.playing = scene
        self.screen.player.play_scene(scene, start)
        self.screen.follow_playhead()
        self.screen.notify(f"Playing the scene from {clock(start)}", timeout=2)

    def play_pick(self, sound_id: str) -> None:
        """The pick alone: its audio looked up in a worker, then played."""
        screen = self.screen

        def work() -> None:
            from foley_tui.audio.base import Source, Unplayable
            from foley_tui.audio.resolve import resolve

            store = screen.store
            candidate = store.candidate(sound_id)
            source = (
                resolve(dict(candidate), store.data_dir, remote=store.remote_audio())
                if candidate is not None
                else Unplayable("no cached candidate", "none")
            )
            if not isinstance(source, Source):
                screen.app.call_from_thread(
                    screen.notify, f"Cannot play: {source.reason}", severity="warning"
                )
                return
            if not get_current_worker().is_cancelled:
                screen.player.play(source)

        screen.run_worker(
            work,
            name="play the pick",
            group="pick-play",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )
