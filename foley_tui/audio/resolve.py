"""Find playable audio for a foley candidate dict: a :class:`Source` or an :class:`Unplayable`.

Headless: never imports textual. The lookup order is the contract of foley-format.md
("Finding playable audio"):

1. ``preview_uri``: a 64-hex key of a blob in ``audio/``, or an existing local path or
   ``file://`` URI (a short audition clip);
2. ``sound.content_sha256`` (or a 64-hex ``sound.uri``): a blob in ``audio/`` (by value);
3. ``sound.uri``: an absolute local path or ``file://`` URI that exists (index in place);
4. a ``notes`` entry ``paid generation kept in the generations cache: <request_key>``:
   ``generations/requests/<enc(key)>.json`` -> ``content_key`` -> ``generations/audio/<key>``;
5. the session's shared store (``remote``: a Redis session's audio pushed with
   ``session push --with-audio``), read by range, never written to disk; audio whose licence
   forbids caching it (``cache_bytes_ok`` not true) was never pushed, and says so;
6. an ``http(s)://`` ``preview_uri``, only when network access is allowed; the bytes are kept
   in our cache only when ``sound.license.cache_bytes_ok`` is true, otherwise in a temp file
   deleted at exit. An http(s) ``sound.uri`` is a web page, never audio.

A found file that is empty or not audio does not stop the search (a later rule may find a
good copy); when nothing plays, the most useful reason wins. Without network access the
resolver only makes ``stat`` calls and reads a few header bytes per file, so the UI may call
it on every cursor move. Formats are sniffed from magic bytes, never from names.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from foley_tui.audio.base import AudioFormat, Source, Unplayable
from foley_tui.audio.blob import RemoteAudio, RemoteBlob
from foley_tui.safe_io import MAX_RECORD_BYTES, UnsafeFileError, open_regular, read_capped

_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")
_GENERATION_NOTE = re.compile(r"paid generation kept in the generations cache:\s*(\S+)")
# Enough for every magic we know, including an ID3v2 header (10 bytes) we skip over.
_HEADER_BYTES = 64
# Timeout for a remote fetch (only with network access allowed).
REMOTE_TIMEOUT_S = 20.0

# Reason kinds, most useful first when several rules failed (see _best_failure).
KIND_EMPTY = "empty"
KIND_UNSUPPORTED = "unsupported"
KIND_MISSING = "missing"
KIND_REMOTE = "remote"
KIND_NETWORK = "network"
KIND_LICENCE = "licence"
KIND_NONE = "none"
_KIND_RANK = {
    KIND_EMPTY: 0,
    KIND_UNSUPPORTED: 1,
    KIND_LICENCE: 2,
    KIND_NETWORK: 3,
    KIND_REMOTE: 4,
    KIND_MISSING: 5,
}


def sniff_bytes(head: bytes) -> AudioFormat:
    """The audio format announced by the first bytes of a file (``UNKNOWN`` if none).

    Recognises ``RIFF....WAVE`` (and RF64/W64 WAV variants), ``fLaC``, ``OggS``,
    ``FORM....AIFF``/``AIFC`` and MP3 (an ``ID3`` tag or an MPEG audio frame sync).
    An ID3 tag in front of FLAC is skipped when the header is long enough to see past it.
    """
    if len(head) >= 12 and head[:4] in (b"RIFF", b"RIFX", b"RF64") and head[8:12] == b"WAVE":
        return AudioFormat.WAV
    if head[:4] == b"riff" and head[24:28] == b"wave":  # Sony Wave64 GUID header
        return AudioFormat.WAV
    if head[:4] == b"fLaC":
        return AudioFormat.FLAC
    if head[:4] == b"OggS":
        return AudioFormat.OGG
    if len(head) >= 12 and head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return AudioFormat.AIFF
    if head[:3] == b"ID3" and len(head) >= 10:
        # ID3v2: a syncsafe size, then usually MP3 frames (FLAC may be tagged too).
        size = (head[6] << 21) | (head[7] << 14) | (head[8] << 7) | head[9]
        after = 10 + size + (10 if head[5] & 0x10 else 0)
        if len(head) >= after + 4 and head[after : after + 4] == b"fLaC":
            return AudioFormat.FLAC
        return AudioFormat.MP3
    if _is_mpeg_frame(head):
        return AudioFormat.MP3
    return AudioFormat.UNKNOWN


def _is_mpeg_frame(head: bytes) -> bool:
    """An MPEG-1/2/2.5 layer III frame header: 11 sync bits, valid version/layer/rate."""
    if len(head) < 4 or head[0] != 0xFF or (head[1] & 0xE0) != 0xE0:
        return False
    version = (head[1] >> 3) & 0x3
    layer = (head[1] >> 1) & 0x3
    bitrate = head[2] >> 4
    rate = (head[2] >> 2) & 0x3
    # version 01 is reserved, layer 00 reserved; bitrate 1111 bad; rate 11 reserved.
    return version != 1 and layer != 0 and bitrate != 0xF and rate != 3


def sniff_file(path: Path) -> tuple[AudioFormat, int, int]:
    """``(format, size, mtime_ns)`` of a file from its header; raises ``OSError``.

    Only a regular file is opened (links are followed: a library may use them), without
    blocking: a FIFO, a device (``/dev/zero``), a socket or a folder raise
    :class:`~foley_tui.safe_io.UnsafeFileError` / ``IsADirectoryError`` at once.
    """
    fd, st = open_regular(path, follow=True)
    try:
        head = os.pread(fd, _HEADER_BYTES, 0)
        if head[:3] == b"ID3" and len(head) >= 10:
            # Read just past a (usually small) ID3 tag to tell tagged FLAC from MP3.
            tag = (head[6] << 21) | (head[7] << 14) | (head[8] << 7) | head[9]
            if tag < 1 << 20:
                head = os.pread(fd, 10 + tag + 10 + 4, 0)
    finally:
        os.close(fd)
    return sniff_bytes(head), st.st_size, st.st_mtime_ns


def meta_filename(key: str) -> str:
    """foley's ``_meta_filename``: percent-encode everything, no leading dot, ``.json``."""
    encoded = urllib.parse.quote(key, safe="")
    if encoded.startswith("."):
        encoded = "%2E" + encoded[1:]
    return encoded + ".json"


