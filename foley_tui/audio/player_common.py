"""What both players share: the user's settings and the state-callback notifier.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import queue
import threading

from foley_tui.audio.base import PlayerStatus, StateCallback

DEFAULT_TARGET_LUFS = -23.0


class Notifier:
    """Delivers state callbacks on one daemon thread, in order, never on the caller's."""

    def __init__(self, name: str) -> None:
        self.callback: StateCallback | None = None
        self._name = name
        self._queue: queue.SimpleQueue[PlayerStatus | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None  # started on first use
        self._lock = threading.Lock()

    def emit(self, status: PlayerStatus) -> None:
        if self.callback is None:
            return
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                    self._thread.start()
        self._queue.put(status)

    def _run(self) -> None:
        while True:
            status = self._queue.get()
            if status is None:
                return
            callback = self.callback
            if callback is not None:
                with contextlib.suppress(Exception):  # a UI bug must not kill the thread
                    callback(status)

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)


class PlayerSettings:
    """The user-facing settings both players share."""

    def __init__(self) -> None:
        self.loop = False
        self.volume_db = 0.0
        self.loudness_match = False
        self.target_lufs = DEFAULT_TARGET_LUFS
