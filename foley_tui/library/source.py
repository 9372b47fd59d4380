"""One library folder opened for auditioning: its cached index, its session's
candidates, and what the list and the details show of each sound beyond the candidate.

:meth:`FolderSource.refresh` is the whole background job of an open (walk, read what
changed, cache the candidates that changed); the list's extra columns and the details'
embedded fields are read from the index by sound id, a screen at a time, so a 100k-file
folder is never held in memory whole.

Headless: never imports textual.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foley_tui.library.cache import Entry, LibraryIndex, Refresh
from foley_tui.library.folder import SyncReport, sync_candidates

#: While a big folder is read, how often what is read so far becomes candidates.
SYNC_EVERY_S = 2.0
#: Rows of library columns kept in memory (a few screens' worth, refilled on scroll).
COLUMNS_KEPT = 4000

#: The sorts a folder session adds to the list's (by the column of its first path).
LIBRARY_SORTS: dict[str, str] = {
    "name": "rel",
    "folder": "folder",
    "category": "category",
    "library": "library",
    "bits": "bits",
}


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
        parts = [f"{self.refresh.files} files"]
        if self.refresh.read:
            parts.append(f"{self.refresh.read} read")
        if self.sync.added or self.sync.updated:
            parts.append(f"{self.sync.added} new, {self.sync.updated} updated")
        if self.refresh.moved:
            parts.append(f"{len(self.refresh.moved)} moved")
        if self.refresh.problems:
            parts.append(f"{len(self.refresh.problems)} not playable")
        return ", ".join(parts)


def category_of(entry: Entry) -> str:
    """The category column: ``CATEGORY/SUBCATEGORY`` when the file names them, else its
    CatID as written (the official CatID list is not shipped)."""
    u = entry.meta.ucs
    return "/".join(x for x in (u.category, u.subcategory) if x) or u.catid


class FolderSource:
    """A folder tree and the session its decisions go to."""

    def __init__(self, root: Path, session_id: str, *, cache_dir: Path | None = None) -> None:
        self.index = LibraryIndex(root, cache_dir=cache_dir)
        self.root = self.index.root
        self.session_id = session_id
        self._columns: dict[str, LibraryColumns | None] = {}
        self._lock = threading.Lock()
        self.last: RefreshResult | None = None

    @property
    def name(self) -> str:
        return self.root.name or str(self.root)

    def _sha_of(self, sound_id: str) -> str | None:
        if not sound_id.startswith("local:"):
            return None
        return self.index.sound_prefix(sound_id.removeprefix("local:"))

    def columns(self, sound_id: str) -> LibraryColumns | None:
        """The library columns of a sound (None for a sound not of this folder)."""
        with self._lock:
            if sound_id in self._columns:
                return self._columns[sound_id]
        sha = self._sha_of(sound_id)
        found: LibraryColumns | None = None
        if sha is not None:
            group = self.index.of_content(sha)
            if group:
                first = group[0]
                meta = first.meta
                found = LibraryColumns(
                    first.name,
                    first.folder,
                    meta.description,
                    category_of(first),
                    meta.library or meta.vendor,
                    meta.bit_depth,
                    len(group),
                )
        with self._lock:
            if len(self._columns) >= COLUMNS_KEPT:
                self._columns.clear()
            self._columns[sound_id] = found
        return found

    def sort_values(self, sort: str) -> dict[str, Any]:
        """Sound id -> the value a library sort orders by (see :data:`LIBRARY_SORTS`)."""
        values = self.index.column_values(LIBRARY_SORTS[sort])
        return {f"local:{sha[:16]}": value for sha, value in values.items()}

    def categories(self) -> list[tuple[str, int]]:
        """The folder's categories with how many sounds (rows) are in each, most common
        first; a sound's category is its first path's. One query of the index (the K
        screen asks it on the UI thread)."""
        counts: dict[str, int] = {}
        for category in self.index.column_values("category").values():
            if category:
                counts[category] = counts.get(category, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def details(self, sound_id: str) -> SoundDetails | None:
        """All the paths and the embedded fields of a ``local:`` sound of this folder."""
        sha = self._sha_of(sound_id)
        if sha is None:
            return None
        entries = self.index.of_content(sha, with_fields=True)
        if not entries:
            return None
        return SoundDetails([e.rel for e in entries], entries[0], dict(entries[0].meta.fields))

    def refresh(
        self,
        store: Any,
        progress: Callable[[str, int, int], None] | None = None,
        stop: Callable[[], bool] | None = None,
        synced: Callable[[], None] | None = None,
    ) -> RefreshResult:
        """Walk, read what changed, and cache the changed candidates in ``store`` (the
        folder's session). Runs in a worker: ``progress(phase, done, total)`` reports
        each step (``walk``, ``read``, ``cache``). While a big folder is read, what is read
        so far is cached every :data:`SYNC_EVERY_S`, so the list fills in as it goes; on
        a first visit the first batch (read before the rest of the tree is listed) is
        cached at once. ``synced()``: candidates were added or rewritten (the list may
        look now rather than at its next poll)."""
        totals = SyncReport(0, 0, 0)
        # A first visit shows nothing until something is cached: its first sync is not
        # held back.
        last = time.monotonic() - (SYNC_EVERY_S if self.index.count() == 0 else 0.0)

        def add(report: SyncReport) -> None:
            nonlocal totals
            totals = SyncReport(
                totals.added + report.added,
                totals.updated + report.updated,
                totals.kept + report.kept,
            )
            if synced is not None and (report.added or report.updated):
                synced()

        def stored() -> None:
            nonlocal last
            if time.monotonic() - last >= SYNC_EVERY_S:
                add(sync_candidates(store, self.index, self.session_id))
                last = time.monotonic()

        refresh = self.index.refresh(progress, stop, stored)
        with self._lock:
            self._columns.clear()

        def cached(done: int, total: int) -> None:
            if progress is not None:
                progress("cache", done, total)

        add(sync_candidates(store, self.index, self.session_id, progress=cached))
        self.last = RefreshResult(refresh, totals)
        return self.last