class _Attempts:
    """What each rule found, so an unplayable candidate gets the most useful reason."""

    def __init__(self) -> None:
        self.failures: list[Unplayable] = []

    def fail(self, kind: str, reason: str) -> None:
        self.failures.append(Unplayable(reason, kind))

    def best(self) -> Unplayable:
        if not self.failures:
            return Unplayable(
                "no audio reference (no preview, blob, path or cached generation)", KIND_NONE
            )
        ranked = sorted(
            enumerate(self.failures), key=lambda item: (_KIND_RANK.get(item[1].kind, 9), item[0])
        )
        first = ranked[0][1]
        others = [f.reason for _, f in ranked[1:] if f.reason != first.reason]
        if others:
            return Unplayable(f"{first.reason} (also: {'; '.join(others)})", first.kind)
        return first


def _check(path: Path, how: str, loudness: float | None, attempts: _Attempts) -> Source | None:
    """A :class:`Source` for ``path`` if it exists, is non-empty and looks like audio."""
    try:
        fmt, size, mtime_ns = sniff_file(path)
    except FileNotFoundError:
        attempts.fail(KIND_MISSING, f"missing {_describe(path)}")
        return None
    except IsADirectoryError:
        attempts.fail(KIND_UNSUPPORTED, f"{path} is a folder, not an audio file")
        return None
    except UnsafeFileError as exc:
        attempts.fail(KIND_UNSUPPORTED, f"{_describe(path)} is {exc.strerror}")
        return None
    except OSError as exc:
        attempts.fail(KIND_MISSING, f"cannot read {path}: {exc.strerror or exc}")
        return None
    if size == 0:
        attempts.fail(KIND_EMPTY, f"zero-length file {_describe(path)}")
        return None
    if fmt is AudioFormat.UNKNOWN:
        attempts.fail(
            KIND_UNSUPPORTED, f"unsupported or corrupt audio in {_describe(path)} (unknown header)"
        )
        return None
    identity = f"{path}|{size}|{mtime_ns}"
    return Source(path=path, format=fmt, how=how, identity=identity, loudness_lufs=loudness)


def _describe(path: Path) -> str:
    """``blob audio/<hex…>`` for store blobs, else the path."""
    parts = path.parts
    if len(parts) >= 2 and _HEX64.match(parts[-1]) and parts[-2] == "audio":
        prefix = "generations/audio" if len(parts) >= 3 and parts[-3] == "generations" else "audio"
        return f"blob {prefix}/{parts[-1][:12]}…"
    return str(path)


def _local_path(ref: str) -> Path | None:
    """A local path from an absolute path or a ``file://`` URI, else None."""
    if ref.startswith("file:"):
        parsed = urllib.parse.urlparse(ref)
        if parsed.netloc not in ("", "localhost"):
            return None
        return Path(urllib.request.url2pathname(parsed.path))
    expanded = os.path.expanduser(ref)
    if os.path.isabs(expanded):
        return Path(expanded)
    return None


def _is_remote(ref: str) -> bool:
    return ref.lower().startswith(("http://", "https://"))


def _loudness(sound: Mapping[str, Any]) -> float | None:
    value = sound.get("loudness_lufs")
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
        if number == number and abs(number) != float("inf"):
            return number
    return None


