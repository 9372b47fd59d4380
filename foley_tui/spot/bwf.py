"""A Broadcast WAV writer: ``fmt``, ``bext`` (EBU Tech 3285 v1), ``iXML`` and PCM data,
streamed block by block.

No well-kept Python library writes ``bext`` or ``iXML`` (libsndfile, and so soundfile,
reads and writes neither; ``wavinfo`` only reads), and the chunks are small fixed layouts,
so this module writes them itself. The data chunk is written as blocks arrive and the
RIFF sizes are patched on close: memory holds one block, whatever the sound's length.

Headless: never imports textual.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO
from xml.sax.saxutils import escape

import numpy as np
import numpy.typing as npt

from foley_tui.spot.names import ascii_text

Frames = npt.NDArray[np.float32]

#: Sample formats a copy can have: 16-bit (dithered), 24-bit, 32-bit float.
SAMPLE_FORMATS = ("PCM_16", "PCM_24", "FLOAT")
_WAVE_FORMAT_PCM = 1
_WAVE_FORMAT_IEEE_FLOAT = 3
_WAVE_FORMAT_EXTENSIBLE = 0xFFFE
_KSDATAFORMAT_PCM = bytes.fromhex("0100000000001000800000aa00389b71")
_KSDATAFORMAT_FLOAT = bytes.fromhex("0300000000001000800000aa00389b71")
#: A RIFF file's sizes are 32-bit: the data must end before 4 GiB.
MAX_RIFF_BYTES = 0xFFFFFFFF


class BwfError(OSError):
    """A copy cannot be written (too long for a RIFF file, or the disk said no)."""


@dataclass(frozen=True, slots=True)
class Bext:
    """The ``bext`` chunk's fields (text fields are cut to their sizes, in ASCII)."""

    description: str
    time_reference: int
    originator: str = "foley-tui"
    originator_reference: str = ""
    origination_date: str = ""  # yyyy-mm-dd
    origination_time: str = ""  # hh:mm:ss
    coding_history: str = ""

    def to_bytes(self) -> bytes:
        if not 0 <= self.time_reference < 2**64:
            raise BwfError(f"time reference out of range: {self.time_reference}")

        def text(value: str, size: int) -> bytes:
            return ascii_text(value, size).encode("ascii").ljust(size, b"\0")

        low, high = self.time_reference & 0xFFFFFFFF, self.time_reference >> 32
        fixed = (
            text(self.description, 256)
            + text(self.originator, 32)
            + text(self.originator_reference, 32)
            + text(self.origination_date, 10)
            + text(self.origination_time, 8)
            + struct.pack("<IIH", low, high, 1)
            + bytes(64)  # UMID: none
            + bytes(190)  # v2 loudness fields (unset in v1) and the reserved bytes
        )
        history = ascii_text(self.coding_history, 4096).encode("ascii")
        if history and not history.endswith(b"\r\n"):
            history += b"\r\n"
        return fixed + history


