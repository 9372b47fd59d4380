"""The metadata a sound file carries, read with well-kept libraries.

WAV (and RF64): ``wavinfo`` for the format, bext (description, originator, time
reference, loudness), iXML (every element, the ``USER`` block included, from
``ixml.parsed``: its ``to_dict()`` needs a ``TRACK_LIST``), RIFF INFO, cues and sampler
loops. bext text is read as UTF-8 (what ffmpeg writes), then latin-1; wavinfo's own
default, ASCII, raises on either. Every other format (FLAC, Ogg Vorbis, Opus, MP3's ID3
with its TXXX frames, MP4, AIFF): ``tinytag``. What neither reads, libsndfile's header
read still gives the format of.

A file that cannot be read gives a :class:`FileMeta` with ``problem`` set (empty,
truncated, not audio), never an exception; a file whose content is not what its name says
is read as what it is, with a ``warning``.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from foley_tui.library import ucs

#: Longest text kept of one embedded field (a coding history or a cue note can be long).
MAX_FIELD_CHARS = 2000
#: Most fields kept of one file (an iXML with thousands of elements is not metadata).
MAX_FIELDS = 400

#: The formats this module tells apart, by what a file starts with.
_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"RIFF", 0, "wav"),
    (b"RF64", 0, "wav"),
    (b"BW64", 0, "wav"),
    (b"fLaC", 0, "flac"),
    (b"OggS", 0, "ogg"),
    (b"ID3", 0, "mp3"),
    (b"FORM", 0, "aiff"),
    (b"ftyp", 4, "mp4"),
)
_EXTENSION_FORMAT = {
    ".wav": "wav",
    ".wave": "wav",
    ".bwf": "wav",
    ".rf64": "wav",
    ".flac": "flac",
    ".ogg": "ogg",
    ".oga": "ogg",
    ".opus": "ogg",
    ".mp3": "mp3",
    ".aif": "aiff",
    ".aiff": "aiff",
    ".aifc": "aiff",
    ".m4a": "mp4",
    ".mp4": "mp4",
    ".w64": "w64",
}
#: File name extensions a folder scan reads as sound.
AUDIO_EXTENSIONS = frozenset(_EXTENSION_FORMAT)


@dataclass(slots=True)
class FileMeta:
    """One file's format and embedded metadata (see the module docstring)."""

    format: str = ""
    duration_s: float | None = None
    sample_rate: int | None = None
    bit_depth: int | None = None
    channels: int | None = None
    description: str = ""
    library: str = ""
    vendor: str = ""
    ucs: ucs.UcsFields = field(default_factory=ucs.UcsFields)
    fields: dict[str, str] = field(default_factory=dict)
    """Every embedded field, by a dotted name (``bext.description``, ``ixml.USER.CATID``,
    ``info.copyright``, ``tag.artist``, ``cue.1.label``)."""
    problem: str | None = None
    """Why the file cannot be auditioned (it is listed with this reason)."""
    warning: str | None = None
    """Something wrong that does not stop it playing (a misleading extension)."""


def sniff(head: bytes) -> str | None:
    """The format a file's first bytes say it is, or None."""
    for magic, at, name in _MAGIC:
        if head[at : at + len(magic)] == magic:
            return name
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        return "mp3"  # an MPEG audio frame sync without an ID3 tag
    return None