def resolve(
    candidate: Mapping[str, Any],
    data_dir: Path | None,
    *,
    allow_network: bool = False,
    cache_dir: Path | None = None,
    remote: RemoteAudio | None = None,
) -> Source | Unplayable:
    """Find playable audio for ``candidate`` (a foley ``Candidate.to_dict()``).

    Args:
        candidate: The candidate dict; missing or odd keys are tolerated.
        data_dir: The foley data dir (blobs, generations cache), or None for none.
        allow_network: Fetch an ``http(s)`` ``preview_uri`` when nothing local plays.
            Fetching blocks: call with network allowed from a worker thread.
        cache_dir: Where remote bytes may be kept (default ``$XDG_CACHE_HOME/foley-tui``).
        remote: The session's shared store of audio (a Redis session), asked when nothing
            local plays: one or two round trips, no bytes but the header's.

    Returns:
        A :class:`Source`, or an :class:`Unplayable` whose ``reason`` says precisely why
        (missing blob, remote with network off, unsupported or corrupt file, zero length).
    """
    sound_raw = candidate.get("sound")
    sound: Mapping[str, Any] = sound_raw if isinstance(sound_raw, Mapping) else {}
    loudness = _loudness(sound)
    attempts = _Attempts()
    blobs = data_dir / "audio" if data_dir is not None else None
    preview = candidate.get("preview_uri")
    preview = preview.strip() if isinstance(preview, str) else ""

    def blob(key: str, how: str) -> Source | None:
        if blobs is None:
            attempts.fail(KIND_MISSING, f"blob {key[:12]}… but no data dir")
            return None
        return _check(blobs / key.lower(), how, loudness, attempts)

    # 1. The preview: a blob key, or a local path / file:// URI.
    if preview:
        if _HEX64.match(preview):
            found = blob(preview, "preview")
            if found:
                return found
        elif (local := _local_path(preview)) is not None:
            found = _check(local, "preview", loudness, attempts)
            if found:
                return found

    # 2. The content hash (or a 64-hex uri) names a blob in audio/.
    uri = sound.get("uri")
    uri = uri.strip() if isinstance(uri, str) else ""
    keys: list[str] = []
    sha = sound.get("content_sha256")
    if isinstance(sha, str) and _HEX64.match(sha.strip()):
        keys.append(sha.strip().lower())
    if _HEX64.match(uri) and uri.lower() not in keys:
        keys.append(uri.lower())
    # A sound indexed in place (a local uri) is its file: a blob it never had is no
    # reason worth showing when that file is gone (the file's own miss names the path).
    local_uri = _local_path(uri) if uri and not _HEX64.match(uri) else None
    for key in keys:
        tried = len(attempts.failures)
        found = blob(key, "content_sha256")
        if found:
            return found
        if local_uri is not None and blobs is not None:
            del attempts.failures[tried:]

    # 3. The uri is a local file (index in place).
    if local_uri is not None:
        found = _check(local_uri, "path", loudness, attempts)
        if found:
            return found

    # 4. A paid generation kept in the generations cache.
    for request_key in _generation_keys(candidate.get("notes")):
        found = _generation(data_dir, request_key, loudness, attempts)
        if found:
            return found

    # 5. The audio the session's shared store keeps (pushed with --with-audio).
    if remote is not None:
        found = _from_remote(remote, candidate, sound, loudness, attempts)
        if found:
            return found

    # 6. A remote preview, only with network access.
    if preview and _is_remote(preview):
        if not allow_network:
            attempts.fail(
                KIND_REMOTE, f"remote audio ({_short_url(preview)}); network access is off"
            )
        else:
            license_raw = sound.get("license")
            license_: Mapping[str, Any] = license_raw if isinstance(license_raw, Mapping) else {}
            keep = license_.get("cache_bytes_ok") is True
            found = _fetch(preview, keep, cache_dir, loudness, attempts)
            if found:
                return found
    return attempts.best()


def _from_remote(
    remote: RemoteAudio,
    candidate: Mapping[str, Any],
    sound: Mapping[str, Any],
    loudness: float | None,
    attempts: _Attempts,
) -> Source | None:
    """The candidate's audio in the session's shared store, read by range (never kept)."""
    license_raw = sound.get("license")
    license_: Mapping[str, Any] = license_raw if isinstance(license_raw, Mapping) else {}
    if license_.get("cache_bytes_ok") is not True:
        attempts.fail(
            KIND_LICENCE,
            f"its licence forbids caching its bytes (cache_bytes_ok false), so no copy is "
            f"kept on {remote.where}",
        )
        return None
    sound_id = sound.get("id")
    if not isinstance(sound_id, str) or not sound_id:
        return None
    try:
        found = remote.find(sound_id)
    except FileNotFoundError as exc:
        attempts.fail(KIND_MISSING, str(exc.strerror or exc))
        return None
    except OSError as exc:
        attempts.fail(KIND_NETWORK, f"cannot reach the audio on {remote.where}: {exc}")
        return None
    if found is None:
        attempts.fail(
            KIND_MISSING,
            f"no audio on {remote.where} (push the session with --with-audio to share it)",
        )
        return None
    blob = RemoteBlob.of(found)
    if blob.size == 0:
        attempts.fail(KIND_EMPTY, f"zero-length {blob.name}")
        return None
    fmt = sniff_bytes(blob.head)
    if fmt is AudioFormat.UNKNOWN:
        attempts.fail(KIND_UNSUPPORTED, f"unsupported or corrupt audio in {blob.name}")
        return None
    return Source(
        path=blob,
        format=fmt,
        how="redis",
        identity=f"blob:{blob.key}|{blob.size}",
        loudness_lufs=loudness,
    )


