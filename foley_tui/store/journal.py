"""The journal of a session store: one record per decision, appended, and the undo/redo
stacks it implies, read from its tail.

:class:`Journal` is a part of :class:`~foley_tui.store.session.SessionStore` with its own
state: the offset it appends after and the last seq (learnt from the journal's tail, then
from what it reads as it appends), and the tops of the undo and redo stacks, found by
reading the journal backwards from its end only as far as they are. Nothing keeps the
whole journal in memory: a journal of a million entries costs undo what its last few
entries cost. Only :meth:`Journal.entries` (an export) reads it all.

Headless: never imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from datetime import datetime
from typing import Any

from foley_tui.store.backend import JournalReplaced, StateBackend
from foley_tui.store.records import JournalEntry, Verdicts, new_ulid, now_utc

Mine = Callable[[JournalEntry], bool]
"""Whether undo/redo may revert an entry (a shared store keeps each user's own stack)."""


def _anyone(entry: JournalEntry) -> bool:
    return True


class Journal:
    """Appends and the undo/redo stacks of one session's journal.

    Thread-safe: its bookkeeping is guarded by its own lock. :meth:`append` is called
    under the session lock (the decision path holds it), so no other process of ours
    appends between its catch-up read and its write.
    """

    def __init__(self, state: StateBackend, *, mine: Mine = _anyone) -> None:
        self.state = state
        self._mine = mine
        self._lock = threading.RLock()
        self._known = False  # offset and seq learnt from the journal's tail
        self._offset = 0
        self._last_seq = 0
        # (journal token, top of the undo stack, top of the redo stack), while current.
        self._tops: tuple[Hashable, JournalEntry | None, JournalEntry | None] | None = None

    # ------------------------------------------------------------------ append
    def append(
        self,
        sound_id: str,
        before: Verdicts,
        after: Verdicts,
        kind: str,
        target: int | None,
        also: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...] = (),
    ) -> JournalEntry:
        """Append one entry durably after whatever other processes appended since we
        last looked (its seq follows theirs). Call under the session lock."""
        with self._lock:
            self._learn_tail()
            try:
                return self._append(sound_id, before, after, kind, target, also)
            except JournalReplaced:  # an import replaced the session: read it anew
                self.forget()
                self._learn_tail()
                return self._append(sound_id, before, after, kind, target, also)

    def _append(
        self,
        sound_id: str,
        before: Verdicts,
        after: Verdicts,
        kind: str,
        target: int | None,
        also: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...],
    ) -> JournalEntry:
        with self.state.journal_append(self._offset) as appender:
            for record in appender.records:
                seq = record.get("seq")
                if isinstance(seq, int) and not isinstance(seq, bool):
                    self._last_seq = max(self._last_seq, seq)
            entry = JournalEntry(
                seq=self._last_seq + 1,
                entry_id=new_ulid(),
                at=now_utc(),
                sound_id=sound_id,
                before=before.to_state(),
                after=after.to_state(),
                kind=kind,
                target=target,
                also=also,
            )
            end = appender.write(entry.to_record())
        self._offset = end
        self._last_seq = entry.seq
        self._took(entry, end)
        return entry

    def _learn_tail(self) -> None:
        """Where to append, from the journal's tail (never the whole journal)."""
        if not self._known:
            last, self._offset = self.state.journal_tail()
            self._last_seq = last or 0
            self._known = True

    def recorded(self, entry: JournalEntry, end: int) -> None:
        """An entry the backend appended itself, with its decision (a Redis script):
        ``end`` is the journal's offset after it."""
        with self._lock:
            contiguous = self._known and entry.seq == self._last_seq + 1
            if contiguous:
                self._offset = end
                self._last_seq = entry.seq
            self._took(entry, end)

    def _took(self, entry: JournalEntry, end: int) -> None:
        """Our own entry is the newest: a decision of ours tops the undo stack and
        empties redo; any other kind needs the stacks found again."""
        if entry.kind == "do" and self._mine(entry):
            self._tops = (self.state.journal_token_at(end), entry, None)
        else:
            self._tops = None

    def forget(self) -> None:
        """Forget what was read (the journal was replaced under us)."""
        with self._lock:
            self.state.journal_reset()
            self._known = False
            self._offset = self._last_seq = 0
            self._tops = None

    # ------------------------------------------------------------------ undo / redo
    def tops(self, *, fresh: bool = True) -> tuple[JournalEntry | None, JournalEntry | None]:
        """(the entry undo would revert, the entry redo would re-apply). ``fresh=False``
        answers from what this process knows right after its own append."""
        with self._lock:
            tops = self._tops
            if tops is not None and not fresh:
                return tops[1], tops[2]
            token = self.state.journal_token()
            if tops is not None and tops[0] == token:
                return tops[1], tops[2]
            # Who reads the stacks decides next: learn where to append meanwhile.
            self._learn_tail()
            undo, redo = self._find_tops()
            self._tops = (token, undo, redo)
            return undo, redo

    def _find_tops(self) -> tuple[JournalEntry | None, JournalEntry | None]:
        """Walk back from the newest entry until both tops are known.

        Going back in time: an ``undo``/``skip`` of T means T is off the undo stack
        unless an older ``redo`` put it back...; the first of our decisions or redos
        not cancelled by something newer is the undo top. The redo stack empties at each
        decision of ours, so its top is the newest ``undo`` before any newer ``redo``
        or ``skip`` of it, looking no further back than our newest decision.
        """
        undo: JournalEntry | None = None
        redo: JournalEntry | None = None
        undo_done = redo_done = False
        off_done: set[int] = set()  # targets undone/skipped later: not on the undo stack
        off_undone: set[int] = set()  # targets redone/skipped later: not on the redo stack
        for entry in self._back():
            if not self._mine(entry):
                continue
            kind, target = entry.kind, entry.target
            if not redo_done:
                if kind == "do":
                    redo_done = True
                elif target is not None:
                    if kind in ("redo", "skip"):
                        off_undone.add(target)
                    elif kind == "undo":
                        if target in off_undone:
                            off_undone.discard(target)
                        else:
                            redo, redo_done = self._entry(target), True
            if not undo_done:
                if kind == "do":
                    if entry.seq in off_done:
                        off_done.discard(entry.seq)
                    else:
                        undo, undo_done = entry, True
                elif target is not None:
                    if kind in ("undo", "skip"):
                        off_done.add(target)
                    elif kind == "redo" and target not in off_done:
                        undo, undo_done = self._entry(target), True
            if undo_done and redo_done:
                break
        return undo, redo

    def _entry(self, seq: int) -> JournalEntry | None:
        """The ``do`` entry numbered ``seq`` (undo and redo apply its states)."""
        for entry in self._back():
            if entry.seq == seq and entry.kind == "do":
                return entry
            if entry.seq < seq and entry.kind == "do":
                break
        return None

    def _back(self) -> Iterator[JournalEntry]:
        for record in self.state.journal_back():
            entry = JournalEntry.from_record(record)
            if entry is not None:
                yield entry

    def undo_target(self) -> JournalEntry | None:
        return self.tops()[0]

    def redo_target(self) -> JournalEntry | None:
        return self.tops()[1]

    # ------------------------------------------------------------------ reading
    def entries(self) -> list[JournalEntry]:
        """Every entry, oldest first (an export carries them all)."""
        out = []
        for record in self.state.journal_scan():
            entry = JournalEntry.from_record(record)
            if entry is not None:
                out.append(entry)
        return out

    def last(self, n: int) -> list[JournalEntry]:
        """The newest ``n`` entries, oldest first."""
        out: list[JournalEntry] = []
        if n <= 0:
            return out
        for entry in self._back():
            out.append(entry)
            if len(out) >= n:
                break
        out.reverse()
        return out

    def last_at(self) -> datetime | None:
        """When the newest entry was made (None: an empty journal)."""
        newest = self.last(1)
        return newest[0].at if newest else None

    def sounds(self) -> set[str]:
        """Every sound any entry changed (read in blocks, never held whole)."""
        found: set[str] = set()
        for record in self.state.journal_scan():
            entry = JournalEntry.from_record(record)
            if entry is not None:
                found.update(sid for sid, _b, _a in entry.changes())
        return found

    def check(self) -> None:
        """Read the whole journal once, so every unreadable record is reported in the
        state's problems (``session show``), holding none of it."""
        for _record in self.state.journal_scan():
            pass


__all__ = ["Journal", "Mine"]
