"""NullPlayer: a silent player that keeps time, for machines without audio output.

Headless: never imports textual, and needs neither PortAudio nor a device.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from foley_tui.audio.base import SCENE_HOW, PlayerState, PlayerStatus, Source, StateCallback
from foley_tui.audio.decode import DecodeError, probe
from foley_tui.audio.player_common import DEFAULT_TARGET_LUFS, Notifier, PlayerSettings

if TYPE_CHECKING:
    from foley_tui.audio.base import Scene


class NullPlayer:
    """A silent player that keeps time, used when there is no audio output.

    The playhead moves in real time, ends (or loops) at the sound's duration and fires the
    same state callbacks as the real player, so the UI behaves identically; ``device_name``
    and ``unavailable_reason`` say why there is no sound.
    """

    def __init__(self, reason: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._reason = reason
        self._clock = clock
        self._lock = threading.RLock()
        self._settings = PlayerSettings()
        self._notifier = Notifier("foley-null-player")
        self._state = PlayerState.STOPPED
        self._source: Source | None = None
        self._duration = 0.0
        self._base = 0.0  # position at _since
        self._since = 0.0
        self._error: str | None = None
        self._timer: threading.Timer | None = None
        self._durations: OrderedDict[str, float] = OrderedDict()

    # -- Player protocol -------------------------------------------------------------
    def start(self) -> None:
        """Nothing to do: this player is ready once constructed."""

    @property
    def starting(self) -> bool:
        return False

    @property
    def available(self) -> bool:
        return False

    @property
    def device_name(self) -> str:
        return f"no audio: {self._reason}"

    @property
    def unavailable_reason(self) -> str | None:
        return self._reason

    @property
    def latency_s(self) -> float:
        return 0.0

    def play(self, source: Source, start_s: float = 0.0) -> None:
        with self._lock:
            self._source = source
            self._error = None
            try:
                self._duration = self._duration_of(source)
            except DecodeError as exc:
                self._duration = 0.0
                self._error = str(exc)
                self._set(PlayerState.STOPPED, 0.0)
                return
            self._set(PlayerState.PLAYING, self._clamp(start_s))

    def play_scene(self, scene: Scene, start_s: float = 0.0, end_s: float | None = None) -> None:
        """Keep the scene's time (its length from the files' headers), silently."""
        from foley_tui.audio.mixer import StemMix, scene_source

        mix = StemMix(scene, 48000, start_s=start_s, end_s=end_s)  # reads headers only
        mix.close()
        with self._lock:
            source = scene_source(scene)
            self._source = source
            self._error = "; ".join(mix.problems) or None
            self._duration = mix.stop_frame / mix.rate
            self._durations[source.identity] = self._duration
            self._set(PlayerState.PLAYING, self._clamp(mix.position_s))

    def prefetch_scene(
        self, scene: Scene, start_s: float = 0.0, end_s: float | None = None
    ) -> None:
        """Nothing to premix without a device."""

    def stop(self) -> None:
        with self._lock:
            if self._state is not PlayerState.STOPPED:
                self._set(PlayerState.STOPPED, self._position())

    def pause(self) -> None:
        with self._lock:
            if self._state is PlayerState.PLAYING:
                self._set(PlayerState.PAUSED, self._position())

    def resume(self) -> None:
        with self._lock:
            if self._state is PlayerState.PAUSED:
                self._set(PlayerState.PLAYING, self._position())
            elif (
                self._state is PlayerState.STOPPED
                and self._source is not None
                and self._source.how != SCENE_HOW
            ):
                position = self._position()
                self.play(self._source, 0.0 if position >= self._duration else position)

    def toggle_pause(self) -> None:
        with self._lock:
            if self._state is PlayerState.PLAYING:
                self.pause()
            else:
                self.resume()

    def seek(self, seconds: float, *, relative: bool = False) -> None:
        with self._lock:
            if self._source is None:
                return
            target = self._position() + seconds if relative else seconds
            self._set(self._state, self._clamp(target), notify=False)

    def set_loop(self, loop: bool) -> None:
        with self._lock:
            position = self._position()
            self._settings.loop = loop
            self._set(self._state, position, notify=False)

    def set_volume_db(self, volume_db: float) -> None:
        self._settings.volume_db = float(volume_db)

    def set_loudness_match(self, enabled: bool, target_lufs: float = DEFAULT_TARGET_LUFS) -> None:
        self._settings.loudness_match = enabled
        self._settings.target_lufs = float(target_lufs)

    def status(self) -> PlayerStatus:
        with self._lock:
            self._check_end()
            return self._status()

    def set_state_callback(self, callback: StateCallback | None) -> None:
        self._notifier.callback = callback

    def is_warm(self, source: Source, start_s: float = 0.0) -> bool:
        """play() reads a file's header once (its duration, for the playhead)."""
        with self._lock:
            return source.identity in self._durations

    def prefetch(self, source: Source) -> None:
        """Nothing to decode without a device: read the sound's duration now (a worker's
        call), so its play() reads no file. Never raises."""
        with self._lock:
            if source.identity in self._durations:
                return
        try:
            duration = probe(source.path).duration_s
        except (DecodeError, OSError):
            return  # play() reports it
        with self._lock:
            self._remember(source, duration)

    def close(self) -> None:
        with self._lock:
            self._cancel_timer()
            self._state = PlayerState.STOPPED
        self._notifier.close()

    # -- internals -------------------------------------------------------------------
    def _duration_of(self, source: Source) -> float:
        cached = self._durations.get(source.identity)
        if cached is None:
            cached = probe(source.path).duration_s
            self._remember(source, cached)
        return cached

    def _remember(self, source: Source, duration: float) -> None:
        self._durations[source.identity] = duration
        while len(self._durations) > 1024:
            self._durations.popitem(last=False)

    def _clamp(self, seconds: float) -> float:
        if not math.isfinite(seconds):
            return 0.0
        return min(max(seconds, 0.0), self._duration)

    def _position(self) -> float:
        if self._state is not PlayerState.PLAYING:
            return self._base
        position = self._base + (self._clock() - self._since)
        if self._settings.loop and self._duration > 0:
            return position % self._duration
        return min(position, self._duration)

    def _status(self) -> PlayerStatus:
        return PlayerStatus(
            state=self._state,
            position_s=self._position(),
            duration_s=self._duration,
            source=self._source,
            loop=self._settings.loop,
            volume_db=self._settings.volume_db,
            loudness_match=self._settings.loudness_match,
            error=self._error,
        )

    def _set(self, state: PlayerState, position: float, *, notify: bool = True) -> None:
        self._cancel_timer()
        self._state = state
        self._base = position
        self._since = self._clock()
        if state is PlayerState.PLAYING and not self._settings.loop:
            remaining = max(self._duration - position, 0.0)
            self._timer = threading.Timer(remaining, self._on_timer)
            self._timer.daemon = True
            self._timer.start()
        if notify:
            self._notifier.emit(self._status())

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self) -> None:
        with self._lock:
            self._check_end(force=True)

    def _check_end(self, force: bool = False) -> None:
        if self._state is not PlayerState.PLAYING or self._settings.loop:
            return
        elapsed_end = self._base + (self._clock() - self._since) >= self._duration
        if elapsed_end or force:
            self._set(PlayerState.STOPPED, self._duration)
