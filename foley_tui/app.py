"""FoleyApp: owns the store and the player, installs the audition screen. Kept thin.

The player is a plain object injected by the caller (``cli_app`` builds the real one,
tests pass a fake); the app closes it on unmount.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.binding import Binding

from foley_tui.audio.base import Player
from foley_tui.commands import AuditionCommands
from foley_tui.config import Config
from foley_tui.scene.narration import Narration
from foley_tui.screens.audition import AuditionScreen
from foley_tui.store import SessionService, SessionStore


class FoleyApp(App[None]):
    """The foley-tui application."""

    CSS_PATH = "app.tcss"
    TITLE = "foley-tui"
    COMMANDS = App.COMMANDS | {AuditionCommands}
    BINDINGS = [
        # Works inside modals too: silence whatever is playing.
        Binding(
            "ctrl+s",
            "stop_all",
            "Stop audio",
            id="stop-all",
            tooltip="Stop all audio",
            priority=True,
            show=False,
        ),
    ]

    def __init__(
        self,
        store: SessionStore,
        player: Player,
        config: Config | None = None,
        service: SessionService | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.player = player
        self.config = config or Config()
        self.service = service
        #: A narration given with ``open --narration`` for this run only (else the
        #: session's own, read by the scene model).
        self.narration: Narration | None = None
        self.keymap: dict[str, str] = dict(self.config.keymap)
        self.set_keymap(self.keymap)

    def on_mount(self) -> None:
        self.push_screen(self.make_audition(self.store))
        # A player that opens its device in the background (``cli_app.DeferredPlayer``)
        # starts after the first frame, so the device never delays the first paint.
        start = getattr(self.player, "start", None)
        if callable(start):
            self.call_after_refresh(start)

    def make_audition(self, store: SessionStore) -> AuditionScreen:
        return AuditionScreen(store, self.player, self.config.settings)

    def open_session(self, session_id: str) -> None:
        """Switch to another session (used by the sessions screen)."""
        if self.service is None:
            self.notify("No session service: cannot switch sessions.", severity="error")
            return
        current = self.audition
        if current is not None:
            current.save_position()
        self.player.stop()
        self.store = self.service.get(session_id)
        screen = self.make_audition(self.store)
        if current is not None and current is self.screen:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    @property
    def audition(self) -> AuditionScreen | None:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, AuditionScreen):
                return screen
        return None

    def open_sessions(self) -> None:
        """Push the sessions screen; the session chosen there replaces the current one."""
        if self.service is None:
            self.notify("No session service: cannot list sessions.", severity="warning")
            return
        from foley_tui.screens.sessions import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id is not None and session_id != self.store.session_id:
                self.open_session(session_id)

        self.push_screen(SessionsScreen(self.service, current=self.store.session_id), chosen)

    def action_stop_all(self) -> None:
        self.player.stop()

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: Any) -> None:
        ids = ", ".join(sorted(b.id or b.action for b in clashed_bindings))
        self.notify(f"Keymap clash between {ids}", severity="warning")

    def on_unmount(self) -> None:
        audition = self.audition
        if audition is not None:
            audition.save_position()
        self.player.close()
