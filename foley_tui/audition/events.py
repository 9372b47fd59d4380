"""Scene events: foley's agent fills a session per event (a query such as "a door slams
shut", a suggested layer and onset); the audition list groups candidates by it.

Two candidates belong to one group when their whole ``event`` dicts are equal (two door
slams at different words stay two groups). A group shows under a header row (its query,
the suggested layer and onset, and progress); headers live in the list's view as marked
entries that are not candidates (:func:`is_header`). Headless: never imports textual.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

HEADER = "\x1fevent\x1f"
"""Prefix of a header entry in the view (a control character no sound id carries)."""

EVENT_SCAN_LIMIT = 5_000
"""Events are read from the candidate files for sessions up to this size (the list index
does not carry them yet); bigger sessions keep the flat list."""


@dataclass(frozen=True, slots=True)
class EventInfo:
    """One scene event as foley's agent wrote it."""

    key: str
    query: str
    layer: str | None
    onset: object

    @classmethod
    def of(cls, event: Mapping[str, Any]) -> EventInfo:
        layer = event.get("layer")
        return cls(
            key=event_key(event),
            query=str(event.get("query") or "(no query)"),
            layer=layer if isinstance(layer, str) else None,
            onset=event.get("onset"),
        )


def event_key(event: Mapping[str, Any]) -> str:
    """The identity of an event: its whole dict, canonically."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), default=str)


PENDING = "\x1fpending\x1f"
"""A row of the first paint not fetched yet (see :meth:`Listing.set_page`): the list shows
it as a placeholder; it is neither a candidate nor a header."""


def is_candidate(entry: str) -> bool:
    """A view entry that is a sound id (not an event header, not a pending row)."""
    return entry[:1] != "\x1f"


def header(key: str) -> str:
    return HEADER + key


def is_header(entry: str) -> bool:
    return entry.startswith(HEADER)


def key_of(entry: str) -> str:
    return entry[len(HEADER) :]


def grouped(ids: list[str], events: Mapping[str, str]) -> list[str]:
    """``ids`` (already filtered and sorted) grouped by event, each group under its header,
    groups in the order of their first candidate; candidates without an event follow."""
    if not events:
        return ids
    groups: dict[str, list[str]] = {}
    loose: list[str] = []
    for sid in ids:
        key = events.get(sid)
        if key is None:
            loose.append(sid)
        else:
            groups.setdefault(key, []).append(sid)
    view: list[str] = []
    for key, members in groups.items():
        view.append(header(key))
        view.extend(members)
    view.extend(loose)
    return view