def ixml(fields: dict[str, str], user: dict[str, str], tracks: list[str]) -> str:
    """An iXML document (``BWFXML``): top-level ``fields`` (PROJECT, SCENE, TAKE, NOTE,
    timestamps...), ``user`` fields inside ``USER``, and a ``TRACK_LIST`` naming
    ``tracks`` (one per channel)."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<BWFXML>",
        "<IXML_VERSION>2.10</IXML_VERSION>",
    ]
    for key, value in fields.items():
        lines.append(f"<{key}>{escape(value)}</{key}>")
    lines.append("<TRACK_LIST>")
    lines.append(f"<TRACK_COUNT>{len(tracks)}</TRACK_COUNT>")
    for i, name in enumerate(tracks, 1):
        lines.append(
            f"<TRACK><CHANNEL_INDEX>{i}</CHANNEL_INDEX><INTERLEAVE_INDEX>{i}</INTERLEAVE_INDEX>"
            f"<NAME>{escape(name)}</NAME></TRACK>"
        )
    lines.append("</TRACK_LIST>")
    if user:
        lines.append("<USER>")
        for key, value in user.items():
            lines.append(f"<{key}>{escape(value)}</{key}>")
        lines.append("</USER>")
    lines.append("</BWFXML>")
    return "\n".join(lines) + "\n"


def _chunk(tag: bytes, payload: bytes) -> bytes:
    pad = b"\0" if len(payload) % 2 else b""
    return tag + struct.pack("<I", len(payload)) + payload + pad


def _fmt(rate: int, channels: int, sample_format: str) -> bytes:
    bits = {"PCM_16": 16, "PCM_24": 24, "FLOAT": 32}[sample_format]
    block_align = channels * bits // 8
    is_float = sample_format == "FLOAT"
    if channels <= 2:
        tag = _WAVE_FORMAT_IEEE_FLOAT if is_float else _WAVE_FORMAT_PCM
        return struct.pack("<HHIIHH", tag, channels, rate, rate * block_align, block_align, bits)
    mask = (1 << channels) - 1 if channels <= 18 else 0
    sub = _KSDATAFORMAT_FLOAT if is_float else _KSDATAFORMAT_PCM
    return (
        struct.pack(
            "<HHIIHHHHI",
            _WAVE_FORMAT_EXTENSIBLE,
            channels,
            rate,
            rate * block_align,
            block_align,
            bits,
            22,
            bits,
            mask,
        )
        + sub
    )


def _fmt_chunk(rate: int, channels: int, sample_format: str) -> bytes:
    return _chunk(b"fmt ", _fmt(rate, channels, sample_format))


def _chunks(rate: int, channels: int, sample_format: str, bext: Bext, ixml_text: str) -> bytes:
    """The chunks before ``data``: ``fmt``, ``fact`` (float), ``bext``, ``iXML``."""
    header = _fmt_chunk(rate, channels, sample_format)
    if sample_format == "FLOAT":
        header += _chunk(b"fact", struct.pack("<I", 0))
    header += _chunk(b"bext", bext.to_bytes())
    if ixml_text:
        header += _chunk(b"iXML", ixml_text.encode("utf-8"))
    return header


def wave_summary(
    rate: int, channels: int, frames: int, *, sample_format: str, bext: Bext, ixml_text: str = ""
) -> bytes:
    """The RIFF header and ``fmt`` chunk of the file :class:`BwfWriter` writes with these
    arguments once it holds ``frames`` frames: what an AAF's ``WAVEDescriptor`` keeps as
    its ``Summary`` (``aaf2.ama.get_wave_fmt`` of the written file), known before a byte
    of the file is written."""
    width = channels * {"PCM_16": 2, "PCM_24": 3, "FLOAT": 4}[sample_format]
    data = frames * width
    riff = 4 + len(_chunks(rate, channels, sample_format, bext, ixml_text)) + 8 + data + data % 2
    return b"RIFF" + struct.pack("<I", riff) + b"WAVE" + _fmt_chunk(rate, channels, sample_format)


class BwfWriter:
    """Write ``path`` as a Broadcast WAV of ``channels`` at ``rate``, block by block.

    :meth:`write` takes float32 ``(frames, channels)`` blocks; 16-bit output is dithered
    (TPDF, one LSB peak to peak, seeded by ``dither_seed`` so a copy is reproducible);
    24-bit is rounded; float is written as it is. :meth:`close` patches the sizes.
    """

    def __init__(
        self,
        path: Path,
        rate: int,
        channels: int,
        *,
        sample_format: str,
        bext: Bext,
        ixml_text: str = "",
        dither_seed: int = 0,
    ) -> None:
        if sample_format not in SAMPLE_FORMATS:
            raise ValueError(f"sample format must be one of {SAMPLE_FORMATS}")
        self.path = path
        self.rate = int(rate)
        self.channels = int(channels)
        self.sample_format = sample_format
        self.frames = 0
        self._rng = np.random.default_rng(dither_seed) if sample_format == "PCM_16" else None
        self._bytes_per_frame = (
            self.channels * {"PCM_16": 2, "PCM_24": 3, "FLOAT": 4}[sample_format]
        )
        header = _chunks(self.rate, self.channels, sample_format, bext, ixml_text)
        self._fact_at = 12 + len(_fmt_chunk(self.rate, self.channels, sample_format)) + 8
        if sample_format != "FLOAT":
            self._fact_at = -1
        self._data_size_at = 12 + len(header) + 4
        self._fh: BinaryIO = open(path, "wb")  # noqa: SIM115 - closed by close()
        try:
            self._fh.write(b"RIFF\0\0\0\0WAVE" + header + b"data\0\0\0\0")
        except OSError:
            self._fh.close()
            raise
        self._data_start = self._data_size_at + 4

    def __enter__(self) -> BwfWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def write(self, block: Frames) -> None:
        if len(block) == 0:
            return
        if block.ndim != 2 or block.shape[1] != self.channels:
            raise ValueError(f"expected (frames, {self.channels}) blocks, got {block.shape}")
        if self._data_start + (self.frames + len(block)) * self._bytes_per_frame > MAX_RIFF_BYTES:
            raise BwfError(f"{self.path.name} would pass 4 GiB, the limit of a WAV file")
        self._fh.write(self._encode(block))
        self.frames += len(block)

    def _encode(self, block: Frames) -> bytes:
        if self.sample_format == "FLOAT":
            return np.ascontiguousarray(block, dtype="<f4").tobytes()
        if self.sample_format == "PCM_16":
            assert self._rng is not None
            shape = block.shape
            noise = self._rng.random(shape, dtype=np.float32) - self._rng.random(
                shape, dtype=np.float32
            )
            scaled = np.rint(block * np.float32(32768.0) + noise)
            return np.clip(scaled, -32768, 32767).astype("<i2").tobytes()
        # Scaling a float32 by 2**23 and rounding it are exact in float32, so this is the
        # float64 computation's result; the three bytes of each sample are laid out by
        # strided stores (a [:, :3] slice of the int32 bytes copies far slower).
        scaled = np.rint(block * np.float32(8388608.0))
        np.clip(scaled, np.float32(-8388608.0), np.float32(8388607.0), out=scaled)
        ints = scaled.astype(np.int32).ravel()
        out = np.empty(ints.size * 3, dtype=np.uint8)
        out[0::3] = ints
        out[1::3] = ints >> 8
        out[2::3] = ints >> 16
        return out.tobytes()

    def close(self) -> None:
        if self._fh.closed:
            return
        try:
            data_bytes = self.frames * self._bytes_per_frame
            if data_bytes % 2:
                self._fh.write(b"\0")
            end = self._fh.tell()
            self._fh.seek(4)
            self._fh.write(struct.pack("<I", end - 8))
            if self._fact_at >= 0:
                self._fh.seek(self._fact_at)
                self._fh.write(struct.pack("<I", self.frames))
            self._fh.seek(self._data_size_at)
            self._fh.write(struct.pack("<I", data_bytes))
        finally:
            self._fh.close()
