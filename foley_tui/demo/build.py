"""The bundled demo session: "Demo: a stormy night".

Builds, in a foley data dir, a session that looks like one a ``foley`` agent made for a
short scene: several candidates per scene event, each a full ``Candidate.to_dict()`` with
caption, tags, licence record, duration, sample rate and clap/bm25/rrf scores, a few with
a verdict or notes. The audio is the project's own CC0 synthesised sounds
(``assets/demo/sounds``, made by ``assets/generate_demo.py``), stored the three ways foley
stores audio so every lookup rule of the resolver is exercised:

- ``by_value``: the blob is copied into the byte store ``<data_dir>/audio/<sha256>`` (no
  extension) and ``sound.content_sha256`` names it;
- index-in-place: the FLAC is copied under ``<data_dir>/foley-tui-demo/sounds/`` and
  ``sound.uri`` is its absolute path (``storage_mode: by_reference``);
- a paid generation: the bytes sit in foley's generations cache
  (``generations/audio/<key>`` + ``generations/requests/<request key>.json``) and the
  candidate's notes name the request key, with an estimated and actual cost.

The candidates themselves (captions, licence records, scores, the starting decisions)
are data, in :mod:`foley_tui.demo.catalog` (its vocabulary in
:mod:`foley_tui.demo.vocab`); this module stores their audio and writes the session.

The session also gets a narration (``assets/demo/narration.flac``, synthesised once with
espeak-ng by ``assets/generate_narration.py``, CC0) and its word timeline, so the scene
events' symbolic onsets (``on 'slammed'``, ``during 'wind'``) resolve and the scene plays.

Headless: never imports textual.
"""

from __future__ import annotations

import hashlib
import json
import os
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

import soundfile as sf

from foley_tui.demo.catalog import (
    AUDIOSET_LABELS,
    DEMO_PICKS,
    DEMO_REJECTS,
    LOUDNESS_LUFS,
    SOUNDS,
)
from foley_tui.demo.vocab import GENERATED_PROMPT, DemoSound
from foley_tui.scene.narration import Narration, NarrationError, make_narration, write_narration
from foley_tui.store import SessionService, encode_key

__all__ = [
    "AUDIOSET_LABELS",
    "DEMO_PICKS",
    "DEMO_REJECTS",
    "DEMO_TITLE",
    "GENERATED_PROMPT",
    "LOCAL_FOLDER",
    "LOUDNESS_LUFS",
    "REPO_SOUNDS",
    "SOUNDS",
    "DemoError",
    "DemoSound",
    "build_demo",
    "demo_candidates",
    "demo_narration",
    "find_demo",
    "sounds_dir",
]

DEMO_TITLE = "Demo: a stormy night"
"""The demo session's fixed title (how ``foley-tui demo`` finds it again)."""

NARRATION_AUDIO = "narration.flac"
NARRATION_WORDS = "narration_words.json"
"""The demo narration and its word timeline, beside ``sounds/`` (assets/demo/)."""

LOCAL_FOLDER = "foley-tui-demo"
"""Folder under the data dir holding the demo's index-in-place (local path) files."""

# Where the FLACs live: the repo (editable install, a clone) or the wheel's data files
# (pyproject's [tool.setuptools.data-files] installs them under <prefix>/share/).
REPO_SOUNDS = Path(__file__).resolve().parents[2] / "assets" / "demo" / "sounds"
_SHARE_SUBDIR = Path("share") / "foley-tui" / "demo" / "sounds"


class DemoError(RuntimeError):
    """The demo cannot be built (its sounds are missing, the data dir is not writable)."""


def sounds_dir(source_tree: Path | None = REPO_SOUNDS) -> Path:
    """The folder holding the bundled demo FLACs.

    Looks in the source tree first (``source_tree``: editable installs and clones; None
    to look only where an install puts them), then in the install prefix's
    ``share/foley-tui/demo/sounds`` (a wheel install).

    Raises:
        DemoError: If neither holds the sounds.
    """
    candidates = [] if source_tree is None else [source_tree]
    for scheme_path in {sysconfig.get_path("data"), sysconfig.get_path("data", "posix_user")}:
        if scheme_path:
            candidates.append(Path(scheme_path) / _SHARE_SUBDIR)
    for folder in candidates:
        if (folder / "rain_roof.flac").is_file():
            return folder
    looked = ", ".join(str(c) for c in candidates)
    raise DemoError(f"the demo sounds are not installed (looked in {looked})")


