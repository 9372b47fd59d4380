"""What a decision does to one sound, as data: a :class:`SoundEdit` names its sound and the
fields it sets, and computes the records wanted from the records read under the lock.

The decision path (:class:`~foley_tui.store.decisions.Decisions`) reads each sound's
:class:`~foley_tui.store.records.Verdicts`, asks its edit for the records wanted
(``apply``), then writes them with one journal entry. An edit is a frozen value, so a
decision can be built on one thread and written on another, logged, compared in a test
and refused before anything is read (its fields are validated when it is made).

Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from foley_tui.domain import Layer, Onset, Status, ValidationError, validate_layer, validate_onset
from foley_tui.marks import MAX_RATING, Marks, validate_rating
from foley_tui.store.decision_records import KEEP, _Keep, _pick_record
from foley_tui.store.errors import StoreWriteError, UndoConflictError
from foley_tui.store.records import JournalEntry, Verdicts


class SoundEdit(Protocol):
    """One sound's part of a decision."""

    @property
    def sound_id(self) -> str: ...

    def apply(self, now: Verdicts) -> Verdicts | None:
        """The records wanted, given the records ``now``; None leaves the sound alone.
        May raise (a refusal writes nothing)."""
        ...


def _check_fields(layer: Layer | _Keep | None, onset: Onset | _Keep) -> None:
    if not isinstance(layer, _Keep):
        validate_layer(layer)
    if not isinstance(onset, _Keep):
        validate_onset(onset)


def _check_reason(reason: object) -> None:
    if reason is not None and not isinstance(reason, str):
        raise ValidationError(f"reason must be text or null (got {reason!r})")


def _reject_record(sound_id: str, now: Verdicts) -> dict[str, Any]:
    record: dict[str, Any] = dict(now.reject) if now.reject is not None else {"sound_id": sound_id}
    if record.get("sound_id") != sound_id:
        record["sound_id"] = sound_id
    return record


@dataclass(frozen=True, slots=True)
class SetPick:
    """Pick the sound (or edit its pick): the fields given set, every other key of an
    existing pick kept; its reject, if any, goes (a pick replaces a reject).

    ``strict`` refuses a torn pick file when only one field is given: the other field
    cannot be kept, so writing would set it to null."""

    sound_id: str
    layer: Layer | _Keep | None = KEEP
    onset: Onset | _Keep = KEEP
    strict: bool = False

    def __post_init__(self) -> None:
        _check_fields(self.layer, self.onset)

    def apply(self, now: Verdicts) -> Verdicts:
        partial = isinstance(self.layer, _Keep) != isinstance(self.onset, _Keep)
        if self.strict and partial and not now.clean and now.pick is not None:
            raise StoreWriteError(
                f"the pick file of {self.sound_id!r} cannot be read (being written, or cut "
                "short): not changed; try again when it reads, give both the layer "
                "and the onset, or clear it"
            )
        return Verdicts(_pick_record(self.sound_id, now.pick, self.layer, self.onset))


@dataclass(frozen=True, slots=True)
class TogglePick:
    """Unpick a picked sound (its files both go); pick any other, as :class:`SetPick`."""

    sound_id: str
    layer: Layer | _Keep | None = KEEP
    onset: Onset | _Keep = KEEP

    def __post_init__(self) -> None:
        _check_fields(self.layer, self.onset)

    def apply(self, now: Verdicts) -> Verdicts:
        if now.status is Status.PICKED:
            return Verdicts(None, None)
        return Verdicts(_pick_record(self.sound_id, now.pick, self.layer, self.onset))


@dataclass(frozen=True, slots=True)
class DropPick:
    """Remove the sound's pick; its reject, if any, stays."""

    sound_id: str

    def apply(self, now: Verdicts) -> Verdicts:
        return Verdicts(None, now.reject)


@dataclass(frozen=True, slots=True)
class SetReject:
    """Reject the sound with ``reason`` (its pick goes; other keys of a reject kept)."""

    sound_id: str
    reason: str | None = None

    def __post_init__(self) -> None:
        _check_reason(self.reason)

    def apply(self, now: Verdicts) -> Verdicts:
        record = _reject_record(self.sound_id, now)
        record["reason"] = self.reason
        return Verdicts(None, record)


