"""What a session's saved view settings may hold, checked where they enter the store.

``meta.json`` and imported exports come from elsewhere. Their ``view`` is applied by the
UI (the filter, the sort, the preview volume), so it is cleaned when it is read or
imported: a volume is clamped to the range the volume keys allow (an imported session
must never play louder than the user could make it by hand), a value of the wrong type
or a non-finite number is dropped (the default applies), and text is cut to a sane
length. Keys we do not know are kept as they are (a newer version's settings).

Headless: never imports textual.
"""

from __future__ import annotations

import math
from typing import Any

#: The preview volume range of the volume keys (dB); a saved volume is clamped into it.
VOLUME_RANGE_DB = (-40.0, 12.0)
#: Longest saved filter text (characters).
MAX_FILTER_CHARS = 500
_BOOLS = ("autoplay", "loop", "loudness_match")
_TEXTS = ("filter", "status_filter", "sort")


def finite_float(value: object) -> float | None:
    """``value`` as a finite float, or None (bools, NaN, inf, a 401-digit integer)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def clamp_volume_db(value: object, default: float = 0.0) -> float:
    """A volume in dB inside :data:`VOLUME_RANGE_DB` (``default`` for a non-number)."""
    number = finite_float(value)
    if number is None:
        return default
    low, high = VOLUME_RANGE_DB
    return max(low, min(high, number))


def sanitize_view(view: object) -> dict[str, Any]:
    """A view dict with every known key of the right type and in range (see module doc)."""
    if not isinstance(view, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in view.items():
        if not isinstance(key, str):
            continue
        if key == "volume_db":
            if finite_float(value) is not None:
                out[key] = clamp_volume_db(value)
        elif key in _BOOLS:
            if isinstance(value, bool):
                out[key] = value
        elif key in _TEXTS:
            if isinstance(value, str):
                out[key] = value[:MAX_FILTER_CHARS]
        else:
            out[key] = value
    return out
