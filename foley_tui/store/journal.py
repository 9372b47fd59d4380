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
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from foley_tui.store.backend import JournalReplaced, StateBackend
from foley_tui.store.records import JournalEntry, Verdicts, entry_states, new_ulid, now_utc

Mine = Callable[[JournalEntry], bool]
"""Whether undo/redo may revert an entry (a shared store keeps each user's own stack)."""


#: Entries of each stack known from one walk back (more are found when these run out).
DEPTH = 64


def _anyone(entry: JournalEntry) -> bool:
    return True


@dataclass
class _Stacks:
    """The top entries of the undo (``done``) and redo (``undone``) stacks, newest last;
    ``*_more``: the stack holds more than these. ``token``: the journal they hold for."""

    done: list[JournalEntry]
    undone: list[JournalEntry]
    done_more: bool
    undone_more: bool
    token: Hashable = None

    def known(self) -> bool:
        """Whether both tops are known (a stack emptied down to entries not read yet
        is not)."""
        return (bool(self.done) or not self.done_more) and (
            bool(self.undone) or not self.undone_more
        )

    def tops(self) -> tuple[JournalEntry | None, JournalEntry | None]:
        return (self.done[-1] if self.done else None, self.undone[-1] if self.undone else None)


def _resolved(item: JournalEntry | int, found: dict[int, JournalEntry]) -> JournalEntry | None:
    return found.get(item) if isinstance(item, int) else item


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
        # The tops of the undo and redo stacks, while current.
        self._stacks: _Stacks | None = None

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
        states = entry_states(before, after)
        with self.state.journal_append(self._offset) as appender:
            if appender.records:  # others appended meanwhile: the stacks are found again
                self._stacks = None
            for record in appender.records:
                seq = record.get("seq")
                if isinstance(seq, int) and not isinstance(seq, bool):
                    self._last_seq = max(self._last_seq, seq)
            entry = JournalEntry(
                seq=self._last_seq + 1,
                entry_id=new_ulid(),
                at=now_utc(),
                sound_id=sound_id,
                before=states[0],
                after=states[1],
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
            if self._known and entry.seq == self._last_seq + 1:
                self._offset = end
                self._last_seq = entry.seq
                self._took(entry, end)
            else:  # others appended in between: the stacks are found again
                self._stacks = None

    def _took(self, entry: JournalEntry, end: int) -> None:
        """Our own entry is the newest: move the known tops of the stacks as it moved
        them (so the app learns what undo and redo offer without reading); whatever this
        cannot tell makes them be found again."""
        stacks = self._stacks
        self._stacks = None
        if stacks is None or not self._mine(entry):
            return
        done, undone, target = stacks.done, stacks.undone, entry.target
        if entry.kind == "do":
            done.append(entry)
            undone.clear()
            stacks.undone_more = False
            if len(done) > 2 * DEPTH:  # kept small: the rest is found again when needed
                del done[:-DEPTH]
                stacks.done_more = True
        elif entry.kind == "undo" and done and done[-1].seq == target:
            undone.append(done.pop())
        elif entry.kind == "redo" and undone and undone[-1].seq == target:
            done.append(undone.pop())
        elif entry.kind == "skip" and done and done[-1].seq == target:
            done.pop()
        elif entry.kind == "skip" and undone and undone[-1].seq == target:
            undone.pop()
        else:
            return
        stacks.token = self.state.journal_token_at(end)
        self._stacks = stacks

    def forget(self) -> None:
        """Forget what was read (the journal was replaced under us)."""
        with self._lock:
            self.state.journal_reset()
            self._known = False
            self._offset = self._last_seq = 0
            self._stacks = None

    # ------------------------------------------------------------------ undo / redo
    def tops(self, *, fresh: bool = True) -> tuple[JournalEntry | None, JournalEntry | None]:
        """(the entry undo would revert, the entry redo would re-apply). ``fresh=False``
        answers from what this process knows right after its own append, reading
        nothing unless a stack it knew the top of ran out."""
        with self._lock:
            stacks = self._stacks
            if (
                stacks is not None
                and stacks.known()
                and (not fresh or stacks.token == self.state.journal_token())
            ):
                return stacks.tops()
            token = self.state.journal_token()
            # Who reads the stacks decides next: learn where to append meanwhile.
            self._learn_tail()
            stacks = self._walk()
            stacks.token = token
            self._stacks = stacks
            return stacks.tops()

    def _walk(self) -> _Stacks:
        """The top :data:`DEPTH` entries of each stack, walking back from the newest.

        Going back in time, an ``undo`` or ``skip`` of T means T is off the undo stack,
        unless something newer than it (met before it in this walk) put T back; the
        first of our decisions or redos of T that nothing newer cancelled puts T on the
        undo stack, at that place. The redo stack empties at each decision of ours, so
        it holds the ``undo``s of T since our newest decision that no newer ``redo`` or
        ``skip`` of T cancelled, newest on top.
        """
        done: list[JournalEntry | int] = []  # newest first; an int: a seq to look up
        undone: list[JournalEntry | int] = []
        done_more = undone_more = False
        done_closed = undone_closed = False
        off_done: set[int] = set()
        off_undone: set[int] = set()
        on_done: set[int] = set()
        on_undone: set[int] = set()
        for entry in self._back():
            if not self._mine(entry):
                continue
            kind, target = entry.kind, entry.target
            if not undone_closed:
                if kind == "do":
                    undone_closed = True
                elif target is not None and kind in ("redo", "skip"):
                    off_undone.add(target)
                elif target is not None and kind == "undo":
                    if target in off_undone:
                        off_undone.discard(target)
                    elif target not in on_undone:
                        if len(undone) >= DEPTH:
                            undone_more = undone_closed = True
                        else:
                            undone.append(target)
                            on_undone.add(target)
            if not done_closed:
                placed: JournalEntry | int | None = None
                if kind == "do":
                    if entry.seq in off_done:
                        off_done.discard(entry.seq)
                    elif entry.seq not in on_done:
                        placed = entry
                elif target is not None and kind in ("undo", "skip"):
                    off_done.add(target)
                elif (
                    target is not None
                    and kind == "redo"
                    and target not in off_done
                    and target not in on_done
                ):
                    placed = target
                if placed is not None:
                    if len(done) >= DEPTH:
                        done_more = done_closed = True
                    else:
                        done.append(placed)
                        on_done.add(placed if isinstance(placed, int) else placed.seq)
            if done_closed and undone_closed:
                break
        found = self._entries_of({x for x in (*done, *undone) if isinstance(x, int)})
        return _Stacks(
            done=[e for e in (_resolved(x, found) for x in reversed(done)) if e is not None],
            undone=[e for e in (_resolved(x, found) for x in reversed(undone)) if e is not None],
            done_more=done_more,
            undone_more=undone_more,
        )

    def _entries_of(self, seqs: set[int]) -> dict[int, JournalEntry]:
        """The ``do`` entries numbered ``seqs`` (undo and redo apply their states)."""
        found: dict[int, JournalEntry] = {}
        if not seqs:
            return found
        lowest = min(seqs)
        for entry in self._back():
            if entry.kind == "do" and entry.seq in seqs:
                found[entry.seq] = entry
                if len(found) == len(seqs):
                    break
            if entry.kind == "do" and entry.seq < lowest:
                break
        return found

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
        state's problems (``session show``), holding none of it; what an earlier check
        read is not read again where the backend remembers it."""
        self.state.journal_check()


__all__ = ["Journal", "Mine"]
