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


def validate_onset(value: object) -> float | None:
    """Return ``value`` as a finite, non-negative number of seconds, or ``None``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"onset must be a number of seconds or null (got {value!r})")
    onset = float(value)
    if not math.isfinite(onset) or onset < 0:
        raise ValidationError(f"onset must be finite and >= 0 (got {value!r})")
    return onset


_CLOCK = re.compile(r"^\s*(?:(\d+):)?(\d+):(\d+(?:\.\d*)?)\s*$")


def parse_onset(text: str) -> float | None:
    """Parse an onset typed by a user: ``""`` (none), seconds (``12.5``) or ``[h:]m:ss.s``."""
    text = text.strip()
    if not text or text.lower() in {"none", "null", "-"}:
        return None
    match = _CLOCK.match(text)
    if match:
        hours, minutes, seconds = match.groups()
        if float(seconds) >= 60:
            raise ValidationError(f"seconds must be below 60 in {text!r}")
        total = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
        return validate_onset(total)
    try:
        number = float(text)
    except ValueError:
        raise ValidationError(f"not an onset: {text!r} (use seconds or m:ss.s)") from None
    return validate_onset(number)


def format_onset(onset: float | None) -> str:
    """Format an onset for display: ``-`` when unset, else ``m:ss.s``."""
    if onset is None:
        return "-"
    minutes, seconds = divmod(onset, 60)
    return f"{int(minutes)}:{seconds:04.1f}"


class Status(Enum):
    """The verdict a human gave a candidate."""

    UNDECIDED = "undecided"
    PICKED = "picked"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class Pick:
    """A picked sound, exactly foley's pick record."""

    sound_id: str
    layer: Layer | None = None
    onset: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"sound_id": self.sound_id, "layer": self.layer, "onset": self.onset}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], sound_id: str | None = None) -> Pick:
        """Build from a stored dict; tolerant of a bad layer/onset written by someone else."""
        sid = str(data.get("sound_id") or sound_id or "")
        try:
            layer = validate_layer(data.get("layer"))
        except ValidationError:
            layer = None
        try:
            onset = validate_onset(data.get("onset"))
        except ValidationError:
            onset = None
        return cls(sid, layer, onset)


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
    number = float(value)
    return number if math.isfinite(number) else None


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
        rate = _num(self.sound.get("sample_rate"))
        return int(rate) if rate else None

    @property
    def channels(self) -> int | None:
        channels = _num(self.sound.get("channels"))
        return int(channels) if channels else None

    @property
    def format(self) -> str:
        return str(self.sound.get("format") or "")

    @property
    def loudness_lufs(self) -> float | None:
        return _num(self.sound.get("loudness_lufs"))

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
