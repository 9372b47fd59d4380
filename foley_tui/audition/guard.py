"""The repeat guard: a held ``p`` or ``x`` must not toggle a decision back off.

A key held down auto-repeats; when the cursor cannot leave the row (the last row, or
auto-advance off) the repeats would pick, unpick, pick... The guard lets a toggle through
unless the same toggle was just made on the same row. Headless: never imports textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _Toggle:
    action: str
    sound_id: str
    at: float


class RepeatGuard:
    """Remembers the last toggle; :meth:`allows` says whether a new one is a decision."""

    WINDOW_S = 0.4
    """A toggle repeated on the same row within this time is a held key, not a decision."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._last: _Toggle | None = None

    def allows(self, action: str, sound_id: str) -> bool:
        """True (and remembered) unless this toggle would undo the same toggle just made
        on the same row: a held key's auto-repeat landing on a row the cursor could not
        leave."""
        now = self.clock()
        last = self._last
        if (
            last is not None
            and last.action == action
            and last.sound_id == sound_id
            and now - last.at < self.WINDOW_S
        ):
            return False
        self._last = _Toggle(action, sound_id, now)
        return True

    def reset(self) -> None:
        """Another key came in between: the next toggle is a decision."""
        self._last = None
