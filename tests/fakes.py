"""Test doubles: a Player that records every call and keeps a simple state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from foley_tui.audio.base import (
    Player,
    PlayerState,
    PlayerStatus,
    Scene,
    Source,
    StateCallback,
)
from foley_tui.audio.mixer import scene_source


@dataclass
class FakePlayer:
    """Implements :class:`foley_tui.audio.base.Player`; ``calls`` lists (name, args)."""

    available: bool = True
    device_name: str = "fake device"
    unavailable_reason: str | None = None
    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    state: PlayerState = PlayerState.STOPPED
    source: Source | None = None
    position_s: float = 0.0
    duration_s: float = 2.0
    loop: bool = False
    volume_db: float = 0.0
    loudness_match: bool = False
    callback: StateCallback | None = None
    closed: bool = False
    scene: Scene | None = None
    starting: bool = False
    latency_s: float = 0.0
    underruns: int = 0
    output_note: str | None = None

    def _record(self, name: str, *args: Any) -> None:
        self.calls.append((name, args))

    def names(self) -> list[str]:
        """The method names called, in order (start-up, state-callback registration and
        prefetch hints left out: they are not user-visible actions)."""
        hidden = ("set_state_callback", "prefetch", "prefetch_scene", "start")
        return [name for name, _ in self.calls if name not in hidden]

    def played(self) -> list[tuple[str, float]]:
        """(source file name, start) of every play() call."""
        return [(args[0].path.name, args[1]) for name, args in self.calls if name == "play"]

    def emit_status(self) -> None:
        """Report the current status to the state callback, as a player does when its
        state changes (a test sets a field, then calls this)."""
        if self.callback is not None:
            self.callback(self.status())

    warm: bool = True
    """What :meth:`is_warm` answers (the screens play a cold source from a worker)."""

    def start(self) -> None:
        self._record("start")

    def is_warm(self, source: Source, start_s: float = 0.0) -> bool:
        return self.warm

    def play(self, source: Source, start_s: float = 0.0) -> None:
        self._record("play", source, start_s)
        self.source = source
        self.position_s = start_s
        self.state = PlayerState.PLAYING
        self.emit_status()

    def play_scene(self, scene: Scene, start_s: float = 0.0, end_s: float | None = None) -> None:
        self._record("play_scene", scene, start_s, end_s)
        self.scene = scene
        self.source = scene_source(scene)
        self.position_s = start_s
        self.state = PlayerState.PLAYING
        self.emit_status()

    def prefetch_scene(
        self, scene: Scene, start_s: float = 0.0, end_s: float | None = None
    ) -> None:
        self._record("prefetch_scene", scene, start_s, end_s)

    def stop(self) -> None:
        self._record("stop")
        self.state = PlayerState.STOPPED
        self.position_s = 0.0
        self.emit_status()

    def pause(self) -> None:
        self._record("pause")
        if self.state is PlayerState.PLAYING:
            self.state = PlayerState.PAUSED
            self.emit_status()

    def resume(self) -> None:
        self._record("resume")
        if self.state is PlayerState.PAUSED:
            self.state = PlayerState.PLAYING
            self.emit_status()

    def toggle_pause(self) -> None:
        """As the real players: pauses what plays, resumes what is paused."""
        self._record("toggle_pause")
        if self.state is PlayerState.PLAYING:
            self.state = PlayerState.PAUSED
            self.emit_status()
        elif self.state is PlayerState.PAUSED:
            self.state = PlayerState.PLAYING
            self.emit_status()

    def seek(self, seconds: float, *, relative: bool = False) -> None:
        self._record("seek", seconds, relative)
        target = self.position_s + seconds if relative else seconds
        self.position_s = max(0.0, min(target, self.duration_s))

    def set_loop(self, loop: bool) -> None:
        self._record("set_loop", loop)
        self.loop = loop

    def set_volume_db(self, volume_db: float) -> None:
        self._record("set_volume_db", volume_db)
        self.volume_db = volume_db

    def set_loudness_match(self, enabled: bool, target_lufs: float = -23.0) -> None:
        self._record("set_loudness_match", enabled)
        self.loudness_match = enabled

    def status(self) -> PlayerStatus:
        return PlayerStatus(
            state=self.state,
            position_s=self.position_s,
            duration_s=self.duration_s,
            source=self.source,
            loop=self.loop,
            volume_db=self.volume_db,
            loudness_match=self.loudness_match,
            underruns=self.underruns,
            output_note=self.output_note,
        )

    def set_state_callback(self, callback: StateCallback | None) -> None:
        self._record("set_state_callback", callback)
        self.callback = callback

    def prefetched(self) -> list[str]:
        """The file name of every prefetch() call's source, in order."""
        return [args[0].path.name for name, args in self.calls if name == "prefetch"]

    def prefetch(self, source: Source) -> None:
        self._record("prefetch", source)

    def close(self) -> None:
        self._record("close")
        self.closed = True

    def finish(self, timeout: float) -> bool:
        """As DeferredPlayer's: nothing is ever opening here."""
        return True


def _check_protocol() -> Player:
    # Fails type-checking/at import if FakePlayer drifts from the Player protocol.
    return FakePlayer()


assert isinstance(FakePlayer(), Player)


class NoticeLog:
    """Every notification an app shows, in order, recorded as it is shown (Textual keeps
    its own list private): installed over the app's ``notify``, which every widget's
    and screen's ``notify`` calls."""

    def __init__(self, app: Any) -> None:
        self.messages: list[str] = []
        shown = app.notify

        def notify(message: str, *args: Any, **kwargs: Any) -> None:
            self.messages.append(str(message))
            shown(message, *args, **kwargs)

        app.notify = notify

    def __str__(self) -> str:
        return " ".join(self.messages)
