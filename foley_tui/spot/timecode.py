"""SMPTE timecode at the rates an editor's session runs at, and its sample offsets.

A timecode names a frame count; at 23.976 and 29.97 fps each frame lasts 1001/24000 or
1001/30000 s (the NTSC rates), and drop-frame 29.97 skips frame numbers 0 and 1 at the
start of every minute but each tenth so its clock keeps up with the wall clock.

Headless: never imports textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction


class TimecodeError(ValueError):
    """A frame rate or a timecode we cannot read."""


@dataclass(frozen=True, slots=True)
class FrameRate:
    """A timecode rate.

    Attributes:
        name: How it is spelled on the command line (``25``, ``29.97df``).
        fps: Frames per second, exactly (``30000/1001`` for 29.97).
        nominal: The frame count of a timecode second (30 for 29.97).
        drop: Drop-frame counting (29.97 only).
    """

    name: str
    fps: Fraction
    nominal: int
    drop: bool = False

    @property
    def separator(self) -> str:
        """Between seconds and frames: ``;`` marks drop-frame."""
        return ";" if self.drop else ":"


RATES: dict[str, FrameRate] = {
    "23.976": FrameRate("23.976", Fraction(24000, 1001), 24),
    "24": FrameRate("24", Fraction(24), 24),
    "25": FrameRate("25", Fraction(25), 25),
    "29.97": FrameRate("29.97", Fraction(30000, 1001), 30),
    "29.97df": FrameRate("29.97df", Fraction(30000, 1001), 30, drop=True),
    "30": FrameRate("30", Fraction(30), 30),
}
#: Other spellings people type.
_ALIASES = {
    "23.98": "23.976",
    "29.97ndf": "29.97",
    "29.97nd": "29.97",
    "29.97d": "29.97df",
    "29.97drop": "29.97df",
    "29.97-drop": "29.97df",
}
DEFAULT_FPS = "25"


def frame_rate(text: str) -> FrameRate:
    """The rate named ``text`` (``23.976``, ``24``, ``25``, ``29.97``, ``29.97df``, ``30``)."""
    key = text.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in RATES:
        names = ", ".join(RATES)
        raise TimecodeError(f"not a timecode rate: {text!r} (one of {names})")
    return RATES[key]


_TC = re.compile(r"^(\d{1,2})[:;.](\d{2})[:;.](\d{2})([:;.,])(\d{2})$")


def parse(text: str, rate: FrameRate) -> int:
    """The frame count of timecode ``text`` (``HH:MM:SS:FF``; ``;`` before the frames is
    accepted for drop-frame) at ``rate``."""
    match = _TC.match(text.strip())
    if match is None:
        raise TimecodeError(f"not a timecode: {text!r} (HH:MM:SS:FF)")
    hours, minutes, seconds, sep, frames = match.groups()
    h, m, s, f = int(hours), int(minutes), int(seconds), int(frames)
    if m > 59 or s > 59 or f >= rate.nominal:
        raise TimecodeError(f"not a timecode at {rate.name} fps: {text!r}")
    if sep == ";" and not rate.drop:
        raise TimecodeError(f"{text!r} is drop-frame (;) but {rate.name} fps is not: use 29.97df")
    if rate.drop and s == 0 and f < 2 and m % 10 != 0:
        raise TimecodeError(f"{text!r} does not exist in drop-frame (frames 0 and 1 are skipped)")
    count = (h * 3600 + m * 60 + s) * rate.nominal + f
    if rate.drop:
        total_minutes = h * 60 + m
        count -= 2 * (total_minutes - total_minutes // 10)
    return count


def format_frames(count: int, rate: FrameRate) -> str:
    """Frame ``count`` as ``HH:MM:SS:FF`` (``HH:MM:SS;FF`` in drop-frame)."""
    count = max(int(count), 0)
    if rate.drop:
        per_ten = 17982  # frames in ten drop-frame minutes
        tens, rest = divmod(count, per_ten)
        skipped = 18 * tens
        if rest >= 2:
            skipped += 2 * ((rest - 2) // 1798)
        count += skipped
    n = rate.nominal
    frames = count % n
    seconds = count // n % 60
    minutes = count // (n * 60) % 60
    hours = count // (n * 3600) % 24
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{rate.separator}{frames:02d}"


def frames_to_samples(count: int, rate: FrameRate, sample_rate: int) -> int:
    """The sample offset of frame ``count`` (the nearest sample at a non-integer ratio)."""
    return round(Fraction(count) / rate.fps * sample_rate)


def samples_to_frames(samples: int, rate: FrameRate, sample_rate: int) -> int:
    """The frame that sample ``samples`` falls in."""
    return int(Fraction(samples, sample_rate) * rate.fps)


def timecode_of(samples: int, rate: FrameRate, sample_rate: int) -> str:
    """The timecode of the frame sample ``samples`` falls in."""
    return format_frames(samples_to_frames(samples, rate, sample_rate), rate)
