"""A session's scene: every pick at its effective placement, resolved against the
narration's words, and the mix (audio voices) that plays it.

:func:`build_scene` reads the picks exactly as foley's plan would (the pick's own layer
and onset, else its event's), resolves each onset with foley's weave rules against the
session's word timeline, and finds each pick's audio with the same resolver as a preview.
Picks whose symbolic onset does not resolve (no word timeline, no matching word) are
*unplaced*: shown apart, left out of playback. :meth:`SceneModel.to_scene` turns the
placed picks and the narration into the mixer's :class:`~foley_tui.audio.mixer.Scene`.

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import Source, Unplayable
from foley_tui.audio.placement import ClipPlacement
from foley_tui.marks import Marks
from foley_tui.scene.contract import (
    CUT_NOTE,
    FLAT,
    GHOST_NOTE,
    MAX_PLACEMENT_S,
    REGION_NOTE,
    VOICE_NOTE,
    WOVEN,
    Mix,
    woven_leaves_out,
    woven_note,
)
from foley_tui.scene.narration import Narration, NarrationError, read_narration
from foley_tui.scene.placement import Placement, effective_placement
from foley_tui.scene.reading import OnsetReading, read_onset
from foley_tui.scene.words import Word

if TYPE_CHECKING:
    from foley_tui.audio.base import Scene
    from foley_tui.audio.blob import RemoteAudio
    from foley_tui.store import SessionStore

#: Lane order on the timeline (foley's layers), then the narration.
LANES = ("voice", "sfx_fg", "ambience", "stinger", "music")

#: Seconds heard before a candidate auditioned in context.
DEFAULT_PRE_ROLL_S = 2.0


@dataclass(frozen=True, slots=True)
class ScenePick:
    """One pick on the scene (or a candidate auditioned in context).

    Attributes:
        sound_id: The sound.
        caption: Its caption (for labels).
        placement: Its effective placement (foley plan's layer and onset string).
        reading: How foley reads the onset, resolved against the words.
        duration_s: The sound's length (the candidate's ``duration_s``), if known.
        source: Its audio (or why it cannot play).
        picked: False for a candidate auditioned in context without a pick.
        ghost: A pick with no cached candidate: foley's plan drops it, so it is never
            placed.
        region: Our region of the sound, ``(in, out)`` seconds into it (``out`` None:
            to its end), or None: the flat mix, the preview and the spot bundle play that
            part of it at the onset; the woven mix plays the whole sound, as foley does.
        stored_onset: The pick's onset as stored (a number, an anchor, or None when the
            pick has none: the event's applies); what the onset dialog starts from.
    """

    sound_id: str
    caption: str
    placement: Placement
    reading: OnsetReading
    duration_s: float | None
    source: Source | Unplayable | None
    picked: bool = True
    ghost: bool = False
    region: tuple[float, float | None] | None = None
    stored_onset: float | str | None = None

    @property
    def layer(self) -> str:
        return self.placement.layer

    @property
    def onset_s(self) -> float | None:
        """Where the sound starts on the scene clock; None when unplaced (an anchor that
        does not resolve, a ghost, an onset past :data:`MAX_PLACEMENT_S`)."""
        if self.placement.error is not None or self.ghost:
            return None
        onset = self.reading.onset_s
        if onset is None or not onset <= MAX_PLACEMENT_S:
            return None
        return onset

    @property
    def placed(self) -> bool:
        return self.onset_s is not None

    @property
    def clip(self) -> ClipPlacement | None:
        """Its placement by the scene contract in the flat mix, the preview and the spot
        bundle (None when unplaced): its region, when it has one."""
        onset = self.onset_s
        return None if onset is None else self._fitted(onset)

    @property
    def woven_clip(self) -> ClipPlacement | None:
        """Its placement in the woven mix: the whole sound, its region ignored (foley's
        weave has no regions)."""
        onset = self.onset_s
        if onset is None:
            return None
        return ClipPlacement(onset, span_s=self.reading.duration_s, loop=self.placement.loop)

    def _fitted(self, onset_s: float) -> ClipPlacement:
        """The contract's placement at ``onset_s`` with the region applied: the source
        starts at the in-point and lasts to the out point, or to a bed's sentence span
        when that is shorter. A region plays once (a bed never loops a region)."""
        span, loop = self.reading.duration_s, self.placement.loop
        if self.region is None:
            return ClipPlacement(onset_s, span_s=span, loop=loop)
        start, end = self.region
        return ClipPlacement(onset_s, in_point_s=start, span_s=span, out_point_s=end)

    @property
    def length_s(self) -> float | None:
        """How long it sounds (the contract's length): a bed's sentence span (trimmed, or
        filled only when it loops), or its region, else the sound's length."""
        return self._fitted(0.0).length_s(self.duration_s)

    @property
    def woven_length_s(self) -> float | None:
        """How long the woven mix plays it (the whole sound, fitted to a bed's span)."""
        fitted = ClipPlacement(0.0, span_s=self.reading.duration_s, loop=self.placement.loop)
        return fitted.length_s(self.duration_s)

    @property
    def note(self) -> str:
        """Why it is not placed (or what foley reads), else ""."""
        if self.ghost:
            return GHOST_NOTE
        if self.placement.error:
            return self.placement.error
        onset = self.reading.onset_s
        if onset is not None and not onset <= MAX_PLACEMENT_S:
            return CUT_NOTE
        return self.reading.note

    @property
    def end_s(self) -> float | None:
        onset, length = self.onset_s, self.length_s
        return None if onset is None else onset + (length or 0.0)


@dataclass
class SceneModel:
    """Every pick of a session on the scene clock, and its narration."""

    picks: list[ScenePick]
    narration: Narration | None = None
    narration_problem: str | None = None
    words: list[Word] = field(default_factory=list)
    narration_s: float | None = None
    """The narration's length (foley's mix is as long), when it is known."""

    @property
    def placed(self) -> list[ScenePick]:
        return sorted(
            (p for p in self.picks if p.placed), key=lambda p: (p.onset_s or 0.0, p.sound_id)
        )

    @property
    def unplaced(self) -> list[ScenePick]:
        return [p for p in self.picks if not p.placed]

    @property
    def end_s(self) -> float:
        """The scene's end: the last placed sound's end, or the narration's last word."""
        ends = [p.end_s or 0.0 for p in self.placed]
        if self.words:
            ends.append(float(self.words[-1].get("end", 0.0)))
        return max(ends, default=0.0)

    def pick(self, sound_id: str) -> ScenePick | None:
        return next((p for p in self.picks if p.sound_id == sound_id), None)

    def woven_note(self, pick: ScenePick) -> str | None:
        """What foley's weave does with ``pick`` when it does not simply play it (leaves
        the voice layer out, cuts it or its tail at the narration's end, plays the whole
        sound where the pick has a region)."""
        if not pick.placed and pick.note == CUT_NOTE:
            return CUT_NOTE
        onset = pick.onset_s
        end = None if onset is None else onset + (pick.woven_length_s or 0.0)
        note = woven_note(pick.layer, onset, end, self.narration_s)
        if pick.region is None or note in (VOICE_NOTE, CUT_NOTE):
            return note
        return REGION_NOTE if note is None else f"{note}; {REGION_NOTE}"

    def to_scene(
        self,
        *,
        mix: Mix = FLAT,
        loudness_match: bool = False,
        target_lufs: float = -23.0,
        narration: bool = True,
        extra: ScenePick | None = None,
        leave_out: frozenset[str] = frozenset(),
        master: bool = True,
    ) -> Scene:
        """The mixer's scene: placed, playable picks (and ``extra``), plus the narration.

        ``mix="flat"``: every pick at unity, or with ``loudness_match`` at the gain its
        preview would have (declared loudness, else measured); the narration at unity.
        ``mix="woven"``: foley's weave (:mod:`foley_tui.scene.woven`): each clip's woven
        gain (each file read whole the first time, then cached), mono, centre pan, fades,
        the beds ducked under the words, and (with ``master``) the master stage's gain
        from an analysis pass over the whole scene; voice picks and picks at or past the
        narration's end left out. Both read every placement from the scene contract.
        """
        from foley_tui.audio.base import MixVoice, Scene
        from foley_tui.audio.mixer import NARRATION_LANE

        woven = mix == WOVEN
        voices: list[MixVoice] = []
        if narration and self.narration is not None and self.narration_problem is None:
            voices.append(
                MixVoice(self.narration.path, 0.0, lane=NARRATION_LANE, key="narration", mono=woven)
            )
        chosen = [p for p in self.placed if p.sound_id not in leave_out]
        if extra is not None and extra.placed:
            chosen = [p for p in chosen if p.sound_id != extra.sound_id] + [extra]
        fade_in, fade_out = (0.0, 0.0)
        if woven:
            from foley_tui.scene.woven import fades

            fade_in, fade_out = fades()
        for p in chosen:
            clip = p.woven_clip if woven else p.clip
            if not isinstance(p.source, Source) or clip is None:
                continue
            if woven:
                if woven_leaves_out(p.layer, clip.onset_s, self.narration_s):
                    continue
                gain = self._woven_gain(p, clip)
                if gain is None:
                    continue
            else:
                gain = _match_gain(p.source, target_lufs) if loudness_match else 1.0
            voices.append(
                MixVoice(
                    p.source.path,
                    clip.onset_s,
                    gain=gain,
                    lane=p.layer,
                    length_s=clip.span_s,
                    loop=clip.loop and clip.span_s is not None,
                    key=p.sound_id,
                    mono=woven,
                    fade_in_s=fade_in,
                    fade_out_s=fade_out,
                    in_point_s=clip.in_point_s,
                    out_point_s=clip.out_point_s,
                )
            )
        scene = Scene(voices, label="scene", mix=mix)
        if woven:
            from foley_tui.scene.woven import duck_envelope, ducked_layers, master_gain

            if self.narration_s is not None:
                scene.end_s = self.narration_s
                scene.duck = duck_envelope(self.words, self.narration_s)
                scene.ducked = ducked_layers()
            if master and voices:
                scene.master_gain_db = master_gain(scene).gain_db
        return scene

    def _woven_gain(self, pick: ScenePick, clip: ClipPlacement) -> float | None:
        """The linear gain a channel of the woven mix gives ``pick`` (None: its audio
        cannot be read)."""
        from foley_tui.audio.decode import DecodeError
        from foley_tui.scene.contract import woven_gain

        assert isinstance(pick.source, Source)
        try:
            return woven_gain(pick.source.path, pick.layer, clip).channel_gain
        except (DecodeError, OSError):
            return None


#: Loudness measured for sounds that declare none, by source identity (path, size, mtime):
#: a scene rebuilt after every edit measures each sound once.
_MEASURED: dict[str, float | None] = {}


def _match_gain(source: Source, target_lufs: float) -> float:
    from foley_tui.audio.decode import DecodeError
    from foley_tui.audio.loudness import db_to_gain, match_gain_db, measure_file

    lufs = source.loudness_lufs
    if lufs is None:
        if source.identity not in _MEASURED:
            try:
                _MEASURED[source.identity] = measure_file(source.path)
            except (DecodeError, OSError, ValueError):
                _MEASURED[source.identity] = None
            if len(_MEASURED) > 4096:
                _MEASURED.pop(next(iter(_MEASURED)))
        lufs = _MEASURED[source.identity]
    return db_to_gain(match_gain_db(lufs, target_lufs))


def _caption(candidate: Mapping[str, Any] | None, sound_id: str) -> str:
    sound = candidate.get("sound") if candidate is not None else None
    caption = sound.get("caption") if isinstance(sound, Mapping) else None
    return caption if isinstance(caption, str) and caption else sound_id


def _duration(candidate: Mapping[str, Any] | None) -> float | None:
    sound = candidate.get("sound") if candidate is not None else None
    value = sound.get("duration_s") if isinstance(sound, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        return None
    return float(value)


def scene_pick(
    sound_id: str,
    candidate: Mapping[str, Any] | None,
    pick: Mapping[str, Any] | None,
    words: list[Word],
    data_dir: Path | None,
    *,
    picked: bool = True,
    resolve_audio: bool = True,
    remote: RemoteAudio | None = None,
    marks: Marks | None = None,
) -> ScenePick:
    """One pick (or, with ``picked`` False, a candidate at its suggested place), with
    the region of its ``marks``, if any."""
    placement = effective_placement(candidate, pick)
    reading = read_onset(placement.onset, layer=placement.layer, loop=placement.loop, words=words)
    source: Source | Unplayable | None = None
    if candidate is None:
        source = Unplayable(GHOST_NOTE, "none")
    elif resolve_audio and (data_dir is not None or remote is not None):
        from foley_tui.audio.resolve import resolve

        source = resolve(dict(candidate), data_dir, remote=remote)
    return ScenePick(
        sound_id,
        _caption(candidate, sound_id),
        placement,
        reading,
        _duration(candidate),
        source,
        picked,
        ghost=candidate is None,
        region=region_of(marks),
        stored_onset=_stored_onset(pick),
    )


def _stored_onset(pick: Mapping[str, Any] | None) -> float | str | None:
    onset = pick.get("onset") if pick else None
    if isinstance(onset, bool) or not isinstance(onset, (int, float, str)):
        return None
    return onset


def region_of(marks: Marks | None) -> tuple[float, float | None] | None:
    """The ``(in, out)`` of a sound's region (``out`` None: to its end), or None."""
    if marks is None or not marks.has_region:
        return None
    return (marks.region_in or 0.0, marks.region_out)


def load_narration(
    store: SessionStore, override: Narration | None = None
) -> tuple[Narration | None, str | None]:
    """The session's narration (or ``override``) and a problem with it, if any."""
    narration = override
    if narration is None:
        try:
            narration = read_narration(store)
        except NarrationError as exc:
            return None, str(exc)
    if narration is None:
        return None, None
    return narration, narration.problem()


def build_scene(
    store: SessionStore,
    *,
    narration: Narration | None = None,
    resolve_audio: bool = True,
) -> SceneModel:
    """Every pick of ``store`` on the scene clock (see the module docstring)."""
    found, problem = load_narration(store, narration)
    words = list(found.words) if found is not None else []
    picks = []
    remote = store.remote_audio() if resolve_audio else None
    marks = store.marks()
    for sound_id, record in store.read_all("picks"):
        candidate = store.candidate(sound_id)
        picks.append(
            scene_pick(
                sound_id,
                candidate,
                record,
                words,
                store.data_dir,
                resolve_audio=resolve_audio,
                remote=remote,
                marks=marks.get(sound_id),
            )
        )
    return SceneModel(picks, found, problem, words, narration_length(found, problem))


#: Narration lengths by (path, size, sha256): a header read once per narration.
_NARRATION_S: dict[tuple[str, int, str], float | None] = {}


def narration_length(narration: Narration | None, problem: str | None) -> float | None:
    """The narration's length in seconds (its header), None when there is none or it
    cannot be read."""
    if narration is None or problem is not None:
        return None
    key = (str(narration.path), narration.size, narration.sha256)
    if key not in _NARRATION_S:
        from foley_tui.audio.decode import DecodeError, probe

        try:
            _NARRATION_S[key] = probe(narration.path).duration_s
        except (DecodeError, OSError):
            _NARRATION_S[key] = None
        if len(_NARRATION_S) > 64:
            _NARRATION_S.pop(next(iter(_NARRATION_S)))
    return _NARRATION_S[key]


def in_context(
    model: SceneModel,
    store: SessionStore,
    sound_id: str,
    *,
    pre_roll_s: float = DEFAULT_PRE_ROLL_S,
) -> tuple[ScenePick, float] | None:
    """``sound_id`` at its effective onset (its pick's, else its event's suggestion) over
    the scene, and where to start playing (``pre_roll_s`` before it, at least 0).

    Returns None when the candidate has no place (its anchor does not resolve).
    """
    candidate = store.candidate(sound_id)
    existing = model.pick(sound_id)
    pick = store.picks_ns.get(sound_id) if existing is not None else None
    subject = scene_pick(
        sound_id,
        candidate,
        pick,
        model.words,
        store.data_dir,
        picked=existing is not None,
        remote=store.remote_audio(),
        marks=store.marks_of(sound_id),
    )
    if subject.onset_s is None:
        return None
    return subject, max(subject.onset_s - pre_roll_s, 0.0)


def same_event_picks(model: SceneModel, store: SessionStore, sound_id: str) -> frozenset[str]:
    """Picks of the same scene event as ``sound_id`` (its alternatives), itself excluded:
    auditioning one door slam in context leaves the other door slams out."""
    candidate = store.candidate(sound_id)
    event = candidate.get("event") if candidate is not None else None
    if not isinstance(event, Mapping):
        return frozenset()
    out = set()
    for p in model.picks:
        if p.sound_id == sound_id:
            continue
        other = store.candidate(p.sound_id)
        if other is not None and other.get("event") == event:
            out.add(p.sound_id)
    return frozenset(out)
