"""Our own marks on a candidate: a 0-5 rating, a hidden flag and a region (in and out
points in the sound). Domain types, no IO.

foley has no such fields: the marks live in our state beside the session, never in
foley's ``candidates/``, ``picks/`` or ``rejects/``. A sound with no marks has no record
at all; a record keeps only what is set (``{"sound_id": ..., "rating": 4}``), and keys it
does not know are kept as they are. Headless: never imports textual.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from foley_tui.domain import ValidationError

MAX_RATING = 5
_CLOCK = re.compile(r"^\s*(?:(\d+):)?(\d+):(\d+(?:\.\d*)?)\s*$")
_NUMBER = re.compile(r"^\s*\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$")


def validate_rating(value: object) -> int:
    """A rating is a whole number from 0 (unrated) to 5."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RATING:
        raise ValidationError(f"a rating is a whole number from 0 to {MAX_RATING} (got {value!r})")
    return value


def parse_rating(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise ValidationError(
            f"a rating is a whole number from 0 to {MAX_RATING} (got {text!r})"
        ) from None
    return validate_rating(value)


def parse_point(text: str) -> float | None:
    """A region point typed by a user, in the onset's syntax without anchors or signs:
    seconds (``1.25``) or ``[h:]m:ss.sss``; ``none`` (or ``null``, ``-``) clears it."""
    stripped = text.strip()
    if not stripped or stripped.lower() in {"none", "null", "-"}:
        return None
    match = _CLOCK.match(stripped)
    if match:
        hours, minutes, seconds = match.groups()
        if float(seconds) >= 60:
            raise ValidationError(f"seconds must be below 60 in {stripped!r}")
        return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    if _NUMBER.match(stripped):
        value = float(stripped)
        if math.isfinite(value):
            return value
    raise ValidationError(
        f"a region point is seconds into the sound or m:ss.sss, or none (got {stripped[:40]!r})"
    )


def _point(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


@dataclass(frozen=True, slots=True)
class Marks:
    """A candidate's marks: ``rating`` 0 (unrated) to 5, ``hidden``, and a region
    ``region_in``..``region_out`` in seconds into the sound (either may be unset: the
    sound's start, its end)."""

    rating: int = 0
    hidden: bool = False
    region_in: float | None = None
    region_out: float | None = None

    @property
    def empty(self) -> bool:
        return self == Marks()

    @property
    def has_region(self) -> bool:
        return self.region_in is not None or self.region_out is not None

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> Marks:
        """Tolerant: a value of the wrong kind (hand-edited, a newer version) reads as
        unset."""
        if not record:
            return cls()
        rating = record.get("rating")
        ok = isinstance(rating, int) and not isinstance(rating, bool) and 0 <= rating <= 5
        return cls(
            rating=rating if ok else 0,  # type: ignore[arg-type]
            hidden=record.get("hidden") is True,
            region_in=_point(record.get("in")),
            region_out=_point(record.get("out")),
        )

    def to_record(
        self, sound_id: str, base: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """The stored record (``base``'s other keys kept), or None when nothing is set."""
        record = {k: v for k, v in (base or {}).items() if k not in _OURS}
        if self.empty and not record:
            return None
        record["sound_id"] = sound_id
        if self.rating:
            record["rating"] = self.rating
        if self.hidden:
            record["hidden"] = True
        if self.region_in is not None:
            record["in"] = self.region_in
        if self.region_out is not None:
            record["out"] = self.region_out
        return record

    def check_region(self, duration_s: float | None) -> None:
        """Raise :class:`ValidationError` for a region outside the sound or with in >=
        out (``duration_s`` None: the length is unknown, only the order is checked)."""
        start, end = self.region_in, self.region_out
        for name, value in (("in", start), ("out", end)):
            if value is None:
                continue
            if value < 0 or not math.isfinite(value):
                raise ValidationError(f"the region's {name} point must be 0 or more")
            if duration_s is not None and value > duration_s + 1e-9:
                raise ValidationError(
                    f"the region's {name} point {value:g} s is past the sound's end "
                    f"({duration_s:g} s)"
                )
        low = start or 0.0
        high = end if end is not None else duration_s
        if high is not None and low >= high:
            raise ValidationError(
                f"the region's in point ({low:g} s) must be before its out point ({high:g} s)"
            )

    def region(self, duration_s: float) -> tuple[float, float]:
        """(in, out) in seconds, unset points at the sound's start and end."""
        start = self.region_in or 0.0
        end = self.region_out if self.region_out is not None else duration_s
        return start, min(end, duration_s)

    def describe(self) -> str:
        parts = []
        if self.rating:
            parts.append("★" * self.rating)
        if self.hidden:
            parts.append("hidden")
        if self.has_region:
            low = f"{self.region_in:g}" if self.region_in is not None else "start"
            high = f"{self.region_out:g}" if self.region_out is not None else "end"
            parts.append(f"region {low}-{high} s")
        return ", ".join(parts) if parts else "no marks"


_OURS = frozenset({"sound_id", "rating", "hidden", "in", "out"})

#: The key of a journal state that records marks: ``{"marks": record}`` (``{}``: none).
STATE_KEY = "marks"


def is_decision_state(state: Mapping[str, Any]) -> bool:
    """Whether a journal state records a decision (a pick and a reject), not marks only."""
    return STATE_KEY not in state or any(k in state for k in ("status", "pick", "reject"))


def marks_of_state(state: Mapping[str, Any]) -> Marks | None:
    """The marks a journal state records, or None when it records none."""
    if STATE_KEY not in state:
        return None
    record = state[STATE_KEY]
    return Marks.from_record(record if isinstance(record, Mapping) else None)
