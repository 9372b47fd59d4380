"""Word timelines in foley's aligner format: ``[{"word", "start", "end"}, ...]``.

Headless: never imports textual.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

Word = dict[str, Any]


class WordTimelineError(ValueError):
    """A word timeline file that is not foley's aligner format."""


def check_words(value: object, where: str = "word timeline") -> list[Word]:
    """Validate a decoded word timeline; returns it as a list of dicts (extra keys kept).

    Each entry needs a string ``word`` and finite numeric ``start`` and ``end`` with
    ``end >= start``; entries must not go back in time (foley's sentence splitter reads
    them in order).
    """
    if not isinstance(value, list):
        kind = type(value).__name__
        raise WordTimelineError(f"{where}: expected a JSON list of words, got {kind}")
    words: list[Word] = []
    previous = -math.inf
    for i, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise WordTimelineError(f"{where}: entry {i} is not an object")
        word = entry.get("word")
        if not isinstance(word, str):
            raise WordTimelineError(f"{where}: entry {i} has no string 'word'")
        times = []
        for key in ("start", "end"):
            t = entry.get(key)
            if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
                raise WordTimelineError(f"{where}: entry {i} ({word!r}) has no finite {key!r}")
            times.append(float(t))
        start, end = times
        if end < start:
            raise WordTimelineError(f"{where}: entry {i} ({word!r}) ends before it starts")
        if start < previous:
            raise WordTimelineError(f"{where}: entry {i} ({word!r}) starts before the last word")
        previous = start
        words.append(entry)
    return words


def load_words(path: Path) -> list[Word]:
    """Read and validate a word timeline JSON file."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise WordTimelineError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WordTimelineError(f"{path}: not JSON ({exc})") from None
    return check_words(value, str(path))
