"""The journal of a session store: reading it incrementally, appending one record per
decision, and the undo/redo stacks it implies.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from foley_tui.store.backend import JournalAppend, JournalReplaced
from foley_tui.store.errors import StoreWriteError
from foley_tui.store.reads import StoreReads
from foley_tui.store.records import JournalEntry, Verdicts, _write_error, new_ulid, now_utc


class JournalMixin(StoreReads):
    """The journal and the undo/redo stacks, read once then only what is new."""

    # ------------------------------------------------------------------ journal
    # In memory: the entries read so far cover the byte range [_journal_start,
    # _journal_offset) of the journal. A process that only decides never reads the
    # journal: it learns the last seq from the journal's tail. Undo/redo need the whole
    # history; it is read once, then only what is new.
    def _journal_init_tail(self) -> None:
        if self._journal_known:
            return
        last, end = self.state.journal_tail()
        self._journal_start = self._journal_offset = end
        self._last_seq = last or 0
        self._journal_known = True

    def _feed(self, records: Iterable[dict[str, Any]]) -> None:
        for record in records:
            entry = JournalEntry.from_record(record)
            if entry is None:
                continue
            self._journal.append(entry)
            self._last_seq = max(self._last_seq, entry.seq)
            if self._journal_start == 0:
                self._stack(entry)

    def _stack(self, entry: JournalEntry) -> None:
        """Update the undo/redo stacks with one entry (O(1))."""
        if not self._mine(entry):
            return
        done, undone = self._done, self._undone
        if entry.kind == "do":
            done[entry.seq] = entry
            undone.clear()
        elif entry.target is None:
            return
        elif entry.kind == "undo" and entry.target in done:
            undone[entry.target] = done.pop(entry.target)
        elif entry.kind == "redo" and entry.target in undone:
            done[entry.target] = undone.pop(entry.target)
        elif entry.kind == "skip":
            done.pop(entry.target, None)
            undone.pop(entry.target, None)

    def _refresh_journal(self) -> None:
        """Read what is new in the journal (the whole of it the first time, and again
        when the file was replaced under us: an import --overwrite)."""
        with self._lock:
            try:
                self._read_journal()
            except JournalReplaced:
                self._forget_journal()
                self._read_journal()

    def _forget_journal(self) -> None:
        self.state.journal_reset()
        self._journal_known = False
        self._journal = []
        self._done, self._undone = {}, {}
        self._journal_start = self._journal_offset = self._last_seq = 0

    def _read_journal(self) -> None:
        with self._lock:
            if not self._journal_known or self._journal_start > 0:
                end = self._journal_start if self._journal_known else None
                records, offset = self.state.journal_read(0, end)
                tail = self._journal
                self._journal = []
                self._done, self._undone = {}, {}
                self._journal_start = 0
                if not self._journal_known:
                    self._journal_offset = offset
                    self._last_seq = 0
                    self._journal_known = True
                self._feed(records)
                for entry in tail:
                    self._journal.append(entry)
                    self._stack(entry)
            records, self._journal_offset = self.state.journal_read(self._journal_offset)
            self._feed(records)

    def _append(
        self,
        sound_id: str,
        before: Verdicts,
        after: Verdicts,
        kind: str,
        target: int | None,
        also: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...] = (),
    ) -> JournalEntry:
        made: list[JournalEntry] = []

        def build(theirs: list[dict[str, Any]]) -> dict[str, Any]:
            # Records other processes appended since our offset come first.
            self._feed(theirs)
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
            made.append(entry)
            return entry.to_record()

        with self._lock:
            self._journal_init_tail()
            appended: JournalAppend = self.state.journal_append(self._journal_offset, build)
            if appended.read_from != self._journal_offset:
                # The journal was replaced under us (an import): read it anew.
                self._forget_journal()
                self._refresh_journal()
            else:
                self._journal.append(made[0])
                self._last_seq = made[0].seq
                if self._journal_start == 0:
                    self._stack(made[0])
                self._journal_offset = appended.end
            return made[0]

    def _mine(self, entry: JournalEntry) -> bool:
        """Whether undo/redo may revert this entry: all of them here; a shared store
        keeps each user's own stack."""
        return True

    def _stacks(self) -> tuple[list[JournalEntry], list[JournalEntry]]:
        """(done, undone): the entries undo would revert (oldest first) and the ones
        redo would re-apply."""
        self._refresh_journal()
        with self._lock:
            return list(self._done.values()), list(self._undone.values())

    def journal(self) -> list[JournalEntry]:
        """Every journal entry so far (also those written by other processes)."""
        self._refresh_journal()
        with self._lock:
            return list(self._journal)

    def _last(self, stack: dict[int, JournalEntry]) -> JournalEntry | None:
        return stack[next(reversed(stack))] if stack else None

    def undo_target(self) -> JournalEntry | None:
        """The entry :meth:`undo` would revert, or None."""
        self._refresh_journal()
        with self._lock:
            return self._last(self._done)

    def redo_target(self) -> JournalEntry | None:
        """The entry :meth:`redo` would re-apply, or None."""
        self._refresh_journal()
        with self._lock:
            return self._last(self._undone)

    def undo_redo(self, *, fresh: bool = True) -> tuple[bool, bool]:
        """(can undo, can redo) in one go; ``fresh=False`` answers from what this process
        has read, right after its own append (which read the journal up to its end)."""
        if fresh or self._journal_start > 0 or not self._journal_known:
            self._refresh_journal()
        with self._lock:
            return bool(self._done), bool(self._undone)

    def can_undo(self) -> bool:
        return self.undo_target() is not None

    def can_redo(self) -> bool:
        return self.redo_target() is not None

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            with self.state.lock():
                yield
        except StoreWriteError:
            raise
        except OSError as exc:
            raise _write_error(exc, "could not lock the session") from exc
