"""Each clip's Broadcast WAV copy, and its woven clip gain by the scene contract.

A clip's source is decoded a block at a time, resampled with a streaming ``soxr``
resampler to the bundle's rate (its channels kept), looped to fill a looping bed's span,
and written straight to its copy: memory holds one block, never a clip or the scene. Its
clip gain is the scene contract's woven gain (:func:`foley_tui.scene.contract.woven_gain`,
measured once per sound and cached by content hash), the very number the woven mix
plays it at.

Headless: never imports textual.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soundfile as sf
import soxr

from foley_tui.audio.decode import RESAMPLE_QUALITY, DecodeError, open_sound, stream_error
from foley_tui.audio.placement import span_frames
from foley_tui.scene.contract import cached_woven_gain, woven_gain
from foley_tui.spot import names
from foley_tui.spot.bwf import Bext, BwfWriter, Frames, ixml
from foley_tui.spot.plan import SpotClip, SpotPlan

#: The parts that carry clip gains.
GAIN_FORMATS = frozenset({"rpp", "aaf", "otio", "csv"})
#: Source frames decoded per read.
READ_FRAMES = 65536


class SpotCancelled(Exception):
    """The user cancelled: nothing of the bundle is left behind."""


class MonoTap:
    """The source as the copy decodes it, folded to mono block by block exactly as
    :func:`foley_tui.scene.contract.read_mono` folds it: when the copy reads the whole
    file once from its start, the clip's woven gain is measured on it instead of
    decoding the file a second time."""

    def __init__(self) -> None:
        self.parts: list[npt.NDArray[np.float32]] = []
        self.frames = 0
        self.rate = 0
        self.file_frames = -1
        self.broken = False
        """The copy did not read the file once from its start (a seek, a loop)."""

    def add(self, raw: Frames) -> None:
        if not self.broken and len(raw):
            self.parts.append(raw.mean(axis=1, dtype=np.float32))
            self.frames += len(raw)

    @property
    def complete(self) -> bool:
        return not self.broken and self.frames > 0 and self.frames == self.file_frames

    def decoded(self) -> tuple[npt.NDArray[np.float32], int] | None:
        """(the whole file folded to mono, its rate) when the copy read all of it."""
        if not self.complete:
            return None
        return np.concatenate(self.parts), self.rate


def source_blocks(
    clip: SpotClip,
    rate: int,
    cancelled: Callable[[], bool] = lambda: False,
    tap: MonoTap | None = None,
) -> Iterator[Frames]:
    """The clip's copy (handles included) as float32 ``(frames, channels)`` blocks at
    ``rate``: exactly :attr:`SpotClip.copy_frames` frames, zero-padded if the file ends
    early. ``tap`` receives what is decoded, before conversion. Raises
    :class:`DecodeError` for audio that stops decoding."""
    handle = open_sound(clip.source)
    try:
        in_rate = int(handle.samplerate)
        channels = int(handle.channels)
        first = max(span_frames(clip.in_point_s, in_rate) - round(clip.pre / rate * in_rate), 0)
        if tap is not None:
            tap.rate, tap.file_frames, tap.broken = in_rate, int(handle.frames), first > 0
        if first:
            handle.seek(min(first, max(int(handle.frames), 0)))
        resampler = (
            None
            if in_rate == rate
            else soxr.ResampleStream(
                in_rate, rate, channels, dtype="float32", quality=RESAMPLE_QUALITY
            )
        )
        left = clip.copy_frames
        ended = False
        while left > 0 and not ended:
            if cancelled():
                raise SpotCancelled
            try:
                raw = handle.read(READ_FRAMES, dtype="float32", always_2d=True)
                if len(raw) == 0 and clip.loop and handle.frames > 0:
                    if tap is not None:
                        tap.broken = tap.frames != tap.file_frames
                        tap = None  # the file once is all the gain needs
                    handle.seek(0)
                    raw = handle.read(READ_FRAMES, dtype="float32", always_2d=True)
            except (sf.LibsndfileError, RuntimeError) as exc:
                raise DecodeError(f"decode error in {clip.source.name}: {exc}") from None
            if len(raw) < READ_FRAMES and (failed := stream_error(handle)) is not None:
                raise DecodeError(failed)
            if tap is not None:
                tap.add(raw)
            ended = len(raw) == 0
            block = raw if resampler is None else resampler.resample_chunk(raw, last=ended)
            if len(block):
                block = block[:left]
                left -= len(block)
                yield block
        if left > 0:
            yield np.zeros((left, channels), dtype=np.float32)
    finally:
        handle.close()


@dataclass(frozen=True, slots=True)
class CopyResult:
    """One clip copied: what was written."""

    clip: SpotClip
    bytes_written: int
    channels: int


def _text(value: object) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def bwf_metadata(clip: SpotClip, plan: SpotPlan, channels: int) -> tuple[Bext, str]:
    """The clip's ``bext`` and iXML: caption, timestamp, layer, event, sound, licence, UCS."""
    options = plan.options
    now = dt.datetime.now().astimezone()
    width = {"PCM_16": 16, "PCM_24": 24, "FLOAT": 32}[options.sample_format]
    mode = "mono" if channels == 1 else "stereo" if channels == 2 else "multichannel"
    bext = Bext(
        description=clip.caption,
        time_reference=options.start_samples + clip.position - clip.pre,
        originator="foley-tui",
        originator_reference=names.short_id(clip.sound_id),
        origination_date=now.strftime("%Y-%m-%d"),
        origination_time=now.strftime("%H:%M:%S"),
        coding_history=f"A=PCM,F={options.rate},W={width},M={mode},T=foley-tui spot",
    )
    lic = clip.licence
    sound = clip.sound
    event = clip.candidate.get("event")
    event = event if isinstance(event, dict) else {}
    user = {
        "LAYER": clip.layer,
        "EVENT": _text(clip.event),
        "SOUND_ID": clip.sound_id,
        "DESCRIPTION": clip.caption,
        "LICENSE": _text(lic.get("license_name") or lic.get("license_id")),
        "LICENSE_URL": _text(lic.get("license_url")),
        "ATTRIBUTION": _text(lic.get("attribution_text")),
        "CREATOR": _text(lic.get("creator_name")),
        "SOURCE_URL": _text(lic.get("source_url")),
        "CATEGORY": _text(sound.get("ucs_category")),
        "SUBCATEGORY": _text(sound.get("ucs_subcategory")),
        "CATID": _text(event.get("ucs_catid")),
    }
    user = {k: v for k, v in user.items() if v}
    fields = {"PROJECT": plan.title, "SCENE": _text(clip.event) or clip.layer, "TAKE": "1"}
    fields["NOTE"] = clip.caption
    tracks = (
        [clip.track] if channels == 1 else [f"{clip.track} {i}" for i in range(1, channels + 1)]
    )
    if channels == 2:
        tracks = [f"{clip.track} L", f"{clip.track} R"]
    return bext, ixml(fields, user, tracks)


