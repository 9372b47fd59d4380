"""The effective placement of a pick: what ``foley plan`` will use for it.

``foley_plan`` (foley 0.0.89, ``foley/agent/verbs.py``) rehydrates each picked candidate,
then overlays the pick's ``layer`` and ``onset`` onto the candidate's scene event, each
only when it is not null (a numeric onset becomes ``str(onset)``); a candidate without an
event gets one made from its caption (layer ``sfx_fg``) when the pick sets either; the
timeline item takes the event's onset, layer and loop (``sfx_fg``, no onset, no loop
without an event). :func:`effective_placement` computes the same from the raw dicts.

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from foley_tui.scene.onset import Anchor, parse_anchor

LAYERS = ("voice", "sfx_fg", "ambience", "stinger", "music")
DEFAULT_LAYER = "sfx_fg"


@dataclass(frozen=True, slots=True)
class Placement:
    """A pick's effective placement, and where each half came from.

    Attributes:
        layer: The mix layer plan will use.
        onset: The onset string plan will put on the timeline item (None: no cue).
        loop: The event's loop flag (a looping bed spans its sentence).
        layer_chosen: True when the layer is the pick's own (else the event's / default).
        onset_chosen: True when the onset is the pick's own.
        error: Why foley's plan (or weave) would fail on this pick, else None.
    """

    layer: str
    onset: str | None
    loop: bool = False
    layer_chosen: bool = False
    onset_chosen: bool = False
    error: str | None = None

    def anchor(self) -> Anchor:
        """How foley's weave reads :attr:`onset` for this layer."""
        return parse_anchor(self.onset, layer=self.layer, loop=self.loop)


def onset_text(onset: object) -> str | None:
    """A pick's stored onset as plan turns it into the timeline's string (``str(onset)``)."""
    return None if onset is None else str(onset)


def effective_placement(
    candidate: Mapping[str, Any] | None, pick: Mapping[str, Any] | None
) -> Placement:
    """What ``foley plan`` will place for ``pick`` of ``candidate`` (raw stored dicts).

    ``pick`` None (or an empty record, which plan skips) means "the event's suggestion".
    """
    event = candidate.get("event") if candidate is not None else None
    error: str | None = None
    if event is not None and not isinstance(event, Mapping):
        error = f"the candidate's event is not an object ({type(event).__name__})"
        event = None
    elif isinstance(event, Mapping) and "query" not in event:
        error = "the candidate's event has no query: foley cannot rebuild it"
    ev_layer = event.get("layer", DEFAULT_LAYER) if event is not None else DEFAULT_LAYER
    if ev_layer is None:
        ev_layer = DEFAULT_LAYER
    ev_onset = event.get("onset") if event is not None else None
    loop = bool(event.get("loop", False)) if event is not None else False
    if ev_layer not in LAYERS and error is None:
        error = f"the event's layer {ev_layer!r} is not one of foley's layers"
    p_layer = pick.get("layer") if pick else None
    p_onset = pick.get("onset") if pick else None
    if p_layer is not None and p_layer not in LAYERS:
        error = f"the pick's layer {p_layer!r} is not one of foley's layers"
    layer = str(p_layer if p_layer is not None else ev_layer)
    if p_onset is not None:
        onset: str | None = onset_text(p_onset)
    else:
        if ev_onset is not None and not isinstance(ev_onset, str) and error is None:
            error = f"the event's onset {ev_onset!r} is not a string: foley's weave fails on it"
        onset = None if ev_onset is None else str(ev_onset)
    return Placement(
        layer=layer,
        onset=onset,
        loop=loop,
        layer_chosen=p_layer is not None,
        onset_chosen=p_onset is not None,
        error=error,
    )
