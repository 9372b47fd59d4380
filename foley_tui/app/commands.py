"""Command palette providers: every action of the screen below the palette (the audition
screen's, or the timeline's), searchable by name (ctrl+p)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

from foley_tui.keys import keymap
from foley_tui.screens.audition.screen import AuditionScreen

if TYPE_CHECKING:
    from foley_tui.screens.timeline.screen import TimelineScreen

PALETTE_SCOPES = ("audition", "candidate-list")
"""Whose actions the palette offers over the audition screen."""
TIMELINE_SCOPE = "timeline"
"""Whose actions it offers over the timeline (its own, and the audition ids it honours)."""


def _audition_commands(screen: AuditionScreen) -> list[tuple[str, str, Callable[[], object]]]:
    commands: list[tuple[str, str, Callable[[], object]]] = []
    seen: set[str] = set()
    for spec in keymap.KEYS:
        if spec.scope not in PALETTE_SCOPES or spec.action in seen:
            continue
        name = spec.action.partition("(")[0]
        target = screen if spec.scope == "audition" else screen.candidate_list
        if spec.scope == "audition" and screen.check_action(name, ()) is not True:
            continue
        seen.add(spec.action)
        run = partial(target.run_action, spec.action)
        commands.append((f"{spec.section}: {spec.description}", spec.tooltip, run))
    return commands


def _timeline_commands(screen: TimelineScreen) -> list[tuple[str, str, Callable[[], object]]]:
    commands: list[tuple[str, str, Callable[[], object]]] = []
    seen: set[str] = set()
    for spec in keymap.KEYS:
        here = (
            [(spec.action, spec.description, spec.tooltip)] if spec.scope == TIMELINE_SCOPE else []
        )
        here += [
            (also.action, also.description or spec.description, also.tooltip or spec.tooltip)
            for also in spec.also
            if also.scope == TIMELINE_SCOPE
        ]
        for action, description, tooltip in here:
            if action in seen:
                continue
            seen.add(action)
            run = partial(screen.run_action, action)
            commands.append((f"Timeline: {description}", tooltip, run))
    return commands


def _timeline_class() -> type[TimelineScreen]:
    # Imported when the palette opens, not with the app: the timeline (and the scene
    # model it imports) is not needed for the first frame.
    from foley_tui.screens.timeline.screen import TimelineScreen

    return TimelineScreen


def _commands(screen: object) -> list[tuple[str, str, Callable[[], object]]]:
    """(title, help, run) for each action that applies right now, from the registry."""
    if isinstance(screen, AuditionScreen):
        return _audition_commands(screen)
    if isinstance(screen, _timeline_class()):
        return _timeline_commands(screen)
    return []


class AuditionCommands(Provider):
    """The audition screen's (or the timeline's) actions in the palette."""

    def _screen(self) -> AuditionScreen | TimelineScreen | None:
        # The palette is itself a screen; the one below it is where actions apply. Over
        # any other screen (sessions, help) these actions would act on a hidden screen.
        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, CommandPalette):
                continue
            return screen if isinstance(screen, AuditionScreen | _timeline_class()) else None
        return None

    async def discover(self) -> Hits:
        screen = self._screen()
        if screen is None:
            return
        for title, help_text, run in _commands(screen):
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        screen = self._screen()
        if screen is None:
            return
        matcher = self.matcher(query)
        for title, help_text, run in _commands(screen):
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)
