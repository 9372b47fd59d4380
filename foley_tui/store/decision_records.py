"""Record-level helpers of the decision part: the KEEP marker, the counts, and the pick
record a decision writes.

Headless: never imports textual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from foley_tui.domain import validate_layer, validate_onset
from foley_tui.store.records import RawRecord, carriable, same_record


class _Keep:
    """The type of :data:`KEEP`."""

    def __repr__(self) -> str:
        return "KEEP"


#: "Leave this field as it is" for :meth:`SessionStore.update_pick`.
KEEP: Final = _Keep()


@dataclass(frozen=True, slots=True)
class DecisionCounts:
    """Every count of a session's decisions, from one listing of each folder.

    ``picks``/``rejects`` count files (what foley's ``add_pick`` returns); ``conflicts``
    are sounds in both; ``ghosts`` are picks with no cached candidate (foley's ``plan``
    drops them); ``candidates`` counts cached candidates.
    """

    picks: int
    rejects: int
    conflicts: int
    ghosts: int
    candidates: int

    @property
    def picked_only(self) -> int:
        return self.picks - self.conflicts

    @property
    def rejected_only(self) -> int:
        return self.rejects - self.conflicts


def _same(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    return same_record(a, b)


def _pick_record(
    sound_id: str, base: dict[str, Any] | None, layer: object, onset: object
) -> dict[str, Any]:
    """``base`` (a pick record, kept key for key) with the fields given set."""
    record: dict[str, Any] = (
        dict(base) if base is not None else {"sound_id": sound_id, "layer": None, "onset": None}
    )
    if record.get("sound_id") != sound_id:
        record["sound_id"] = sound_id
    if not isinstance(layer, _Keep):
        record["layer"] = validate_layer(layer)
    if not isinstance(onset, _Keep):
        record["onset"] = validate_onset(onset)
    if isinstance(base, RawRecord) and not carriable(record):
        # A value only foley wrote (a NaN onset) the user did not ask to change: it stays
        # as it is, the file encoded exactly as foley's own store encodes it
        # (json.dumps(indent=4), which writes NaN). We never add one: the layer and onset
        # given were validated finite above.
        return RawRecord(record, json.dumps(record, indent=4).encode())
    return record
