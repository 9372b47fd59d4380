"""Decisions of a session store: foley's API, pick/reject/layer/onset, journal, undo.

Decisions are applied to the namespace files first, then journaled, both fsync'd before
the call returns, all under the session lock (mutual exclusion with other processes).
Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any

from foley_tui.model import (
    Layer,
    Pick,
    Reject,
    Status,
    ValidationError,
    validate_layer,
    validate_onset,
)
from foley_tui.store.codec import InvalidKeyError, encode_key
from foley_tui.store.errors import StoreProblem, StoreWriteError
from foley_tui.store.files import FileNamespace
from foley_tui.store.reads import StoreReads
from foley_tui.store.records import (
    UNDECIDED,
    JournalEntry,
    _discard,
    _picked,
    _to_dict,
    _write_error,
    candidate_key,
    count_entries,
    new_ulid,
    normalize_state,
    now_utc,
)


class DecisionsMixin(StoreReads):
    """foley's SessionStore API and our decisions, journaled and undoable."""

    # ------------------------------------------------------------------ foley API
    def cache_candidates(self, candidates: Iterable[object]) -> int:
        """Cache each candidate's full dict keyed by ``sound.id``; return the count cached.

        Writes are atomic; on the file backend they are flushed once per batch.
        """
        count = 0
        batch = self.candidates.batch() if isinstance(self.candidates, FileNamespace) else None
        with batch if batch is not None else contextlib.nullcontext():
            for candidate in candidates:
                data = _to_dict(candidate)
                sid = candidate_key(data)
                if not sid:
                    continue
                try:
                    self.candidates[sid] = data
                except ValueError as exc:
                    if isinstance(exc, ValidationError):
                        raise
                    raise ValidationError(f"candidate {sid!r}: {exc}") from None
                except OSError as exc:
                    raise StoreWriteError(
                        exc.errno, f"could not cache candidate {sid!r}: {exc.strerror or exc}"
                    ) from exc
                count += 1
        return count

    def rehydrate(self, ids: Iterable[str]) -> list[dict[str, Any]]:
        """Candidate dicts for ``ids`` (missing or unreadable ids are skipped)."""
        out = []
        for sid in ids:
            try:
                encode_key(sid)
            except InvalidKeyError:
                continue
            value = self._read(self.candidates, "candidates", sid)
            if value is not None:
                out.append(value)
        return out

    def candidate(self, sound_id: str) -> dict[str, Any] | None:
        """The full candidate dict, loaded on demand (None if absent or unreadable)."""
        try:
            encode_key(sound_id)
        except InvalidKeyError:
            return None
        return self._read(self.candidates, "candidates", sound_id)

    def _count(self, ns: MutableMapping[str, dict[str, Any]]) -> int:
        if isinstance(ns, FileNamespace):
            try:
                names = os.listdir(ns.path)
            except FileNotFoundError:
                return 0
            return count_entries(names)
        return len(ns)

    def add_pick(
        self, sound_id: str, *, layer: str | None = None, onset: float | None = None
    ) -> int:
        """Pick (and un-reject) a sound durably; return the pick count (as foley does)."""
        self._decide(sound_id, _picked(layer, onset))
        return self._count(self.picks_ns)

    def drop_pick(self, sound_id: str) -> int:
        """Remove a pick (idempotent); return the remaining pick count."""
        if self.status(sound_id) is Status.PICKED:
            self._decide(sound_id, dict(UNDECIDED))
        return self._count(self.picks_ns)

    def list_picks(self) -> list[dict[str, Any]]:
        """All readable pick dicts, sorted by sound id (unreadable ones are reported)."""
        return [dict(v) for _, v in self._read_all(self.picks_ns, "picks")]

    def picked_ids(self) -> list[str]:
        return self._names(self.picks_ns, "picks")

    def add_reject(self, sound_id: str, *, reason: str | None = None) -> int:
        """Reject (and un-pick) a sound durably; return the reject count."""
        if reason is not None and not isinstance(reason, str):
            raise ValidationError(f"reason must be text or null (got {reason!r})")
        self._decide(sound_id, {"status": "rejected", "reason": reason})
        return self._count(self.rejects_ns)

    def list_rejects(self) -> list[dict[str, Any]]:
        return [dict(v) for _, v in self._read_all(self.rejects_ns, "rejects")]

    def rejected_ids(self) -> list[str]:
        return self._names(self.rejects_ns, "rejects")

    # ------------------------------------------------------------------ ours: decisions
    def picks(self) -> dict[str, Pick]:
        """Every readable pick. A layer or onset foley's ``plan`` would choke on (written
        by someone else) reads as unset and is reported in :meth:`problems`."""
        out: dict[str, Pick] = {}
        for key, value in self._read_all(self.picks_ns, "picks"):
            pick = Pick.from_dict(value, key)
            out[key] = Pick(key, pick.layer, pick.onset)
            bad = [
                f"{field} {value.get(field)!r} is invalid"
                for field, got in (("layer", pick.layer), ("onset", pick.onset))
                if got is None and value.get(field) is not None
            ]
            if bad:
                path = getattr(self.picks_ns, "path", "")
                reason = "; ".join(bad) + " (foley's plan fails on it)"
                self._note(StoreProblem("picks", key, os.path.join(path, encode_key(key)), reason))
        return out

    def rejects(self) -> dict[str, Reject]:
        return {
            key: Reject(key, Reject.from_dict(value, key).reason)
            for key, value in self._read_all(self.rejects_ns, "rejects")
        }

    def status(self, sound_id: str) -> Status:
        if sound_id in self.picks_ns:
            return Status.PICKED
        if sound_id in self.rejects_ns:
            return Status.REJECTED
        return Status.UNDECIDED

    def state_of(self, sound_id: str) -> dict[str, Any]:
        """The decision state dict of a sound, as the journal records it."""
        return self._state(sound_id)[0]

    def _state(self, sound_id: str) -> tuple[dict[str, Any], bool]:
        """(state, clean): clean is False when a file exists but could not be read."""
        if sound_id in self.picks_ns:
            value = self._read(self.picks_ns, "picks", sound_id)
            if value is not None:
                return normalize_state({**value, "status": "picked"}), True
            if sound_id in self.picks_ns:
                return {"status": "picked", "layer": None, "onset": None}, False
        if sound_id in self.rejects_ns:
            value = self._read(self.rejects_ns, "rejects", sound_id)
            if value is not None:
                return normalize_state({**value, "status": "rejected"}), True
            if sound_id in self.rejects_ns:
                return {"status": "rejected", "reason": None}, False
        return dict(UNDECIDED), True

    def set_layer(self, sound_id: str, layer: Layer | None) -> Pick:
        """Set the mix layer, picking the sound if needed (one journal entry)."""
        layer = validate_layer(layer)
        state = self._state(sound_id)[0] if self._valid_key(sound_id) else UNDECIDED
        onset = state.get("onset") if state["status"] == "picked" else None
        self._decide(sound_id, _picked(layer, onset))
        return Pick(sound_id, layer, onset)

    def set_onset(self, sound_id: str, onset: float | None) -> Pick:
        """Set the onset in seconds, picking the sound if needed (one journal entry)."""
        onset = validate_onset(onset)
        state = self._state(sound_id)[0] if self._valid_key(sound_id) else UNDECIDED
        layer = state.get("layer") if state["status"] == "picked" else None
        self._decide(sound_id, _picked(layer, onset))
        return Pick(sound_id, layer, onset)

    def clear(self, sound_id: str) -> None:
        """Remove a pick or a reject (no-op when undecided)."""
        self._decide(sound_id, dict(UNDECIDED))

    @staticmethod
    def _valid_key(sound_id: str) -> bool:
        encode_key(sound_id)  # raises InvalidKeyError (a ValidationError)
        return True

    def _apply(self, sound_id: str, state: Mapping[str, Any]) -> None:
        status = state["status"]
        if status == "picked":
            record = {
                "sound_id": sound_id,
                "layer": state.get("layer"),
                "onset": state.get("onset"),
            }
            self.picks_ns[sound_id] = record
            _discard(self.rejects_ns, sound_id)
        elif status == "rejected":
            self.rejects_ns[sound_id] = {"sound_id": sound_id, "reason": state.get("reason")}
            _discard(self.picks_ns, sound_id)
        else:
            _discard(self.picks_ns, sound_id)
            _discard(self.rejects_ns, sound_id)

    def _decide(
        self,
        sound_id: str,
        after: dict[str, Any],
        *,
        kind: str = "do",
        target: int | None = None,
    ) -> JournalEntry | None:
        """Apply ``after`` durably and journal it; None when nothing had to change."""
        self._valid_key(sound_id)
        after = normalize_state(after)
        try:
            with self.state.lock():
                before, clean = self._state(sound_id)
                if before == after and clean and kind == "do":
                    return None
                try:
                    self._apply(sound_id, after)
                except OSError as exc:
                    self._rollback(sound_id, before, clean)
                    raise _write_error(exc, f"could not save the decision on {sound_id!r}") from exc
                self._refresh_journal()
                entry = JournalEntry(
                    seq=(self._journal[-1].seq + 1) if self._journal else 1,
                    entry_id=new_ulid(),
                    at=now_utc(),
                    sound_id=sound_id,
                    before=before,
                    after=after,
                    kind=kind,
                    target=target,
                )
                record = entry.to_record()
                try:
                    start, end = self.state.journal_append(record)
                except OSError as exc:
                    self._rollback(sound_id, before, clean)
                    raise _write_error(
                        exc, f"could not journal the decision on {sound_id!r}"
                    ) from exc
                self._journal_appended(record, start, end)
                return entry
        except StoreWriteError:
            raise
        except OSError as exc:  # the lock or our folder could not be made
            raise _write_error(exc, f"could not save the decision on {sound_id!r}") from exc

    def _rollback(self, sound_id: str, before: dict[str, Any], clean: bool) -> None:
        if not clean:
            return  # never overwrite an unreadable file we could not parse
        with contextlib.suppress(OSError, ValueError):
            self._apply(sound_id, before)

    # ------------------------------------------------------------------ journal / undo
    def _refresh_journal(self) -> None:
        # The UI may read metadata from a worker thread while deciding on the main one.
        with self._journal_lock:
            records, offset = self.state.journal_read(self._journal_offset)
            self._journal_offset = offset
            for record in records:
                entry = JournalEntry.from_record(record)
                if entry is not None:
                    self._journal.append(entry)

    def _journal_appended(self, record: dict[str, Any], start: int, end: int) -> None:
        """Take our own record as read when we had read the journal up to where it was
        written (we hold the session lock, so nothing else came in between); otherwise
        (a torn tail before it) read the journal again, reporting what is torn."""
        with self._journal_lock:
            if start == self._journal_offset:
                entry = JournalEntry.from_record(record)
                if entry is not None:
                    self._journal.append(entry)
                    self._journal_offset = end
                    return
        self._refresh_journal()

    def journal(self) -> list[JournalEntry]:
        """Every journal entry so far (also those written by other processes)."""
        self._refresh_journal()
        return list(self._journal)

    def _stacks(self) -> tuple[list[JournalEntry], list[JournalEntry]]:
        """(done, undone): entries undo would revert (last first), and redo would re-apply."""
        by_seq: dict[int, JournalEntry] = {}
        done: list[int] = []
        undone: list[int] = []
        for entry in self._journal:
            if entry.kind == "do":
                by_seq[entry.seq] = entry
                done.append(entry.seq)
                undone.clear()
            elif entry.kind == "undo" and entry.target is not None:
                if entry.target in done:
                    done.remove(entry.target)
                    undone.append(entry.target)
            elif entry.kind == "redo" and entry.target is not None and entry.target in undone:
                undone.remove(entry.target)
                done.append(entry.target)
        return [by_seq[s] for s in done], [by_seq[s] for s in undone]

    def can_undo(self) -> bool:
        self._refresh_journal()
        return bool(self._stacks()[0])

    def can_redo(self) -> bool:
        self._refresh_journal()
        return bool(self._stacks()[1])

    def undo(self) -> JournalEntry | None:
        """Restore the ``before`` state of the latest decision not yet undone.

        After an external write (foley's agent) to that sound, undo still restores the
        entry's ``before`` state: the user undoes *their* decision, as they saw it.
        Returns the entry undone, or None when there is nothing to undo.
        """
        with self._locked():
            self._refresh_journal()
            done, _ = self._stacks()
            if not done:
                return None
            target = done[-1]
            self._decide(target.sound_id, target.before, kind="undo", target=target.seq)
            return target

    def redo(self) -> JournalEntry | None:
        """Re-apply the ``after`` state of the latest undone decision."""
        with self._locked():
            self._refresh_journal()
            _, undone = self._stacks()
            if not undone:
                return None
            target = undone[-1]
            self._decide(target.sound_id, target.after, kind="redo", target=target.seq)
            return target

    @contextlib.contextmanager
    def _locked(self) -> Any:
        try:
            with self.state.lock():
                yield
        except StoreWriteError:
            raise
        except OSError as exc:
            raise _write_error(exc, "could not lock the session") from exc
