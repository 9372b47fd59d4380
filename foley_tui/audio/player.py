"""Players: the factory, and every player name in one place.

- :class:`~foley_tui.audio.sounddevice_player.SoundDevicePlayer`: PortAudio, one callback
  stream, sound out within a millisecond of ``play()`` (how: that module's docstring);
- :class:`~foley_tui.audio.null_player.NullPlayer`: no device; keeps time, says why;
- :mod:`~foley_tui.audio.devices`: ``list_devices()``, ``AudioUnavailable``;
- :mod:`~foley_tui.audio.voice`: a sound being played, its fades and gain ramps.

Headless: never imports textual; ``sounddevice`` is imported lazily (by the
SoundDevicePlayer's constructor and :func:`list_devices`), so a machine without PortAudio
can still ``import foley_tui.audio`` and run the app silently.
"""

from __future__ import annotations

from foley_tui.audio.base import Player
from foley_tui.audio.devices import AudioUnavailable, DeviceInfo, list_devices
from foley_tui.audio.null_player import NullPlayer
from foley_tui.audio.player_common import DEFAULT_TARGET_LUFS
from foley_tui.audio.sounddevice_player import SoundDevicePlayer

__all__ = [
    "DEFAULT_TARGET_LUFS",
    "AudioUnavailable",
    "DeviceInfo",
    "NullPlayer",
    "SoundDevicePlayer",
    "list_devices",
    "make_player",
]


def make_player(device: str | int | None = None) -> Player:
    """A :class:`SoundDevicePlayer` on ``device``, else a :class:`NullPlayer` saying why."""
    try:
        return SoundDevicePlayer(device)
    except AudioUnavailable as exc:
        return NullPlayer(str(exc))
