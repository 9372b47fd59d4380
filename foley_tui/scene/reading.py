"""How foley will read an onset: the words the onset dialog and the timeline show.

Headless: never imports textual.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from foley_tui.scene.onset import Anchor, Word, nearest_word, parse_anchor, resolve


def clock(seconds: float) -> str:
    """``m:ss.mmm`` (``h:mm:ss.mmm`` past an hour), to the millisecond."""
    ms = round(seconds * 1000)
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{secs:02d}.{millis:03d}"
    return f"{sign}{minutes}:{secs:02d}.{millis:03d}"


@dataclass(frozen=True, slots=True)
class OnsetReading:
    """foley's reading of an onset on a layer, resolved against a word timeline if any.

    Attributes:
        anchor: The parsed anchor (kind, ref, seconds).
        summary: One line for a dialog: "absolute: 0:03.350", "word anchor on 'slammed'".
        onset_s: Where weave starts the sound (seconds), or None when it does not resolve.
        duration_s: A sentence span's length, else None.
        matched: The word the anchor landed on, else None.
        note: What happens when it does not resolve (weave puts it at 0:00), else "".
    """

    anchor: Anchor
    summary: str
    onset_s: float | None
    duration_s: float | None = None
    matched: str | None = None
    note: str = ""

    @property
    def placed(self) -> bool:
        return self.onset_s is not None


_KIND_WORDS = {"word": "word", "sentence": "sentence", "scene": "scene", "paragraph": "paragraph"}


def read_onset(
    onset: str | float | None,
    *,
    layer: str | None = "sfx_fg",
    loop: bool = False,
    words: Sequence[Word] | None = None,
) -> OnsetReading:
    """Describe how foley will read ``onset`` (a pick's or an event's) on ``layer``.

    A number is read as plan passes it on (``str(onset)``); ``words`` (a word timeline)
    makes the reading say where the anchor lands. An anchor that cannot resolve (no
    timeline, no matching word) gets ``onset_s`` None and a note on what weave does.
    """
    text = None if onset is None else str(onset)
    anchor = parse_anchor(text, layer=layer, loop=loop)
    timeline = list(words or ())
    if anchor.kind == "absolute":
        if text is None:
            return OnsetReading(anchor, "no cue: starts at 0:00", 0.0)
        seconds = anchor.seconds
        summary = f"absolute: {clock(seconds)}"
        note = ""
        if seconds < 0:
            note = "negative: weave clamps it to 0:00"
        elif not math.isfinite(seconds):
            note = "not a finite time"
        placed = max(0.0, seconds) if math.isfinite(seconds) else None
        return OnsetReading(anchor, summary, placed, note=note)
    kind = _KIND_WORDS[anchor.kind]
    if anchor.ref is None:
        if anchor.kind == "sentence":
            summary = "no cue: a bed spanning the whole narration"
        else:
            summary = f"{kind} anchor with no words"
    else:
        summary = f"{kind} anchor on '{anchor.ref}'"
    if not timeline and anchor.kind == "sentence" and anchor.ref is None:
        return OnsetReading(anchor, "no cue: a bed from 0:00", 0.0)
    if not timeline:
        note = "no word timeline: weave puts it at 0:00"
        if anchor.kind == "sentence":
            note = "no word timeline: weave starts it at 0:00"
        return OnsetReading(anchor, summary, None, note=note)
    onset_s, duration = resolve(anchor, timeline)
    if anchor.ref is None:
        if anchor.kind in ("sentence", "scene"):
            return OnsetReading(anchor, summary, onset_s, duration)
        note = "no words to land on: weave puts it at 0:00"
        return OnsetReading(anchor, summary, None, note=note)
    hit = nearest_word(anchor.ref, timeline)
    if hit is None:
        where = "the whole narration" if anchor.kind == "sentence" else "0:00"
        return OnsetReading(
            anchor, summary, None, duration, note=f"no word matches: weave puts it at {where}"
        )
    matched = str(hit.get("word", ""))
    if anchor.kind == "word":
        summary += f" → '{matched}' at {clock(onset_s)}"
    elif anchor.kind == "sentence":
        summary += f" → the sentence of '{matched}', {clock(onset_s)} for {duration or 0.0:.3f} s"
    else:
        summary += f" → the start of the sentence with '{matched}', {clock(onset_s)}"
    return OnsetReading(anchor, summary, onset_s, duration, matched=matched)


def nudged(
    onset: object,
    layer: str | None,
    delta: float,
    *,
    words: Sequence[Word] | None = None,
    loop: bool = False,
) -> float:
    """An onset moved by ``delta`` seconds, rounded to the millisecond, never below zero.

    No onset moves from 0:00; an anchor (text) moves from where foley reads it: where the
    narration's ``words`` put it when it lands on them, else an absolute anchor's
    seconds, else 0:00 (the caller asks the user before replacing an anchor with a
    number, and shows this value)."""
    if isinstance(onset, str):
        reading = read_onset(onset, layer=layer or "sfx_fg", loop=loop, words=words)
        onset = reading.onset_s if reading.onset_s is not None else 0.0
    start = float(onset) if isinstance(onset, int | float) else 0.0
    return max(0.0, round(start + delta, 3))
