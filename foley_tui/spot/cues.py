"""The cue sheet (``cues.csv``): every pick, placed or left out, with why.

Headless: never imports textual.
"""

from __future__ import annotations

import csv
import io

from foley_tui.spot.plan import SpotClip, SpotPlan
from foley_tui.spot.timecode import timecode_of

COLUMNS = (
    "status",
    "event",
    "layer",
    "track",
    "onset_s",
    "onset_tc",
    "duration_s",
    "gain_db",
    "caption",
    "file",
    "sound_id",
    "licence",
    "attribution",
    "note",
)


def licence_name(clip: SpotClip) -> str:
    lic = clip.licence
    value = lic.get("license_name") or lic.get("license_id") or ""
    return str(value)


def attribution(clip: SpotClip) -> str:
    lic = clip.licence
    text = lic.get("attribution_text")
    if isinstance(text, str) and text:
        return text
    if lic.get("requires_attribution") is True:
        creator = lic.get("creator_name")
        return f"by {creator}" if isinstance(creator, str) and creator else "attribution required"
    return ""


def write_cues(
    plan: SpotPlan, clips: list[SpotClip], gains: dict[str, float], problems: dict[str, str]
) -> str:
    """The CSV text: placed clips in scene order, then everything left out."""
    options = plan.options
    rate, fps, start = options.rate, options.frame_rate, options.start_samples
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for clip in clips:
        if clip.layer == "narration":
            continue
        note = "no onset: stacked at the start" if clip.stacked else ""
        if clip.url is not None:
            note = (note + "; " if note else "") + (
                "referenced at its URL, never copied: its licence forbids keeping its bytes"
            )
        elif not clip.copied:
            note = (note + "; " if note else "") + "referenced, not copied"
        writer.writerow(
            [
                "placed",
                clip.event or "",
                clip.layer,
                clip.track,
                f"{clip.position / rate:.6f}",
                timecode_of(start + clip.position, fps, rate),
                f"{clip.length / rate:.6f}",
                f"{gains.get(clip.sound_id, 0.0):.2f}",
                clip.caption,
                clip.file,
                clip.sound_id,
                licence_name(clip),
                attribution(clip),
                note,
            ]
        )
    for sound_id, reason in problems.items():
        failed = next((c for c in plan.clips if c.sound_id == sound_id), None)
        if failed is None:
            continue
        clip = failed
        writer.writerow(
            [
                "skipped",
                clip.event or "",
                clip.layer,
                "",
                "",
                "",
                "",
                "",
                clip.caption,
                "",
                sound_id,
                licence_name(clip),
                attribution(clip),
                reason,
            ]
        )
    for skipped in plan.skipped:
        writer.writerow(
            [
                "left out",
                "",
                skipped.layer,
                "",
                "",
                "",
                "",
                "",
                skipped.caption,
                "",
                skipped.sound_id,
                "",
                "",
                skipped.reason,
            ]
        )
    return out.getvalue()
