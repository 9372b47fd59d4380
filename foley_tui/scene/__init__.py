"""The headless scene model: foley's onset grammar, word timelines, effective placement,
narration references, and the scene (picks placed on a clock) the mixer plays.

Headless: never imports textual.

- :mod:`foley_tui.scene.onset`: parse and resolve onsets exactly as foley's weave.
- :mod:`foley_tui.scene.reading`: :func:`read_onset`, how foley will read an onset.
- :mod:`foley_tui.scene.placement`: a pick's effective placement, as foley's plan.
- :mod:`foley_tui.scene.words`: word timelines in foley's aligner format.
"""

from __future__ import annotations

from foley_tui.scene.onset import Anchor, parse_anchor, resolve, sentences
from foley_tui.scene.placement import Placement, effective_placement
from foley_tui.scene.reading import OnsetReading, clock, read_onset
from foley_tui.scene.words import WordTimelineError, check_words, load_words

__all__ = [
    "Anchor",
    "OnsetReading",
    "Placement",
    "WordTimelineError",
    "check_words",
    "clock",
    "effective_placement",
    "load_words",
    "parse_anchor",
    "read_onset",
    "resolve",
    "sentences",
]
