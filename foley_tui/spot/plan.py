"""What a spot bundle holds: each placed pick as a clip on a track, at the scene's placement.

:func:`plan_spot` reads the scene exactly as ``foley-tui scene`` does (the same model,
anchors resolved against the narration's words by the same code), keeps the picks the
options select, and says for each one where it lands (the scene contract's placement
sample at the bundle's rate), which part of its source it plays, which track it goes on
(overlapping picks of one layer spill onto ``sfx_fg (2)``...), its file name in the
bundle, and whether its audio is copied or referenced. Everything left out is listed with
why. The clip gains are measured later, while the audio is read (:mod:`.write`).

Headless: never imports textual.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import AudioRef, Source, Unplayable
from foley_tui.audio.blob import RemoteBlob
from foley_tui.scene.contract import DEFAULT_MIX, GHOST_NOTE, ClipPlacement, placement_frame
from foley_tui.spot import names
from foley_tui.spot.timecode import DEFAULT_FPS, FrameRate, frame_rate, frames_to_samples, parse

if TYPE_CHECKING:
    from foley_tui.audio.mixer import Scene
    from foley_tui.scene.build import SceneModel, ScenePick
    from foley_tui.store import SessionStore

#: The bundle's parts; rpp, aaf and otio need the BWF copies (or --reference).
FORMATS = ("bwf", "rpp", "aaf", "otio", "csv", "mix")
#: Track order: foley's layers, then the narration.
LAYER_ORDER = ("voice", "sfx_fg", "ambience", "stinger", "music")
NARRATION = "narration"
#: The gap between picks laid out one after another (``--layout sequential``).
SEQUENTIAL_GAP_S = 1.0
DEFAULT_RATE = 48000


class SpotError(Exception):
    """The bundle cannot be written (bad options, nothing to spot, target in the way)."""


@dataclass(frozen=True, slots=True)
class SpotOptions:
    """How to spot (the command line's flags; the app uses the defaults)."""

    rate: int = DEFAULT_RATE
    bits: int = 24
    float_: bool = False
    start_tc: str = "00:00:00:00"
    fps: str = DEFAULT_FPS
    formats: frozenset[str] = frozenset(FORMATS)
    handles_s: float = 0.0
    mute: frozenset[str] = frozenset()
    solo: frozenset[str] = frozenset()
    start_s: float | None = None
    end_s: float | None = None
    layout: str = "scene"
    reference: bool = False
    force: bool = False
    narration: bool = True
    #: Reach remote sounds at their URL (``--network``; the app's ``allow_network``).
    network: bool = False

    @property
    def sample_format(self) -> str:
        if self.float_:
            return "FLOAT"
        return "PCM_16" if self.bits == 16 else "PCM_24"

    @property
    def frame_rate(self) -> FrameRate:
        return frame_rate(self.fps)

    @property
    def start_samples(self) -> int:
        """``--start-tc`` as a sample offset at the bundle's rate."""
        rate = self.frame_rate
        return frames_to_samples(parse(self.start_tc, rate), rate, self.rate)

    def check(self) -> None:
        """Raise :class:`SpotError` for options no bundle can have."""
        from foley_tui.audio.decode import MAX_RATE, MIN_RATE
        from foley_tui.spot.timecode import TimecodeError

        if not MIN_RATE <= self.rate <= MAX_RATE:
            raise SpotError(f"--rate must be within {MIN_RATE}-{MAX_RATE} Hz")
        if self.bits not in (16, 24):
            raise SpotError("--bits must be 16 or 24")
        if self.float_ and self.bits == 16:
            raise SpotError("--float and --bits 16 are exclusive")
        unknown = self.formats - set(FORMATS)
        if unknown or not self.formats:
            raise SpotError(f"--format takes a comma list of {','.join(FORMATS)}")
        if not math.isfinite(self.handles_s) or self.handles_s < 0:
            raise SpotError("--handles must be zero or more seconds")
        if self.layout not in ("scene", "sequential"):
            raise SpotError("--layout must be scene or sequential")
        if self.start_s is not None and self.end_s is not None and self.end_s <= self.start_s:
            raise SpotError("--to must be after --from")
        lanes = {*LAYER_ORDER, NARRATION}
        for lane in self.mute | self.solo:
            if lane not in lanes:
                raise SpotError(f"no lane {lane!r} (one of {', '.join(sorted(lanes))})")
        try:
            self.start_samples  # noqa: B018 - parsing is the check
        except TimecodeError as exc:
            raise SpotError(str(exc)) from None

    def with_formats(self, text: str) -> SpotOptions:
        parts = frozenset(p.strip().lower() for p in text.split(",") if p.strip())
        return replace(self, formats=parts)

    def audible(self, lane: str) -> bool:
        if lane in self.mute:
            return False
        return not self.solo or lane in self.solo

    @property
    def copies(self) -> bool:
        """BWF copies are written: asked for, or needed by a project (unless referenced)."""
        if self.reference:
            return False
        return bool(self.formats & {"bwf", "rpp", "aaf", "otio"})


@dataclass(frozen=True, slots=True)
class SpotClip:
    """One pick (or the narration) as a clip in the bundle.

    Positions are samples at the bundle's rate on the scene clock (0 = the scene's start,
    which sits at ``--start-tc``). The copy holds ``pre`` samples of handle, the clip's
    ``length`` samples, then ``post`` samples of handle.

    Attributes:
        sound_id: The sound (``narration`` for the narration).
        caption: Its caption (the clip's name).
        layer: foley's layer (``narration`` for the narration).
        track: The track it goes on (``sfx_fg``, ``sfx_fg (2)`` when it overlaps).
        index: Its number on its layer (in the file name), from 1.
        position: The placement sample.
        length: Samples the clip plays.
        pre: Handle samples before it in the copy (the source's in-point allows them).
        post: Handle samples after it.
        in_point_s: Where the clip starts in its source file (seconds; 0 without a region).
        loop: The clip loops its source to fill its length (a looping bed).
        placement: The pick's placement in the woven mix (its woven gain's key: the whole
            sound, its region ignored).
        source: Its audio.
        copied: True when the bundle holds a converted copy at ``file``; False when the
            projects reference the original at ``source``.
        file: The copy's path inside the bundle (``sfx_fg/01 A door slams 1a2b3c4d.wav``),
            or the original's path when referenced.
        event: The scene event's query, if any.
        matched_word: The word its anchor landed on, if any.
        candidate: The candidate record (licence, UCS, ...); empty for the narration.
        stacked: True when it has no onset and sits at 0:00 (or in a sequential layout).
        aaf_file: For a referenced clip whose original an AAF cannot link (not a WAV or
            AIFF, or at another rate than the bundle's): the converted copy the AAF links
            instead (the other projects still point at the original).
        url: For a remote sound whose licence forbids keeping its bytes: the http(s) URL
            it was reached at, which every project references (``file`` is that URL;
            ``source`` is the private temporary file it was read into, as a preview
            is, for its length, channels and clip gain; nothing of it is in the bundle).
        channels: Its source's channels (and its copy's), from the file's header.
    """

    sound_id: str
    caption: str
    layer: str
    track: str
    index: int
    position: int
    length: int
    pre: int
    post: int
    in_point_s: float
    loop: bool
    source: AudioRef
    copied: bool
    file: str
    event: str | None = None
    matched_word: str | None = None
    candidate: Mapping[str, Any] = field(default_factory=dict)
    stacked: bool = False
    placement: ClipPlacement | None = None
    aaf_file: str | None = None
    url: str | None = None
    channels: int = 1

    @property
    def licence(self) -> Mapping[str, Any]:
        sound = self.candidate.get("sound")
        lic = sound.get("license") if isinstance(sound, Mapping) else None
        return lic if isinstance(lic, Mapping) else {}

    @property
    def sound(self) -> Mapping[str, Any]:
        sound = self.candidate.get("sound")
        return sound if isinstance(sound, Mapping) else {}

    @property
    def copy_frames(self) -> int:
        return self.pre + self.length + self.post

    @property
    def copy_file(self) -> str | None:
        """Where its converted copy goes in the bundle: its file when it is copied, the
        AAF's copy of a referenced original it cannot link, else None."""
        return self.file if self.copied else self.aaf_file

    @property
    def copies(self) -> bool:
        """The bundle holds a converted copy of it (for every project, or the AAF's)."""
        return self.copy_file is not None


@dataclass(frozen=True, slots=True)
class Skipped:
    """A pick the bundle leaves out, and why."""

    sound_id: str
    caption: str
    layer: str
    reason: str
    onset: str | None = None


@dataclass(frozen=True, slots=True)
class Marker:
    """A marker on the scene clock: a scene event, or a word an anchor landed on."""

    position: int
    name: str
    kind: str  # "event" | "word"


@dataclass
class SpotPlan:
    """Everything the bundle holds, before a byte is written."""

    session_id: str
    title: str
    options: SpotOptions
    clips: list[SpotClip]
    skipped: list[Skipped]
    markers: list[Marker]
    warnings: list[str]
    narration: SpotClip | None = None
    #: The mixer's scene for the reference mix (``render-scene``'s).
    scene: Scene | None = None

    @property
    def all_clips(self) -> list[SpotClip]:
        return [*([self.narration] if self.narration is not None else []), *self.clips]

    def tracks(self) -> list[str]:
        """Track names in order: each layer and its spills, then the narration."""
        seen: list[str] = []
        for clip in sorted(self.clips, key=lambda c: (_layer_rank(c.layer), c.track)):
            if clip.track not in seen:
                seen.append(clip.track)
        if self.narration is not None:
            seen.append(NARRATION)
        return seen


def _layer_rank(layer: str) -> int:
    return LAYER_ORDER.index(layer) if layer in LAYER_ORDER else len(LAYER_ORDER)


# ------------------------------------------------------------------ planning
def _candidate_text(candidate: Mapping[str, Any] | None, key: str) -> str | None:
    event = candidate.get("event") if candidate is not None else None
    value = event.get(key) if isinstance(event, Mapping) else None
    return value if isinstance(value, str) and value else None


#: ``Source.how`` of bytes that came from elsewhere (a URL, a shared store).
REMOTE_HOWS = frozenset({"remote", "redis"})


def _cache_allowed(candidate: Mapping[str, Any]) -> bool:
    sound = candidate.get("sound")
    lic = sound.get("license") if isinstance(sound, Mapping) else None
    return isinstance(lic, Mapping) and lic.get("cache_bytes_ok") is True


def _preview_url(candidate: Mapping[str, Any]) -> str | None:
    url = candidate.get("preview_uri")
    return url if isinstance(url, str) and url.lower().startswith(("http://", "https://")) else None


#: Why a remote sound's bytes are never copied.
NOT_KEPT = "its licence forbids keeping its bytes (cache_bytes_ok false)"


def _reach(
    store: SessionStore, candidate: Mapping[str, Any], source: Source | Unplayable | None
) -> Source | Unplayable | None:
    """``source`` again with the network allowed, for a candidate the scene found no
    local audio for and whose ``preview_uri`` is an http(s) URL: the resolver's own
    fetch (to our cache when the licence allows it, else to a private temporary file
    removed at exit). Anything else is returned as it is."""
    from foley_tui.audio.resolve import KIND_LICENCE, KIND_REMOTE, resolve

    if not isinstance(source, Unplayable) or source.kind not in (KIND_REMOTE, KIND_LICENCE):
        return source
    if _preview_url(candidate) is None:
        return source
    return resolve(dict(candidate), store.data_dir, allow_network=True, remote=store.remote_audio())


def _source_frames(source: AudioRef) -> tuple[int, int, str, int] | str:
    """(frames, rate, container, channels) of ``source``, or why it cannot be read."""
    from foley_tui.audio.decode import DecodeError, probe

    try:
        info = probe(source)
    except DecodeError as exc:
        return str(exc)
    return info.frames, info.samplerate, info.format, info.channels


#: Containers an AAF links (``aaf2.ama`` describes WAV and AIFF files only).
AAF_LINKABLE = frozenset({"WAV", "AIFF"})


def aaf_links(container: str, file_rate: int, options: SpotOptions) -> bool:
    """An AAF of ``options`` can link an original in ``container`` at ``file_rate`` as it
    is: a WAV or AIFF at the bundle's rate (its sound slots are at that rate)."""
    return container in AAF_LINKABLE and file_rate == options.rate


@dataclass
class _Draft:
    pick: ScenePick
    candidate: Mapping[str, Any]
    clip: ClipPlacement
    length: int  # frames at the bundle's rate, by the contract
    available: int  # frames of the source after the in-point, at the bundle's rate
    source: AudioRef
    copied: bool
    stacked: bool
    aaf_copy: bool = False
    url: str | None = None
    channels: int = 1

    @property
    def loop(self) -> bool:
        """It loops in its copy: a looping bed whose span is longer than its source."""
        return self.clip.loop and self.length > self.available


def plan_spot(store: SessionStore, model: SceneModel, options: SpotOptions) -> SpotPlan:
    """The bundle for ``model`` (``build_scene(store)``) with ``options``.

    Reads file headers (to learn each source's length) but no audio.
    """
    options.check()
    rate = options.rate
    skipped: list[Skipped] = []
    warnings: list[str] = []
    drafts: list[_Draft] = []
    stacked_ids: list[str] = []
    for pick in sorted(
        model.picks, key=lambda p: (p.onset_s if p.onset_s is not None else -1.0, p.sound_id)
    ):
        candidate = store.candidate(pick.sound_id)

        def skip(reason: str, pick: ScenePick = pick) -> None:
            skipped.append(
                Skipped(pick.sound_id, pick.caption, pick.layer, reason, pick.placement.onset)
            )

        if candidate is None or pick.ghost:
            skip(f"a ghost: {GHOST_NOTE}")
            continue
        clip = pick.clip
        if clip is None:
            skip(f"unplaced: {pick.note or 'its onset does not resolve'}")
            continue
        if not options.audible(pick.layer):
            skip(f"lane {pick.layer} muted" if pick.layer in options.mute else "not soloed")
            continue
        onset = clip.onset_s
        if options.start_s is not None and onset < options.start_s:
            skip("before --from")
            continue
        if options.end_s is not None and onset >= options.end_s:
            skip("at or after --to")
            continue
        source = pick.source
        if options.network:
            source = _reach(store, candidate, source)
        if not isinstance(source, Source):
            reason = source.reason if isinstance(source, Unplayable) else "no audio"
            if not _cache_allowed(candidate) and _preview_url(candidate) is not None:
                reason += f"; {NOT_KEPT}, so it is never copied"
                if not options.network:
                    reason += ", and its URL is referenced only where it is reached (--network)"
            skip(f"no audio: {reason}")
            continue
        url: str | None = None
        if source.how in REMOTE_HOWS and not _cache_allowed(candidate):
            url = _preview_url(candidate) if source.how == "remote" else None
            if url is None:
                skip(f"remote audio: {NOT_KEPT}, and it has no http(s) URL to reference")
                continue
        found = _source_frames(source.path)
        if isinstance(found, str):
            skip(f"cannot read its audio: {found}")
            continue
        frames, file_rate, container, channels = found
        # A store's blob or a fetched file has no lasting path an editor could open: it
        # is copied even with --reference.
        copied = url is None and (
            options.copies
            or (
                options.reference
                and (source.how in REMOTE_HOWS or isinstance(source.path, RemoteBlob))
            )
        )
        file_frames = round(frames * rate / file_rate)
        length = clip.length_frames(rate, file_frames)
        if length <= 0:
            skip("its region leaves nothing to play")
            continue
        available = max(file_frames - clip.in_point_frame(rate), 0)
        stacked = pick.placement.onset is None and clip.span_s is None
        if stacked:
            stacked_ids.append(pick.sound_id)
        aaf_copy = not copied and url is None and "aaf" in options.formats
        aaf_copy = aaf_copy and not aaf_links(container, file_rate, options)
        drafts.append(
            _Draft(
                pick,
                candidate,
                clip,
                length,
                available,
                source.path,
                copied,
                stacked,
                aaf_copy,
                url,
                channels,
            )
        )
    if stacked_ids and options.layout == "sequential":
        ends = (d.clip.onset_s + d.length / rate for d in drafts if not d.stacked)
        at = max(ends, default=0.0)
        at = at + SEQUENTIAL_GAP_S if at > 0 else 0.0
        for draft in drafts:
            if draft.stacked:
                draft.clip = replace(draft.clip, onset_s=at)
                at += draft.length / rate + SEQUENTIAL_GAP_S
    elif stacked_ids:
        warnings.append(
            f"{len(stacked_ids)} pick(s) have no onset and stack at 0:00 "
            "(--layout sequential lays them one after another)"
        )
    clips = _place(drafts, options)
    narration = _narration_clip(model, options, warnings)
    markers = _markers(clips, rate)
    title = _title(store)
    return SpotPlan(
        store.session_id,
        title,
        options,
        clips,
        skipped,
        markers,
        warnings,
        narration,
        scene=model.to_scene(mix=DEFAULT_MIX) if "mix" in options.formats else None,
    )


def _title(store: SessionStore) -> str:
    try:
        meta = store.meta()
    except (OSError, ValueError, AttributeError):
        return store.session_id
    return meta.title or store.session_id


def _place(drafts: list[_Draft], options: SpotOptions) -> list[SpotClip]:
    """Samples, handles, tracks (spills for overlaps), numbers and file names."""
    rate = options.rate
    handle = round(options.handles_s * rate)
    by_layer: dict[str, list[_Draft]] = {}
    for draft in drafts:
        by_layer.setdefault(draft.pick.layer, []).append(draft)
    clips: list[SpotClip] = []
    for layer in sorted(by_layer, key=_layer_rank):
        items = sorted(by_layer[layer], key=lambda d: (d.clip.onset_s, d.pick.sound_id))
        ends: list[int] = []  # per spill track: the sample its last clip ends on
        for index, draft in enumerate(items, 1):
            position = placement_frame(draft.clip.onset_s, rate)
            length = draft.length
            start = draft.clip.in_point_s
            # Handles only where the source has them: before a later in-point, after a
            # span that cuts the file short. A looping bed's copy is its span, no handles.
            pre = 0 if draft.loop else min(handle, draft.clip.in_point_frame(rate))
            post = 0 if draft.loop else min(handle, max(draft.available - length, 0))
            slot = next((i for i, end in enumerate(ends) if position >= end), None)
            if slot is None:
                ends.append(0)
                slot = len(ends) - 1
            ends[slot] = position + length
            track = layer if slot == 0 else f"{layer} ({slot + 1})"
            caption = draft.pick.caption
            name = names.clip_name(index, caption, draft.pick.sound_id)
            copy_name = f"{names.clean(layer)}/{name}"
            file = copy_name if draft.copied else draft.url or str(draft.source)
            clips.append(
                SpotClip(
                    sound_id=draft.pick.sound_id,
                    caption=caption,
                    layer=layer,
                    track=track,
                    index=index,
                    position=position,
                    length=length,
                    pre=pre,
                    post=post,
                    in_point_s=start,
                    loop=draft.loop,
                    placement=draft.pick.woven_clip,
                    source=draft.source,
                    copied=draft.copied,
                    file=file,
                    event=_candidate_text(draft.candidate, "query"),
                    matched_word=draft.pick.reading.matched,
                    candidate=draft.candidate,
                    stacked=draft.stacked,
                    aaf_file=copy_name if draft.aaf_copy else None,
                    url=draft.url,
                    channels=draft.channels,
                )
            )
    return sorted(clips, key=lambda c: (c.position, _layer_rank(c.layer), c.track, c.index))


def _narration_clip(
    model: SceneModel, options: SpotOptions, warnings: list[str]
) -> SpotClip | None:
    narration = model.narration
    if not options.narration or narration is None or not options.audible(NARRATION):
        return None
    if model.narration_problem:
        warnings.append(f"narration left out: {model.narration_problem}")
        return None
    found = _source_frames(narration.path)
    if isinstance(found, str):
        warnings.append(f"narration left out: {found}")
        return None
    frames, file_rate, container, channels = found
    copied = options.copies
    name = names.cut_bytes(names.clean(narration.path.stem, "narration"), names.MAX_NAME_BYTES - 4)
    aaf_copy = not copied and "aaf" in options.formats
    aaf_copy = aaf_copy and not aaf_links(container, file_rate, options)
    return SpotClip(
        sound_id=NARRATION,
        caption=narration.path.stem,
        layer=NARRATION,
        track=NARRATION,
        index=1,
        position=0,
        length=max(round(frames / file_rate * options.rate), 1),
        pre=0,
        post=0,
        in_point_s=0.0,
        loop=False,
        source=narration.path,
        copied=copied,
        file=f"{NARRATION}/{name}.wav" if copied else str(narration.path),
        aaf_file=f"{NARRATION}/{name}.wav" if aaf_copy else None,
        channels=channels,
    )


def _markers(clips: list[SpotClip], rate: int) -> list[Marker]:
    """One marker per scene event (at its first pick) and per word an anchor landed on."""
    markers: list[Marker] = []
    events: set[str] = set()
    words: set[tuple[int, str]] = set()
    for clip in clips:
        if clip.event is not None and clip.event not in events:
            events.add(clip.event)
            markers.append(Marker(clip.position, clip.event, "event"))
        if clip.matched_word is not None and (clip.position, clip.matched_word) not in words:
            words.add((clip.position, clip.matched_word))
            markers.append(Marker(clip.position, clip.matched_word, "word"))
    return sorted(markers, key=lambda m: (m.position, m.kind, m.name))


def relative_file(clip: SpotClip, bundle: Path) -> str:
    """The clip's file as a project in ``bundle`` names it: the copy's bundle path, the
    remote sound's URL, or the original's path relative to the bundle (absolute across
    drives)."""
    import os

    if clip.copied or clip.url is not None:
        return clip.file
    try:
        return os.path.relpath(clip.file, bundle)
    except ValueError:
        return clip.file
