"""Sound files carrying metadata written by other tools, for the library tests.

ffmpeg writes the BWF description (bext), the Vorbis comments, the FLAC tags and the
MP3's ID3 frames; the iXML chunk (which ffmpeg does not write) is appended as a RIFF
chunk, as recorders and Soundminer put it, with a ``USER`` block of UCS fields.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

FFMPEG = shutil.which("ffmpeg")
needs_ffmpeg = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg is not installed")


def ffmpeg(out: Path, *args: str, freq: int = 440, seconds: float = 0.4) -> Path:
    """Run ffmpeg on a sine tone into ``out`` with ``args`` (codec and metadata)."""
    assert FFMPEG is not None
    out.parent.mkdir(parents=True, exist_ok=True)
    source = f"sine=frequency={freq}:duration={seconds}"
    subprocess.run(
        [FFMPEG, "-loglevel", "error", "-y", "-f", "lavfi", "-i", source, *args, str(out)],
        check=True,
    )
    return out


def bwf(
    out: Path, description: str, *, freq: int = 440, originator: str = "", seconds: float = 0.4
) -> Path:
    """A 24-bit 48 kHz BWF with a bext description (as ffmpeg writes it, UTF-8)."""
    meta = ["-metadata", f"description={description}"]
    if originator:
        meta += ["-metadata", f"originator={originator}"]
    return ffmpeg(out, "-ar", "48000", "-c:a", "pcm_s24le", "-write_bext", "1", *meta, freq=freq)


def with_ixml(wav: Path, xml: str) -> Path:
    """Append an iXML chunk to ``wav`` and fix the RIFF size."""
    data = bytearray(wav.read_bytes())
    payload = xml.encode("utf-8")
    chunk = b"iXML" + struct.pack("<I", len(payload)) + payload
    if len(payload) % 2:
        chunk += b"\x00"
    data += chunk
    data[4:8] = struct.pack("<I", len(data) - 8)
    wav.write_bytes(bytes(data))
    return wav


def ixml_user(**fields: str) -> str:
    """An iXML document whose USER block holds ``fields`` as elements."""
    inner = "".join(f"<{key}>{value}</{key}>" for key, value in fields.items())
    return f'<?xml version="1.0" encoding="UTF-8"?><BWFXML><USER>{inner}</USER></BWFXML>'


def vorbis(
    out: Path, description: str, *, freq: int = 330, seconds: float = 0.4, **tags: str
) -> Path:
    meta = ["-metadata", f"DESCRIPTION={description}"]
    for key, value in tags.items():
        meta += ["-metadata", f"{key.upper()}={value}"]
    return ffmpeg(out, "-c:a", "libvorbis", *meta, freq=freq, seconds=seconds)


def flac(out: Path, comment: str, *, freq: int = 550, seconds: float = 0.4, **tags: str) -> Path:
    meta = ["-metadata", f"COMMENT={comment}"]
    for key, value in tags.items():
        meta += ["-metadata", f"{key.upper()}={value}"]
    return ffmpeg(out, "-c:a", "flac", *meta, freq=freq, seconds=seconds)


def mp3(out: Path, description: str, *, freq: int = 660, seconds: float = 0.4, **tags: str) -> Path:
    """An MP3 whose description ffmpeg writes as an ID3 TXXX frame."""
    meta = ["-metadata", f"description={description}"]
    for key, value in tags.items():
        meta += ["-metadata", f"{key}={value}"]
    return ffmpeg(out, "-c:a", "libmp3lame", *meta, freq=freq, seconds=seconds)
