"""The audition screen's two scene keys: ``t`` (the timeline) and ``C`` (the highlighted
candidate in context), kept here so the audition screen only forwards to them.

``C`` never reads audio on the UI thread: the scene build (the store's picks, each pick's
audio lookup, loudness measured for sounds that declare none) and the player's first
premix run in a worker; the key returns at once, the sound starts when it is ready, a
second ``C`` supersedes the first (the older build never plays), and a failure becomes a
notice.
"""

from __future__ import annotations

import threading
from typing import Any

from textual.worker import get_current_worker

from foley_tui.scene.build import SceneModel, build_scene, in_context, same_event_picks
from foley_tui.scene.reading import clock

#: The worker group of ``C`` (exclusive: a new press cancels the build in flight).
IN_CONTEXT_GROUP = "in-context"

#: Serialises "still wanted? then play" across in-context workers, so a superseded build
#: that finishes late can never start after the build that replaced it.
_PLAY_LOCK = threading.Lock()


def open_timeline(screen: Any) -> None:
    """Push the timeline over the audition screen (it shares the store and the player).
    The session's picks and change token are read in a worker first, never on the UI
    thread; the timeline appears when they are in (a second ``t`` meanwhile is one)."""
    from foley_tui.screens.timeline import TimelineScreen

    store = screen.store
    narration = getattr(screen.app, "narration", None)
    view = screen.view_settings

    def volume(db: float) -> None:
        screen.set_volume_db(db)

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
            )
        )

    def work() -> None:
        try:
            token = store.change_token()
        except OSError:
            token = None
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


def play_in_context(screen: Any) -> None:
    """Play the highlighted candidate at its effective onset (its pick's, else its scene
    event's suggestion) over the narration and the other picks (its alternatives for the
    same event left out), from a pre-roll before it. Returns at once: the work runs in a
    worker (see the module docstring)."""
    sound_id = screen.current_id
    if sound_id is None:
        return
    store = screen.store
    player = screen.player
    app = screen.app
    narration = getattr(app, "narration", None)
    pre_roll = float(getattr(screen.settings, "context_pre_roll_s", 2.0))
    loudness_match = bool(screen.view_settings.loudness_match)

    def notify(message: str, **kwargs: Any) -> None:
        app.call_from_thread(screen.notify, message, **kwargs)

    def work() -> None:
        worker = get_current_worker()
        try:
            model = build_scene(store, narration=narration)
            found = in_context(model, store, sound_id, pre_roll_s=pre_roll)
            if found is None:
                subject = model.pick(sound_id)
                why = subject.reading.note if subject is not None else "its onset does not resolve"
                if not worker.is_cancelled:
                    notify(f"No place in the scene: {why}", severity="warning", timeout=4)
                return
            subject, start = found
            scene = model.to_scene(
                loudness_match=loudness_match,
                extra=subject,
                leave_out=same_event_picks(model, store, sound_id),
            )
            with _PLAY_LOCK:
                if worker.is_cancelled:
                    return
                player.play_scene(scene, start)
        except Exception as exc:  # any failure is a notice, never a crash of the UI
            if not worker.is_cancelled:
                notify(f"Cannot play in context: {exc}", severity="error", timeout=8)
            return
        notify(
            f"In context at {clock(subject.onset_s or 0.0)} ({subject.reading.summary}), "
            f"from {clock(start)}",
            timeout=3,
        )

    screen.run_worker(
        work,
        name="play in context",
        group=IN_CONTEXT_GROUP,
        thread=True,
        exclusive=True,
        exit_on_error=False,
    )
