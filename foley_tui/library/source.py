"""One library folder opened for auditioning: its cached index, its session's
candidates, and what the list and the details show of each sound beyond the candidate.

:meth:`FolderSource.refresh` is the whole background job of an open (walk, read what
changed, cache the candidates); the list's extra columns and the details' embedded
fields are read from the index by sound id, a screen at a time.

Headless: never imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foley_tui.library.cache import Entry, LibraryIndex, Refresh
from foley_tui.library.folder import SyncReport, sync_candidates


@dataclass(frozen=True, slots=True)
class LibraryColumns:
    """A sound's library columns (the list of a folder session shows them)."""

    name: str
    folder: str
    description: str
    category: str
    library: str
    bit_depth: int | None
    paths: int
    """How many paths of the folder hold this content (duplicates are one row)."""


@dataclass(slots=True)
class SoundDetails:
    """Everything the folder knows of one sound: all its paths and every embedded field."""

    paths: list[str]
    entry: Entry
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class RefreshResult:
    """What one refresh found and wrote."""

    refresh: Refresh
    sync: SyncReport

    def summary(self) -> str:
        sounds = self.sync.added + self.sync.updated + self.sync.kept
        parts = [f"{len(self.refresh.entries)} files", f"{sounds} sounds"]
        if self.refresh.read:
            parts.append(f"{self.refresh.read} read")
        if self.refresh.moved:
            parts.append(f"{len(self.refresh.moved)} moved")
        problems = self.refresh.problems
        if problems:
            parts.append(f"{len(problems)} not playable")
        return ", ".join(parts)


class FolderSource:
    """A folder tree and the session its decisions go to."""

    def __init__(self, root: Path, session_id: str, *, cache_dir: Path | None = None) -> None:
        self.index = LibraryIndex(root, cache_dir=cache_dir)
        self.root = self.index.root
        self.session_id = session_id
        self._columns: dict[str, LibraryColumns] = {}
        self._lock = threading.Lock()
        self.last: RefreshResult | None = None
        self._load_columns(self.index.entries())

    def _load_columns(self, entries: list[Entry]) -> None:
        groups: dict[str, list[Entry]] = {}
        for entry in entries:
            if entry.sound_id is not None:
                groups.setdefault(entry.sound_id, []).append(entry)
        columns: dict[str, LibraryColumns] = {}
        for sound_id, group in groups.items():
            first = min(group, key=lambda e: e.rel)
            meta = first.meta
            u = meta.ucs
            category = "/".join(x for x in (u.category, u.subcategory) if x) or u.catid
            columns[sound_id] = LibraryColumns(
                first.name,
                first.folder,
                meta.description,
                category,
                meta.library or meta.vendor,
                meta.bit_depth,
                len(group),
            )
        with self._lock:
            self._columns = columns

    def columns(self, sound_id: str) -> LibraryColumns | None:
        with self._lock:
            return self._columns.get(sound_id)

    def categories(self) -> list[tuple[str, int]]:
        """The categories of the folder's sounds with their counts, most common first."""
        counts: dict[str, int] = {}
        with self._lock:
            for columns in self._columns.values():
                if columns.category:
                    counts[columns.category] = counts.get(columns.category, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def details(self, sound_id: str) -> SoundDetails | None:
        """All the paths and the embedded fields of a ``local:`` sound of this folder."""
        if not sound_id.startswith("local:"):
            return None
        entries = self.index.by_sound_prefix(sound_id.removeprefix("local:"))
        if not entries:
            return None
        return SoundDetails([e.rel for e in entries], entries[0], dict(entries[0].meta.fields))

    def refresh(
        self,
        store: Any,
        progress: Callable[[str, int, int], None] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> RefreshResult:
        """Walk, read what changed, and cache the candidates in ``store`` (the folder's
        session). Runs in a worker: ``progress(phase, done, total)`` reports each step."""
        refresh = self.index.refresh(progress, stop)
        self._load_columns(refresh.entries)

        def synced(done: int, total: int) -> None:
            if progress is not None:
                progress("cache", done, total)

        report = sync_candidates(store, self.root, refresh, progress=synced)
        self.last = RefreshResult(refresh, report)
        return self.last
