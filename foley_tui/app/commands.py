"""Command palette providers: every action of the screen below the palette (the audition
screen's, or the timeline's), searchable by name (ctrl+p)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from foley_tui.keys import keymap
from foley_tui.keys.spec import KeySpec
from foley_tui.screens.audition.screen import AuditionScreen

if TYPE_CHECKING:
    from foley_tui.screens.timeline.screen import TimelineScreen

PALETTE_SCOPES = ("audition", "candidate-list")
"""Whose actions the palette offers over the audition screen."""
TIMELINE_SCOPE = "timeline"
"""Whose actions it offers over the timeline (its own, and the audition ids it honours)."""


Command = tuple[str, str, str, Callable[[], object]]
"""(title, keys as shown, help, run) of one palette entry."""

WHY_NOT: dict[str, str] = {
    "undo": "nothing to undo",
    "redo": "nothing to redo",
    "seek": "no sound loaded yet",
    "ab": "audition two sounds first",
}
"""Why an action the footer shows dimmed does nothing now (its check_action is None)."""


def _keys(screen: AuditionScreen | TimelineScreen, spec: KeySpec) -> str:
    """The binding's keys as help shows them (help is imported with the palette, not
    with the app: the first frame does not need it)."""
    from foley_tui.screens.help import keys_shown

    # The user's remapping is what the app lent the audition screen (the timeline sits
    # over it).
    stack = screen.app.screen_stack
    audition = next((s for s in reversed(stack) if isinstance(s, AuditionScreen)), None)
    remapped = audition.links.keymap if audition is not None else {}
    return keys_shown(screen.app, spec, remapped)


def _unavailable(screen: AuditionScreen, title: str, name: str) -> Callable[[], object]:
    def say() -> None:
        screen.notify(f"{title}: {WHY_NOT.get(name, 'not available now')}.", timeout=3)

    return say


def _audition_commands(screen: AuditionScreen) -> list[Command]:
    """The audition screen's actions. One the footer shows dimmed (check_action None:
    nothing to undo) is listed too, saying why it does nothing now, so the palette and
    the footer agree; one the footer hides (False: no row) is left out, as there."""
    commands: list[Command] = []
    seen: set[str] = set()
    for spec in keymap.KEYS:
        if spec.scope not in PALETTE_SCOPES or spec.action in seen:
            continue
        name = spec.action.partition("(")[0]
        target = screen if spec.scope == "audition" else screen.candidate_list
        state = screen.check_action(name, ()) if spec.scope == "audition" else True
        if state is False:
            continue
        seen.add(spec.action)
        title = f"{spec.section}: {spec.description}"
        keys = _keys(screen, spec)
        if state is None:
            why = WHY_NOT.get(name, "not available now")
            commands.append(
                (title, keys, f"{spec.tooltip} (now: {why})", _unavailable(screen, title, name))
            )
            continue
        run = partial(target.run_action, spec.action)
        commands.append((title, keys, spec.tooltip, run))
    return commands


def _timeline_commands(screen: TimelineScreen) -> list[Command]:
    commands: list[Command] = []
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
            commands.append((f"Timeline: {description}", _keys(screen, spec), tooltip, run))
    return commands


def _display(title: Content | str, keys: str) -> Content:
    """The entry as listed: its title, then its keys (as help names them), dimmed."""
    shown = title if isinstance(title, Content) else Content(title)
    return shown.append_text(f"  {keys}", "dim") if keys else shown


def _timeline_class() -> type[TimelineScreen]:
    # Imported when the palette opens, not with the app: the timeline (and the scene
    # model it imports) is not needed for the first frame.
    from foley_tui.screens.timeline.screen import TimelineScreen

    return TimelineScreen


def _commands(screen: object) -> list[Command]:
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
        for title, keys, help_text, run in _commands(screen):
            yield DiscoveryHit(_display(title, keys), run, text=title, help=help_text)

    async def search(self, query: str) -> Hits:
        screen = self._screen()
        if screen is None:
            return
        matcher = self.matcher(query)
        for title, keys, help_text, run in _commands(screen):
            score = matcher.match(title)
            if score > 0:
                shown = _display(matcher.highlight(title), keys)
                yield Hit(score, shown, run, text=title, help=help_text)
