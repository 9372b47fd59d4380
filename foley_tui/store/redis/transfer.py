"""``session push`` / ``session pull``: copy a session between the file store and Redis.

Byte for byte: every candidate, pick and reject keeps its exact stored bytes (a file
foley wrote by hand stays that file), and the copy is checksummed like an export: a
SHA-256 over every (namespace, key, SHA-256 of the bytes), the journal and the shared
metadata is computed on the source, then again on the destination after the write; a
mismatch is an error. Our other per-session files (narration, messages, usage: anything
else in ``.foley-tui/`` but the lock and the index caches) travel with the session.

A push given a locator (the audio package's resolver, which finds the files locally)
also copies the audio each candidate plays from, as content-addressed blobs
``<prefix>audio:<sha256>`` indexed per session by sound id (``<prefix>{S}:audio``): the
player streams them from Redis on a machine where the file is not (:mod:`.audio`);
pulling writes them to the data dir's ``audio/`` byte store, where the resolver looks
first. Audio whose licence forbids caching it
(``cache_bytes_ok`` false) is skipped and listed.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foley_tui.safe_io import MAX_JOURNAL_BYTES, MAX_RECORD_BYTES, MAX_STATE_BYTES
from foley_tui.store.backend import JOURNAL_FILE, META_FILE, STATE_DIR
from foley_tui.store.codec import DecodeError, decode_name, encode_key, loads_object
from foley_tui.store.errors import SessionNotFoundError, SessionServiceError
from foley_tui.store.files import atomic_write, fsync_dir, read_bytes, syncfs
from foley_tui.store.records import MARKS_NS
from foley_tui.store.redis.keys import LOGS
from foley_tui.store.redis.namespace import NAMESPACES, RedisHash, too_large
from foley_tui.store.redis.service import RedisSessionService
from foley_tui.store.service import SessionService

#: Files of ``.foley-tui/`` that are caches or locks, never copied.
NOT_COPIED = frozenset({"lock", "index.bin", "index.json", "index.sqlite", "index.sqlite-wal"})
SHARED_META = ("title", "created", "updated", "origin")
#: Field of the session's ``extra`` hash mapping sound id -> audio blob hash (pushed audio).
AUDIO_INDEX = "audio-index.json"


class TransferError(SessionServiceError):
    """A push or pull failed or did not verify; the destination says how it was left."""


@dataclass
class SessionBytes:
    """Everything of a session that moves, as exact bytes."""

    values: dict[str, dict[str, bytes]]
    meta: dict[str, Any]
    journal: list[dict[str, Any]]
    extra: dict[str, bytes] = field(default_factory=dict)

    def checksum(self) -> str:
        digest = hashlib.sha256()
        for name in NAMESPACES:
            for key in sorted(self.values.get(name, {})):
                value = self.values[name][key]
                digest.update(f"{name}\0{key}\0{hashlib.sha256(value).hexdigest()}\n".encode())
        for record in self.journal:
            body = {k: v for k, v in record.items() if k != "author" or v is not None}
            digest.update(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
        shared = {k: self.meta.get(k) for k in SHARED_META}
        digest.update(json.dumps(shared, sort_keys=True).encode())
        for name in sorted(self.extra):
            digest.update(f"{name}\0{hashlib.sha256(self.extra[name]).hexdigest()}\n".encode())
        return "sha256:" + digest.hexdigest()


@dataclass
class TransferReport:
    session_id: str
    counts: dict[str, int]
    checksum: str
    audio_copied: list[str] = field(default_factory=list)
    audio_skipped: list[tuple[str, str]] = field(default_factory=list)
    """(sound id, why) for audio not copied (licence forbids caching, not found...)."""


# ---------------------------------------------------------------------- file side
def _file_snapshot(service: SessionService, session_id: str) -> SessionBytes:
    store = service.get(session_id, touch=False)
    folder = service.sessions_dir / session_id
    values: dict[str, dict[str, bytes]] = {}
    for name in NAMESPACES:
        out: dict[str, bytes] = {}
        try:
            entries = sorted(
                os.scandir(folder / name), key=lambda e: (e.stat().st_mtime_ns, e.name)
            )
        except FileNotFoundError:
            entries = []
        for entry in entries:
            key = decode_name(entry.name)
            if key is None or not entry.is_file(follow_symlinks=False):
                continue  # foreign names and folders stay where they are (foley skips them)
            with contextlib.suppress(FileNotFoundError):
                out[key] = read_bytes(entry.path)
        values[name] = out
    values[MARKS_NS] = _marks_files(folder / STATE_DIR / MARKS_NS)
    meta = dict(store.meta_doc.document())
    journal = [entry.to_record() for entry in store.journal()]
    extra: dict[str, bytes] = {}
    state = folder / STATE_DIR
    with contextlib.suppress(FileNotFoundError), os.scandir(state) as it:
        for entry in it:
            name = entry.name
            if name in (META_FILE, JOURNAL_FILE) or name in NOT_COPIED or name.startswith("."):
                continue
            if entry.is_file(follow_symlinks=False):
                extra[name] = read_bytes(entry.path)
    return SessionBytes(values, meta, journal, extra)


def _marks_files(folder: Path) -> dict[str, bytes]:
    """Our marks records as their files' bytes, by sound id (none: no folder)."""
    out: dict[str, bytes] = {}
    with contextlib.suppress(FileNotFoundError), os.scandir(folder) as it:
        for entry in sorted(it, key=lambda e: e.name):
            key = decode_name(entry.name)
            if key is not None and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    out[key] = read_bytes(entry.path)
    return out


