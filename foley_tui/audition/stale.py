"""What a dialog was opened on, so its confirm never applies to an agent's newer state.

A dialog (the onset dialog, the question before a nudge replaces an anchor, picking that
drops a scene event's other picks) stays open while foley's agent may write the same
session. :class:`OpenedOn` keeps the raw pick records its confirm would write over, read
when it opens; on confirm :meth:`OpenedOn.changed` reads them again and says what the
agent changed meanwhile (then nothing is written: the user decides again on what is
there now).

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: A pick record as read (None: not picked; the string ``"unreadable"``: a torn file).
Record = Mapping[str, Any] | str | None

_UNREADABLE = "unreadable"


def _read(picks: Mapping[str, Any], sound_id: str) -> Record:
    try:
        record = picks.get(sound_id)
    except (OSError, ValueError):
        return _UNREADABLE
    if record is None or isinstance(record, Mapping):
        return record
    return _UNREADABLE


def _describe(before: Record, after: Record) -> str:
    if before is None:
        return "was picked"
    if after is None:
        return "was dropped"
    if _UNREADABLE in (before, after):
        return "was rewritten"
    assert isinstance(before, Mapping) and isinstance(after, Mapping)
    parts = []
    for key in ("onset", "layer"):
        if before.get(key) != after.get(key):
            parts.append(f"its {key} changed from {before.get(key)!r} to {after.get(key)!r}")
    return "; ".join(parts) if parts else "was rewritten"


@dataclass(frozen=True, slots=True)
class OpenedOn:
    """The raw pick records of ``sound_ids`` when a dialog opened.

    Attributes:
        records: Each sound's pick record then (None: not picked).
    """

    records: Mapping[str, Record]

    @classmethod
    def read(cls, picks: Mapping[str, Any], sound_ids: Iterable[str]) -> OpenedOn:
        """Read the records now (``picks``: the store's picks namespace)."""
        return cls({sid: _read(picks, sid) for sid in sound_ids})

    def changed(self, picks: Mapping[str, Any], caption: Callable[[str], str] = str) -> str | None:
        """What changed since the dialog opened (one line), or None when nothing did."""
        found = []
        for sid, before in self.records.items():
            after = _read(picks, sid)
            if after != before:
                found.append(f"{caption(sid)} {_describe(before, after)}")
        if not found:
            return None
        return (
            "Not saved: the session changed while the dialog was open ("
            + "; ".join(found)
            + "). Look again and decide on what is there now."
        )
