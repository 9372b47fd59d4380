"""An OpenTimelineIO timeline (``scene.otio``): an audio track per layer (and spill) and
the narration, clips at their placements in samples, media referenced relative to the
bundle, the foley facts (sound id, event, licence, clip gain) in each clip's metadata.

Headless: never imports textual.
"""

from __future__ import annotations

from pathlib import Path

from foley_tui.spot.cues import attribution, licence_name
from foley_tui.spot.plan import SpotClip, SpotPlan, relative_file


def write_otio(
    plan: SpotPlan,
    clips: list[SpotClip],
    gains: dict[str, float],
    channels: dict[str, int],
    bundle: Path,
) -> str:
    """The timeline as OTIO JSON."""
    import opentimelineio as otio

    rate = plan.options.rate

    def span(start: int, duration: int) -> otio.opentime.TimeRange:
        return otio.opentime.TimeRange(
            otio.opentime.RationalTime(start, rate), otio.opentime.RationalTime(duration, rate)
        )

    timeline = otio.schema.Timeline(name=plan.title)
    timeline.global_start_time = otio.opentime.RationalTime(plan.options.start_samples, rate)
    timeline.metadata["foley"] = {
        "session_id": plan.session_id,
        "start_timecode": plan.options.start_tc,
        "fps": plan.options.frame_rate.name,
    }
    for name in plan.tracks():
        on_track = sorted((c for c in clips if c.track == name), key=lambda c: c.position)
        if not on_track:
            continue
        track = otio.schema.Track(name=name, kind=otio.schema.TrackKind.Audio)
        playhead = 0
        for clip in on_track:
            if clip.position > playhead:
                track.append(otio.schema.Gap(source_range=span(0, clip.position - playhead)))
            start = clip.pre if clip.copied else round(clip.in_point_s * rate)
            available = span(0, clip.copy_frames) if clip.copied else None
            reference = otio.schema.ExternalReference(
                target_url=relative_file(clip, bundle), available_range=available
            )
            item = otio.schema.Clip(
                name=clip.caption, media_reference=reference, source_range=span(start, clip.length)
            )
            item.metadata["foley"] = {
                "sound_id": clip.sound_id,
                "layer": clip.layer,
                "event": clip.event,
                "licence": licence_name(clip),
                "attribution": attribution(clip),
                "gain_db": round(gains.get(clip.sound_id, 0.0), 3),
                "channels": channels.get(clip.sound_id, 0),
                "loop": clip.loop,
            }
            track.append(item)
            playhead = clip.position + clip.length
        timeline.tracks.append(track)
    for marker in plan.markers:
        timeline.tracks.markers.append(
            otio.schema.Marker(
                name=marker.name,
                marked_range=span(marker.position, 0),
                metadata={"foley": {"kind": marker.kind}},
            )
        )
    text: str = otio.adapters.write_to_string(timeline, "otio_json")
    return text