def _write_files(
    service: SessionService, session_id: str, snap: SessionBytes, *, overwrite: bool
) -> None:
    """Build the session in a hidden staging folder, then rename it into place."""
    sessions = service.sessions_dir
    target = sessions / session_id
    if (target.exists() or target.is_symlink()) and not overwrite:
        raise TransferError(f"session {session_id!r} exists here (use --overwrite to replace it)")
    sessions.mkdir(parents=True, exist_ok=True)
    staging = sessions / f".pull-{secrets.token_hex(6)}"
    staging.mkdir()
    try:
        for name in NAMESPACES:
            folder = staging / name
            folder.mkdir()
            for key, value in snap.values.get(name, {}).items():
                atomic_write(str(folder / encode_key(key)), value, durable=False)
        state = staging / STATE_DIR
        state.mkdir()
        marks = snap.values.get(MARKS_NS, {})
        if marks:  # ours, in our state folder (never foley's)
            (state / MARKS_NS).mkdir()
            for key, value in marks.items():
                atomic_write(str(state / MARKS_NS / encode_key(key)), value, durable=False)
        meta = {k: v for k, v in snap.meta.items() if k not in ("opened",)}
        atomic_write(str(state / META_FILE), json.dumps(meta, indent=4).encode(), durable=False)
        lines = b"".join(
            json.dumps(r, separators=(",", ":"), allow_nan=False).encode() + b"\n"
            for r in snap.journal
        )
        atomic_write(str(state / JOURNAL_FILE), lines, durable=False)
        for name, data in snap.extra.items():
            if "/" in name or name.startswith(".") or name in NOT_COPIED:
                continue
            atomic_write(str(state / name), data, durable=False)
        syncfs(str(staging))  # one flush for the whole staging tree
        trash: Path | None = None
        if target.exists() or target.is_symlink():
            trash = sessions / f".replaced-{secrets.token_hex(6)}"
            os.replace(target, trash)
        os.replace(staging, target)
        fsync_dir(str(sessions))
        if trash is not None:
            if trash.is_symlink():
                trash.unlink()
            else:
                shutil.rmtree(trash, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    service.forget(session_id)


# ---------------------------------------------------------------------- Redis side
def _redis_snapshot(service: RedisSessionService, session_id: str) -> SessionBytes:
    if not service.exists(session_id):
        raise SessionNotFoundError(f"no session {session_id!r} on {service.url}")
    backend = service.backend
    keys = backend.keys
    values: dict[str, dict[str, bytes]] = {}
    for name in NAMESPACES:
        raw = RedisHash(backend, session_id, name)
        items = dict(raw.raw_items(too_large=_refuse(name)))
        if name == "candidates":  # the list order travels: first-seen first
            with backend.errors("could not read the candidate order"):
                order = [k.decode() for k in backend.client.zrange(keys.order(session_id), 0, -1)]
            ranked = {k: items[k] for k in order if k in items}
            ranked.update((k, v) for k, v in sorted(items.items()) if k not in ranked)
            items = ranked
        values[name] = items
    values[MARKS_NS] = dict(RedisHash(backend, session_id, MARKS_NS).raw_items())
    store = service.get(session_id, touch=False)
    meta = dict(store.meta_doc.document())
    journal = [entry.to_record() for entry in store.journal()]
    with backend.errors("could not read the session's documents"):
        extra_raw = backend.capped_hgetall(keys.extra(session_id), MAX_STATE_BYTES)
    extra: dict[str, bytes] = {}
    for i in range(0, len(extra_raw), 2):
        name, value = bytes(extra_raw[i]).decode(), extra_raw[i + 1]
        if isinstance(value, int):
            raise TransferError(f"the session's {name} is {too_large(value, MAX_STATE_BYTES)}")
        extra[name] = bytes(value)
    for name in LOGS:  # the conversation's log, as its file bytes
        with backend.errors("could not read the session's logs"):
            log = backend.capped_tail(keys.log(session_id, name), 0, MAX_JOURNAL_BYTES)
        if isinstance(log, int):
            raise TransferError(f"the session's {name} is {too_large(log, MAX_JOURNAL_BYTES)}")
        if log:
            extra[name] = bytes(log)
    return SessionBytes(values, meta, journal, extra)


def _refuse(namespace: str) -> Callable[[str, int], None]:
    """What a copy does with a value over the record cap: it refuses the session (the
    file store would not read that file either)."""

    def refuse(key: str, size: int) -> None:
        raise TransferError(f"{namespace}/{key} is {too_large(size, MAX_RECORD_BYTES)}: not copied")

    return refuse


def _write_redis(service: RedisSessionService, session_id: str, snap: SessionBytes) -> None:
    # Our other files go in the same transaction: the logs (the conversation) as log
    # strings, the documents (usage, narration...) in the session's extra hash.
    service.write_raw(session_id, snap.values, snap.meta, snap.journal, snap.extra)


# ---------------------------------------------------------------------- audio
Locate = Callable[[dict[str, Any], Path | None], tuple[Path | None, str | None]]
"""Where a candidate's audio is on this machine: ``locate(candidate, data dir)`` ->
(the file, or None and why not). The audio package's resolver answers it
(:func:`foley_tui.audio.resolve.local_file`); the store only copies bytes."""


def _audio_of(
    candidates: Iterable[tuple[str, bytes]], data_dir: Path | None, locate: Locate
) -> Iterable[tuple[str, Path | None, str | None]]:
    """(sound id, local audio file or None, why not) for every candidate."""
    for key, raw in candidates:
        try:
            data = loads_object(raw)
        except DecodeError as exc:
            yield key, None, f"unreadable candidate ({exc})"
            continue
        sound = data.get("sound") if isinstance(data.get("sound"), dict) else {}
        lic = sound.get("license") if isinstance(sound, dict) else None
        if not isinstance(lic, dict) or lic.get("cache_bytes_ok") is not True:
            yield key, None, "licence forbids caching its bytes (cache_bytes_ok false)"
            continue
        path, why = locate(data, data_dir)  # local files only: this is what gets pushed
        yield key, path, why


def _push_audio(
    service: RedisSessionService,
    session_id: str,
    snap: SessionBytes,
    report: TransferReport,
    locate: Locate,
) -> None:
    backend = service.backend
    index: dict[str, str] = {}
    candidates = snap.values["candidates"].items()
    for key, path, why in _audio_of(candidates, service.data_dir, locate):
        if path is None:
            report.audio_skipped.append((key, why or "no audio"))
            continue
        data = path.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        with backend.errors("could not copy audio"):
            backend.client.set(backend.keys.audio(sha), data, nx=True)
        index[key] = sha
        report.audio_copied.append(key)
    if index:
        with backend.errors("could not copy audio"):
            backend.client.hset(backend.keys.audio_index(session_id), mapping=index)


def _audio_index(
    service: RedisSessionService, session_id: str, snap: SessionBytes
) -> dict[str, str]:
    """sound id -> sha256 of the audio pushed with the session (older pushes kept it as a
    JSON document in the session's ``extra`` hash)."""
    backend = service.backend
    with backend.errors("could not read the session's audio index"):
        raw = backend.client.hgetall(backend.keys.audio_index(session_id))
    index = {k.decode(): v.decode() for k, v in raw.items()}
    old = snap.extra.get(AUDIO_INDEX)
    if not index and old:
        with contextlib.suppress(ValueError):
            loaded = json.loads(old)
            if isinstance(loaded, dict):
                index = {str(k): str(v) for k, v in loaded.items()}
    return index


def _pull_audio(
    source: RedisSessionService, target: SessionService, snap: SessionBytes, report: TransferReport
) -> None:
    index = _audio_index(source, report.session_id, snap)
    if target.data_dir is None:
        return
    blobs = target.data_dir / "audio"
    blobs.mkdir(parents=True, exist_ok=True)
    for key in snap.values["candidates"]:
        sha = index.get(key)
        if sha is None:
            report.audio_skipped.append((key, "no audio was pushed for it"))
            continue
        path = blobs / sha
        if not path.exists():
            with source.backend.errors("could not fetch audio"):
                data = source.backend.client.get(source.backend.keys.audio(sha))
            if data is None or hashlib.sha256(data).hexdigest() != sha:
                report.audio_skipped.append((key, "its audio blob is missing on the server"))
                continue
            atomic_write(str(path), bytes(data), durable=True)
        report.audio_copied.append(key)


# ---------------------------------------------------------------------- verbs
def push(
    files: SessionService,
    redis_service: RedisSessionService,
    session_id: str,
    *,
    audio: Locate | None = None,
    overwrite: bool = False,
) -> TransferReport:
    """Copy a file-store session to Redis (one transaction), then verify it; with
    ``audio``, also the audio it finds of each candidate (see :data:`Locate`)."""
    snap = _file_snapshot(files, session_id)
    if redis_service.exists(session_id) and not overwrite:
        raise TransferError(
            f"session {session_id!r} exists on {redis_service.url} (use --overwrite to replace it)"
        )
    _write_redis(redis_service, session_id, snap)
    report = _report(session_id, snap)
    if audio is not None:
        _push_audio(redis_service, session_id, snap, report, audio)
    check = _redis_snapshot(redis_service, session_id)
    check.extra.pop(AUDIO_INDEX, None)
    if check.checksum() != report.checksum:
        raise TransferError(f"push of {session_id!r} did not verify (checksum mismatch)")
    return report


def pull(
    redis_service: RedisSessionService,
    files: SessionService,
    session_id: str,
    *,
    with_audio: bool = False,
    overwrite: bool = False,
) -> TransferReport:
    """Copy a Redis session into the file store (staged, renamed into place), verified."""
    snap = _redis_snapshot(redis_service, session_id)
    files_snap = SessionBytes(
        snap.values,
        snap.meta,
        snap.journal,
        {k: v for k, v in snap.extra.items() if k != AUDIO_INDEX},
    )
    _write_files(files, session_id, files_snap, overwrite=overwrite)
    report = _report(session_id, files_snap)
    if with_audio:
        _pull_audio(redis_service, files, snap, report)
    if _file_snapshot(files, session_id).checksum() != report.checksum:
        raise TransferError(f"pull of {session_id!r} did not verify (checksum mismatch)")
    return report


def _report(session_id: str, snap: SessionBytes) -> TransferReport:
    counts = {name: len(snap.values.get(name, {})) for name in NAMESPACES}
    counts["journal"] = len(snap.journal)
    return TransferReport(session_id, counts, snap.checksum())


__all__ = ["SessionBytes", "TransferError", "TransferReport", "pull", "push"]
