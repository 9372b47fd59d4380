"""The keymap's vocabulary: scopes, the scopes live together, and one binding's spec.

The tables themselves are :mod:`foley_tui.keys.audition`, :mod:`foley_tui.keys.screens`
and :mod:`foley_tui.keys.timeline`, gathered in :mod:`foley_tui.keys.table`; read them
through :mod:`foley_tui.keys.keymap`. Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scope:
    """Where bindings live: the app, a screen or a widget."""

    name: str
    title: str
    """How help names it."""
    text_entry: bool = False
    """A text box: its keys shadow its screen's while it has the focus, by design."""


@dataclass(frozen=True, slots=True)
class Also:
    """The same binding id live in another scope: the same keys (remapped together), its
    own action there and, when the wording differs, its own description and tooltip."""

    scope: str
    action: str
    description: str = ""
    tooltip: str = ""
    show: bool = False


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One binding: its id (what users remap), default keys, action and texts."""

    id: str
    keys: str
    """Default key(s), comma-separated, Textual's key names."""
    action: str
    description: str
    tooltip: str
    scope: str
    section: str
    """The help heading it is listed under."""
    show: bool = False
    """Shown in the footer."""
    key_display: str | None = None
    priority: bool = False
    remappable: bool = True
    """False for Textual's own app keys (quit, palette), listed for help and conflicts."""
    also: tuple[Also, ...] = ()
    """Other scopes where this id is bound (the timeline's undo is the audition's undo)."""

    @property
    def scopes(self) -> tuple[str, ...]:
        return (self.scope, *(a.scope for a in self.also))


SCOPES: dict[str, Scope] = {
    s.name: s
    for s in (
        Scope("app", "Everywhere"),
        Scope("audition", "Audition screen"),
        Scope("candidate-list", "Candidate list"),
        Scope("filter", "Filter box", text_entry=True),
        Scope("sessions", "Sessions screen"),
        Scope("help", "Help"),
        Scope("dialog", "Dialogs"),
        Scope("confirm", "Confirmation"),
        Scope("choice", "Choice dialog"),
        Scope("messages", "Conversation panel"),
        Scope("timeline", "Timeline"),
        Scope("reason", "Reject reason dialog"),
        Scope("similar", "Similar sounds"),
    )
}

CONTEXTS: tuple[tuple[str, ...], ...] = (
    ("app", "audition", "candidate-list"),
    ("app", "audition", "filter"),
    ("app", "sessions"),
    ("app", "help"),
    ("app", "dialog"),
    ("app", "confirm"),
    ("app", "choice"),
    ("app", "messages"),
    ("app", "timeline"),
    ("app", "dialog", "reason"),
    ("app", "similar"),
)
"""Scopes live at the same time (focused widget + its screen + the app)."""


def binding(
    binding_id: str,
    keys: str,
    action: str,
    description: str,
    tooltip: str,
    scope: str,
    section: str,
    **options: object,
) -> KeySpec:
    """One :class:`KeySpec`, positional (the tables are long: this keeps them readable)."""
    return KeySpec(binding_id, keys, action, description, tooltip, scope, section, **options)  # type: ignore[arg-type]
