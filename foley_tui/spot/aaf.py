"""An AAF (``scene.aaf``) for Pro Tools, Nuendo, Media Composer and Resolve, written with
``pyaaf2``: one composition with a timecode slot, a sound slot per track channel at the
bundle's rate (fillers between clips), the narration on its own slot, each clip a
SourceClip of a MasterMob *linked* to its Broadcast WAV copy, with its clip gain as an
Audio Gain operation.

``aaf2.ama.create_media_link`` wants ffprobe's ``-show_format -show_streams`` facts; we
wrote the copies, so we give it the same facts from what we wrote instead of running
ffprobe. It turns a stereo file into two mono slots (a stereo track becomes two slots
named ``<track> L`` and ``<track> R``) and writes an absolute ``file://`` locator to the
file it was given (the temporary folder): the locators are rewritten to the bundle's final
place. A remote sound whose licence forbids keeping its bytes is linked at its http(s) URL
(a WAV or AIFF at the bundle's rate; any other is left out of the AAF, with a note).
With ``--reference`` an original WAV or AIFF at the bundle's rate is linked where it
is; any other original (a FLAC, another rate: the AAF's slots are at the bundle's rate)
gets a converted copy in the bundle for the AAF alone (:attr:`SpotClip.aaf_file`), which
it links. A mono clip on a track whose other clips
are stereo sits on both of its slots (dual mono), as an editor places it.

Headless: never imports textual.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from foley_tui.spot.plan import SpotClip, SpotPlan

#: SMPTE's Mono Audio Gain operation and its Amplitude parameter (AAF's own ids).
_MONO_AUDIO_GAIN = "9d2ea894-0968-11d3-8a38-0050040ef7d2"
_AMPLITUDE = "e4962321-2267-11d3-8a4c-0050040ef7d2"


def probe_facts(clip: SpotClip, rate: int, channels: int, sample_format: str) -> dict[str, Any]:
    """The part of ffprobe's ``-show_format -show_streams`` output pyaaf2 reads, for a copy
    we wrote (so no ffprobe is needed at run time)."""
    return _facts("wav", rate, channels, clip.copy_frames, sample_format)


def _facts(container: str, rate: int, channels: int, frames: int, subtype: str) -> dict[str, Any]:
    bits = {"PCM_16": 16, "PCM_24": 24, "FLOAT": 32}.get(subtype, 16)
    endian = "le" if container == "wav" else "be"
    kind = {"PCM_16": "s16", "PCM_24": "s24", "FLOAT": "f32"}.get(subtype, "s16")
    long_name = {"wav": "WAV / WAVE (Waveform Audio)", "aiff": "Audio IFF"}[container]
    return {
        "format": {"format_name": container, "format_long_name": long_name},
        "streams": [
            {
                "codec_type": "audio",
                "codec_name": f"pcm_{kind}{endian}",
                "sample_rate": str(rate),
                "channels": channels,
                "duration_ts": frames,
                "bits_per_sample": bits,
                "bit_rate": str(rate * channels * bits),
            }
        ],
    }


def original_facts(clip: SpotClip, rate: int) -> dict[str, Any] | str:
    """The facts of a referenced original pyaaf2 can link (a WAV or AIFF at the bundle's
    rate: :func:`foley_tui.spot.plan.aaf_links`; the plan gives the others an AAF copy),
    or why it cannot."""
    import soundfile as sf

    try:
        # A remote sound's file is its URL; what was read from there is its source.
        info = sf.info(str(clip.source if clip.url is not None else clip.file))
    except (sf.LibsndfileError, RuntimeError, OSError) as exc:
        return f"cannot read it ({exc})"
    container = {"WAV": "wav", "AIFF": "aiff"}.get(info.format)
    if container is None:
        return f"an AAF links WAV and AIFF only (the original is {info.format})"
    if info.samplerate != rate:
        return f"the original is at {info.samplerate} Hz, the AAF at {rate} Hz"
    return _facts(container, rate, info.channels, info.frames, info.subtype)


def _slot_names(track: str, channels: int) -> list[str]:
    if channels == 1:
        return [track]
    if channels == 2:
        return [f"{track} L", f"{track} R"]
    return [f"{track} {i}" for i in range(1, channels + 1)]


def write_aaf(
    plan: SpotPlan,
    clips: list[SpotClip],
    gains: dict[str, float],
    channels: dict[str, int],
    folder: Path,
    final: Path,
    path: Path,
) -> list[str]:
    """Write the AAF to ``path`` for the copies in ``folder`` (moved to ``final`` later).

    Returns notes on clips left out of it (an AAF links only WAV copies)."""
    import aaf2
    from aaf2.auid import AUID

    options = plan.options
    rate = options.rate
    fps = options.frame_rate
    notes: list[str] = []
    facts: dict[str, dict[str, Any]] = {}
    for clip in clips:
        if clip.copies:
            chans = channels[clip.sound_id]
            facts[clip.sound_id] = probe_facts(clip, rate, chans, options.sample_format)
            continue
        found = original_facts(clip, rate)
        if isinstance(found, str):
            where = " at its URL" if clip.url is not None else ""
            notes.append(f"{clip.caption}: not in the AAF ({found}; it is referenced{where})")
        else:
            facts[clip.sound_id] = found
    linked = [c for c in clips if c.sound_id in facts]
    with aaf2.open(str(path), "w") as f:
        gain_op = f.create.OperationDef(AUID(_MONO_AUDIO_GAIN), "Audio Gain", "")
        gain_op.media_kind = "sound"
        gain_op["NumberInputs"].value = 1
        f.dictionary.register_def(gain_op)
        amplitude = f.create.ParameterDef(AUID(_AMPLITUDE), "Amplitude", "", "Rational")
        f.dictionary.register_def(amplitude)
        gain_op["ParametersDefined"].append(amplitude)

        comp = f.create.CompositionMob()
        comp.name = plan.title
        f.content.mobs.append(comp)
        end = max((c.position + c.length for c in linked), default=0)
        tc_frames = int(Fraction(end, rate) * fps.fps) + 1
        tc_slot = comp.create_timeline_slot(edit_rate=fps.fps)
        tc_slot.name = "TC"
        start_frames = int(Fraction(options.start_samples, rate) * fps.fps)
        timecode = f.create.Timecode(fps.nominal, drop=fps.drop, length=tc_frames)
        timecode.start = start_frames
        tc_slot.segment = timecode

        masters: dict[str, Any] = {}
        for clip in linked:
            copy = clip.copy_file
            if copy is not None:
                here, link = folder / copy, (final / copy).as_uri()
            elif clip.url is not None:
                here, link = Path(str(clip.source)), clip.url
            else:
                here, link = Path(clip.file), None
            made = aaf2.ama.create_media_link(f, str(here), facts[clip.sound_id])
            master = made[0]
            master.name = clip.caption
            if link is not None:
                for mob in made[1:]:
                    if getattr(mob, "descriptor", None) is not None:
                        for locator in mob.descriptor["Locator"]:
                            locator["URLString"].value = link
            masters[clip.sound_id] = master

        for track in plan.tracks():
            on_track = sorted((c for c in linked if c.track == track), key=lambda c: c.position)
            if not on_track:
                continue
            width = max(channels[c.sound_id] for c in on_track)
            for ch, name in enumerate(_slot_names(track, width), 1):
                slot = comp.create_sound_slot(edit_rate=rate)
                slot.name = name
                sequence = slot.segment
                playhead = 0
                for clip in on_track:
                    have = channels[clip.sound_id]
                    if have < ch and have != 1:
                        continue
                    if clip.position > playhead:
                        sequence.components.append(
                            f.create.Filler("sound", clip.position - playhead)
                        )
                    start = clip.pre if clip.copies else round(clip.in_point_s * rate)
                    source = masters[clip.sound_id].create_source_clip(
                        slot_id=1 if have == 1 else ch, start=start, length=clip.length
                    )
                    gain_db = gains.get(clip.sound_id, 0.0)
                    if abs(gain_db) > 1e-6:
                        group = f.create.OperationGroup(gain_op, length=clip.length)
                        group.media_kind = "sound"
                        group.segments.append(source)
                        value = Fraction(10 ** (gain_db / 20)).limit_denominator(1_000_000)
                        group.parameters.append(f.create.ConstantValue(amplitude, value))
                        sequence.components.append(group)
                    else:
                        sequence.components.append(source)
                    playhead = clip.position + clip.length
    return notes
