"""Command palette providers: every audition action, searchable by name (ctrl+p)."""

from __future__ import annotations

from functools import partial

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

from foley_tui.screens.audition import BINDING_SECTIONS, AuditionScreen


def _commands(screen: AuditionScreen) -> list[tuple[str, str, str]]:
    """(title, help, action) for each action that applies right now."""
    commands: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for section, bindings in BINDING_SECTIONS:
        for binding in bindings:
            name = binding.action.partition("(")[0]
            if binding.action in seen or screen.check_action(name, ()) is not True:
                continue
            seen.add(binding.action)
            commands.append((f"{section}: {binding.description}", binding.tooltip, binding.action))
    return commands


class AuditionCommands(Provider):
    """The audition screen's actions in the palette."""

    def _screen(self) -> AuditionScreen | None:
        # The palette is itself a screen; the one below it is where actions apply. Over
        # any other screen (sessions, help) audition actions would act on a hidden screen.
        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, CommandPalette):
                continue
            return screen if isinstance(screen, AuditionScreen) else None
        return None

    async def discover(self) -> Hits:
        screen = self._screen()
        if screen is None:
            return
        for title, help_text, action in _commands(screen):
            yield DiscoveryHit(title, partial(screen.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        screen = self._screen()
        if screen is None:
            return
        matcher = self.matcher(query)
        for title, help_text, action in _commands(screen):
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(title),
                    partial(screen.run_action, action),
                    help=help_text,
                )
