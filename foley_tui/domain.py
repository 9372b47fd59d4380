"""The domain model: layers, picks, rejects, list rows and a typed view of a candidate dict.

Headless: never imports textual. A *candidate* is foley's ``Candidate.to_dict()``; we read
it tolerantly (missing keys default, unknown keys are kept) exactly like foley's
``from_dict`` does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, cast
from urllib.parse import unquote, urlsplit

Layer = Literal["voice", "sfx_fg", "ambience", "stinger", "music"]
LAYERS: tuple[Layer, ...] = ("voice", "sfx_fg", "ambience", "stinger", "music")


class ValidationError(ValueError):
    """A value the user or a caller gave is not acceptable (bad layer, bad onset...)."""


def validate_layer(value: object) -> Layer | None:
    """Return ``value`` as a layer, or ``None``; raise :class:`ValidationError` otherwise."""
    if value is None:
        return None
    if isinstance(value, str) and value in LAYERS:
        return cast(Layer, value)
    raise ValidationError(f"layer must be one of {', '.join(LAYERS)} (got {value!r})")


#: A pick's onset as foley stores it: null (no cue), a finite number of seconds (negative
#: is valid: ``plan`` accepts it, ``weave`` clamps it) or a symbolic anchor string such as
#: ``on 'slammed'``, kept verbatim (foley's ``weave`` resolves it against the narration).
Onset = float | int | str | None

#: Longest anchor text we accept from a user (foley's anchors are a few words).
MAX_ANCHOR_CHARS = 1000

#: The latest onset (seconds, either sign) we write, and the latest anything is placed at
#: on the scene clock: a day (the scene contract's limit; an agent's pick past it is shown
#: and left out of every mix).
MAX_PLACEMENT_S = 86400.0


def validate_onset(value: object) -> Onset:
    """Return ``value`` unchanged when it is a valid onset; raise :class:`ValidationError`.

    Valid: ``None``, a finite int or float (any sign; ``3`` stays ``3`` so files stay
    byte-identical to foley's), or a non-blank anchor string (kept verbatim).
    """
    if value is None:
        return None
    if isinstance(value, str):
        if not value.strip():
            raise ValidationError("an onset anchor must not be blank (use null for no cue)")
        if len(value) > MAX_ANCHOR_CHARS:
            raise ValidationError(f"an onset anchor is limited to {MAX_ANCHOR_CHARS} characters")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(
            f"onset must be seconds, an anchor such as on 'slammed', or null (got {value!r})"
        )
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int too large for a float
        finite = False
    if not finite:
        raise ValidationError(f"onset must be a finite number of seconds (got {value!r})")
    if abs(value) > MAX_PLACEMENT_S:
        raise ValidationError(
            f"onset must be within a day ({MAX_PLACEMENT_S:g} s) of the start (got {value!r})"
        )
    return value


def plan_onset(value: object) -> Onset:
    """A stored onset as foley's ``plan`` passes it on: None, a number it reads as
    seconds, else the text it turns the value into (``str(value)``), which foley's weave
    reads as an anchor: NaN, infinities, ``True`` and numbers whose text has an exponent
    (``1e+20``) are words to foley, ``[1, 2]`` is the first number in its text."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    text = str(value)
    if any(c.isalpha() for c in text):
        return text
    if isinstance(value, int) and abs(value) > 2**53:
        return text  # no float holds it: kept as the digits foley reads as seconds
    return value


_CLOCK = re.compile(r"^\s*(-)?(?:(\d+):)?(\d+):(\d+(?:\.\d*)?)\s*$")
_NUMBER = re.compile(r"^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$")


def parse_onset(text: str) -> Onset:
    """Parse an onset typed by a user.

    ``""``/``none``/``null``/``-`` -> ``None``; seconds (``12.5``, ``-0.25``) or
    ``[h:]m:ss.sss`` -> a number; any other text -> an anchor string, kept verbatim (only
    surrounding blanks go), which foley's ``weave`` resolves against the narration.
    """
    stripped = text.strip()
    if not stripped or stripped.lower() in {"none", "null", "-"}:
        return None
    match = _CLOCK.match(stripped)
    if match:
        sign, hours, minutes, seconds = match.groups()
        if float(seconds) >= 60:
            raise ValidationError(f"seconds must be below 60 in {stripped!r}")
        try:
            total = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
        except (OverflowError, ValueError):
            raise ValidationError(f"onset out of range: {stripped[:40]!r}") from None
        return validate_onset(-total if sign else total)
    if _NUMBER.match(stripped):
        try:
            number = float(stripped)
        except (OverflowError, ValueError):
            raise ValidationError(f"onset out of range: {stripped[:40]!r}") from None
        return validate_onset(number)
    if stripped.lower() in {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity"}:
        raise ValidationError(f"onset must be a finite number of seconds (got {stripped!r})")
    return validate_onset(stripped)


def format_onset(onset: Onset) -> str:
    """Format an onset for display: ``-`` when unset, an anchor as written, else
    ``m:ss.sss`` to the millisecond (a frame at 24 fps is 42 ms): ``0:03.350``; negative
    onsets keep their sign (``-0:01.500``)."""
    if onset is None:
        return "-"
    if isinstance(onset, str):
        return onset if onset.strip() else repr(onset)  # '' is an anchor too
    if isinstance(onset, bool) or not isinstance(onset, int | float):
        return "?"
    try:
        millis = round(abs(onset) * 1000)  # whole milliseconds: no float noise
    except (OverflowError, ValueError):
        return "?"
    sign = "-" if onset < 0 and millis else ""
    minutes, rest = divmod(millis, 60_000)
    seconds, ms = divmod(rest, 1000)
    return f"{sign}{minutes}:{seconds:02d}.{ms:03d}"


class Status(Enum):
    """The verdict a human gave a candidate."""

    UNDECIDED = "undecided"
    PICKED = "picked"
    REJECTED = "rejected"
    #: Picked and rejected at once: foley's ``add_pick`` keeps an existing reject and its
    #: ``add_reject`` an existing pick, so a session foley wrote can hold both.
    CONFLICT = "conflict"


@dataclass(frozen=True, slots=True)
class Pick:
    """A picked sound, exactly foley's pick record."""

    sound_id: str
    layer: Layer | None = None
    onset: Onset = None

    def to_dict(self) -> dict[str, Any]:
        return {"sound_id": self.sound_id, "layer": self.layer, "onset": self.onset}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], sound_id: str | None = None) -> Pick:
        """Build from a stored dict; tolerant of a bad layer written by someone else, and
        its onset as foley's plan reads it (:func:`plan_onset`: a value foley turns into
        an anchor is shown as that anchor)."""
        sid = str(data.get("sound_id") or sound_id or "")
        try:
            layer = validate_layer(data.get("layer"))
        except ValidationError:
            layer = None
        return cls(sid, layer, plan_onset(data.get("onset")))


