"""The audio engine: resolve a candidate to a source, decode it in blocks, play it.

Headless: never imports textual. ``sounddevice`` (PortAudio) is imported only when a player
is made, so importing this package works on a machine without PortAudio.

- :mod:`foley_tui.audio.base`: the ``Player`` protocol, ``Source``, ``Unplayable``, status.
- :mod:`foley_tui.audio.resolve`: ``resolve(candidate, data_dir, allow_network=...)``.
- :mod:`foley_tui.audio.decode`: block decoding, downmix, streaming resampling.
- :mod:`foley_tui.audio.player`: ``make_player(device)``, ``SoundDevicePlayer``,
  ``NullPlayer``, ``list_devices()`` (each defined in its own module: ``sounddevice_player``,
  ``null_player``, ``devices``; voices, fades and the head cache in ``voice``).
- :mod:`foley_tui.audio.peaks`: waveform peaks (``progressive_peaks``) with an LRU cache.
- :mod:`foley_tui.audio.loudness`: BS.1770 integrated loudness, loudness-match gain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import (
    AudioFormat,
    Player,
    PlayerState,
    PlayerStatus,
    Source,
    Unplayable,
)

if TYPE_CHECKING:
    from foley_tui.audio.player import NullPlayer, SoundDevicePlayer, list_devices, make_player
    from foley_tui.audio.resolve import resolve

__all__ = [
    "AudioFormat",
    "NullPlayer",
    "Player",
    "PlayerState",
    "PlayerStatus",
    "SoundDevicePlayer",
    "Source",
    "Unplayable",
    "list_devices",
    "make_player",
    "resolve",
]

_LAZY = {
    "NullPlayer": "foley_tui.audio.player",
    "SoundDevicePlayer": "foley_tui.audio.player",
    "list_devices": "foley_tui.audio.player",
    "make_player": "foley_tui.audio.player",
    "resolve": "foley_tui.audio.resolve",
}


def __getattr__(name: str) -> Any:
    # Lazy so `import foley_tui.audio` stays cheap (no numpy/soundfile/scipy at app start).
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'foley_tui.audio' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
