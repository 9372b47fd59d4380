"""The ``open`` verb: launch the audition screen on a session.

``foley-tui open SESSION [--device D] [--no-audio]``; SESSION is an id, a unique id
prefix or a title (``SessionService.resolve``); without it, the most recently used
session. The config file is read (and validated) before the terminal is taken over, so a
bad key or setting is a one-line error, not a broken screen.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import (
    Player,
    PlayerState,
    PlayerStatus,
    Source,
    StateCallback,
)
from foley_tui.cli import CliError
from foley_tui.config import Config, ConfigError, load_config
from foley_tui.paths import data_dir

if TYPE_CHECKING:
    from foley_tui.audio.mixer import Scene
    from foley_tui.scene.narration import Narration


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser(
        "open",
        parents=[common],
        help="audition a session (id, id prefix or title)",
        description="Open a session in the audition screen.",
    )
    parser.add_argument(
        "session",
        nargs="?",
        metavar="SESSION",
        help="session id, unique id prefix or title (default: the most recent session)",
    )
    parser.add_argument("--device", metavar="D", help="audio output device (name or index)")
    parser.add_argument(
        "--no-audio", action="store_true", help="do not open an audio device (silent player)"
    )
    parser.add_argument(
        "--narration", metavar="FILE", help="use this narration for this run (not stored)"
    )
    parser.add_argument("--words", metavar="WORDS.json", help="its word timeline (foley aligner)")
    parser.set_defaults(func=run_open)


def keymap_ids() -> frozenset[str]:
    """Every binding id a user may remap: the audition screen's, and those of the other
    screens and modals (sessions, help, onset, reject reason)."""
    from textual.binding import Binding

    from foley_tui.screens import help, onset, reason, sessions, sessions_modals, timeline
    from foley_tui.screens.audition import BINDING_IDS

    ids = set(BINDING_IDS)
    for module in (help, onset, reason, sessions, sessions_modals, timeline):
        for obj in vars(module).values():
            for binding in getattr(obj, "BINDINGS", None) or ():
                if isinstance(binding, Binding) and binding.id:
                    ids.add(binding.id)
    return frozenset(ids)


def load_app_config() -> Config:
    """The user's config, with keymap ids checked against the app's bindings."""
    try:
        return load_config(known_ids=keymap_ids())
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def make_app_player(device: str | None, no_audio: bool) -> DeferredPlayer:
    """The real player on ``device``, a silent one with ``--no-audio`` (or no device);
    built in the background once the app has painted (see :class:`DeferredPlayer`)."""

    def build() -> Player:
        from foley_tui.audio.player import NullPlayer, make_player

        if no_audio:
            return NullPlayer("disabled with --no-audio")
        return make_player(device)

    return DeferredPlayer(build)


def launch(
    session_id: str,
    *,
    data: Any = None,
    device: str | None = None,
    no_audio: bool = False,
    narration: Narration | None = None,
) -> int:
    """Run the app on ``session_id`` until the user quits (also used by other verbs)."""
    from foley_tui.app import FoleyApp
    from foley_tui.store import SessionService, SessionServiceError

    config = load_app_config()
    service = SessionService(data)
    try:
        store = service.get(session_id)
    except SessionServiceError as exc:
        raise CliError(str(exc)) from None
    player = make_app_player(device, no_audio)
    app = FoleyApp(store, player, config, service)
    app.narration = narration
    app.run()
    return app.return_code or 0


def run_open(args: argparse.Namespace) -> int:
    from foley_tui.store import SessionService, SessionServiceError

    data = data_dir(args.data_dir)
    service = SessionService(data)
    try:
        ref = args.session
        if ref is None:
            ref = service.most_recent()
            if ref is None:
                raise CliError("no session yet: give SESSION, or run `foley-tui demo`")
        session_id = service.resolve(ref)
    except SessionServiceError as exc:
        raise CliError(str(exc)) from None
    return launch(
        session_id,
        data=data,
        device=args.device,
        no_audio=args.no_audio,
        narration=_narration_for_run(args),
    )


def _narration_for_run(args: argparse.Namespace) -> Narration | None:
    """``--narration FILE [--words W]``: checked before the app starts, never stored."""
    from pathlib import Path

    from foley_tui.scene.narration import NarrationError, make_narration

    if args.narration is None:
        if args.words is not None:
            raise CliError("--words needs --narration")
        return None
    try:
        return make_narration(Path(args.narration), Path(args.words) if args.words else None)
    except NarrationError as exc:
        raise CliError(str(exc)) from None


class DeferredPlayer:
    """A :class:`~foley_tui.audio.base.Player` built in a background thread.

    Opening the audio device (PortAudio, numpy, soundfile) costs 0.15-0.3 s: the app
    starts it after its first frame (``start()``), so the list paints at once. Until the
    real player is up, settings are remembered and applied to it, ``status()`` reports
    a stopped player and ``play()`` waits for it (only if a key came within that time).
    """

    def __init__(self, factory: Callable[[], Player]) -> None:
        self._factory = factory
        self._player: Player | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._callback: StateCallback | None = None
        self._loop = False
        self._volume_db = 0.0
        self._loudness: tuple[bool, float] = (False, -23.0)
        self._error: str | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._build, name="audio-start", daemon=True)
            self._thread.start()

    def _build(self) -> None:
        try:
            player = self._factory()
        except Exception as exc:  # never leave the UI waiting: fall back to silence
            from foley_tui.audio.player import NullPlayer

            player = NullPlayer(f"audio failed to start: {exc}")
        player.set_loop(self._loop)
        player.set_volume_db(self._volume_db)
        player.set_loudness_match(*self._loudness)
        player.set_state_callback(self._callback)
        self._player = player
        self._ready.set()
        if self._callback is not None:
            self._callback(player.status())

    @property
    def starting(self) -> bool:
        """True until the real player exists."""
        return not self._ready.is_set()

    def _wait(self) -> Player:
        self.start()
        self._ready.wait(10)
        if self._player is None:
            raise RuntimeError("the audio player did not start")
        return self._player

    # -- Player protocol ---------------------------------------------------------------
    @property
    def available(self) -> bool:
        return self._player.available if self._player is not None else False

    @property
    def device_name(self) -> str:
        return self._player.device_name if self._player is not None else "audio starting…"

    @property
    def unavailable_reason(self) -> str | None:
        return self._player.unavailable_reason if self._player is not None else None

    def play(self, source: Source, start_s: float = 0.0) -> None:
        self._wait().play(source, start_s)

    def play_scene(self, scene: Scene, start_s: float = 0.0, end_s: float | None = None) -> None:
        self._wait().play_scene(scene, start_s, end_s)

    @property
    def latency_s(self) -> float:
        """The real player's reported output latency (0 until it is up, or without one):
        the timeline's tap subtracts it."""
        return float(getattr(self._player, "latency_s", 0.0) or 0.0)

    def prefetch_scene(
        self, scene: Scene, start_s: float = 0.0, end_s: float | None = None
    ) -> None:
        # A hint: dropped while the real player is still starting.
        if self._player is not None:
            self._player.prefetch_scene(scene, start_s, end_s)

    def stop(self) -> None:
        if self._player is not None:
            self._player.stop()

    def pause(self) -> None:
        if self._player is not None:
            self._player.pause()

    def resume(self) -> None:
        if self._player is not None:
            self._player.resume()

    def toggle_pause(self) -> None:
        if self._player is not None:
            self._player.toggle_pause()

    def seek(self, seconds: float, *, relative: bool = False) -> None:
        if self._player is not None:
            self._player.seek(seconds, relative=relative)

    def set_loop(self, loop: bool) -> None:
        self._loop = loop
        if self._player is not None:
            self._player.set_loop(loop)

    def set_volume_db(self, volume_db: float) -> None:
        self._volume_db = volume_db
        if self._player is not None:
            self._player.set_volume_db(volume_db)

    def set_loudness_match(self, enabled: bool, target_lufs: float = -23.0) -> None:
        self._loudness = (enabled, target_lufs)
        if self._player is not None:
            self._player.set_loudness_match(enabled, target_lufs)

    def status(self) -> PlayerStatus:
        if self._player is not None:
            return self._player.status()
        return PlayerStatus(
            state=PlayerState.STOPPED,
            position_s=0.0,
            duration_s=0.0,
            source=None,
            loop=self._loop,
            volume_db=self._volume_db,
            loudness_match=self._loudness[0],
        )

    def set_state_callback(self, callback: StateCallback | None) -> None:
        self._callback = callback
        if self._player is not None:
            self._player.set_state_callback(callback)

    def prefetch(self, source: Source) -> None:
        # A hint: dropped while the real player is still starting (never wait for it).
        if self._player is not None:
            self._player.prefetch(source)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._player is not None:
            self._player.close()
