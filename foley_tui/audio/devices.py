"""Output devices: importing PortAudio lazily, listing devices, parsing ``--device``.

Headless: never imports textual. ``sounddevice`` is imported only here, on demand, so a
machine without PortAudio can still import the audio package and run the app silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class AudioUnavailable(Exception):
    """No audio output: PortAudio missing, no device, or the device refused to open."""


NO_OUTPUT_DEVICE = "no audio output device; running silent"
"""What the app says (status line, notice) when the system has no default output."""

CHOOSE_DEVICE = "foley-tui devices lists the outputs; choose one with --device N or --device NAME"
"""How to choose an output, said after :data:`NO_OUTPUT_DEVICE`."""


def open_failure(device: str | int | None, exc: Exception) -> AudioUnavailable:
    """Why ``device`` (None: the default) could not be opened, in the user's words.
    PortAudio reports a system without a default output as ``Error querying device -1``:
    that is said plainly, with how to choose a device instead."""
    if device is None and "device -1" in str(exc):
        return AudioUnavailable(f"{NO_OUTPUT_DEVICE} ({CHOOSE_DEVICE})")
    where = "the default device" if device is None else f"device {device!r}"
    return AudioUnavailable(f"cannot open {where}: {exc}; running silent ({CHOOSE_DEVICE})")


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """An output device as listed by ``foley-tui devices``."""

    index: int
    name: str
    hostapi: str
    channels: int
    default_samplerate: float
    is_default: bool


def import_sounddevice() -> Any:
    """``import sounddevice``; raises :class:`AudioUnavailable` when PortAudio is missing."""
    try:
        import sounddevice
    except OSError as exc:  # the PortAudio shared library is not installed
        raise AudioUnavailable(
            f"PortAudio library not found ({exc}); install libportaudio2"
        ) from None
    return sounddevice


def list_devices() -> list[DeviceInfo]:
    """Output devices PortAudio can see; raises :class:`AudioUnavailable` without PortAudio."""
    sd = import_sounddevice()
    try:
        devices = sd.query_devices()
        hostapis = sd.query_hostapis()
        try:
            default_out = int(sd.default.device[1])
        except (TypeError, ValueError, IndexError):
            default_out = -1
    except sd.PortAudioError as exc:
        raise AudioUnavailable(f"PortAudio error: {exc}") from None
    result: list[DeviceInfo] = []
    for index, device in enumerate(devices):
        if int(device["max_output_channels"]) <= 0:
            continue
        result.append(
            DeviceInfo(
                index=index,
                name=str(device["name"]),
                hostapi=str(hostapis[device["hostapi"]]["name"]),
                channels=int(device["max_output_channels"]),
                default_samplerate=float(device["default_samplerate"]),
                is_default=index == default_out,
            )
        )
    return result


def parse_device(device: str | int | None) -> str | int | None:
    """``"3"`` -> 3 (an index); a name (substring) stays a string; ``""`` -> default."""
    if isinstance(device, str):
        text = device.strip()
        if not text or text.lower() == "default":
            return None
        return int(text) if text.isdigit() else text
    return device
