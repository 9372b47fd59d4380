"""Turn local audio files (and JSON/JSONL candidate files) into foley-shaped candidates.

Used by ``foley-tui add``. Sound ids are derived from the file *content*:
``local:<first 16 hex of its SHA-256>``. So re-adding a file (or a moved or copied one)
gives the same id and never duplicates it; two identical files share one candidate.
The full hash goes to ``sound.content_sha256``, and ``sound.uri`` is the absolute path
(by-reference storage: the bytes stay where they are).

Headless: never imports textual.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from foley_tui.safe_io import open_regular, read_capped

#: Largest JSON/JSONL file of candidates ``add`` reads (a candidate is a few KB).
MAX_ADD_JSON_BYTES = 512 << 20

#: File name extensions we try as audio when walking a folder.
AUDIO_EXTENSIONS = frozenset(
    {".wav", ".wave", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aif", ".aiff", ".aifc", ".w64"}
)
JSON_EXTENSIONS = frozenset({".json"})
JSONL_EXTENSIONS = frozenset({".jsonl", ".ndjson"})

_BIT_DEPTH = {"PCM_S8": 8, "PCM_U8": 8, "PCM_16": 16, "PCM_24": 24, "PCM_32": 32, "FLOAT": 32}
_BIT_DEPTH["DOUBLE"] = 64


@dataclass(frozen=True, slots=True)
class AddProblem:
    """A path that could not be turned into candidates (reported, the rest goes on)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class AddNote:
    """What a decoder library said about a file it read (libmpg123's ``Warning: Xing
    stream size off...``): the file was added; the note is reported with its name."""

    path: str
    text: str


