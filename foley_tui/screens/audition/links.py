"""What the app lends the audition screen beyond Textual's ``App``: this run's narration,
the user's key remapping, the way to the sessions screen and the notes kept for the
terminal after the app quits.

Given to the screen when it is made, so neither it nor its helpers probe the app for
attributes a test app may not have: a screen made without links (a test's own app) has
no narration of the run, no remapping and no sessions screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from foley_tui.scene.narration import Narration


@dataclass(frozen=True, slots=True)
class AppLinks:
    narration: Narration | None = None
    """A narration given with ``open --narration`` for this run only (else the session's
    own is read)."""
    keymap: Mapping[str, str] = field(default_factory=dict)
    """The user's remapping, key id -> keys (the help shows the keys as remapped)."""
    open_sessions: Callable[[], None] | None = None
    """Push the sessions screen; None when the app has no session service."""
    exit_notes: list[str] | None = None
    """Where what could not be saved as the app quits is kept, for the terminal after it
    (None: shown as notifications)."""


__all__ = ["AppLinks"]