def read_metadata(path: Path) -> FileMeta:
    """The metadata of the sound file at ``path`` (never raises for a bad file)."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 (the with below closes it)
    except OSError as exc:
        return FileMeta(problem=f"cannot be read ({exc.strerror or exc})")
    with fh:
        return read_open(fh, path)


def read_open(fh: BinaryIO, path: str | os.PathLike[str], size: int | None = None) -> FileMeta:
    """The metadata of the sound file open as ``fh`` (at ``path``, ``size`` bytes when the
    caller knows it). ``fh`` is the file itself, or its bytes already read (a
    ``BytesIO``: a scan reads a small file once for this and its content hash). The
    library's parse reads only the chunks or tags it needs (they seek past the audio).
    Never raises for a bad file; leaves ``fh`` at no particular position."""
    try:
        head = fh.read(16)
        fh.seek(0)
    except OSError as exc:
        return FileMeta(problem=f"cannot be read ({exc.strerror or exc})")
    if not head:
        return FileMeta(problem="empty file (0 bytes)")
    stem, suffix = os.path.splitext(os.path.basename(path))
    named = _EXTENSION_FORMAT.get(suffix.lower())
    found = sniff(head)
    if found is None and named != "w64":
        return FileMeta(problem=f"not audio: its first bytes are no known sound format{_as(named)}")
    kind = found or "w64"
    try:
        if kind == "wav":
            meta = _read_wav(fh, size)
        elif kind == "w64":
            meta = _read_sndfile(os.fspath(path))
        else:
            meta = _read_tagged(fh, kind)
    except _Unreadable as exc:
        meta = FileMeta(format=kind, problem=str(exc))
    if kind == "mp4" and meta.problem is None:
        meta.problem = "MP4 audio: its tags are read, but the player does not decode it"
    if named is not None and named != kind and meta.problem is None:
        meta.warning = f"named {suffix} but holds {kind.upper()}"
    _fill_ucs(meta, stem)
    return meta


def _as(named: str | None) -> str:
    return f" (named as {named.upper()})" if named else ""


class _Unreadable(Exception):
    """A file the readers refuse (the message is the reason shown)."""


# ---------------------------------------------------------------------------- WAV
def _read_wav(fh: BinaryIO, size: int | None) -> FileMeta:
    from wavinfo import WavInfoReader
    from wavinfo.riff_parser import WavInfoEOFError

    reader: Any = None
    for encoding in ("utf-8", "latin-1"):
        try:
            fh.seek(0)
            reader = WavInfoReader(fh, bext_encoding=encoding)
            break
        except UnicodeDecodeError:
            continue  # latin-1 decodes any byte, so the loop always ends with a reader
        except WavInfoEOFError:
            raise _Unreadable("truncated: a chunk runs past the end of the file") from None
        except (ValueError, KeyError, IndexError, AssertionError, StopIteration) as exc:
            raise _Unreadable(f"damaged WAV ({type(exc).__name__}: {exc})") from None
        except OSError as exc:
            raise _Unreadable(f"cannot be read ({exc.strerror or exc})") from None
    fmt, data = reader.fmt, reader.data
    if fmt is None or data is None or not fmt.sample_rate or not fmt.channel_count:
        raise _Unreadable("damaged WAV: no fmt or data chunk")
    meta = FileMeta(
        format="wav",
        sample_rate=int(fmt.sample_rate),
        bit_depth=int(fmt.bits_per_sample) or None,
        channels=int(fmt.channel_count),
        duration_s=round(data.frame_count / fmt.sample_rate, 6),
    )
    # The last chunk's header may promise more audio than the file holds (a copy cut
    # short): wavinfo reads only headers, so compare the data chunk with the file's size.
    chunk = next((c for c in reader.main_list if getattr(c, "ident", None) == b"data"), None)
    if size is None:
        size = os.fstat(fh.fileno()).st_size
    if chunk is not None and chunk.start + chunk.length > size and fmt.block_align:
        held = max(0, size - chunk.start) // fmt.block_align
        meta.duration_s = round(held / fmt.sample_rate, 6)
        meta.warning = (
            f"truncated: {max(0, size - chunk.start)} of {chunk.length} bytes of audio "
            "(plays what is there)"
        )
    fields = meta.fields
    if reader.bext is not None:
        for key, value in reader.bext.to_dict().items():
            if key != "umid":
                _put(fields, f"bext.{key}", value)
    if reader.info is not None:
        for key, value in reader.info.to_dict().items():
            if key != "encoding":
                _put(fields, f"info.{key}", value)
    if reader.ixml is not None:
        for key, value in _ixml_fields(reader.ixml.parsed):
            _put(fields, key, value)
    if reader.cues is not None:
        with contextlib.suppress(Exception):  # a damaged cue list keeps the rest
            for number, cue in reader.cues.to_dict().items():
                for key, value in cue.items():
                    _put(fields, f"cue.{number}.{key}", value)
    if reader.smpl is not None:
        with contextlib.suppress(Exception):
            for i, loop in enumerate(reader.smpl.to_dict().get("sample_loops", []) or []):
                for key, value in dict(loop).items():
                    _put(fields, f"loop.{i + 1}.{key}", value)
    first = _first(fields)
    meta.description = first(
        "bext.description",
        "ixml.USER.DESCRIPTION",
        "ixml.ASWG.description",
        "ixml.BEXT.BWF_DESCRIPTION",
        "ixml.NOTE",
        "info.comment",
        "info.subject",
        "info.title",
    )
    meta.library = first("ixml.USER.LIBRARY", "ixml.ASWG.library", "info.product")
    meta.vendor = first(
        "ixml.USER.VENDOR",
        "ixml.USER.MANUFACTURER",
        "ixml.USER.PUBLISHER",
        "bext.originator",
        "info.artist",
    )
    return meta


def _ixml_fields(tree: Any) -> Iterator[tuple[str, str]]:
    """(dotted path, text) for every element of an iXML document with text, below the
    root; repeated paths (a TRACK_LIST's tracks) are numbered. A ``USER`` block written as
    ``KEY=value`` (or ``KEY: value``) lines is split into its keys."""
    root = tree.getroot() if hasattr(tree, "getroot") else tree
    if root is None:
        return
    seen: dict[str, int] = {}
    stack: list[tuple[Any, str]] = [(child, "") for child in reversed(list(root))]
    while stack:
        element, prefix = stack.pop()
        tag = element.tag if isinstance(element.tag, str) else ""
        if not tag:
            continue
        path = f"{prefix}.{tag}" if prefix else tag
        count = seen.get(path, 0)
        seen[path] = count + 1
        if count:
            path = f"{path}.{count + 1}"
        children = list(element)
        text = (element.text or "").strip()
        if text:
            if not children and tag.upper() == "USER" and ("=" in text or ":" in text):
                for line in text.splitlines():
                    key, sep, value = line.partition("=") if "=" in line else line.partition(":")
                    if sep and key.strip() and value.strip():
                        yield f"ixml.{path}.{key.strip().upper()}", value.strip()
            else:
                yield f"ixml.{path}", text
        stack.extend((child, path) for child in reversed(children))


# ---------------------------------------------------------------------------- tags
#: What tinytag's ``as_dict()`` holds besides tags (the columns have them already).
_TAG_PROPERTIES = frozenset(
    {
        "filename",
        "filesize",
        "duration",
        "samplerate",
        "channels",
        "bitrate",
        "bitdepth",
        "is_lossless",
        "mime_type",
    }
)


def _read_tagged(fh: BinaryIO, kind: str) -> FileMeta:
    from tinytag import TinyTag, TinyTagException

    try:
        # A file object and no name: tinytag picks its parser by the file's magic bytes,
        # not by an extension that may lie.
        fh.seek(0)
        tag = TinyTag.get(file_obj=fh)
    except TinyTagException as exc:
        raise _Unreadable(f"damaged {kind.upper()} ({exc})") from None
    except (OSError, EOFError, ValueError, IndexError, KeyError) as exc:
        raise _Unreadable(f"damaged {kind.upper()} ({type(exc).__name__}: {exc})") from None
    name = kind
    mime = str(tag.mime_type or "")
    if kind == "ogg" and "opus" in mime:
        name = "opus"
    elif kind == "ogg" and "flac" in mime:
        name = "flac"
    rate = int(tag.samplerate) if tag.samplerate else None
    channels = int(tag.channels) if tag.channels else None
    if rate is None or channels is None:
        raise _Unreadable(f"damaged {kind.upper()}: no sample rate or channel count")
    duration = float(tag.duration) if tag.duration else None
    meta = FileMeta(
        format=name,
        sample_rate=rate,
        channels=channels,
        bit_depth=int(tag.bitdepth) if tag.bitdepth else None,
        duration_s=round(duration, 6) if duration is not None and math.isfinite(duration) else None,
    )
    fields = meta.fields
    for key, value in tag.as_dict().items():
        if key not in _TAG_PROPERTIES:
            _put(fields, f"tag.{key}", value)
    first = _first(fields)
    # ffmpeg writes an MP3's comment and description as TXXX frames: tinytag keeps them
    # in .other (as_dict() names them as written, ``description``, ``_comment``).
    meta.description = first("tag.description", "tag.comment", "tag._comment", "tag.title")
    meta.library = first("tag.library", "tag.album")
    meta.vendor = first("tag.vendor", "tag.publisher", "tag.organization", "tag.artist")
    return meta


def _read_sndfile(path: str) -> FileMeta:
    import soundfile

    try:
        info = soundfile.info(path)
    except (RuntimeError, soundfile.LibsndfileError) as exc:
        raise _Unreadable(f"not audio libsndfile can read ({exc})") from None
    if info.samplerate <= 0 or info.channels <= 0:
        raise _Unreadable("not audio libsndfile can read (no sample rate or channels)")
    bits = {"PCM_16": 16, "PCM_24": 24, "PCM_32": 32, "FLOAT": 32, "DOUBLE": 64}
    return FileMeta(
        format=str(info.format).lower(),
        sample_rate=int(info.samplerate),
        channels=int(info.channels),
        bit_depth=bits.get(str(info.subtype)),
        duration_s=round(info.frames / info.samplerate, 6) if info.frames >= 0 else None,
    )


# ---------------------------------------------------------------------------- shared
def _put(fields: dict[str, str], key: str, value: object) -> None:
    if len(fields) >= MAX_FIELDS or value is None:
        return
    if type(value) is str:  # most fields: no conversion
        text = value
    elif isinstance(value, bytes | bytearray):
        return
    elif isinstance(value, list | tuple):
        if len(value) == 1 and type(value[0]) is str:  # tinytag's one value of a tag
            text = value[0]
        else:
            text = "; ".join(str(v) for v in value if v not in (None, ""))
    elif isinstance(value, Mapping):
        text = "; ".join(f"{k}={v}" for k, v in value.items() if v not in (None, ""))
    else:
        text = str(value)
    if not text.isprintable():  # control characters out; tabs and line breaks kept
        text = "".join(ch for ch in text if ch.isprintable() or ch in "\t\n")
    text = text.strip()
    if text:
        fields[key] = text[:MAX_FIELD_CHARS]


def _first(fields: Mapping[str, str]) -> Any:
    folded = {key.lower(): value for key, value in fields.items()}

    def first(*keys: str) -> str:
        for key in keys:
            value = folded.get(key.lower())
            if value:
                return value.splitlines()[0].strip() if "\n" in value else value
        return ""

    return first


def _fill_ucs(meta: FileMeta, stem: str) -> None:
    """UCS from the embedded fields, blanks filled from the file name; the name's FXName,
    creator and source stand in for a missing description, vendor and library."""
    ixml = {k: v for k, v in meta.fields.items() if k.startswith("ixml.")}
    named = ucs.from_file_name(stem)
    if ixml:
        meta.ucs = ucs.from_fields(ixml).merged(named)
    else:
        meta.ucs = named
    if not meta.description and meta.ucs.fx_name:
        meta.description = meta.ucs.fx_name
    if not meta.library and meta.ucs.source:
        meta.library = meta.ucs.source
    if not meta.vendor and meta.ucs.creator:
        meta.vendor = meta.ucs.creator
