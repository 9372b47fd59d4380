"""A REAPER project (``.RPP``): one track per layer (and spill), the narration on its own,
an item per clip at its placement with its clip gain, source offset (the pre-handle) and
length, and a marker per scene event and per anchored word.

Written by hand rather than with the ``rpp`` package: the format is plain nested text,
we only write (never edit) projects, and the handful of elements we emit are simpler to
get exactly right than a generic element tree's quoting and number formats.

Headless: never imports textual.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from foley_tui.spot.plan import SpotClip, SpotPlan, relative_file


def quote(text: str) -> str:
    """A string as REAPER reads it: in the first of ``" ' ` `` it does not contain."""
    text = "".join(ch if ch >= " " else " " for ch in text)
    for mark in ('"', "'", "`"):
        if mark not in text:
            return f"{mark}{text}{mark}"
    return '"' + text.replace('"', "'") + '"'


def _guid(*parts: str) -> str:
    return "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, "foley-tui:" + "/".join(parts))).upper() + "}"


#: REAPER's source types by libsndfile's container name (AIFF is read by its WAVE source).
_SOURCE_TYPES = {
    "WAV": "WAVE",
    "WAVEX": "WAVE",
    "RF64": "WAVE",
    "W64": "WAVE",
    "AIFF": "WAVE",
    "FLAC": "FLAC",
    "MP3": "MP3",
    "OGG": "VORBIS",
}


def source_type(clip: SpotClip) -> str:
    """The ``<SOURCE ...>`` type REAPER reads the clip's file with: a copy is a WAV; a
    referenced original is whatever its header says (a foley blob has no extension)."""
    if clip.copied:
        return "WAVE"
    from foley_tui.audio.decode import DecodeError, open_sound

    try:
        with open_sound(clip.source) as handle:
            return _SOURCE_TYPES.get(str(handle.format), "WAVE")
    except DecodeError:
        return "WAVE"


def _seconds(samples: int, rate: int) -> str:
    return f"{samples / rate:.10f}".rstrip("0").rstrip(".") or "0"


def write_rpp(plan: SpotPlan, clips: list[SpotClip], gains: dict[str, float], bundle: Path) -> str:
    """The project's text for ``clips`` (the narration included) in ``bundle``."""
    rate = plan.options.rate
    start = plan.options.start_samples
    lines = [
        '<REAPER_PROJECT 0.1 "6.0" 0',
        f"  SAMPLERATE {rate} 0 0",
        f"  PROJOFFS {_seconds(start, rate)} 0 0",
    ]
    for i, marker in enumerate(plan.markers, 1):
        lines.append(f"  MARKER {i} {_seconds(marker.position, rate)} {quote(marker.name)} 0")
    for track in plan.tracks():
        on_track = [c for c in clips if c.track == track]
        if not on_track:
            continue
        lines.append(f"  <TRACK {_guid(plan.session_id, track)}")
        lines.append(f"    NAME {quote(track)}")
        for clip in sorted(on_track, key=lambda c: c.position):
            gain = 10 ** (gains.get(clip.sound_id, 0.0) / 20)
            # The item starts its source at the pre-handle (a copy) or the in-point.
            offset = clip.pre if clip.copied else round(clip.in_point_s * rate)
            lines += [
                "    <ITEM",
                f"      POSITION {_seconds(clip.position, rate)}",
                f"      LENGTH {_seconds(clip.length, rate)}",
                f"      LOOP {1 if clip.loop else 0}",
                f"      VOLPAN {gain:.8f} 0 1 -1",
                f"      SOFFS {_seconds(offset, rate)}",
                f"      IGUID {_guid(plan.session_id, clip.sound_id, track)}",
                f"      NAME {quote(clip.caption)}",
                f"      <SOURCE {source_type(clip)}",
                f"        FILE {quote(relative_file(clip, bundle))}",
                "      >",
                "    >",
            ]
        lines.append("  >")
    lines.append(">")
    return "\n".join(lines) + "\n"