@contextmanager
def _library_output() -> Iterator[list[str]]:
    """What C libraries write to file descriptor 2 meanwhile, as lines (they name no
    file: the caller attributes them). Only the ``add`` verb's single thread reads audio
    headers this way; the app points descriptor 2 at its log instead."""
    lines: list[str] = []
    with tempfile.TemporaryFile() as sink:
        try:
            saved = os.dup(2)
        except OSError:  # no descriptor 2 at all: nothing to keep off the terminal
            yield lines
            return
        os.dup2(sink.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text = sink.read(64 << 10).decode("utf-8", "replace")
            lines.extend(line.strip() for line in text.splitlines() if line.strip())


def _sndfile_reason(exc: Exception) -> str:
    """libsndfile's own reason (``Format not recognised``), without the ``Error opening
    <_io.BufferedReader name=3>:`` soundfile puts before it."""
    reason = getattr(exc, "error_string", None)
    text = reason if isinstance(reason, str) and reason else str(exc)
    text = re.sub(r"^Error opening .*?: ", "", text).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text else "unknown error"


def sha256_file(path: Path) -> str:
    fd, _ = open_regular(path, follow=True)  # a FIFO or /dev/zero never blocks or streams
    with os.fdopen(fd, "rb") as fh:
        return _sha256_of(fh)


def _sha256_of(fh: BinaryIO) -> str:
    digest = hashlib.sha256()
    fh.seek(0)
    for block in iter(lambda: fh.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def sound_id_for(content_sha256: str) -> str:
    return f"local:{content_sha256[:16]}"


def caption_from_name(path: Path) -> str:
    """``door_slam-02.wav`` -> ``door slam 02``."""
    text = re.sub(r"[_\-.]+", " ", path.stem)
    return re.sub(r"\s+", " ", text).strip() or path.name


# foley's ``LicenseRecord.to_dict()`` defaults, in its key order (foley 0.0.89).
LICENSE_DEFAULTS: dict[str, Any] = {
    "source": "",
    "source_id": "",
    "source_url": None,
    "acquisition_method": "user",
    "retrieved_at": None,
    "adapter_version": None,
    "content_sha256": None,
    "license_id": "unknown",
    "license_name": None,
    "license_version": None,
    "license_url": None,
    "rights_holder": None,
    "creator_name": None,
    "creator_url": None,
    "commercial_ok": False,
    "embed_in_derivative_ok": True,
    "redistribute_standalone_ok": False,
    "cache_bytes_ok": False,
    "modification_ok": False,
    "ai_training_ok": False,
    "ai_training_scope": None,
    "gen_ai_preference": None,
    "revenue_cap_usd": None,
    "requires_attribution": False,
    "attribution_text": None,
    "notice_text_required": None,
    "transformations": [],
    "is_ai_generated": False,
    "generator_model": None,
    "generator_version": None,
    "generation_prompt": None,
    "generation_prompt_used": None,
    "generation_seed": None,
    "generation_params": {},
    "watermark": None,
    "c2pa_manifest_ref": None,
    "contains_recognizable_voice": False,
    "potential_trademark": False,
    "disclosure_recommended": False,
    "rights_verified": False,
    "verified_at": None,
    "schema_version": 1,
}


def license_record(**fields: Any) -> dict[str, Any]:
    """A complete licence record in foley's key order: the defaults with ``fields`` set.

    An unknown field is an error (a typo would otherwise add a key foley ignores).
    """
    unknown = set(fields) - LICENSE_DEFAULTS.keys()
    if unknown:
        raise KeyError(f"not a licence field: {', '.join(sorted(unknown))}")
    record = {**LICENSE_DEFAULTS, **fields}
    # Fresh containers: records must not share the defaults' list and dict.
    record["transformations"] = list(record["transformations"])
    record["generation_params"] = dict(record["generation_params"])
    return record


def _license(path: Path) -> dict[str, Any]:
    # The user owns the file.
    return license_record(source="user", source_id=str(path), source_url=path.as_uri())


def local_candidate(
    path: Path,
    digest: str,
    *,
    sample_rate: int | None,
    bit_depth: int | None,
    channels: int | None,
    duration_s: float | None,
    file_format: str,
    caption: str | None = None,
    tags: Iterable[str] = (),
    ucs_category: str | None = None,
    ucs_subcategory: str | None = None,
) -> dict[str, Any]:
    """A foley ``Candidate.to_dict()`` for a local file of content ``digest``: the one shape
    both ``add`` and a library folder write (the caption defaults to the file's name)."""
    sound: dict[str, Any] = {
        "id": sound_id_for(digest),
        "content_sha256": digest,
        "hash_algo": "sha256",
        "uri": str(path),
        "storage_mode": "by_reference",
        "archive_format": None,
        "source_sample_rate": sample_rate,
        "source_bit_depth": bit_depth,
        "license": _license(path),
        "caption": caption or caption_from_name(path),
        "tags": list(tags),
        "ucs_category": ucs_category,
        "ucs_subcategory": ucs_subcategory,
        "audioset_labels": [],
        "duration_s": duration_s,
        "sample_rate": sample_rate,
        "channels": channels,
        "loudness_lufs": None,
        "format": file_format,
        "qc": None,
        "embedding_model": None,
        "embedding_dim": None,
        "embedding_ref": None,
        "named_cue": None,
        "schema_version": 1,
    }
    return {
        "sound": sound,
        "origin": "retrieved",
        "event": None,
        "clap_score": None,
        "bm25_score": None,
        "rrf_score": None,
        "rerank_score": None,
        "verdict": None,
        "license_ok": None,
        "preview_uri": None,
        "notes": [],
        "cost_estimate_usd": None,
        "cost_actual_usd": None,
    }


def candidate_from_audio(path: Path, notes: list[str] | None = None) -> dict[str, Any]:
    """A foley ``Candidate.to_dict()`` for one local audio file (raises on unreadable audio).

    ``notes``, when given, receives what the decoder libraries printed while reading the
    header (kept off the terminal, where it would name no file)."""
    import soundfile  # local import: only ``add`` needs libsndfile

    path = path.expanduser().resolve()
    # One regular-file descriptor for the header and the hash: a FIFO, a device or a
    # socket is refused at once (OSError) instead of blocking or reading forever.
    fd, _ = open_regular(path, follow=True)
    with os.fdopen(fd, "rb") as fh:
        try:
            if notes is None:
                info = soundfile.info(fh)
            else:
                said: list[str] = []
                try:
                    with _library_output() as said:
                        info = soundfile.info(fh)
                finally:
                    notes.extend(said)  # filled as the capture ends
        except (RuntimeError, soundfile.LibsndfileError) as exc:
            raise ValueError(f"not audio libsndfile can read: {_sndfile_reason(exc)}") from None
        if info.samplerate <= 0 or info.channels <= 0:
            raise ValueError("not audio libsndfile can read (no sample rate or channels)")
        digest = _sha256_of(fh)
    duration = info.frames / info.samplerate if info.frames >= 0 else None
    return local_candidate(
        path,
        digest,
        sample_rate=int(info.samplerate),
        bit_depth=_BIT_DEPTH.get(str(info.subtype)),
        channels=int(info.channels),
        duration_s=round(duration, 6) if duration is not None else None,
        file_format=str(info.format).lower(),
    )


def _check_candidate(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: a candidate must be a JSON object")
    sound = value.get("sound")
    if not isinstance(sound, dict) or not isinstance(sound.get("id"), str) or not sound["id"]:
        raise ValueError(f"{where}: a candidate needs sound.id (a non-empty string)")
    return value


def candidates_from_json(path: Path) -> list[dict[str, Any]]:
    """Candidate dicts from a JSON file (one object or a list) or JSONL (one per line)."""
    try:
        text = read_capped(path, MAX_ADD_JSON_BYTES, follow=True).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 ({exc.reason})") from None
    if path.suffix.lower() in JSONL_EXTENSIONS:
        out = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {lineno}: invalid JSON ({exc.msg})") from None
            out.append(_check_candidate(value, f"line {lineno}"))
        return out
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(value, list):
        return [_check_candidate(v, f"item {i}") for i, v in enumerate(value)]
    return [_check_candidate(value, "file")]


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and Path(name).suffix.lower() in AUDIO_EXTENSIONS:
                yield Path(root) / name


def collect(paths: list[Path]) -> Iterator[dict[str, Any] | AddProblem | AddNote]:
    """Candidates from files/folders, in order; problems are yielded, not raised, and so
    is what a decoder library said about a file (an :class:`AddNote`, before its
    candidate).

    A file named explicitly that is neither JSON/JSONL nor readable audio is a problem;
    inside a folder only files with an audio extension are tried.
    """
    for given in paths:
        path = given.expanduser()
        if not path.exists():
            yield AddProblem(str(given), "no such file or folder")
            continue
        files = list(_walk(path)) if path.is_dir() else [path]
        for file in files:
            suffix = file.suffix.lower()
            try:
                if suffix in JSON_EXTENSIONS or suffix in JSONL_EXTENSIONS:
                    yield from candidates_from_json(file)
                else:
                    notes: list[str] = []
                    try:
                        candidate = candidate_from_audio(file, notes)
                    finally:
                        for text in notes:
                            yield AddNote(str(file), text)
                    yield candidate
            except (ValueError, OSError) as exc:
                yield AddProblem(str(file), str(exc))
            except RecursionError:
                yield AddProblem(str(file), "JSON nested too deeply to read")
