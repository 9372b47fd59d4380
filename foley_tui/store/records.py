"""Plain data and helpers of a session store: state dicts, journal entries, metadata.

No I/O of the session here: the time helpers, the canonical decision-state form the
journal records, candidate-dict helpers and the small error/namespace helpers that the
store's mixins share. Headless: never imports textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from foley_tui.model import ValidationError, validate_layer, validate_onset
from foley_tui.store.errors import StoreWriteError
from foley_tui.store.files import FileNamespace

#: Version of our metadata/journal/export formats.
SCHEMA_VERSION = 1

UNDECIDED: dict[str, Any] = {"status": "undecided"}


def new_ulid() -> str:
    """A new ULID string (session ids, journal entries).

    ``ulid`` is imported here, not at module level: it pulls in ``importlib.metadata``,
    about 30 ms of the app's start-up, and nothing needs an id before the first write.
    """
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
    except ValueError:
        return default
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def fs_time(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, UTC)


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One decision in the journal. ``before``/``after`` are state dicts:
    ``{"status": "undecided"}``, ``{"status": "picked", "layer", "onset"}`` or
    ``{"status": "rejected", "reason"}``. ``kind`` is ``do``, ``undo`` or ``redo``;
    for undo/redo ``target`` is the seq of the entry undone/redone."""

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

    def to_record(self) -> dict[str, Any]:
        record = {
            "seq": self.seq,
            "id": self.entry_id,
            "at": iso(self.at),
            "kind": self.kind,
            "target": self.target,
            "sound_id": self.sound_id,
            "before": self.before,
            "after": self.after,
        }
        if self.author is not None:
            record["author"] = self.author
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> JournalEntry | None:
        try:
            return cls(
                seq=int(record["seq"]),
                entry_id=str(record.get("id") or ""),
                at=parse_iso(record.get("at")) or datetime.fromtimestamp(0, UTC),
                sound_id=str(record["sound_id"]),
                before=normalize_state(record.get("before")),
                after=normalize_state(record.get("after")),
                kind=str(record.get("kind") or "do"),
                target=record.get("target") if isinstance(record.get("target"), int) else None,
                author=record["author"] if isinstance(record.get("author"), str) else None,
            )
        except (KeyError, TypeError, ValueError):
            return None


def normalize_state(state: object) -> dict[str, Any]:
    """A state dict in canonical form; anything malformed reads as undecided."""
    if not isinstance(state, Mapping):
        return dict(UNDECIDED)
    status = state.get("status")
    if status == "picked":
        try:
            layer = validate_layer(state.get("layer"))
        except ValidationError:
            layer = None
        raw = state.get("onset")
        try:
            onset = validate_onset(raw)
        except ValidationError:
            onset = None
        if onset is not None and isinstance(raw, int) and not isinstance(raw, bool):
            onset = raw  # keep 3 as 3: foley writes it that way (byte-identical files)
        return {"status": "picked", "layer": layer, "onset": onset}
    if status == "rejected":
        reason = state.get("reason")
        return {"status": "rejected", "reason": reason if isinstance(reason, str) else None}
    return dict(UNDECIDED)


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


def _picked(layer: object, onset: object) -> dict[str, Any]:
    validate_onset(onset)
    return {"status": "picked", "layer": validate_layer(layer), "onset": onset}


def _discard(ns: MutableMapping[str, dict[str, Any]], key: str) -> None:
    if isinstance(ns, FileNamespace):
        ns.discard(key)
    else:
        ns.pop(key, None)


def _write_error(exc: OSError, message: str) -> StoreWriteError:
    reason = exc.strerror or str(exc)
    err = StoreWriteError(f"{message}: {reason}")
    err.errno = exc.errno
    return err
