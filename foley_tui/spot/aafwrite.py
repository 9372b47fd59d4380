"""The AAF's pyaaf2 part: a plain description of the composition (:class:`AafJob`, made
by :func:`foley_tui.spot.aaf.aaf_job` from the plan) written to a file, in this process
or in a worker process of its own (``python -m foley_tui.spot.aafwrite``) while the
copies are written.

A job needs no written copy: each copy's RIFF header and ``fmt`` chunk (what
``aaf2.ama.create_media_link`` reads from the file it links, for the WAVEDescriptor's
Summary) is known before the copy is written (:func:`foley_tui.spot.bwf.wave_summary`),
so each is linked through a scratch file holding just that, and every locator is set to
the copy's final place. The mobs and the composition are made first, each clip gain an
Audio Gain operation whose amplitude is set once the gains are in (they may be measured
while the copies are written), just before the file is saved.

This module imports only the standard library and pyaaf2, so a worker starts quickly.

Headless: never imports textual.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

#: SMPTE's Mono Audio Gain operation and its Amplitude parameter (AAF's own ids).
_MONO_AUDIO_GAIN = "9d2ea894-0968-11d3-8a38-0050040ef7d2"
_AMPLITUDE = "e4962321-2267-11d3-8a4c-0050040ef7d2"

#: gains(): each linked clip's gain in dB by sound id, when they are known.
Gains = Callable[[], dict[str, float]]


@dataclass(frozen=True, slots=True)
class LinkedClip:
    """One clip of the composition, and the file its MasterMob links.

    Attributes:
        sound_id: The sound (the key of its gain).
        caption: The clip's (the MasterMob's) name.
        track: Its track; a track of ``n`` channels is ``n`` sound slots.
        position: Its placement sample on the composition.
        length: Samples it plays.
        start: Where it starts in the linked file (its pre-handle or in-point).
        channels: The linked file's channels.
        name: The linked file's name (pyaaf2 names the file and tape mobs after it).
        facts: The part of ffprobe's ``-show_format -show_streams`` pyaaf2 reads.
        summary: For a copy not written yet: its RIFF header and ``fmt`` chunk (hex).
        path: Else the existing file to link (a referenced original).
        link: The URL its locators hold (None: ``path``'s own ``file://`` URL).
        gain: It carries a clip gain (a pick; the narration plays at unity).
    """

    sound_id: str
    caption: str
    track: str
    position: int
    length: int
    start: int
    channels: int
    name: str
    facts: dict[str, Any]
    summary: str | None = None
    path: str | None = None
    link: str | None = None
    gain: bool = True


@dataclass(frozen=True, slots=True)
class AafJob:
    """The composition: its name, rate, timecode, tracks in order and clips."""

    title: str
    rate: int
    tc_nominal: int
    tc_drop: bool
    tc_edit_rate: str  # a Fraction's text: "25", "30000/1001"
    tc_start: int
    tc_length: int
    tracks: list[str]
    clips: list[LinkedClip] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> AafJob:
        raw = json.loads(text)
        clips = [LinkedClip(**c) for c in raw.pop("clips")]
        return cls(**raw, clips=clips)


def _slot_names(track: str, channels: int) -> list[str]:
    if channels == 1:
        return [track]
    if channels == 2:
        return [f"{track} L", f"{track} R"]
    return [f"{track} {i}" for i in range(1, channels + 1)]


def write_job(job: AafJob, gains: Gains, path: Path) -> None:
    """Write ``job`` as an AAF at ``path``; ``gains()`` is asked once the mobs are made."""
    import aaf2
    from aaf2.auid import AUID

    rate = job.rate
    # The scratch folder is beside the AAF, in the bundle's temporary folder: whatever
    # becomes of this process, nothing of it outlives the bundle's own clean-up.
    with (
        tempfile.TemporaryDirectory(prefix=".aaf-", dir=path.parent) as scratch,
        aaf2.open(str(path), "w") as f,
    ):
        masters: dict[str, Any] = {}
        for i, clip in enumerate(job.clips):
            if clip.summary is not None:
                # create_media_link reads the linked file's header: a scratch file
                # holding the copy's own header stands for the copy not written yet.
                here = Path(scratch) / str(i) / clip.name
                here.parent.mkdir()
                here.write_bytes(bytes.fromhex(clip.summary))
            else:
                assert clip.path is not None
                here = Path(clip.path)
            made = aaf2.ama.create_media_link(f, str(here), clip.facts)
            master = made[0]
            master.name = clip.caption
            link = clip.link
            if link is not None:
                for mob in made[1:]:
                    if getattr(mob, "descriptor", None) is not None:
                        for locator in mob.descriptor["Locator"]:
                            locator["URLString"].value = link
            masters[clip.sound_id] = master

        gain_op = f.create.OperationDef(AUID(_MONO_AUDIO_GAIN), "Audio Gain", "")
        gain_op.media_kind = "sound"
        gain_op["NumberInputs"].value = 1
        f.dictionary.register_def(gain_op)
        amplitude = f.create.ParameterDef(AUID(_AMPLITUDE), "Amplitude", "", "Rational")
        f.dictionary.register_def(amplitude)
        gain_op["ParametersDefined"].append(amplitude)

        comp = f.create.CompositionMob()
        comp.name = job.title
        f.content.mobs.append(comp)
        tc_slot = comp.create_timeline_slot(edit_rate=Fraction(job.tc_edit_rate))
        tc_slot.name = "TC"
        timecode = f.create.Timecode(job.tc_nominal, drop=job.tc_drop, length=job.tc_length)
        timecode.start = job.tc_start
        tc_slot.segment = timecode

        amplitudes: list[tuple[str, Any]] = []  # (sound id, its ConstantValue)
        for track in job.tracks:
            on_track = sorted((c for c in job.clips if c.track == track), key=lambda c: c.position)
            if not on_track:
                continue
            width = max(c.channels for c in on_track)
            for ch, name in enumerate(_slot_names(track, width), 1):
                slot = comp.create_sound_slot(edit_rate=rate)
                slot.name = name
                sequence = slot.segment
                playhead = 0
                for clip in on_track:
                    have = clip.channels
                    if have < ch and have != 1:
                        continue
                    if clip.position > playhead:
                        sequence.components.append(
                            f.create.Filler("sound", clip.position - playhead)
                        )
                    source = masters[clip.sound_id].create_source_clip(
                        slot_id=1 if have == 1 else ch, start=clip.start, length=clip.length
                    )
                    if clip.gain:
                        group = f.create.OperationGroup(gain_op, length=clip.length)
                        group.media_kind = "sound"
                        group.segments.append(source)
                        value = f.create.ConstantValue(amplitude, Fraction(1))
                        group.parameters.append(value)
                        amplitudes.append((clip.sound_id, value))
                        sequence.components.append(group)
                    else:
                        sequence.components.append(source)
                    playhead = clip.position + clip.length
        gain_db = gains()
        for sound_id, value in amplitudes:
            db = gain_db.get(sound_id, 0.0)
            value.value = Fraction(10 ** (db / 20)).limit_denominator(1_000_000)


def main() -> int:
    """The worker: a job on stdin's first line, the gains (a JSON object) on its second
    once they are known; writes the AAF to ``argv[1]`` and says ``ok`` on stdout."""
    path = Path(sys.argv[1])
    job = AafJob.from_json(sys.stdin.readline())

    def gains() -> dict[str, float]:
        line = sys.stdin.readline()
        if not line:  # the spot stopped: no AAF to save, and its folder is removed
            os._exit(3)
        found: dict[str, float] = json.loads(line)
        return found

    write_job(job, gains, path)
    print("ok", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
