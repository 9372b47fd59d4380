"""Which files changed since we last looked: per file, so our own write is not news.

A watcher (the audition screen's poll) takes a :class:`Snapshot` of ``picks/`` and
``rejects/`` as ``{file name: (mtime_ns, size)}`` plus cheap tokens for ``candidates/``
and the journal, and compares it with the last snapshot it accepted. Comparing per file
(not a folder's mtime) means:

- our own decision is recorded right after it is written (:func:`note_own_decision`, a
  hook in the store's decision path: one ``stat`` per decision file), so the next poll
  finds that file exactly as recorded and re-reads and re-applies nothing;
- a write foley makes in the same clock tick to another sound's file is still seen (its
  name differs), and so is foley rewriting the same file after us (its size or mtime_ns
  differs from what we recorded).

Only stores a watcher registered with :func:`watch` pay for the hook; the CLI pays
nothing. Threads: the hook runs on the deciding thread, snapshots on the poll worker;
the baseline is guarded by a lock.

Headless: never imports textual.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Hashable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from foley_tui.store.backend import MemoryNamespace
from foley_tui.store.codec import InvalidKeyError, encode_key
from foley_tui.store.files import FileNamespace

if TYPE_CHECKING:
    from foley_tui.store.session import SessionStore

Stamp = tuple[int, int]
"""(mtime_ns, size) of one file."""

FolderState = Mapping[str, Stamp] | int
"""Per-file stamps of a folder, or the write counter of an in-memory namespace."""

SMALL_SESSION = 2000
"""Up to this many candidates, every candidate file is stamped too (foley rewrites them
in place); above it only the folder's mtime (adds and removes) is compared."""


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


def _folder_state(ns: MutableMapping[str, dict[str, Any]]) -> FolderState:
    if isinstance(ns, FileNamespace):
        entries, _ = ns.scan(stat=True)
        return {e.name: (e.mtime_ns, e.size) for e in entries}
    if isinstance(ns, MemoryNamespace):
        return ns.version
    stamps = getattr(ns, "stamps", None)  # Redis: the version of each key's last write
    if callable(stamps):
        return dict(stamps())
    return hash(tuple(sorted(ns)))


def _changed(old: FolderState, new: FolderState) -> frozenset[str]:
    if isinstance(old, int) or isinstance(new, int):
        return frozenset() if old == new else _ALL
    names = {name for name, stamp in new.items() if old.get(name) != stamp}
    names.update(name for name in old if name not in new)
    return frozenset(names)


@dataclass
class DecisionWatch:
    """The last accepted snapshot of one store, kept current by our own writes."""

    store: SessionStore
    baseline: Snapshot | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _candidate_count: int = 0

    def snapshot(self) -> Snapshot:
        """Scan the session's folders (no file is opened, only listed and stat'd)."""
        store = self.store
        return Snapshot(
            picks=_folder_state(store.picks_ns),
            rejects=_folder_state(store.rejects_ns),
            candidates=self._candidates_token(),
            journal=store.state.journal_token(),
        )

    def _candidates_token(self) -> Hashable:
        ns = self.store.candidates
        if not isinstance(ns, FileNamespace):
            token = getattr(ns, "token", None)  # Redis: the version of its last write
            if callable(token):
                return token()
            return _folder_state(ns) if isinstance(ns, MemoryNamespace) else len(ns)
        try:
            folder = os.stat(ns.path).st_mtime_ns
        except OSError:
            return None
        count = self._candidate_count or self.store._candidate_count_hint
        if not count:
            # Names only (100k in ~40 ms): the full scan below also stats and decodes
            # every file, close to a second at 100k, only to learn the session is big.
            try:
                count = len(os.listdir(ns.path))
            except OSError:
                count = 0
        if count > SMALL_SESSION:
            self._candidate_count = count
            return folder
        entries, _ = ns.scan(stat=True)
        self._candidate_count = len(entries)
        return (folder, hash(tuple((e.name, e.mtime_ns, e.size) for e in entries)))

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
        try:
            name = encode_key(sound_id)
        except InvalidKeyError:
            return
        with self._lock:
            old = self.baseline
            if old is None:
                return
            self.baseline = Snapshot(
                picks=_after_write(self.store.picks_ns, old.picks, name),
                rejects=_after_write(self.store.rejects_ns, old.rejects, name),
                candidates=old.candidates,
                journal=old.journal,
            )

    def own_journal(self) -> None:
        """Record the journal as it is now, before the caller reads it: our own append is
        then no news to the next poll, while anything appended after this stat is."""
        token = self.store.state.journal_token()
        with self._lock:
            old = self.baseline
            if old is not None:
                self.baseline = Snapshot(old.picks, old.rejects, old.candidates, token)


def _after_write(
    ns: MutableMapping[str, dict[str, Any]], state: FolderState, name: str
) -> FolderState:
    if isinstance(ns, FileNamespace):
        if isinstance(state, int):
            return state
        stamps = dict(state)
        try:
            st = os.stat(os.path.join(ns.path, name))
        except FileNotFoundError:
            stamps.pop(name, None)
        else:
            stamps[name] = (st.st_mtime_ns, st.st_size)
        return stamps
    # A counter cannot tell our write from another: we are the only writer of a memory
    # namespace, so its new count is ours.
    return _folder_state(ns)


_watches: weakref.WeakKeyDictionary[Any, DecisionWatch] = weakref.WeakKeyDictionary()
_watches_lock = threading.Lock()


def watch(store: SessionStore) -> DecisionWatch:
    """The watch of ``store`` (made on first call); from then on our decisions on it are
    recorded as they are written."""
    with _watches_lock:
        found = _watches.get(store)
        if found is None:
            found = _watches[store] = DecisionWatch(store)
        return found


def note_own_decision(store: object, sound_id: str) -> None:
    """Hook of the store's decision path: the files of ``sound_id`` were just written by
    this process. Free when nothing watches the store."""
    found = _watches.get(store)
    if found is not None:
        found.own_write(sound_id)
