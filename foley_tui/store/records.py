"""Plain data and helpers of a session store: state dicts, journal entries, metadata.

No I/O of the session here: the time helpers, the canonical decision-state form the
journal records, candidate-dict helpers and the small error/namespace helpers that the
store's mixins share. Headless: never imports textual.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from foley_tui.domain import Status, ValidationError, validate_layer, validate_onset
from foley_tui.store.codec import DecodeError, loads_object
from foley_tui.store.errors import StoreWriteError

#: Version of our metadata/journal/export formats.
SCHEMA_VERSION = 1

UNDECIDED: dict[str, Any] = {"status": "undecided"}
#: The state key of our marks (rating, hidden, region), on the states of an entry that
#: changed them; an entry without it left the marks as they were.
MARKS = "marks"
#: The namespace of our marks records (by sound id), in our state beside the session.
MARKS_NS = "marks"


def new_ulid() -> str:
    """A new ULID string (session ids, journal entries), made by python-ulid: 48 bits of
    Unix milliseconds then 80 random bits, 26 characters of Crockford base 32, so ids
    sort by creation time. Imported on the first id, not with the store: start-up and
    the reads that make no id never load it."""
    from ulid import ULID

    return str(ULID())


def now_utc() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_iso(text: object, default: datetime | None = None) -> datetime | None:
    if not isinstance(text, str):
        return default
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if not moment.tzinfo:
            moment = moment.replace(tzinfo=UTC)
        # A date at the edge of the calendar with an offset (9999-12-31T23:59-23:59)
        # parses but cannot be shown or compared in local time: a bad value, not a crash.
        moment.astimezone(UTC).astimezone()
    except (ValueError, OverflowError):
        return default
    return moment


def fs_time(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, UTC)


class RawRecord(dict[str, Any]):
    """A pick or reject record JSON cannot carry (a NaN onset foley wrote) with its file's
    exact bytes. The journal records it as those bytes (``pick_raw``/``reject_raw``,
    base64) and undo writes them back verbatim: nothing of ours ever writes a NaN, and
    the file foley wrote comes back byte for byte. Two are the same when their bytes are."""

    __slots__ = ("raw",)

    def __init__(self, value: Mapping[str, Any], raw: bytes) -> None:
        super().__init__(value)
        self.raw = bytes(raw)


def carriable(value: object) -> bool:
    """Whether strict JSON (no NaN/Infinity) can carry ``value``."""
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return False
    return True


def record_of_bytes(data: bytes) -> dict[str, Any]:
    """A stored record parsed as foley would (:class:`DecodeError` if it cannot be); one
    JSON cannot carry comes back as a :class:`RawRecord` holding ``data``."""
    value = loads_object(data)
    return value if carriable(value) else RawRecord(value, data)


def same_record(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Whether two raw records are the same bytes on disk (``3`` is not ``3.0``; a
    :class:`RawRecord` equals only one with the same bytes: NaN never equals itself)."""
    if isinstance(a, RawRecord) or isinstance(b, RawRecord):
        return isinstance(a, RawRecord) and isinstance(b, RawRecord) and a.raw == b.raw
    return a == b and _same_types(a, b)


def _state_record(state: dict[str, Any]) -> dict[str, Any]:
    """A state as the journal line holds it: a :class:`RawRecord` as its base64 bytes."""
    out = state
    for key in ("pick", "reject"):
        value = state.get(key)
        if isinstance(value, RawRecord):
            if out is state:
                out = dict(state)
            del out[key]
            out[f"{key}_raw"] = base64.b64encode(value.raw).decode("ascii")
    return out


def _stored_record(state: Mapping[str, Any], key: str) -> object:
    """``state[key]``, or the record its ``<key>_raw`` bytes hold (None if unreadable)."""
    value = state.get(key)
    if value is None and f"{key}_raw" in state:
        text = state[f"{key}_raw"]
        if not isinstance(text, str):
            return None
        try:
            data = base64.b64decode(text, validate=True)
            return RawRecord(loads_object(data), data)
        except (ValueError, DecodeError):
            return None
    return value