@dataclass(frozen=True, slots=True)
class ToggleReject:
    """Unreject a rejected sound; reject any other, as :class:`SetReject` (a conflict
    keeps the agent's reason unless one is given)."""

    sound_id: str
    reason: str | None = None

    def __post_init__(self) -> None:
        _check_reason(self.reason)

    def apply(self, now: Verdicts) -> Verdicts:
        if now.status is Status.REJECTED:
            return Verdicts(None, None)
        record = _reject_record(self.sound_id, now)
        if now.status is not Status.CONFLICT or self.reason is not None:
            record["reason"] = self.reason
        return Verdicts(None, record)


@dataclass(frozen=True, slots=True)
class DropReject:
    """Remove the sound's reject; its pick, if any, stays."""

    sound_id: str

    def apply(self, now: Verdicts) -> Verdicts:
        return Verdicts(now.pick, None)


@dataclass(frozen=True, slots=True)
class Clear:
    """Back to undecided: both files go."""

    sound_id: str

    def apply(self, now: Verdicts) -> Verdicts:
        return Verdicts()


@dataclass(frozen=True, slots=True)
class MarksEdit:
    """Which of our marks to change, and how: a rating set or stepped (clamped to 0-5),
    hidden set or toggled, a region point set (None clears it). Fields left at their
    defaults are kept."""

    rating: int | None = None
    rating_step: int = 0
    hidden: bool | None = None
    toggle_hidden: bool = False
    region_in: float | _Keep | None = KEEP
    region_out: float | _Keep | None = KEEP

    def __post_init__(self) -> None:
        if self.rating is not None:
            validate_rating(self.rating)

    def apply(self, before: Marks) -> Marks:
        after = before
        if self.rating is not None:
            after = replace(after, rating=self.rating)
        if self.rating_step:
            after = replace(after, rating=max(0, min(MAX_RATING, after.rating + self.rating_step)))
        if self.hidden is not None:
            after = replace(after, hidden=self.hidden)
        if self.toggle_hidden:
            after = replace(after, hidden=not after.hidden)
        if not isinstance(self.region_in, _Keep):
            after = replace(after, region_in=self.region_in)
        if not isinstance(self.region_out, _Keep):
            after = replace(after, region_out=self.region_out)
        return after


@dataclass(frozen=True, slots=True)
class EditMarks:
    """Change our marks of the sound (never foley's files) and, with ``pick``, make that
    decision in the same entry (``pick --in --out``). A region outside the sound
    (``duration_s``) or with in >= out is refused."""

    sound_id: str
    marks: MarksEdit
    duration_s: float | None = None
    pick: SoundEdit | None = field(default=None)

    def apply(self, now: Verdicts) -> Verdicts:
        record = now.marks if isinstance(now.marks, dict) else None
        before = Marks.from_record(record)
        after = self.marks.apply(before)
        if after.has_region and (
            after.region_in != before.region_in or after.region_out != before.region_out
        ):
            after.check_region(self.duration_s)
        validate_rating(after.rating)
        decided = self.pick.apply(now) if self.pick is not None else now
        base = decided if decided is not None else now
        marks = record if after == before else after.to_record(self.sound_id, record)
        return Verdicts(base.pick, base.reject, base.clean, marks)


@dataclass(frozen=True, slots=True)
class Swap:
    """The compare-and-swap of undo/redo for one sound of ``target``: its files must
    still be as the entry left them (undo) or found them (redo); ``force`` applies
    anyway; ``skip`` changes nothing (the entry is stepped past)."""

    sound_id: str
    kind: str
    target: JournalEntry
    before: dict[str, Any]
    after: dict[str, Any]
    force: bool = False
    skip: bool = False

    def apply(self, now: Verdicts) -> Verdicts:
        if self.skip:
            return now
        expected, wanted = (
            (self.after, self.before) if self.kind == "undo" else (self.before, self.after)
        )
        sid = self.sound_id
        if not self.force and not now.matches(expected, sid):
            was = Verdicts.from_state(sid, expected).describe()
            raise UndoConflictError(
                f"cannot {self.kind} {sid!r}: changed outside foley-tui: now "
                f"{now.describe()} (it was {was}); nothing was changed "
                f"(--force applies it anyway, --skip steps past it)",
                entry=self.target,
                now=now,
            )
        return Verdicts.from_state(sid, wanted)


__all__ = [
    "Clear",
    "DropPick",
    "DropReject",
    "EditMarks",
    "MarksEdit",
    "SetPick",
    "SetReject",
    "SoundEdit",
    "Swap",
    "TogglePick",
    "ToggleReject",
]
