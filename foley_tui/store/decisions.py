"""Decisions of a session store: foley's API, pick/reject/layer/onset, journal, undo.

A decision is a read-modify-write of one sound's two files (its pick and its reject),
done under the session lock (threads of this process and other foley-tui processes), so
concurrent edits of different fields of one pick never lose either. The files are
written first, then one journal record is appended, both fsync'd before the call
returns. Only the files that change are touched: a plain pick costs one atomic write and
one journal append, and no journal read (the store appends after the offset it knows;
records other processes appended meanwhile are read as part of the append).

Every write keeps the fields the user did not change, byte for byte, including keys
foley-tui does not know; a sound can be picked and rejected at once (foley allows it:
:attr:`Status.CONFLICT`); the journal records the raw records on both sides, and undo/redo
are compare-and-swap: an entry applies only while the sound is still as the entry left
it (:class:`UndoConflictError` otherwise; ``force`` applies anyway, ``skip`` steps past).
The journal lives in :mod:`foley_tui.store.journal`, undo/redo in
:mod:`foley_tui.store.undo`, the record helpers in :mod:`foley_tui.store.decision_records`.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

from foley_tui.domain import (
    Layer,
    Onset,
    Pick,
    Reject,
    Status,
    ValidationError,
    validate_layer,
    validate_onset,
)
from foley_tui.store.changes import note_own_decision
from foley_tui.store.codec import DecodeError, InvalidKeyError, encode_key
from foley_tui.store.decision_records import (
    KEEP,
    DecisionCounts,
    _Keep,
    _pick_record,
    _put,
    _raw_bytes,
    _same,
)
from foley_tui.store.errors import StoreProblem, StoreWriteError
from foley_tui.store.files import FileNamespace
from foley_tui.store.journal import JournalMixin
from foley_tui.store.records import (
    JournalEntry,
    Verdicts,
    _discard,
    _to_dict,
    _write_error,
    candidate_key,
    carriable,
    count_entries,
    record_of_bytes,
)


class DecisionsMixin(JournalMixin):
    """foley's SessionStore API and our decisions, journaled and undoable."""

    #: Called with (namespace, sound id) after each pick/reject file we write or remove,
    #: under the session lock: a change detector records our own writes here so its
    #: next poll does not mistake them for foley's.
    on_write: Callable[[str, str], None] | None = None

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

    def add_pick(self, sound_id: str, *, layer: str | None = None, onset: Onset = None) -> int:
        """Pick (and un-reject) a sound durably with this layer and onset; return the pick
        count (as foley does). Other keys of an existing pick are kept."""
        self._decide(sound_id, lambda now: Verdicts(_pick_record(sound_id, now.pick, layer, onset)))
        return self._count(self.picks_ns)

    def drop_pick(self, sound_id: str) -> int:
        """Remove a pick (idempotent; a reject stays, as in foley); return the pick count."""
        self._decide(sound_id, lambda now: Verdicts(None, now.reject))
        return self._count(self.picks_ns)

    def list_picks(self) -> list[dict[str, Any]]:
        """All readable pick dicts, sorted by sound id (unreadable ones are reported)."""
        return [dict(v) for _, v in self._read_all(self.picks_ns, "picks")]

    def picked_ids(self) -> list[str]:
        return self._names(self.picks_ns, "picks")

    def add_reject(self, sound_id: str, *, reason: str | None = None) -> int:
        """Reject (and un-pick) a sound durably; return the reject count."""
        self.set_reject(sound_id, reason)
        return self._count(self.rejects_ns)

    def list_rejects(self) -> list[dict[str, Any]]:
        return [dict(v) for _, v in self._read_all(self.rejects_ns, "rejects")]

    def rejected_ids(self) -> list[str]:
        return self._names(self.rejects_ns, "rejects")

    # ------------------------------------------------------------------ ours: decisions
    def update_pick(
        self, sound_id: str, *, layer: Layer | _Keep | None = KEEP, onset: Onset | _Keep = KEEP
    ) -> JournalEntry | None:
        """Pick a sound, setting only the fields given (read-modify-write under the lock,
        so concurrent edits of other fields are kept). A reject goes (a conflict resolves
        to picked). Returns the journal entry, or None when nothing changed. No counts,
        no listing: the cheapest decision."""
        if not isinstance(layer, _Keep):
            validate_layer(layer)
        if not isinstance(onset, _Keep):
            validate_onset(onset)
        return self._decide(
            sound_id, lambda now: Verdicts(_pick_record(sound_id, now.pick, layer, onset))
        )

    def set_reject(self, sound_id: str, reason: str | None = None) -> JournalEntry | None:
        """Reject a sound with ``reason`` (other keys of an existing reject are kept); a pick
        goes (a conflict resolves to rejected). None when nothing changed."""
        if reason is not None and not isinstance(reason, str):
            raise ValidationError(f"reason must be text or null (got {reason!r})")

        def change(now: Verdicts) -> Verdicts:
            record: dict[str, Any] = (
                dict(now.reject) if now.reject is not None else {"sound_id": sound_id}
            )
            if record.get("sound_id") != sound_id:
                record["sound_id"] = sound_id
            record["reason"] = reason
            return Verdicts(None, record)

        return self._decide(sound_id, change)

    def toggle_pick(
        self, sound_id: str, *, layer: Layer | _Keep | None = KEEP, onset: Onset | _Keep = KEEP
    ) -> JournalEntry | None:
        """The ``p`` key, decided on the state read under the lock: a picked sound is
        unpicked; a conflict resolves to picked (the reject goes; it never toggles off);
        anything else is picked (with ``layer``/``onset`` where given)."""

        def change(now: Verdicts) -> Verdicts:
            if now.status is Status.PICKED:
                return Verdicts(None, None)
            return Verdicts(_pick_record(sound_id, now.pick, layer, onset))

        return self._decide(sound_id, change)

    def toggle_reject(self, sound_id: str, reason: str | None = None) -> JournalEntry | None:
        """The ``x`` key: a rejected sound is cleared; a conflict resolves to rejected (the
        pick goes; it never toggles off); anything else is rejected with ``reason``."""
        if reason is not None and not isinstance(reason, str):
            raise ValidationError(f"reason must be text or null (got {reason!r})")

        def change(now: Verdicts) -> Verdicts:
            if now.status is Status.REJECTED:
                return Verdicts(None, None)
            record: dict[str, Any] = (
                dict(now.reject) if now.reject is not None else {"sound_id": sound_id}
            )
            if record.get("sound_id") != sound_id:
                record["sound_id"] = sound_id
            if now.status is not Status.CONFLICT or reason is not None:
                record["reason"] = reason  # a conflict keeps the agent's reason
            return Verdicts(None, record)

        return self._decide(sound_id, change)

    def drop_reject(self, sound_id: str) -> JournalEntry | None:
        """Remove a reject only (a pick stays)."""
        return self._decide(sound_id, lambda now: Verdicts(now.pick, None))

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

    def conflicts(self) -> list[str]:
        """Sounds both picked and rejected (foley can leave both), sorted."""
        return sorted(set(self.picked_ids()) & set(self.rejected_ids()))

    def ghost_picks(self) -> list[str]:
        """Picks with no cached candidate (foley's ``plan`` drops them), sorted."""
        return [sid for sid in self.picked_ids() if sid not in self.candidates]

    def counts(self) -> DecisionCounts:
        """Every decision count from one listing per folder (the CLI, the sessions list
        and the app all count this way, so they agree)."""
        picked = set(self.picked_ids())
        rejected = set(self.rejected_ids())
        ghosts = sum(1 for sid in picked if sid not in self.candidates)
        return DecisionCounts(
            picks=len(picked),
            rejects=len(rejected),
            conflicts=len(picked & rejected),
            ghosts=ghosts,
            candidates=self._count(self.candidates),
        )

    def status(self, sound_id: str) -> Status:
        picked = sound_id in self.picks_ns
        rejected = sound_id in self.rejects_ns
        if picked:
            return Status.CONFLICT if rejected else Status.PICKED
        return Status.REJECTED if rejected else Status.UNDECIDED

    def verdicts(self, sound_id: str) -> Verdicts:
        """The raw pick and reject records of a sound, as the files hold them now."""
        self._valid_key(sound_id)
        return self._verdicts(sound_id)

    def state_of(self, sound_id: str) -> dict[str, Any]:
        """The decision state dict of a sound, as the journal records it."""
        return self._verdicts(sound_id).to_state()

    def _verdicts(self, sound_id: str) -> Verdicts:
        pick, pick_ok = self._record(self.picks_ns, "picks", sound_id)
        reject, reject_ok = self._record(self.rejects_ns, "rejects", sound_id)
        return Verdicts(pick, reject, pick_ok and reject_ok)

    def _record(
        self, ns: MutableMapping[str, dict[str, Any]], name: str, sound_id: str
    ) -> tuple[dict[str, Any] | None, bool]:
        """(record or None, readable). An unreadable file reads as a bare record."""
        if sound_id not in ns:
            return None, True
        value = self._read(ns, name, sound_id)
        if value is not None:
            if type(value) is dict and not carriable(value):
                # Foley wrote a value JSON cannot carry (a NaN onset): keep the file's
                # bytes with the record, for the journal and a verbatim undo.
                try:
                    return record_of_bytes(_raw_bytes(ns, sound_id)), True
                except (KeyError, OSError, DecodeError):
                    pass  # changed or gone meanwhile: unreadable, never written back
            else:
                return value, True
        if sound_id not in ns:  # gone meanwhile
            return None, True
        if name == "picks":
            return {"sound_id": sound_id, "layer": None, "onset": None}, False
        return {"sound_id": sound_id, "reason": None}, False

    def set_layer(self, sound_id: str, layer: Layer | None) -> Pick:
        """Set the mix layer, picking the sound if needed (one journal entry); the onset
        and any other key of the pick are kept."""
        return self._pick_after(sound_id, self.update_pick(sound_id, layer=layer))

    def set_onset(self, sound_id: str, onset: Onset) -> Pick:
        """Set the onset (seconds or an anchor string), picking the sound if needed."""
        return self._pick_after(sound_id, self.update_pick(sound_id, onset=onset))

    def _pick_after(self, sound_id: str, entry: JournalEntry | None) -> Pick:
        """The pick a decision left (from its journal entry: no re-read of the file)."""
        # Nothing changed (no entry): the file is as it was, read it.
        record = entry.after.get("pick") if entry is not None else self._verdicts(sound_id).pick
        return Pick.from_dict(record if isinstance(record, dict) else {}, sound_id)

    def clear(self, sound_id: str) -> None:
        """Remove a pick and a reject (no-op when undecided)."""
        self._decide(sound_id, lambda now: Verdicts())

    @staticmethod
    def _valid_key(sound_id: str) -> bool:
        encode_key(sound_id)  # raises InvalidKeyError (a ValidationError)
        return True

    def _wrote(self, namespace: str, sound_id: str) -> None:
        hook = self.on_write
        if hook is not None:
            hook(namespace, sound_id)

    def _write(self, sound_id: str, before: Verdicts, after: Verdicts) -> None:
        """Make the files say ``after`` touching only what differs from ``before``.
        Writes come before removals: a crash in between leaves both verdicts (readable,
        foley's own state), never neither."""
        for ns, name, old, new in (
            (self.picks_ns, "picks", before.pick, after.pick),
            (self.rejects_ns, "rejects", before.reject, after.reject),
        ):
            # An unreadable file reads as a bare record: it is only replaced when the
            # decision changes that record, never rewritten as it (we could not parse it).
            if new is not None and not _same(old, new):
                _put(ns, sound_id, new)
                self._wrote(name, sound_id)
        for ns, name, old, new in (
            (self.picks_ns, "picks", before.pick, after.pick),
            (self.rejects_ns, "rejects", before.reject, after.reject),
        ):
            if new is None and old is not None:
                _discard(ns, sound_id)
                self._wrote(name, sound_id)

    def _decide(
        self,
        sound_id: str,
        change: Callable[[Verdicts], Verdicts | None],
        *,
        kind: str = "do",
        target: int | None = None,
    ) -> JournalEntry | None:
        """Read the sound's records, compute ``change(now)`` and apply it durably, then
        journal it, all under the session lock. None when nothing had to change."""
        self._valid_key(sound_id)
        with self._locked():
            before = self._verdicts(sound_id)
            after = change(before)
            if after is None:
                return None
            if (
                kind == "do"
                and _same(before.pick, after.pick)
                and _same(before.reject, after.reject)
            ):
                return None
            try:
                if kind != "skip":  # a skip writes nothing but its journal record
                    self._write(sound_id, before, after)
            except OSError as exc:
                self._rollback(sound_id, before, after)
                raise _write_error(exc, f"could not save the decision on {sound_id!r}") from exc
            if kind != "skip":
                note_own_decision(self, sound_id)
            try:
                return self._append(sound_id, before, after, kind, target)
            except OSError as exc:
                self._rollback(sound_id, before, after)
                raise _write_error(exc, f"could not journal the decision on {sound_id!r}") from exc

    def pick_and_drop(
        self,
        sound_id: str,
        others: Iterable[str],
        *,
        layer: Layer | _Keep | None = KEEP,
        onset: Onset | _Keep = KEEP,
    ) -> JournalEntry | None:
        """Pick ``sound_id`` and drop the picks of ``others`` (one pick per scene event), as
        ONE journal entry, undone and redone in one step. A reject of another sound stays
        (foley's ``drop_pick``). All the records are read under the session lock before
        anything is written; a failed write rolls every file back."""
        items: list[tuple[str, Callable[[Verdicts], Verdicts | None]]] = [
            (sound_id, lambda now: Verdicts(_pick_record(sound_id, now.pick, layer, onset)))
        ]
        items += [
            (sid, lambda now: Verdicts(None, now.reject)) for sid in others if sid != sound_id
        ]
        return self._decide_group(items)

    def _decide_group(
        self,
        items: list[tuple[str, Callable[[Verdicts], Verdicts | None]]],
        *,
        kind: str = "do",
        target: int | None = None,
    ) -> JournalEntry | None:
        """:meth:`_decide` for several sounds at once: every ``change`` is computed (and
        may refuse, as undo's compare-and-swap does) before any file is written; then the
        files, then one journal entry. The first item's sound is the entry's own."""
        if len(items) == 1:
            sid, change = items[0]
            return self._decide(sid, change, kind=kind, target=target)
        for sid, _ in items:
            self._valid_key(sid)
        with self._locked():
            planned: list[tuple[str, Verdicts, Verdicts]] = []
            for sid, change in items:
                before = self._verdicts(sid)
                after = change(before)
                if after is None:
                    continue
                same = _same(before.pick, after.pick) and _same(before.reject, after.reject)
                if kind == "do" and same and planned:
                    continue  # an unchanged other sound is not part of the entry
                planned.append((sid, before, after))
            first = planned[0] if planned else None
            if first is None or (
                kind == "do"
                and len(planned) == 1
                and _same(first[1].pick, first[2].pick)
                and _same(first[1].reject, first[2].reject)
            ):
                return None
            done: list[tuple[str, Verdicts, Verdicts]] = []
            try:
                if kind != "skip":
                    for sid, before, after in planned:
                        self._write(sid, before, after)
                        done.append((sid, before, after))
                also = tuple((s, b.to_state(), a.to_state()) for s, b, a in planned[1:])
                return self._append(first[0], first[1], first[2], kind, target, also)
            except OSError as exc:
                for s, b, a in reversed(done):
                    self._rollback(s, b, a)
                raise _write_error(exc, f"could not save the decision on {first[0]!r}") from exc

    def _rollback(self, sound_id: str, before: Verdicts, after: Verdicts) -> None:
        if not before.clean:
            return  # never overwrite an unreadable file we could not parse
        with contextlib.suppress(OSError, ValueError):
            self._write(sound_id, after, before)