def read_clip(
    clip: SpotClip,
    plan: SpotPlan,
    folder: Path,
    cancelled: Callable[[], bool] = lambda: False,
    tap: MonoTap | None = None,
    metadata: tuple[Bext, str] | None = None,
) -> CopyResult:
    """Copy ``clip`` into ``folder`` (when it has a copy); ``tap`` receives what the copy
    decodes; ``metadata``: its bext and iXML when they were made already (the AAF's
    description of the copy holds their sizes), else :func:`bwf_metadata`'s.

    A copy that fails half-way is removed; the error (:class:`DecodeError`, ``OSError``)
    goes to the caller, who lists the clip as skipped.
    """
    options = plan.options
    rate = options.rate
    channels = clip.channels
    writer: BwfWriter | None = None
    target = folder / (clip.copy_file or clip.file)
    if clip.copy_file is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        bext, ixml_text = metadata or bwf_metadata(clip, plan, channels)
        seed = int(names.short_id(clip.sound_id), 16)
        writer = BwfWriter(
            target,
            rate,
            channels,
            sample_format=options.sample_format,
            bext=bext,
            ixml_text=ixml_text,
            dither_seed=seed,
        )
    try:
        if writer is not None:
            for block in source_blocks(clip, rate, cancelled, tap):
                writer.write(block)
            writer.close()
    except BaseException:
        if writer is not None:
            writer.close()
            target.unlink(missing_ok=True)
        raise
    written = target.stat().st_size if writer is not None else 0
    return CopyResult(clip, written, channels)


def needs_gain(clip: SpotClip, plan: SpotPlan) -> bool:
    """The projects and the cue sheet carry clip gains; BWF copies alone are at unity."""
    return clip.placement is not None and bool(plan.options.formats & GAIN_FORMATS)


def clip_gain(clip: SpotClip, decoded: tuple[npt.NDArray[np.float32], int] | None = None) -> float:
    """The clip's woven gain in dB (the scene contract's; 0 for the narration), measured
    on ``decoded`` (the whole source folded to mono, and its rate) when given, else on a
    decode of its own.

    Raises:
        DecodeError: Its audio cannot be decoded.
        OSError: It cannot be read.
    """
    if clip.placement is None:
        return 0.0
    return woven_gain(clip.source, clip.layer, clip.placement, decoded=decoded).clip_db


def known_gain(clip: SpotClip) -> float | None:
    """Its woven gain in dB if it was measured already (in this process: the woven mix,
    a spot; or an earlier run), else None; 0 for the narration."""
    if clip.placement is None:
        return 0.0
    found = cached_woven_gain(clip.source, clip.layer, clip.placement)
    return None if found is None else found.clip_db


def gain_known(clip: SpotClip) -> bool:
    """Its woven gain was measured already (this process: the woven mix, a spot)."""
    return known_gain(clip) is not None