def _generation_keys(notes: object) -> list[str]:
    """Request keys named by ``paid generation kept in the generations cache: <key>`` notes."""
    if isinstance(notes, str):
        notes = [notes]
    if not isinstance(notes, list | tuple):
        return []
    keys: list[str] = []
    for note in notes:
        if isinstance(note, str):
            keys.extend(match.group(1) for match in _GENERATION_NOTE.finditer(note))
    return keys


def _generation(
    data_dir: Path | None, request_key: str, loudness: float | None, attempts: _Attempts
) -> Source | None:
    """``generations/requests/<enc>.json`` -> ``content_key`` (via ``answered_by``) -> bytes."""
    if data_dir is None:
        attempts.fail(KIND_MISSING, f"generation {request_key[:12]}… but no data dir")
        return None
    root = data_dir / "generations"
    entry: object = None
    key = request_key
    for _hop in range(2):  # the entry itself, then at most one fallback pointer
        try:
            raw = read_capped(root / "requests" / meta_filename(key), MAX_RECORD_BYTES)
            entry = json.loads(raw)
        except FileNotFoundError:
            attempts.fail(KIND_MISSING, f"generation {key[:12]}… is not in the generations cache")
            return None
        except (OSError, ValueError, RecursionError):
            attempts.fail(KIND_UNSUPPORTED, f"generation entry {key[:12]}… is unreadable")
            return None
        target = entry.get("answered_by") if isinstance(entry, dict) else None
        if not isinstance(target, str) or not target:
            break
        key = target
    content = entry.get("content_key") if isinstance(entry, dict) else None
    if not isinstance(content, str) or not content or "/" in content or content.startswith("."):
        attempts.fail(KIND_MISSING, f"generation {request_key[:12]}… has no content key")
        return None
    return _check(root / "audio" / content, "generations", loudness, attempts)


def _short_url(url: str) -> str:
    return url if len(url) <= 80 else url[:77] + "…"


_TEMP_DIR: Path | None = None


def _temp_dir() -> Path:
    """A per-process temp folder for remote bytes we may not keep; removed at exit."""
    global _TEMP_DIR
    if _TEMP_DIR is None:
        _TEMP_DIR = Path(tempfile.mkdtemp(prefix="foley-tui-remote-"))
        atexit.register(shutil.rmtree, _TEMP_DIR, True)
    return _TEMP_DIR


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/foley-tui/remote`` (``~/.cache/foley-tui/remote``)."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "foley-tui" / "remote"


def _fetch(
    url: str, keep: bool, cache_dir: Path | None, loudness: float | None, attempts: _Attempts
) -> Source | None:
    """Download ``url`` to our cache (``keep``) or to a temp file removed at exit."""
    name = hashlib.sha256(url.encode()).hexdigest()
    folder = (cache_dir or default_cache_dir()) if keep else _temp_dir()
    target = folder / name
    if target.exists() and target.stat().st_size > 0:
        return _check(target, "remote", loudness, attempts)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=".", suffix=".part")
        try:
            with (
                os.fdopen(fd, "wb") as out,
                urllib.request.urlopen(url, timeout=REMOTE_TIMEOUT_S) as response,
            ):
                shutil.copyfileobj(response, out, 1 << 16)
            os.replace(tmp_name, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp_name)
    except (OSError, ValueError) as exc:
        attempts.fail(KIND_NETWORK, f"cannot fetch {_short_url(url)}: {exc}")
        return None
    return _check(target, "remote", loudness, attempts)


def local_file(
    candidate: Mapping[str, Any], data_dir: Path | None
) -> tuple[Path | None, str | None]:
    """The audio file of ``candidate`` on this machine (what ``session push`` copies),
    or None and why not; never the network."""
    found = resolve(candidate, data_dir)
    if isinstance(found, Source) and isinstance(found.path, Path):
        return found.path, None
    if isinstance(found, Source):
        return None, f"its audio is not a local file ({found.path})"
    return None, found.reason
