"""A library folder as a source of candidates: its foley session, the candidates of its
files (shaped exactly as ``foley-tui add`` makes them), and the folders opened before.

Decisions made on a folder go to a foley session of its own: a ULID id, the folder's name
as its title, and the folder's real path recorded in the data dir's list of folders
(``$FOLEY_DATA_DIR/foley-tui/folders.json``, which the sessions screen lists). Every
sound file becomes a candidate keyed by its content (``local:<sha256 prefix>``, as
``add`` keys it), so duplicates are one candidate and a moved file keeps its id; its
caption is the embedded description, its tags the folder, file name, UCS fields,
library and vendor, so the list's ``/`` finds a sound by any of them.

Headless: never imports textual.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foley_tui.library.cache import Entry, LibraryIndex
from foley_tui.library.registry import FolderRegistry
from foley_tui.store.local import local_candidate

#: Players decode these; a file of another format is listed as a problem, not a candidate.
PLAYABLE_FORMATS = frozenset({"wav", "flac", "ogg", "opus", "mp3", "aiff"})


def _soundfile_format(fmt: str) -> str:
    """The format name ``add`` records (libsndfile's, lower case)."""
    return {"opus": "ogg", "w64": "w64"}.get(fmt, fmt)


def candidate_for(root: Path, entry: Entry, paths: Iterable[str] = ()) -> dict[str, Any] | None:
    """The foley candidate of ``entry`` (None for a file that cannot be auditioned).

    The keys and their order are ``add``'s (``foley_tui.store.local.candidate_from_audio``);
    what the file's metadata says fills the fields ``add`` leaves empty: the caption (its
    description), the tags, ``ucs_category``/``ucs_subcategory``. ``paths``: the other
    paths of the same content, kept as tags so ``/`` finds a duplicate by any of them.
    """
    meta = entry.meta
    if entry.sha256 is None or meta.problem is not None or meta.format not in PLAYABLE_FORMATS:
        return None
    path = root / entry.rel
    tags: list[str] = []
    for rel in [entry.rel, *paths]:
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        name = rel.rsplit("/", 1)[-1]
        for value in (folder, name):
            if value and value not in tags:
                tags.append(value)
    u = meta.ucs
    for value in (u.catid, u.category, u.subcategory, meta.library, meta.vendor, *u.keywords):
        if value and value not in tags:
            tags.append(value)
    return local_candidate(
        path,
        entry.sha256,
        sample_rate=meta.sample_rate,
        bit_depth=meta.bit_depth,
        channels=meta.channels,
        duration_s=meta.duration_s,
        file_format=_soundfile_format(meta.format),
        caption=meta.description,
        tags=tags,
        ucs_category=u.category or u.catid or None,
        ucs_subcategory=u.subcategory or None,
    )


def candidate_of_group(root: Path, group: list[Entry]) -> dict[str, Any] | None:
    """The candidate of one content held at the paths of ``group`` (in path order): the
    first playable path plays, every path is in its tags."""
    for i, entry in enumerate(group):
        others = [e.rel for j, e in enumerate(group) if j != i]
        candidate = candidate_for(root, entry, others)
        if candidate is not None:
            return candidate
    return None


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What :func:`sync_candidates` wrote."""

    added: int
    updated: int
    kept: int


def _is_ours(existing: Mapping[str, Any], root: Path) -> bool:
    """Whether a cached candidate is one this folder made (a user file under the root,
    or one whose file is gone): only those are rewritten; an agent's never are."""
    sound = existing.get("sound")
    if not isinstance(sound, Mapping):
        return False
    lic = sound.get("license")
    if not isinstance(lic, Mapping) or lic.get("source") != "user":
        return False
    uri = sound.get("uri")
    if not isinstance(uri, str) or not uri:
        return False
    path = Path(uri)
    return path.is_relative_to(root) or not path.exists()


def sync_candidates(
    store: Any,
    index: LibraryIndex,
    session_id: str,
    *,
    progress: Callable[[int, int], None] | None = None,
    batch: int = 500,
) -> SyncReport:
    """Cache the folder's candidates in ``store`` (the ``SessionStore`` of
    ``session_id``) through its public API, as ``add`` does: only the contents changed
    since the last sync to this session are looked at; a new sound is added, a sound this
    folder made whose file moved or whose metadata changed is rewritten, any other
    candidate (an agent's) is left as it is."""
    shas = index.unsynced(session_id)
    existing = set(store.candidate_ids()) if shas else set()
    added = updated = kept = 0
    for start in range(0, len(shas), batch):
        chunk = shas[start : start + batch]
        pending: list[dict[str, Any]] = []
        for group in index.sounds_of(chunk).values():
            candidate = candidate_of_group(index.root, group) if group else None
            if candidate is None:
                continue
            sound_id = candidate["sound"]["id"]
            if sound_id not in existing:
                pending.append(candidate)
                existing.add(sound_id)
                added += 1
                continue
            old = store.candidate(sound_id)
            if old is not None and old != candidate and _is_ours(old, index.root):
                pending.append(candidate)
                updated += 1
            else:
                kept += 1
        if pending:
            store.cache_candidates(pending)
        index.mark_synced(session_id, chunk)
        if progress is not None:
            progress(min(start + batch, len(shas)), len(shas))
    return SyncReport(added, updated, kept)


def folder_session(service: Any, root: Path, session: str | None = None) -> str:
    """The session that holds ``root``'s decisions: ``session`` when given (an existing
    session id), else the one recorded for the folder, else a new one titled with the
    folder's name. The folder is recorded as opened, with that session."""
    real = Path(os.path.realpath(root.expanduser()))
    registry = FolderRegistry(service.data_dir)
    session_id = session
    if session_id is None:
        recorded = registry.session_of(real)
        if recorded is not None and _exists(service, recorded):
            session_id = recorded
    if session_id is None:
        session_id = service.create(real.name or str(real))
    registry.record(real, session_id)
    return str(session_id)


def _exists(service: Any, session_id: str) -> bool:
    try:
        return bool(service.resolve(session_id, exact=True) == session_id)
    except Exception:  # absent, deleted since, or an invalid id: make a new one
        return False
