"""Find similar: the candidates of a session that sound most like one of them.

Headless: never imports textual. Used by ``foley-tui similar`` and by the app's ``=``
view (from a worker). Every candidate's audio is found on this machine as a preview
would find it (:func:`foley_tui.audio.resolve.resolve`, no network), described once
(:mod:`foley_tui.audio.features`, cached by content hash, so a second query reads no
audio) and ranked by cosine distance against the query.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import Source

if TYPE_CHECKING:
    from foley_tui.audio.features import FeatureCache, Neighbour
    from foley_tui.store import SessionStore

DEFAULT_K = 10


class SimilarError(Exception):
    """The query cannot be answered (unknown id, its audio unplayable); one line."""


@dataclass(frozen=True, slots=True)
class SimilarResult:
    """The query's nearest neighbours, nearest first, and what could not be compared."""

    query: str
    neighbours: list[Neighbour]
    compared: int
    """Sounds with features (the query included)."""
    analysed: int
    """Of those, how many were analysed now (the rest came from the cache)."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Sound id -> why it was left out (no audio here, unreadable)."""


def _declared_sha(candidate: dict[str, Any]) -> str | None:
    sound = candidate.get("sound")
    sha = sound.get("content_sha256") if isinstance(sound, dict) else None
    if isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdefABCDEF" for c in sha):
        return sha
    return None


def find_similar(
    store: SessionStore,
    sound_id: str,
    *,
    k: int = DEFAULT_K,
    ids: Iterable[str] | None = None,
    cache: FeatureCache | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> SimilarResult:
    """The ``k`` candidates of ``store`` (or of ``ids``) that sound most like
    ``sound_id``. Raises :class:`SimilarError` when the query is unknown or cannot be
    analysed."""
    from foley_tui.audio.features import FeatureCache, Sound, default_cache_path, describe_all
    from foley_tui.audio.features import nearest as rank
    from foley_tui.audio.resolve import resolve

    if k < 1:
        raise SimilarError(f"-k must be at least 1 (got {k})")
    wanted = list(dict.fromkeys(store.candidate_ids() if ids is None else ids))
    if sound_id not in wanted:
        raise SimilarError(f"no candidate {sound_id!r} in session {store.session_id!r}")
    remote = store.remote_audio()
    sounds: list[Sound] = []
    skipped: dict[str, str] = {}
    for sid in wanted:
        candidate = store.candidate(sid)
        if candidate is None:
            skipped[sid] = "candidate unreadable"
            continue
        source = resolve(candidate, store.data_dir, allow_network=False, remote=remote)
        if not isinstance(source, Source):
            skipped[sid] = source.reason
            continue
        sounds.append(Sound(sid, source.path, _declared_sha(candidate)))
    if sound_id in skipped:
        raise SimilarError(f"cannot compare {sound_id!r}: {skipped[sound_id]}")
    own = cache is None
    features = FeatureCache(default_cache_path()) if cache is None else cache
    try:
        described = describe_all(sounds, features, progress=progress, cancelled=cancelled)
    finally:
        if own:
            features.close()
    skipped.update(described.errors)
    if sound_id not in described.vectors:
        raise SimilarError(f"cannot compare {sound_id!r}: {skipped.get(sound_id, 'cancelled')}")
    return SimilarResult(
        query=sound_id,
        neighbours=rank(sound_id, described.vectors, k),
        compared=len(described.vectors),
        analysed=described.analysed,
        skipped=skipped,
    )
