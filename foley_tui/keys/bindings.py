"""Textual ``Binding`` objects from the key table (:mod:`foley_tui.keys.keymap`): the one
place the headless table meets textual.

``BINDINGS = bindings("audition")`` on a screen or widget gives it the keys of its scope.
"""

from __future__ import annotations

from textual.binding import Binding

from foley_tui.keys.keymap import KEYS

__all__ = ["binding_objects", "bindings"]


def bindings(scope: str) -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """``BINDINGS = bindings(...)``: :func:`binding_objects`, typed as Textual
    types ``BINDINGS``."""
    return list(binding_objects(scope))


def binding_objects(scope: str) -> list[Binding]:
    """Textual ``Binding`` objects for a scope: its own keys and the ids it shares
    (:class:`Also`)."""
    built: list[Binding] = []
    for spec in KEYS:
        if not spec.remappable:
            continue
        if spec.scope == scope:
            action, description, tooltip, show = (
                spec.action,
                spec.description,
                spec.tooltip,
                spec.show,
            )
        else:
            found = next((a for a in spec.also if a.scope == scope), None)
            if found is None:
                continue
            action = found.action
            description = found.description or spec.description
            tooltip = found.tooltip or spec.tooltip
            show = found.show
        built.append(
            Binding(
                spec.keys,
                action,
                description,
                show=show,
                key_display=spec.key_display,
                priority=spec.priority,
                tooltip=tooltip,
                id=spec.id,
            )
        )
    return built