@dataclass(frozen=True, slots=True)
class Reject:
    """A rejected sound, exactly foley's reject record."""

    sound_id: str
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"sound_id": self.sound_id, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], sound_id: str | None = None) -> Reject:
        sid = str(data.get("sound_id") or sound_id or "")
        reason = data.get("reason")
        return cls(sid, reason if isinstance(reason, str) else None)


@dataclass(slots=True)
class Row:
    """The compact list columns of one candidate, as kept in the session index.

    Small on purpose: a 100k-candidate session holds 100k of these, never the full dicts.
    ``complete`` is False while only the file name is known (first paint before the index
    has been filled in).
    """

    sound_id: str
    rank: int = 0
    caption: str = ""
    duration_s: float | None = None
    source: str = ""
    license_id: str = ""
    tags: tuple[str, ...] = ()
    score: float | None = None
    cost_usd: float | None = None
    origin: str = ""
    sample_rate: int | None = None
    channels: int | None = None
    format: str = ""
    complete: bool = True
    unreadable: str | None = None


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        return None
    return number if math.isfinite(number) else None


def whole(number: float | None) -> int | None:
    """A count (sample rate, channels) as an int; None for none, zero, or beyond a
    64-bit integer (a sample rate of 1e300 is no rate, and no index column can hold it)."""
    if not number or not -(2.0**63) < number < 2.0**63:
        return None
    return int(number)


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class Candidate:
    """A typed, read-only view over a foley candidate dict (``Candidate.to_dict()``)."""

    data: Mapping[str, Any] = field(repr=False)

    @property
    def sound(self) -> Mapping[str, Any]:
        return _dict(self.data.get("sound"))

    @property
    def license(self) -> Mapping[str, Any]:
        return _dict(self.sound.get("license"))

    @property
    def event(self) -> Mapping[str, Any]:
        return _dict(self.data.get("event"))

    @property
    def verdict(self) -> Mapping[str, Any]:
        return _dict(self.data.get("verdict"))

    @property
    def sound_id(self) -> str:
        return str(self.sound.get("id") or "")

    @property
    def caption(self) -> str:
        return str(self.sound.get("caption") or "")

    @property
    def tags(self) -> tuple[str, ...]:
        tags = self.sound.get("tags")
        return tuple(str(t) for t in tags) if isinstance(tags, list) else ()

    @property
    def duration_s(self) -> float | None:
        return _num(self.sound.get("duration_s"))

    @property
    def sample_rate(self) -> int | None:
        return whole(_num(self.sound.get("sample_rate")))

    @property
    def channels(self) -> int | None:
        return whole(_num(self.sound.get("channels")))

    @property
    def format(self) -> str:
        return str(self.sound.get("format") or "")

    @property
    def loudness_lufs(self) -> float | None:
        return _num(self.sound.get("loudness_lufs"))

    @property
    def bit_depth(self) -> int | None:
        """The source file's bit depth (foley's ``source_bit_depth``)."""
        return whole(_num(self.sound.get("source_bit_depth")))

    @property
    def ucs_category(self) -> str:
        """``CATEGORY/SUBCATEGORY`` as foley records them (either may be missing)."""
        parts = (self.sound.get("ucs_category"), self.sound.get("ucs_subcategory"))
        return "/".join(str(p) for p in parts if isinstance(p, str) and p)

    @property
    def file_place(self) -> tuple[str, str]:
        """(folder, file name) of the sound's ``uri``: the name of the folder holding the
        file (a URL's host when its path has no folder) and the file's name."""
        uri = self.sound.get("uri")
        if not isinstance(uri, str) or not uri:
            return "", ""
        host = ""
        path = uri
        if "://" in uri:
            parts = urlsplit(uri)
            host = parts.netloc if parts.scheme != "file" else ""
            path = unquote(parts.path)
        folder, _, name = path.rstrip("/").rpartition("/")
        return folder.rpartition("/")[2] or host, name

    @property
    def origin(self) -> str:
        return str(self.data.get("origin") or "")

    @property
    def source(self) -> str:
        return str(self.license.get("source") or "")

    @property
    def license_id(self) -> str:
        return str(self.license.get("license_id") or self.license.get("license_name") or "")

    @property
    def notes(self) -> tuple[str, ...]:
        notes = self.data.get("notes")
        if isinstance(notes, str):
            return (notes,)
        return tuple(str(n) for n in notes) if isinstance(notes, list) else ()

    @property
    def score(self) -> float | None:
        """The best available relevance score: rerank, else rrf, else clap, else bm25."""
        for key in ("rerank_score", "rrf_score", "clap_score", "bm25_score"):
            value = _num(self.data.get(key))
            if value is not None:
                return value
        return None

    @property
    def cost_usd(self) -> float | None:
        """What this sound cost: the actual cost, else the estimate."""
        actual = _num(self.data.get("cost_actual_usd"))
        return actual if actual is not None else _num(self.data.get("cost_estimate_usd"))

    def to_row(self, rank: int = 0) -> Row:
        """The compact list row for this candidate."""
        return Row(
            sound_id=self.sound_id,
            rank=rank,
            caption=self.caption,
            duration_s=self.duration_s,
            source=self.source,
            license_id=self.license_id,
            tags=self.tags,
            score=self.score,
            cost_usd=self.cost_usd,
            origin=self.origin,
            sample_rate=self.sample_rate,
            channels=self.channels,
            format=self.format,
        )