# --------------------------------------------------------------------------- building


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a hidden temp file + rename (never a torn file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _request_key(sound: DemoSound) -> str:
    """A stable generation request key (foley's is a SHA-256 of the canonical request)."""
    request = {"backend": "elevenlabs", "prompt": sound.prompt, "duration_s": 5.0}
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _candidate(sound: DemoSound, source: Path, data_dir: Path) -> dict[str, Any]:
    """Store ``sound``'s audio the way its ``storage`` says and return its candidate dict."""
    blob = source.read_bytes()
    sha = hashlib.sha256(blob).hexdigest()
    info = sf.info(str(source))  # header only: no decoding on the first-run path
    rate, channels = int(info.samplerate), int(info.channels)
    licence = dict(sound.license)
    uri: str | None
    notes = list(sound.notes)
    if sound.storage == "by_value":
        target = data_dir / "audio" / sha
        if not target.exists():
            _write_atomic(target, blob)
        storage_mode, uri, content_sha = "by_value", sha, sha
        licence["content_sha256"] = sha
    elif sound.storage == "local":
        target = data_dir / LOCAL_FOLDER / "sounds" / source.name
        if not target.exists():
            _write_atomic(target, blob)
        storage_mode, uri, content_sha = "by_reference", str(target), None
    elif sound.storage == "generated":
        key = _request_key(sound)
        gen = data_dir / "generations"
        if not (gen / "audio" / sha).exists():
            _write_atomic(gen / "audio" / sha, blob)
        entry = {
            "content_key": sha,
            "backend": "elevenlabs",
            "prompt": sound.prompt,
            "affordances": {"duration_s": 5.0},
            "license": licence,
            "caption": sound.caption,
            "tags": list(sound.tags),
            "notes": [],
            "estimate_usd": sound.cost[0] if sound.cost else None,
            "at": 1795900000.0,
        }
        # foley's file name for the key, and dol's JsonFiles format (indent 4, no newline).
        _write_atomic(gen / "requests" / encode_key(key), json.dumps(entry, indent=4).encode())
        storage_mode, uri, content_sha = "by_reference", None, None
        notes.append(f"paid generation kept in the generations cache: {key}")
    else:  # pragma: no cover - a typo in SOUNDS above
        raise DemoError(f"unknown storage {sound.storage!r} for {sound.sound_id}")
    clap, bm25, rrf = sound.scores
    ucs_category, ucs_subcategory = sound.ucs or (None, None)
    record = {
        "id": sound.sound_id,
        "content_sha256": content_sha,
        "hash_algo": "sha256",
        "uri": uri,
        "storage_mode": storage_mode,
        "archive_format": "flac" if storage_mode == "by_value" else None,
        "source_sample_rate": rate,
        "source_bit_depth": 16,
        "license": licence,
        "caption": sound.caption,
        "tags": list(sound.tags),
        "ucs_category": ucs_category,
        "ucs_subcategory": ucs_subcategory,
        "audioset_labels": list(sound.audioset or AUDIOSET_LABELS.get(sound.stem, ())),
        "duration_s": round(info.frames / rate, 3),
        "sample_rate": rate,
        "channels": channels,
        "loudness_lufs": LOUDNESS_LUFS.get(sound.stem),
        "format": "flac",
        "qc": None,
        "embedding_model": None,
        "embedding_dim": None,
        "embedding_ref": None,
        "named_cue": None,
        "schema_version": 1,
    }
    return {
        "sound": record,
        "origin": "generated" if sound.storage == "generated" else "retrieved",
        "event": dict(sound.event),
        "clap_score": clap,
        "bm25_score": bm25 or None,
        "rrf_score": rrf,
        "rerank_score": None,
        "verdict": dict(sound.verdict) if sound.verdict else None,
        "license_ok": bool(licence["commercial_ok"]),
        "preview_uri": None,
        "notes": notes,
        "cost_estimate_usd": sound.cost[0] if sound.cost else None,
        "cost_actual_usd": sound.cost[1] if sound.cost else None,
    }


def demo_candidates(data_dir: Path, sounds: Path | None = None) -> list[dict[str, Any]]:
    """Put the demo's audio in ``data_dir`` and return its candidate dicts (foley format)."""
    folder = sounds if sounds is not None else sounds_dir()
    out = []
    for sound in SOUNDS:
        source = folder / f"{sound.stem}.flac"
        if not source.is_file():
            raise DemoError(f"demo sound missing: {source}")
        out.append(_candidate(sound, source, data_dir))
    return out


def _order(data_dir: Path, session_id: str, candidates: list[dict[str, Any]]) -> None:
    """Give the candidate files increasing mtimes, in ``SOUNDS`` order.

    The list's default order is the files' mtime (then id), and 25 files written within a
    few milliseconds share coarse timestamps: without this the demo would open in an
    arbitrary order instead of grouped by scene event, best match first. The times are a
    little in the past so no reader takes them for a write still in progress.
    """
    folder = data_dir / "sessions" / session_id / "candidates"
    start = time.time_ns() - 60 * 1_000_000_000
    for i, candidate in enumerate(candidates):
        stamp = start + i * 10_000_000  # 10 ms apart: distinct on any file system
        os.utime(folder / encode_key(candidate["sound"]["id"]), ns=(stamp, stamp))


def demo_narration(data_dir: Path, sounds: Path | None = None) -> Narration:
    """Put the demo's narration (espeak-ng, CC0) beside its local sounds in ``data_dir``
    and return the session's reference to it, with its word timeline."""
    folder = (sounds if sounds is not None else sounds_dir()).parent
    audio = folder / NARRATION_AUDIO
    words = folder / NARRATION_WORDS
    for path in (audio, words):
        if not path.is_file():
            raise DemoError(f"demo narration missing: {path}")
    target = data_dir / LOCAL_FOLDER / NARRATION_AUDIO
    if not target.exists() or target.stat().st_size != audio.stat().st_size:
        _write_atomic(target, audio.read_bytes())
    return make_narration(target, words)


def find_demo(service: SessionService) -> str | None:
    """The id of the demo session in ``service``, if there is one (found by its title)."""
    for info in service.list():
        if info.title == DEMO_TITLE and not info.made_by_foley:
            return info.session_id
    return None


def build_demo(
    data_dir: Path, *, reset: bool = False, service: SessionService | None = None
) -> str:
    """Build the demo session in ``data_dir`` if it is absent; return its id.

    Args:
        data_dir: The foley data dir (audio blobs, local files and the generations cache
            go there too).
        reset: Delete an existing demo session first and build it afresh. Other
            sessions are never touched.
        service: The session service over ``data_dir`` (made if not given).

    Raises:
        DemoError: If the demo sounds are missing or the data dir cannot be written.
    """
    service = service if service is not None else SessionService(data_dir)
    existing = find_demo(service)
    if existing is not None and not reset:
        return existing
    try:
        candidates = demo_candidates(data_dir)
    except OSError as exc:
        raise DemoError(f"cannot write the demo's audio into {data_dir}: {exc}") from exc
    session_id = service.create(DEMO_TITLE)
    try:
        store = service.get(session_id)
        store.cache_candidates(candidates)
        _order(data_dir, session_id, candidates)
        for sound_id, layer, onset in DEMO_PICKS:
            store.add_pick(sound_id, layer=layer, onset=onset)
        for sound_id, reason in DEMO_REJECTS:
            store.add_reject(sound_id, reason=reason)
        write_narration(store, demo_narration(data_dir))
    except (OSError, NarrationError) as exc:
        # A half-built demo would be found (by its title) and opened next time: remove it.
        service.delete(session_id)
        raise DemoError(f"cannot write the demo session into {data_dir}: {exc}") from exc
    if existing is not None:  # only once the new one is complete
        service.delete(existing)
    return session_id
