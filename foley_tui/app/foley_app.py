"""FoleyApp: owns the store and the player, installs the audition screen. Kept thin.

The player is a plain object injected by the caller (``cli_app`` builds the real one,
tests pass a fake); the app starts it after the first frame, says once per run when there
is no sound, and closes it on unmount.

Leaving: on SIGHUP or SIGTERM, or when the terminal goes away without a signal (see
:mod:`foley_tui.app.terminal_watch`), the app saves the cursor and view, flushes and exits; if
shutting down the dead terminal hangs, the process ends anyway once that is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.notifications import Notification, Notify
from textual.timer import Timer

from foley_tui.app import terminal_guard
from foley_tui.app.commands import AuditionCommands
from foley_tui.app.terminal_watch import TerminalWatch
from foley_tui.audio.base import Player
from foley_tui.audition.opening import OpeningRead
from foley_tui.config import Config
from foley_tui.keys.bindings import bindings
from foley_tui.screens.audition.links import AppLinks
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.startup import resume_gc
from foley_tui.store import SessionService, SessionStore

if TYPE_CHECKING:
    from foley_tui.library.source import FolderSource
    from foley_tui.scene.narration import Narration  # the scene model: not at start-up

#: Exit status after a hang-up (128 + SIGHUP, as a shell reports a process it killed).
HANGUP_STATUS = 129
#: After a hang-up, how long a clean shutdown may take before the process just ends
#: (the cursor and view are already on disk by then). Generous: on a busy machine a
#: clean shutdown (workers finishing, the terminal restored) takes seconds, and one that
#: finishes says why the app left; the forced end only stops a shutdown hung on a dead
#: terminal.
LEAVE_GRACE_S = 8.0
#: The latest the collector paused for start-up is resumed (see foley_tui.startup).
GC_RESUME_AT_LATEST_S = 2.0
#: The player starts once the first rows are on screen, looked for this often, and at
#: the latest this long after the app mounted (a bound for rows that never come).
AUDIO_START_POLL_S = 0.05
AUDIO_START_AT_LATEST_S = 5.0


def _kind(notice: Notification) -> tuple[str, str] | None:
    """What a notice replaces: an information notice with a colon, by its title and the
    words before the colon; None for anything else."""
    head, colon, _ = notice.message.partition(":")
    if notice.severity != "information" or not colon or not head.strip():
        return None
    return notice.title, head


class FoleyApp(App[None]):
    """The foley-tui application."""

    CSS_PATH = "app.tcss"
    TITLE = "foley-tui"
    COMMANDS = App.COMMANDS | {AuditionCommands}
    BINDINGS = bindings("app")  # stop-all: works inside modals too
    DEFAULT_MODE = "session-0"

    def __init__(
        self,
        store: SessionStore,
        player: Player,
        config: Config | None = None,
        service: SessionService | None = None,
        *,
        audio_notice: bool = True,
        opening: OpeningRead | None = None,
        library: FolderSource | None = None,
    ) -> None:
        """``audio_notice``: say (once) when there is no sound; False with ``--no-audio``,
        where silence is what the user asked for. ``opening``: the first screen of
        ``store`` already being read (else the read starts now). ``library``: the folder
        ``store`` auditions (``foley-tui open DIR``), scanned once the screen is up."""
        terminal_guard.install()  # before the first frame: no text drives the terminal
        super().__init__()
        self.store = store
        self.library = library
        self.player = player
        self.config = config or Config()
        self.service = service
        self.audio_notice = audio_notice
        self.audio_noticed = False
        self.left_because: str | None = None
        #: What could not be saved when the app quit (the cursor on a full disk, a
        #: decision the store did not confirm): said on the terminal after the run.
        self.exit_notes: list[str] = []
        self._watch: TerminalWatch | None = None
        self._audio_timer: Timer | None = None
        self._audio_asked = 0.0
        self._ender: threading.Timer | None = None
        #: A narration given with ``open --narration`` for this run only (else the
        #: session's own, read by the scene model).
        self.narration: Narration | None = None
        #: Where libraries' stderr goes during the run (None: not redirected).
        self.stderr_log: Path | None = None
        self.keymap: dict[str, str] = dict(self.config.keymap)
        self.set_keymap(self.keymap)
        #: The session's first frame, read while Textual starts (see AuditionScreen).
        self._opening: OpeningRead | None = (
            opening if opening is not None and opening.store is store else OpeningRead(store)
        )
        # Each session's audition is the base screen of its own mode: the app starts on it
        # (get_default_screen: no empty default screen composed and laid out before it,
        # and no restyle of a mode's screen, costs of the first paint), and switching
        # sessions switches mode and removes the old one.
        self._modes_made = 0

    def on_notify(self, event: Notify) -> None:
        """A notice of a kind (``Sort: duration``: the words before its colon) replaces
        the one of that kind still on screen: five quick ``s`` presses leave one "Sort:"
        toast, not five. Warnings and errors always stack (each may say something new).
        Runs after Textual's own handler has added the new notice."""
        new = event.notification
        kind = _kind(new)
        if kind is None:
            return
        # Textual's public notice API is notify() and clear_notifications() (all of
        # them) only: withdrawing one notice takes its collection and _unnotify, which
        # is what its own toasts call when they time out.
        stale = [n for n in self._notifications if n is not new and _kind(n) == kind]
        for notice in stale:
            self._unnotify(notice, refresh=False)
        if stale:
            self._refresh_notifications()

    async def on_event(self, event: events.Event) -> None:
        # A key arrives here first, before Textual looks up its binding: the audition
        # screen plays its play key at once (AuditionScreen.play_key); any other key, or
        # the play key where it means something else, takes Textual's own path.
        if isinstance(event, events.Key) and not event.is_forwarded:
            screen = self.screen
            if isinstance(screen, AuditionScreen) and screen.play_key(event.key):
                if not self.app_focus:  # as Textual's own handling of a key does
                    self.app_focus = True
                return
        await super().on_event(event)

    def get_default_screen(self) -> AuditionScreen:
        return self.make_audition(self.store)

    def on_mount(self) -> None:
        # The first session's mode was built from get_default_screen; naming it makes it
        # removable like the modes of later sessions (its screen is already there).
        self.add_mode(self.DEFAULT_MODE, self.get_default_screen)
        # The player opens its device after the first rows are on screen
        # (``DeferredPlayer`` does it in a background thread), so neither the device nor
        # the audio modules it imports delay the first paint.
        self._audio_asked = time.monotonic()
        self.call_after_refresh(self._start_audio_after_rows)
        # The audition resumes the collector paused for start-up once its rows are on
        # screen; should they never come (a failed load), it resumes anyway.
        self.set_timer(GC_RESUME_AT_LATEST_S, lambda: resume_gc(freeze=True))
        if not self.is_headless:
            self._watch_terminal()

    # -- audio start-up ----------------------------------------------------------------
    def _start_audio_after_rows(self) -> None:
        """Start the player once the audition's first rows are on screen. The first frame
        of a session without an index has no rows yet: its load lists the candidates
        folder, and the player's thread importing the audio modules meanwhile would hold
        the GIL every listed entry waits for. Another first screen, or rows that take
        longer than :data:`AUDIO_START_AT_LATEST_S`, start it now."""
        screen = self.screen
        if (
            isinstance(screen, AuditionScreen)
            and not screen.loader.painted.is_set()
            and time.monotonic() - self._audio_asked < AUDIO_START_AT_LATEST_S
        ):
            self.set_timer(AUDIO_START_POLL_S, self._start_audio_after_rows)
            return
        self._start_audio()

    def _start_audio(self) -> None:
        self.player.start()
        if self.player.starting:
            self._audio_timer = self.set_interval(0.1, self._audio_ready, name="audio-up")
        else:
            self._audio_ready()

    def _audio_ready(self) -> None:
        """Once the player is up: the no-audio notice, at most once per run (the player
        outlives session switches), and never when silence was asked for."""
        if self.player.starting:
            return
        if self._audio_timer is not None:
            self._audio_timer.stop()
            self._audio_timer = None
        if self.player.available or not self.audio_notice or self.audio_noticed:
            return
        self.audio_noticed = True
        self.notify(
            self.player.unavailable_reason or "no output device",
            title="No audio",
            severity="warning",
            timeout=10,
        )

    # -- leaving when the terminal goes ------------------------------------------------
    def _watch_terminal(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGHUP, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self.leave, signal.Signals(signum).name)
        stdin = sys.__stdin__
        if stdin is None:
            return
        try:
            fd = stdin.fileno()
        except (OSError, ValueError):
            return

        def lost(reason: str) -> None:  # the watch thread
            with contextlib.suppress(RuntimeError):  # the loop already closed: leaving
                loop.call_soon_threadsafe(self.leave, reason)

        self._watch = TerminalWatch(fd, lost)
        self._watch.start()

    def leave(self, reason: str) -> None:
        """Save the cursor and view, flush, and exit (the terminal is gone or we were
        asked to stop). If the shutdown then hangs on the dead terminal, the process ends
        after ``LEAVE_GRACE_S``: nothing is left to save by then."""
        if self.left_because is not None:
            return
        self.left_because = reason
        if self._watch is not None:
            self._watch.stop()
        self.save_position(leaving=True)
        with contextlib.suppress(Exception):
            self.player.stop()
        code = 143 if reason == "SIGTERM" else HANGUP_STATUS
        if not self.is_headless:
            self._ender = threading.Timer(
                LEAVE_GRACE_S, self.end_hung_shutdown, args=(code, reason)
            )
            self._ender.daemon = True
            self._ender.start()
        self.exit(return_code=code)

    def end_hung_shutdown(self, code: int, reason: str) -> None:
        """(The ender's thread.) The shutdown hung: say why the app left, and what was
        not saved, where a live terminal can still show it, then end the process. A raw
        write: a thread of the hung shutdown may hold the stream's lock."""
        lines = [f"foley-tui: {note}" for note in self.exit_notes]
        lines.append(f"foley-tui: left: {reason}")
        with contextlib.suppress(Exception):
            stream = sys.__stderr__
            if stream is not None:
                os.write(stream.fileno(), ("\n".join(lines) + "\n").encode(errors="replace"))
        os._exit(code)

    def cancel_forced_exit(self) -> None:
        """Called once ``run()`` has returned: the shutdown after :meth:`leave` finished."""
        if self._ender is not None:
            self._ender.cancel()

    def save_position(self, *, leaving: bool = False) -> None:
        """Put the audition's cursor and view on disk now (``leaving``: the app is going;
        what was not saved is kept in :attr:`exit_notes`)."""
        audition = self.audition
        if audition is not None:
            audition.save_position(leaving=leaving)

    def make_audition(self, store: SessionStore) -> AuditionScreen:
        if self.service is not None:
            # The service's cache of open sessions is bounded (least recently used
            # dropped); the session on screen is never the one dropped.
            self.service.pin(store.session_id)
        opening, self._opening = self._opening, None
        if opening is not None and opening.store is not store:
            opening = None  # read for the session the app started with
        library = (
            self.library if self.library and self.library.session_id == store.session_id else None
        )
        links = AppLinks(
            narration=self.narration,
            keymap=self.keymap,
            open_sessions=self.open_sessions if self.service is not None else None,
            exit_notes=self.exit_notes,
        )
        return AuditionScreen(store, self.player, self.config.settings, opening, library, links)

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
        from foley_tui.library.resume import folder_source  # a folder's session?

        data = self.service.data_dir
        self.library = folder_source(data, session_id) if data is not None else None
        screen = self.make_audition(self.store)
        if current is not None and current is self.screen:
            self._modes_made += 1
            mode, previous = f"session-{self._modes_made}", self.current_mode
            self.add_mode(mode, lambda: screen)
            self.switch_mode(mode)
            self.remove_mode(previous)  # its audition (and anything above it) goes
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
        if self._watch is not None:
            self._watch.stop()
        self.save_position(leaving=True)
        self.player.close()
