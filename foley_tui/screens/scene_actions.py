"""The audition screen's two scene keys: ``t`` (the timeline) and ``C`` (the highlighted
candidate in context), kept here so the audition screen only forwards to them."""

from __future__ import annotations

from typing import Any

from foley_tui.scene.build import build_scene, in_context, same_event_picks
from foley_tui.scene.reading import clock


def open_timeline(screen: Any) -> None:
    """Push the timeline over the audition screen (it shares the store and the player)."""
    from foley_tui.screens.timeline import TimelineScreen

    view = screen.view_settings

    def volume(db: float) -> None:
        screen.set_volume_db(db)

    screen.app.push_screen(
        TimelineScreen(
            screen.store,
            screen.player,
            narration=getattr(screen.app, "narration", None),
            loudness_match=view.loudness_match,
            volume_db=view.volume_db,
            on_volume=volume,
        )
    )


def play_in_context(screen: Any) -> None:
    """Play the highlighted candidate at its effective onset (its pick's, else its scene
    event's suggestion) over the narration and the other picks (its alternatives for the
    same event left out), from a pre-roll before it."""
    sound_id = screen.current_id
    if sound_id is None:
        return
    store = screen.store
    model = build_scene(store, narration=getattr(screen.app, "narration", None))
    pre_roll = float(getattr(screen.settings, "context_pre_roll_s", 2.0))
    found = in_context(model, store, sound_id, pre_roll_s=pre_roll)
    if found is None:
        subject = model.pick(sound_id)
        why = subject.reading.note if subject is not None else "its onset does not resolve"
        screen.notify(f"No place in the scene: {why}", severity="warning", timeout=4)
        return
    subject, start = found
    scene = model.to_scene(
        loudness_match=screen.view_settings.loudness_match,
        extra=subject,
        leave_out=same_event_picks(model, store, sound_id),
    )
    screen.player.play_scene(scene, start)
    screen.notify(
        f"In context at {clock(subject.onset_s or 0.0)} ({subject.reading.summary}), "
        f"from {clock(start)}",
        timeout=3,
    )
