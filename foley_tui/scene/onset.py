"""foley's onset grammar: parse a symbolic onset, resolve it against a word timeline.

A faithful port of foley 0.0.89's ``foley.weave.anchor`` (``parse_symbolic_anchor``,
``resolve_anchor`` and their helpers), so foley-tui places a pick where ``foley weave``
would, without importing foley (it is a test dependency only). ``tests/unit/scene``
checks this module against foley's own functions on the same inputs.

The rules (see foley-format.md, "foley's meaning"):

* ``None`` is "no cue": beds (ambience, music, loops) span the whole narration (sentence
  anchor with no ref), one-shots sit at absolute 0.
* A quoted phrase (``on 'slammed'``, ``when "the door"``) names the words a sound lands on.
* Without quotes a leading connective (on, at, as, when, during, over) is dropped; the
  rest is an absolute number of seconds if it has no letters (the first number found in
  the *whole* text), else the words themselves.
* The anchor kind follows the layer: beds anchor to a sentence span, stingers to a scene
  boundary, everything else to a word.
* Resolving: the phrase's first word matched exactly (earliest), else by prefix/substring,
  else the closest word by similarity (``difflib`` ratio >= 0.6) over every token;
  sentences split at gaps over 0.35 s or after ``.!?``. With no word timeline (or no
  match) a word anchor stays at its placement's onset (0.0) and a span covers everything.

Headless: never imports textual.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

AnchorKind = Literal["absolute", "word", "sentence", "scene", "paragraph"]
Word = Mapping[str, Any]

#: Inter-word gap (seconds) that ends a sentence segment.
SEGMENT_GAP_S = 0.35

_SENTENCE_END = ".!?"
_LEADING_CONNECTIVE = re.compile(r"^(?:on|at|as|when|during|over)\b", re.IGNORECASE)
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")
_NUMBER = re.compile(r"[-+]?\d*\.?\d+")
_WORD_TOKEN = re.compile(r"[a-z0-9]+")

#: Layers whose sounds are beds (span a sentence).
BED_LAYERS = ("ambience", "music")


@dataclass(frozen=True, slots=True)
class Anchor:
    """foley's ``Placement`` before resolution: how an onset string binds to time.

    Attributes:
        kind: ``absolute`` (``seconds``), ``word``, ``sentence`` or ``scene``.
        ref: The words the anchor names (None: no cue / no words).
        seconds: The offset of an absolute anchor (0.0 otherwise, as in foley).
    """

    kind: AnchorKind
    ref: str | None = None
    seconds: float = 0.0


def _norm(word: str) -> str:
    return "".join(_WORD_TOKEN.findall(word.lower()))


def is_bed(layer: str | None, loop: bool = False) -> bool:
    """Beds (loops, ambience, music) span a sentence; foley's rule."""
    return bool(loop) or layer in BED_LAYERS


def parse_anchor(onset: str | None, *, layer: str | None = "sfx_fg", loop: bool = False) -> Anchor:
    """Parse ``onset`` exactly as foley's ``parse_symbolic_anchor``.

    ``layer`` is a layer name (None means foley's default, ``sfx_fg``).
    """
    bed = is_bed(layer, loop)
    if onset is None:
        return Anchor("sentence" if bed else "absolute")
    text = onset.strip()
    quoted = _QUOTED.search(text)
    if quoted is None:
        stripped = _LEADING_CONNECTIVE.sub("", text).strip(" '\"")
        number = _NUMBER.search(text)
        if number is not None and not any(c.isalpha() for c in stripped):
            return Anchor("absolute", seconds=float(number.group()))
        ref = stripped or None
    else:
        ref = quoted.group(1).strip() or None
    if bed:
        kind: AnchorKind = "sentence"
    elif layer == "stinger":
        kind = "scene"
    else:
        kind = "word"
    return Anchor(kind, ref=ref)


def nearest_word(ref: str | None, words: Sequence[Word]) -> Word | None:
    """The word ``ref`` lands on (foley's ``_nearest_word``), or None."""
    if not ref or not words:
        return None
    tokens = [_norm(t) for t in ref.split() if _norm(t)]
    if not tokens:
        return None
    normed = [(_norm(str(w.get("word", ""))), w) for w in words]
    head = tokens[0]
    for nw, w in normed:
        if nw == head:
            return w
    for nw, w in normed:
        if nw and (nw.startswith(head) or head.startswith(nw)):
            return w
    best: Word | None = None
    best_ratio = 0.0
    for token in tokens:
        for nw, w in normed:
            if not nw:
                continue
            ratio = difflib.SequenceMatcher(None, token, nw).ratio()
            if ratio > best_ratio:
                best, best_ratio = w, ratio
    return best if best_ratio >= 0.6 else None


def _end_of(word: Word) -> float:
    return float(word.get("end", word.get("start", 0.0)))


def sentences(words: Sequence[Word], *, gap_s: float = SEGMENT_GAP_S) -> list[list[Word]]:
    """Split a word timeline into sentences (foley's ``_segment_sentences``)."""
    segments: list[list[Word]] = []
    current: list[Word] = []
    prev_end: float | None = None
    prev_word = ""
    for w in words:
        gap = None if prev_end is None else float(w.get("start", 0.0)) - prev_end
        boundary = current and (
            (gap is not None and gap > gap_s)
            or (bool(prev_word) and prev_word[-1] in _SENTENCE_END)
        )
        if boundary:
            segments.append(current)
            current = []
        current.append(w)
        prev_end = _end_of(w)
        prev_word = str(w.get("word", ""))
    if current:
        segments.append(current)
    return segments


def span_of(ref: str | None, words: Sequence[Word]) -> tuple[float, float]:
    """The (start, end) of the sentence ``ref`` sits in; the whole narration when no
    word matches (foley's ``_span_onset``)."""
    if not words:
        return 0.0, 0.0
    whole = (float(words[0].get("start", 0.0)), _end_of(words[-1]))
    w = nearest_word(ref, words)
    if w is None:
        return whole
    for seg in sentences(words):
        if any(sw is w for sw in seg):
            return float(seg[0].get("start", 0.0)), _end_of(seg[-1])
    return whole


def resolve(anchor: Anchor, words: Sequence[Word]) -> tuple[float, float | None]:
    """``(onset seconds, span duration or None)`` exactly as foley's ``resolve_anchor``
    (no pre-roll, no pause snapping: foley's plan sets neither)."""
    duration: float | None = None
    if anchor.kind == "absolute" or not words:
        onset = anchor.seconds
    elif anchor.kind == "word":
        w = nearest_word(anchor.ref, words)
        onset = float(w["start"]) if w else anchor.seconds
    elif anchor.kind == "sentence":
        start, end = span_of(anchor.ref, words)
        onset = start
        duration = max(0.0, end - start)
    else:
        onset = span_of(anchor.ref, words)[0]
    return max(0.0, onset), duration


def resolves(anchor: Anchor, words: Sequence[Word]) -> bool:
    """Whether a symbolic anchor finds its place in ``words`` (an absolute one always
    does; a sentence anchor with no ref spans everything). When False, foley's weave puts
    the sound at 0:00 (a word) or over the whole narration (a span)."""
    if anchor.kind == "absolute":
        return True
    if not words:
        return False
    if anchor.ref is None:
        return anchor.kind in ("sentence", "scene")
    return nearest_word(anchor.ref, words) is not None
