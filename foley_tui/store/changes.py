"""Which files changed since we last looked: per file, so our own write is not news.

A watcher (the audition screen's poll) takes a :class:`Snapshot` of ``picks/`` and
``rejects/`` as ``{file name: (mtime_ns, size)}`` plus cheap tokens for ``candidates/``
and the journal, and compares it with the last snapshot it accepted. Comparing per file
(not a folder's mtime) means:

- our own decision is recorded right after it is written (the watch subscribes to the
  store's decision writes: one ``stat`` per decision file), so the next poll finds that
  file exactly as recorded and re-reads and re-applies nothing;
- a write foley makes in the same clock tick to another sound's file is still seen (its
  name differs), and so is foley rewriting the same file after us (its size or mtime_ns
  differs from what we recorded).

Only stores whose watch was asked for pay for the subscription; the CLI pays nothing.
Threads: our writes are recorded on the deciding thread, snapshots taken on the poll
worker; the baseline is guarded by a lock. What a snapshot holds comes from the
backend's own stamps (file stamps, write counters, Redis versions).

Headless: never imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from dataclasses import dataclass, field

from foley_tui.store.backend import FolderState, SessionBackend


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The state of a session's files at one moment, as cheap to take as a few scans."""

    picks: FolderState
    rejects: FolderState
    candidates: Hashable
    journal: Hashable


@dataclass(frozen=True, slots=True)
class Diff:
    """What differs between the accepted baseline and a new snapshot."""

    picks: frozenset[str] = frozenset()
    """File names in ``picks/`` added, removed or rewritten (every name when unknown)."""
    rejects: frozenset[str] = frozenset()
    candidates: bool = False
    journal: bool = False

    @property
    def decisions(self) -> bool:
        return bool(self.picks or self.rejects)

    @property
    def empty(self) -> bool:
        return not (self.picks or self.rejects or self.candidates or self.journal)


_ALL = frozenset({"*"})
"""Stands for "some names changed" where names cannot be told apart (memory stores)."""


def _changed(old: FolderState, new: FolderState) -> frozenset[str]:
    if isinstance(old, int) or isinstance(new, int):
        return frozenset() if old == new else _ALL
    names = {name for name, stamp in new.items() if old.get(name) != stamp}
    names.update(name for name in old if name not in new)
    return frozenset(names)


@dataclass
class DecisionWatch:
    """The last accepted snapshot of one session, kept current by our own writes (it
    subscribes to the store's decision writes: see ``SessionStore.decision_watch``)."""

    backend: SessionBackend
    baseline: Snapshot | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def snapshot(self) -> Snapshot:
        """Scan the session's folders (no file is opened, only listed and stat'd)."""
        backend = self.backend
        return Snapshot(
            picks=backend.stamps("picks"),
            rejects=backend.stamps("rejects"),
            candidates=backend.candidates_token(),
            journal=backend.state.journal_token(),
        )

    def diff(self, new: Snapshot) -> Diff:
        with self._lock:
            old = self.baseline
        if old is None:
            return Diff(picks=_ALL, rejects=_ALL, candidates=True, journal=True)
        return Diff(
            picks=_changed(old.picks, new.picks),
            rejects=_changed(old.rejects, new.rejects),
            candidates=old.candidates != new.candidates,
            journal=old.journal != new.journal,
        )

    def accept(self, snapshot: Snapshot) -> None:
        """Take ``snapshot`` as what the watcher now knows."""
        with self._lock:
            self.baseline = snapshot

    def own_write(self, sound_id: str) -> None:
        """Record the decision files of ``sound_id`` as they are after our own write."""
        with self._lock:
            old = self.baseline
            if old is None:
                return
            self.baseline = Snapshot(
                picks=self.backend.stamps_after_write("picks", old.picks, sound_id),
                rejects=self.backend.stamps_after_write("rejects", old.rejects, sound_id),
                candidates=old.candidates,
                journal=old.journal,
            )

    def own_journal(self) -> None:
        """Record the journal as it is now, before the caller reads it: our own append is
        then no news to the next poll, while anything appended after this stat is."""
        token = self.backend.state.journal_token()
        with self._lock:
            old = self.baseline
            if old is not None:
                self.baseline = Snapshot(old.picks, old.rejects, old.candidates, token)


__all__ = ["DecisionWatch", "Diff", "FolderState", "Snapshot"]
