"""The bundle's ``README.txt`` (what each file is, how to open it in each editor) and
``CREDITS.txt`` (every sound whose licence asks for attribution).

Headless: never imports textual.
"""

from __future__ import annotations

from foley_tui.spot.cues import attribution, licence_name
from foley_tui.spot.plan import SpotClip, SpotPlan
from foley_tui.spot.timecode import format_frames, parse


def readme(plan: SpotPlan, files: list[str]) -> str:
    """What the bundle holds and how to import it in Pro Tools, REAPER, Resolve, Ardour."""
    o = plan.options
    tc = format_frames(parse(o.start_tc, o.frame_rate), o.frame_rate)
    depth = "32-bit float" if o.float_ else f"{o.bits}-bit"
    present = set(files)
    lines = [
        f"foley-tui spot bundle: {plan.title}",
        f"session {plan.session_id}; {len(plan.clips)} clips; {o.rate} Hz, {depth}; "
        f"scene start at {tc} ({o.frame_rate.name} fps)",
        "",
        "What is here",
    ]
    parts = [
        (
            "<layer>/",
            "Broadcast WAV copies, one per placed pick, at unity gain; each file's "
            "bext time stamp is its place on the timeline, its iXML names the layer, event, "
            "sound id and licence.",
        ),
        ("narration/", "the narration as a Broadcast WAV stamped at the scene start."),
        ("scene.RPP", "a REAPER project: a track per layer, items with clip gains, markers."),
        (
            "scene.aaf",
            "an AAF for Pro Tools, Nuendo, Media Composer and Resolve (media linked "
            "to the WAV copies).",
        ),
        ("scene.otio", "an OpenTimelineIO timeline (Resolve, Premiere and pipeline tools)."),
        (
            "cues.csv",
            "the cue sheet: every pick with its onset, timecode, length, clip gain, "
            "licence; and every pick left out, with why.",
        ),
        ("mix.wav", "the reference mix, as foley-tui render-scene bounces it."),
        ("CREDITS.txt", "the sounds whose licence asks for attribution."),
    ]
    for name, text in parts:
        key = name.rstrip("/")
        if key in present or (name == "<layer>/" and any("/" in f for f in present)):
            lines.append(f"  {name:<12} {text}")
    lines += [
        "",
        "Opening it",
        "  Pro Tools: File > Open Session... the AAF (or Import Session Data), or drag the",
        "    WAVs in and choose Spot > Original Time Stamp. Session start: " + tc + ".",
        "  REAPER: open scene.RPP; or insert the WAVs and use Item > Move to source",
        "    preferred position (BWF start offset).",
        "  DaVinci Resolve: File > Import > Timeline... scene.otio or scene.aaf, with the",
        "    WAVs found beside it; set the timeline start timecode to " + tc + ".",
        "  Ardour: Session > Import, choose the WAVs, Insert at: file timestamp; or",
        "    Session > Import > AAF where your build has it.",
        "",
        "Clip gains (the woven mix's per-clip reference gain plus layer gain) are on the",
        "items in the projects; the WAV copies themselves are at unity gain.",
    ]
    remote = [c for c in plan.clips if c.url is not None]
    if remote:
        lines += [
            "",
            "Remote sounds",
            f"  {len(remote)} sound(s) whose licence forbids keeping their bytes are not in",
            "  this bundle: the projects and the cue sheet reference them at their URL. An",
            "  editor that cannot open a URL shows them offline; fetch them from there.",
        ]
        lines += [f"  {c.caption}: {c.url}" for c in remote]
    if plan.warnings:
        lines += ["", "Warnings"] + [f"  {w}" for w in plan.warnings]
    return "\n".join(lines) + "\n"


def credits(clips: list[SpotClip]) -> str | None:
    """One entry per sound whose licence requires attribution; None when none does."""
    entries = []
    seen: set[str] = set()
    for clip in clips:
        lic = clip.licence
        if lic.get("requires_attribution") is not True or clip.sound_id in seen:
            continue
        seen.add(clip.sound_id)
        parts = [f"{clip.caption}", f"  {attribution(clip)}"]
        name = licence_name(clip)
        url = lic.get("license_url")
        if name or url:
            parts.append(
                f"  licence: {name}{' <' + url + '>' if isinstance(url, str) and url else ''}"
            )
        src = lic.get("source_url")
        if isinstance(src, str) and src:
            parts.append(f"  source: {src}")
        parts.append(f"  sound id: {clip.sound_id}")
        entries.append("\n".join(parts))
    if not entries:
        return None
    return "Credits\n\n" + "\n\n".join(entries) + "\n"
