"""A :class:`~foley_tui.audio.base.Player` whose device opens in the background.

Opening the audio device (PortAudio, numpy, soundfile) costs 0.15-0.3 s, and a broken
device can take longer or fail: the app calls :meth:`DeferredPlayer.start` after its first
frame, so the list paints at once, and nothing the UI calls ever waits for the device:

- settings (loop, volume, loudness match, state callback) are remembered and applied to the
  real player as soon as it exists;
- a ``play()`` or ``play_scene()`` that comes while the device is opening is kept (the
  latest one wins; a ``stop()`` drops it) and started by the opening thread once the
  device is up;
- a device that fails to open, or a factory that raises, becomes a silent
  :class:`~foley_tui.audio.null_player.NullPlayer` that says why (``unavailable_reason``),
  never an exception in the caller;
- ``close()`` never joins the opening thread: a player that is still opening is closed by
  that thread when it finishes. The process waits for it, bounded, before it exits
  (:meth:`DeferredPlayer.finish`).

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from foley_tui.audio.base import Player, PlayerState, PlayerStatus, Source, StateCallback

if TYPE_CHECKING:
    from foley_tui.audio.base import Scene

#: What ``device_name`` says until the real player exists.
STARTING_LABEL = "audio starting…"


class DeferredPlayer:
    """A player built by ``factory`` in a background thread on :meth:`start`."""

    def __init__(self, factory: Callable[[], Player]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._player: Player | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._closed = False
        self._callback: StateCallback | None = None
        self._loop = False
        self._volume_db = 0.0
        self._loudness: tuple[bool, float] = (False, -23.0)
        # What to start once the device is up: a preview (source, start) or a scene.
        self._pending: Callable[[Player, float], None] | None = None
        self._pending_start = 0.0

    # -- start-up ----------------------------------------------------------------------
    def start(self) -> None:
        """Begin opening the device in a background thread; returns at once. Idempotent."""
        with self._lock:
            if self._thread is not None or self._closed:
                return
            self._thread = threading.Thread(target=self._build, name="audio-start", daemon=True)
        self._thread.start()

    @property
    def starting(self) -> bool:
        """True until the real (or the fallback silent) player exists."""
        return not self._ready.is_set()

    def wait_ready(self, timeout: float) -> bool:
        """Block until the player exists (for scripts and tests; the UI never calls this)."""
        return self._ready.wait(timeout)

    def _build(self) -> None:
        try:
            player = self._factory()
        except Exception as exc:  # a broken device must never reach the UI as an exception
            from foley_tui.audio.null_player import NullPlayer

            player = NullPlayer(f"audio failed to start: {exc}")
        pending_start = 0.0
        with self._lock:
            if self._closed:
                pending = None
            else:
                # Under the lock: a setter racing with us either ran before (its value is
                # applied here) or runs after and forwards to the published player.
                player.set_loop(self._loop)
                player.set_volume_db(self._volume_db)
                player.set_loudness_match(*self._loudness)
                player.set_state_callback(self._callback)
                self._player = player
                pending, self._pending = self._pending, None
                pending_start = self._pending_start
            callback = self._callback
            closed = self._closed
        self._ready.set()
        if closed:
            with contextlib.suppress(Exception):
                player.close()
            return
        if pending is not None:
            pending(player, pending_start)  # its state callback reports the start
        elif callback is not None:
            callback(player.status())

    def _current(self) -> Player | None:
        with self._lock:
            return self._player

    # -- Player protocol ---------------------------------------------------------------
    @property
    def available(self) -> bool:
        player = self._current()
        return player.available if player is not None else False

    @property
    def device_name(self) -> str:
        player = self._current()
        return player.device_name if player is not None else STARTING_LABEL

    @property
    def unavailable_reason(self) -> str | None:
        player = self._current()
        return player.unavailable_reason if player is not None else None

    def play(self, source: Source, start_s: float = 0.0) -> None:
        self._start_or_keep(lambda p, at: p.play(source, at), start_s)

    def play_scene(self, scene: Scene, start_s: float = 0.0, end_s: float | None = None) -> None:
        self._start_or_keep(lambda p, at: p.play_scene(scene, at, end_s), start_s)

    def _start_or_keep(self, start: Callable[[Player, float], None], start_s: float) -> None:
        """Start now on the real player, or keep it (the latest wins) until it is up."""
        with self._lock:
            player = self._player
            if player is None:
                self._pending_start = start_s
                self._pending = start
                return
        start(player, start_s)

    def stop(self) -> None:
        with self._lock:
            self._pending = None
            player = self._player
        if player is not None:
            player.stop()

    def pause(self) -> None:
        player = self._current()
        if player is not None:
            player.pause()

    def resume(self) -> None:
        player = self._current()
        if player is not None:
            player.resume()

    def toggle_pause(self) -> None:
        player = self._current()
        if player is not None:
            player.toggle_pause()

    def seek(self, seconds: float, *, relative: bool = False) -> None:
        with self._lock:
            player = self._player
            if player is None:
                if self._pending is not None:
                    target = self._pending_start + seconds if relative else seconds
                    self._pending_start = max(0.0, target)
                return
        player.seek(seconds, relative=relative)

    def set_loop(self, loop: bool) -> None:
        with self._lock:
            self._loop = loop
            if self._player is not None:
                self._player.set_loop(loop)

    def set_volume_db(self, volume_db: float) -> None:
        with self._lock:
            self._volume_db = volume_db
            if self._player is not None:
                self._player.set_volume_db(volume_db)

    def set_loudness_match(self, enabled: bool, target_lufs: float = -23.0) -> None:
        with self._lock:
            self._loudness = (enabled, target_lufs)
            if self._player is not None:
                self._player.set_loudness_match(enabled, target_lufs)

    def status(self) -> PlayerStatus:
        player = self._current()
        if player is not None:
            return player.status()
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
        with self._lock:
            self._callback = callback
            if self._player is not None:
                self._player.set_state_callback(callback)

    def is_warm(self, source: Source, start_s: float = 0.0) -> bool:
        # While the device opens, play() only keeps the request: nothing is read.
        player = self._current()
        return True if player is None else player.is_warm(source, start_s)

    def prefetch(self, source: Source) -> None:
        # A hint: dropped while the device is still opening (never wait for it).
        player = self._current()
        if player is not None:
            player.prefetch(source)

    def prefetch_scene(
        self, scene: Scene, start_s: float = 0.0, end_s: float | None = None
    ) -> None:
        # A hint, like prefetch: dropped while the device is still opening.
        player = self._current()
        if player is not None:
            player.prefetch_scene(scene, start_s, end_s)

    @property
    def latency_s(self) -> float:
        """The real player's reported output latency (0 until it is up, or without one):
        the timeline's tap subtracts it."""
        current = self._current()
        return current.latency_s if current is not None else 0.0

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._pending = None
            player = self._player
        if player is not None:
            player.close()
        # else: the opening thread (a daemon) closes what it builds; never join it here.

    def finish(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the opening thread to end (it closes what it built
        when the player was closed meanwhile); True when no thread is opening any more.

        For the process's exit only: sounddevice terminates PortAudio in an atexit hook,
        and that must not run while the opening thread is still inside PortAudio."""
        with self._lock:
            thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()


__all__ = ["STARTING_LABEL", "DeferredPlayer"]