#: Kinds of journal entries. ``do`` is a decision; ``undo``/``redo`` apply the
#: ``before``/``after`` of the entry whose seq is ``target``; ``skip`` steps past an entry
#: that could not be undone or redone (the sound changed since) without writing anything.
JOURNAL_KINDS = ("do", "undo", "redo", "skip")


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One decision in the journal.

    ``before``/``after`` are state dicts (see :func:`normalize_state`). Entries written
    since foley-tui learned both verdicts carry the raw records:
    ``{"status": "picked|rejected|conflict|undecided", "pick": {...}, "reject": {...}}``
    (a key only when that file exists), so undo restores both files byte for byte.
    Older entries hold ``{"status": "picked", "layer", "onset"}``,
    ``{"status": "rejected", "reason"}`` or ``{"status": "undecided"}``.
    ``kind`` is one of :data:`JOURNAL_KINDS`; for undo/redo/skip ``target`` is the seq of
    the entry undone/redone/skipped."""

    seq: int
    entry_id: str
    at: datetime
    sound_id: str
    before: dict[str, Any]
    after: dict[str, Any]
    kind: str = "do"
    target: int | None = None
    author: str | None = None
    """Who decided (the shared Redis store records it; None in a file journal)."""
    also: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...] = ()
    """More sounds changed by the same decision, as (sound id, before, after): a group
    (a pick that drops the event's other picks) applied, undone and redone as one."""

    def changes(self) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        """Every (sound id, before, after) of the entry, its own sound first."""
        return [(self.sound_id, self.before, self.after), *self.also]

    def to_record(self) -> dict[str, Any]:
        record = {
            "seq": self.seq,
            "id": self.entry_id,
            "at": iso(self.at),
            "kind": self.kind,
            "target": self.target,
            "sound_id": self.sound_id,
            "before": _state_record(self.before),
            "after": _state_record(self.after),
        }
        if self.author is not None:
            record["author"] = self.author
        if self.also:
            record["also"] = [
                {"sound_id": sid, "before": _state_record(before), "after": _state_record(after)}
                for sid, before, after in self.also
            ]
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> JournalEntry | None:
        try:
            seq = record["seq"]
            if isinstance(seq, bool) or not isinstance(seq, int):
                return None
            target = record.get("target")
            also = record.get("also", [])
            if not isinstance(also, list):
                return None
            group = tuple(
                (
                    str(item["sound_id"]),
                    normalize_state(item.get("before")),
                    normalize_state(item.get("after")),
                )
                for item in also
            )
            return cls(
                seq=seq,
                entry_id=str(record.get("id") or ""),
                at=parse_iso(record.get("at")) or datetime.fromtimestamp(0, UTC),
                sound_id=str(record["sound_id"]),
                before=normalize_state(record.get("before")),
                after=normalize_state(record.get("after")),
                kind=str(record.get("kind") or "do"),
                target=target if isinstance(target, int) and not isinstance(target, bool) else None,
                author=record["author"] if isinstance(record.get("author"), str) else None,
                also=group,
            )
        except (KeyError, TypeError, ValueError, OverflowError):
            return None


def _valid_onset_or_none(raw: object) -> Any:
    try:
        return validate_onset(raw)
    except ValidationError:
        return None


def _valid_layer_or_none(raw: object) -> Any:
    try:
        return validate_layer(raw)
    except ValidationError:
        return None


def normalize_state(state: object) -> dict[str, Any]:
    """A state dict in canonical form; anything malformed reads as undecided.

    The raw form (``pick``/``reject`` records) is kept as it is, with the status
    recomputed from which records are there; the older form is reduced to its fields.
    Our marks (``marks``: a record, ``{}`` for none), on the states of an entry that
    changed them, are kept as they are.
    """
    out = _normalize_decision(state)
    if isinstance(state, Mapping) and isinstance(state.get(MARKS), dict):
        out[MARKS] = dict(state[MARKS])
    return out


def _normalize_decision(state: object) -> dict[str, Any]:
    if not isinstance(state, Mapping):
        return dict(UNDECIDED)
    if "pick" in state or "reject" in state or "pick_raw" in state or "reject_raw" in state:
        # Inline (no Verdicts): this runs twice per entry of a whole-journal read.
        pick = _stored_record(state, "pick")
        reject = _stored_record(state, "reject")
        out: dict[str, Any] = {}
        if isinstance(pick, dict):
            out["status"] = "conflict" if isinstance(reject, dict) else "picked"
            out["pick"] = pick
        else:
            out["status"] = "rejected" if isinstance(reject, dict) else "undecided"
        if isinstance(reject, dict):
            out["reject"] = reject
        return out
    status = state.get("status")
    if status == "picked":
        return {
            "status": "picked",
            "layer": _valid_layer_or_none(state.get("layer")),
            "onset": _valid_onset_or_none(state.get("onset")),
        }
    if status == "rejected":
        reason = state.get("reason")
        return {"status": "rejected", "reason": reason if isinstance(reason, str) else None}
    return dict(UNDECIDED)


class _SameMarks:
    """The marks of a change that is not about them: they stay as they are."""

    def __repr__(self) -> str:
        return "SAME_MARKS"


SAME_MARKS = _SameMarks()


@dataclass(frozen=True, slots=True)
class Verdicts:
    """What the files of one sound hold: its raw pick and reject records (None: no file).

    ``clean`` is False when a file exists but could not be read: such a state is never
    written back (we cannot keep what we could not parse) and never matches a journal
    state, so undo refuses rather than overwrite it.
    """

    pick: dict[str, Any] | None = None
    reject: dict[str, Any] | None = None
    clean: bool = True
    marks: dict[str, Any] | _SameMarks | None = SAME_MARKS
    """Our marks record of the sound (not foley's: kept in our state), None for none;
    :data:`SAME_MARKS` in a change that leaves them as they are."""

    def settled(self, before: Verdicts) -> Verdicts:
        """These records with :data:`SAME_MARKS` replaced by ``before``'s marks."""
        if isinstance(self.marks, _SameMarks):
            marks = None if isinstance(before.marks, _SameMarks) else before.marks
            return Verdicts(self.pick, self.reject, self.clean, marks)
        return self

    def same_marks(self, other: Verdicts) -> bool:
        mine = None if isinstance(self.marks, _SameMarks) else self.marks
        theirs = None if isinstance(other.marks, _SameMarks) else other.marks
        return same_record(mine or None, theirs or None)

    @property
    def status(self) -> Status:
        if self.pick is not None:
            return Status.CONFLICT if self.reject is not None else Status.PICKED
        return Status.REJECTED if self.reject is not None else Status.UNDECIDED

    def to_state(self) -> dict[str, Any]:
        """The journal's raw state form (a key only for a record that exists)."""
        state: dict[str, Any] = {"status": self.status.value}
        if self.pick is not None:
            state["pick"] = self.pick
        if self.reject is not None:
            state["reject"] = self.reject
        return state

    @classmethod
    def from_state(cls, sound_id: str, state: Mapping[str, Any]) -> Verdicts:
        """The records a journal state stands for (older states get foley's record shape)."""
        if "pick" in state or "reject" in state or "pick_raw" in state or "reject_raw" in state:
            pick = _stored_record(state, "pick")
            reject = _stored_record(state, "reject")
            return cls(_own(pick), _own(reject), marks=_marks_in(state))
        status = state.get("status")
        if status == "picked":
            return cls(
                {"sound_id": sound_id, "layer": state.get("layer"), "onset": state.get("onset")},
                marks=_marks_in(state),
            )
        if status == "rejected":
            return cls(
                None, {"sound_id": sound_id, "reason": state.get("reason")}, marks=_marks_in(state)
            )
        return cls(marks=_marks_in(state))

    def comparable(self) -> tuple[Any, ...]:
        """The normalised form old journal states are compared in: which verdicts exist,
        the pick's layer and onset and the reject's reason."""
        pick = self.pick
        reject = self.reject
        return (
            None
            if pick is None
            else (_valid_layer_or_none(pick.get("layer")), _valid_onset_or_none(pick.get("onset"))),
            None
            if reject is None
            else (reject.get("reason") if isinstance(reject.get("reason"), str) else None,),
        )

    def matches(self, state: Mapping[str, Any], sound_id: str) -> bool:
        """Whether the files are still in the journal ``state``: raw records compared
        exactly (as parsed JSON), older states in normalised form."""
        if not self.clean:
            return False
        other = Verdicts.from_state(sound_id, state)
        if MARKS in state and not self.same_marks(other):
            return False
        if "pick" in state or "reject" in state or "pick_raw" in state or "reject_raw" in state:
            return same_record(self.pick, other.pick) and same_record(self.reject, other.reject)
        return self.comparable() == other.comparable()

    def describe(self) -> str:
        """A short phrase for messages: ``picked, stinger at 12.0``, ``rejected (too crunchy)``."""
        if not self.clean:
            return "unreadable"
        parts: list[str] = []
        if self.pick is not None:
            layer = self.pick.get("layer")
            onset = self.pick.get("onset")
            text = f"picked, {layer if isinstance(layer, str) else 'no layer'}"
            if isinstance(onset, str):
                text += f" {onset}"
            elif isinstance(onset, int | float) and not isinstance(onset, bool):
                text += f" at {onset}"
            parts.append(text)
        if self.reject is not None:
            reason = self.reject.get("reason")
            parts.append(
                f"rejected ({reason})" if isinstance(reason, str) and reason else "rejected"
            )
        return " and ".join(parts) if parts else "undecided"


def _marks_in(state: Mapping[str, Any]) -> dict[str, Any] | _SameMarks | None:
    """A state's marks: a record, None for none (``{}``), or SAME_MARKS when the entry
    did not change them."""
    if MARKS not in state:
        return SAME_MARKS
    record = state[MARKS]
    return dict(record) if isinstance(record, dict) and record else None


def entry_states(before: Verdicts, after: Verdicts) -> tuple[dict[str, Any], dict[str, Any]]:
    """The journal states of a change: the records on both sides and, when the change
    changed our marks, the marks on both sides (``{}`` for none)."""
    old, new = before.to_state(), after.to_state()
    if not before.same_marks(after):
        old[MARKS] = dict(before.marks) if isinstance(before.marks, dict) else {}
        new[MARKS] = dict(after.marks) if isinstance(after.marks, dict) else {}
    return old, new


def _own(record: object) -> dict[str, Any] | None:
    """A copy of a state's record (a :class:`RawRecord` keeps its bytes)."""
    if isinstance(record, RawRecord):
        return RawRecord(record, record.raw)
    return dict(record) if isinstance(record, dict) else None


def _same_types(a: object, b: object) -> bool:
    """JSON equality that tells ``3`` from ``3.0`` and ``1`` from ``true`` (different bytes)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return list(a) == list(b) and all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return True


@dataclass(frozen=True, slots=True)
class SessionMeta:
    """Our metadata for a session (kept in ``.foley-tui/meta.json``)."""

    title: str | None
    created: datetime
    updated: datetime
    cursor: str | None = None
    view: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION
    opened: datetime | None = None
    origin: str = "foley-tui"


def _to_dict(candidate: object) -> dict[str, Any]:
    if isinstance(candidate, Mapping):
        return dict(candidate)
    to_dict = getattr(candidate, "to_dict", None)
    if callable(to_dict):
        data = to_dict()
        if isinstance(data, Mapping):
            return dict(data)
    raise ValidationError(f"not a candidate (a dict or an object with to_dict): {candidate!r}")


def candidate_key(data: Mapping[str, Any]) -> str | None:
    """The sound id keying a candidate dict (``sound.id``, as foley keys it)."""
    sound = data.get("sound")
    if isinstance(sound, Mapping):
        sid = sound.get("id")
        if isinstance(sid, str) and sid:
            return sid
    return None


# A hidden name ending in ".json" inside a NUL-separated blob of names.
_HIDDEN_JSON = re.compile("\0\\.(?:[^\0]*\\.)?json(?=\0)")


def count_entries(names: list[str]) -> int:
    """How many names are foley entries (``*.json``, not hidden), counted in C.

    add_pick returns this count (as foley's does) after every decision; a Python loop
    over 1,000 names cost a few hundred microseconds per pick, as much as an fsync.
    File names cannot hold NUL, so one joined string with C-level counts is exact."""
    if not names:
        return 0
    blob = "\0" + "\0".join(names) + "\0"
    return blob.count(".json\0") - len(_HIDDEN_JSON.findall(blob))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, IsADirectoryError):
        return "a folder, not a file"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def store_candidate(
    ns: MutableMapping[str, dict[str, Any]], sid: str, data: dict[str, Any]
) -> None:
    """``ns[sid] = data`` with the store's errors: a value JSON cannot hold is a
    ValidationError, a failed write a StoreWriteError."""
    try:
        ns[sid] = data
    except ValueError as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError(f"candidate {sid!r}: {exc}") from None
    except OSError as exc:
        raise StoreWriteError(
            exc.errno, f"could not cache candidate {sid!r}: {exc.strerror or exc}"
        ) from exc


def _write_error(exc: OSError, message: str) -> StoreWriteError:
    reason = exc.strerror or str(exc)
    err = StoreWriteError(f"{message}: {reason}")
    err.errno = exc.errno
    return err
