"""The decision write path of a session store: verdicts -> change -> files -> journal.

:class:`Decisions` is the part of :class:`~foley_tui.store.session.SessionStore` that
decides: foley's pick/reject API, our layer/onset edits, groups (a pick that drops its
event's other picks) and undo/redo. Every decision is the same four steps, whatever the
backend:

1. read the sound's raw records (:class:`Verdicts`: its pick and its reject) under the
   session lock;
2. ask each sound's :class:`~foley_tui.store.edits.SoundEdit` for the records wanted (a
   refusal, as undo's compare-and-swap raises, writes nothing);
3. apply the new records and journal one entry, through the backend's :class:`Commit`;
4. tell the subscribers of :meth:`Decisions.subscribe` (the app's decision watch) which
   sounds were written.

:class:`FileCommit` applies on files and in memory: under the session lock (threads of
this process and an ``flock`` shared with other foley-tui processes), files first, then
the journal append, both fsync'd before the call returns. Only the files that change are
touched, writes before removals (a crash in between leaves both verdicts, foley's own
state, never neither); a failed step rolls the files back. A crash between the files and
the journal reads exactly like a decision made by foley's agent: consistent, readable,
not undoable. Redis applies in one server-side script
(:class:`~foley_tui.store.redis.session.RedisCommit`), which may find the sound changed
since step 1: then the steps run again.

Every write keeps the fields the user did not change, byte for byte, including keys
foley-tui does not know; a sound can be picked and rejected at once (foley allows it:
:attr:`Status.CONFLICT`); the journal records the raw records on both sides, and undo/redo
are compare-and-swap: an entry applies only while the sound is still as the entry left
it (:class:`UndoConflictError` otherwise; ``force`` applies anyway, ``skip`` steps past).

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from foley_tui.domain import (
    Layer,
    Onset,
    Pick,
    Reject,
    Status,
    validate_layer,
)
from foley_tui.marks import Marks
from foley_tui.store.backend import SessionBackend
from foley_tui.store.codec import DecodeError, encode_key
from foley_tui.store.decision_records import KEEP, DecisionCounts, _Keep, _same
from foley_tui.store.edits import (
    Clear,
    DropPick,
    DropReject,
    EditMarks,
    MarksEdit,
    SetPick,
    SetReject,
    SoundEdit,
    Swap,
    TogglePick,
    ToggleReject,
)
from foley_tui.store.errors import StoreProblem, StoreWriteError, UndoConflictError
from foley_tui.store.journal import Journal
from foley_tui.store.reads import Problems
from foley_tui.store.records import (
    MARKS_NS,
    JournalEntry,
    Verdicts,
    _write_error,
    carriable,
    entry_states,
    record_of_bytes,
)

#: A decision whose sound keeps changing under it (another writer on Redis) is read and
#: computed again this many times; undo/redo look at the stack again as often.
ATTEMPTS = 50


@dataclass(frozen=True, slots=True)
class Current:
    """A sound's records as read for a decision, with what the backend needs to check
    they are still so when it applies (Redis: the stored bytes; files: nothing, the
    session lock excludes every other writer of ours)."""

    sound_id: str
    verdicts: Verdicts
    expected: Any = None


@dataclass(frozen=True, slots=True)
class Planned:
    """One sound of a decision: as read, and as it is to be."""

    current: Current
    after: Verdicts

    @property
    def sound_id(self) -> str:
        return self.current.sound_id

    @property
    def before(self) -> Verdicts:
        return self.current.verdicts


class Commit(Protocol):
    """How a backend reads a decision's sounds and applies it with its journal entry."""

    def session(self) -> contextlib.AbstractContextManager[None]:
        """Held from the read to the apply (and across undo's look at the stack)."""
        ...

    def read(self, sound_ids: list[str]) -> list[Current]:
        """The records of each sound now."""
        ...

    def unchanged(self, before: Verdicts, after: Verdicts) -> bool:
        """Whether applying ``after`` over ``before`` would change nothing."""
        ...

    def apply(self, planned: list[Planned], kind: str, target: int | None) -> JournalEntry | None:
        """Write every sound's records and journal one entry (the first sound's own);
        None when a sound changed since it was read (read and compute again)."""
        ...


class FileCommit:
    """Decisions on files and in memory: under the session lock, files then journal."""

    def __init__(self, backend: SessionBackend, journal: Journal, problems: Problems) -> None:
        self.backend = backend
        self.journal = journal
        self.problems = problems

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        try:
            with self.backend.state.lock():
                yield
        except StoreWriteError:
            raise
        except OSError as exc:
            raise _write_error(exc, "could not lock the session") from exc

    def read(self, sound_ids: list[str]) -> list[Current]:
        return [Current(sid, verdicts_of(self.backend, self.problems, sid)) for sid in sound_ids]

    def unchanged(self, before: Verdicts, after: Verdicts) -> bool:
        return (
            _same(before.pick, after.pick)
            and _same(before.reject, after.reject)
            and before.same_marks(after)
        )

    def apply(self, planned: list[Planned], kind: str, target: int | None) -> JournalEntry | None:
        first = planned[0]
        written: list[Planned] = []
        try:
            if kind != "skip":  # a skip writes nothing but its journal record
                for item in planned:
                    written.append(item)
                    self._write(item.sound_id, item.before, item.after)
        except OSError as exc:
            raise self._refused(
                written, exc, f"could not save the decision on {first.sound_id!r}"
            ) from exc
        also = tuple((p.sound_id, *entry_states(p.before, p.after)) for p in planned[1:])
        try:
            return self.journal.append(
                first.sound_id, first.before, first.after, kind, target, also
            )
        except OSError as exc:
            doing = "journal" if len(planned) == 1 else "save"
            raise self._refused(
                written, exc, f"could not {doing} the decision on {first.sound_id!r}"
            ) from exc

    def _refused(self, written: list[Planned], exc: OSError, message: str) -> StoreWriteError:
        """Roll back a refused decision and say what the files hold now.

        Every step of the rollback is attempted, whichever fails. When a step does fail,
        the files are left neither as they were nor as decided (a reject written whose
        pick could not be removed, say): that state is journaled as what it is, so undo
        can restore the one before, and the error names it and why."""
        self._rollback(written)
        error = _write_error(exc, message)
        left: list[Planned] = []
        for item in written:
            try:
                now = verdicts_of(self.backend, self.problems, item.sound_id)
            except OSError:
                continue
            if not self.unchanged(item.before, now):
                left.append(Planned(item.current, now))
        if not left:
            return error  # rolled back: the files are as they were
        states = "; ".join(f"{p.sound_id!r} is left {_describe(p.after)}" for p in left)
        also = tuple((p.sound_id, p.before.to_state(), p.after.to_state()) for p in left[1:])
        try:
            self.journal.append(left[0].sound_id, left[0].before, left[0].after, "do", None, also)
        except OSError as again:
            journaled = f"not journaled either ({again.strerror or again})"
        else:
            journaled = "journaled as it is: undo restores the state before"
        refused = StoreWriteError(f"{error}; {states} ({journaled})")
        refused.errno = error.errno
        return refused

    def _write(self, sound_id: str, before: Verdicts, after: Verdicts) -> None:
        """Make the files say ``after`` touching only what differs from ``before``.
        Writes come before removals: a crash in between leaves both verdicts (readable,
        foley's own state), never neither."""
        sides = (("picks", before.pick, after.pick), ("rejects", before.reject, after.reject))
        if not before.same_marks(after):  # our marks, in our state (never foley's folders)
            if isinstance(after.marks, dict):
                self.backend.put(MARKS_NS, sound_id, after.marks)
            else:
                self.backend.discard(MARKS_NS, sound_id)
        for name, old, new in sides:
            # An unreadable file reads as a bare record: it is only replaced when the
            # decision changes that record, never rewritten as it (we could not parse it).
            if new is not None and not _same(old, new):
                self.backend.put(name, sound_id, new)
        for name, old, new in sides:
            if new is None and old is not None:
                self.backend.discard(name, sound_id)

    def _rollback(self, written: list[Planned]) -> None:
        """Make the files say each item's ``before`` again, writes before removals as in
        :meth:`_write`; each step is tried even when another failed (a refused write must
        not keep a removal from running)."""
        for item in reversed(written):
            if not item.before.clean:
                continue  # never overwrite an unreadable file we could not parse
            now, then = item.after, item.before
            sides = (("picks", now.pick, then.pick), ("rejects", now.reject, then.reject))
            for name, new, old in sides:
                if old is not None and not _same(new, old):
                    with contextlib.suppress(OSError, ValueError):
                        self.backend.put(name, item.sound_id, old)
            had_verdict = then.pick is not None or then.reject is not None
            for name, new, old in sides:
                if old is None and new is not None:
                    other = "rejects" if name == "picks" else "picks"
                    if had_verdict and not self._holds(other, item.sound_id):
                        # Its write back failed: removing this one too would leave no
                        # verdict at all. It stays, and is said (see _refused).
                        continue
                    with contextlib.suppress(OSError, ValueError):
                        self.backend.discard(name, item.sound_id)

    def _holds(self, name: str, sound_id: str) -> bool:
        try:
            return sound_id in self.backend.namespace(name)
        except OSError:
            return True  # cannot tell: keep what is there


def _describe(verdicts: Verdicts) -> str:
    if verdicts.pick is not None and verdicts.reject is not None:
        return "picked and rejected"
    if verdicts.pick is not None:
        return "picked"
    if verdicts.reject is not None:
        return "rejected"
    return "undecided"


def verdicts_of(backend: SessionBackend, problems: Problems, sound_id: str) -> Verdicts:
    """The raw pick and reject records of a sound, as the backend holds them now, and our
    marks of it."""
    pick, pick_ok = _record(backend, problems, "picks", sound_id)
    reject, reject_ok = _record(backend, problems, "rejects", sound_id)
    return Verdicts(pick, reject, pick_ok and reject_ok, marks_of(backend, problems, sound_id))


def marks_of(backend: SessionBackend, problems: Problems, sound_id: str) -> dict[str, Any] | None:
    """Our marks record of a sound (None: none, or unreadable: reported)."""
    if sound_id not in backend.namespace(MARKS_NS):
        return None
    return backend.read(MARKS_NS, sound_id, problems)


def _record(
    backend: SessionBackend, problems: Problems, name: str, sound_id: str
) -> tuple[dict[str, Any] | None, bool]:
    """(record or None, readable). An unreadable file reads as a bare record."""
    ns = backend.namespace(name)
    if sound_id not in ns:
        return None, True
    value = backend.read(name, sound_id, problems)
    if value is not None:
        if type(value) is dict and not carriable(value):
            # Foley wrote a value JSON cannot carry (a NaN onset): keep the file's
            # bytes with the record, for the journal and a verbatim undo.
            try:
                return record_of_bytes(backend.raw(name, sound_id)), True
            except (KeyError, OSError, DecodeError):
                pass  # changed or gone meanwhile: unreadable, never written back
        else:
            return value, True
    if sound_id not in ns:  # gone meanwhile
        return None, True
    if name == "picks":
        return {"sound_id": sound_id, "layer": None, "onset": None}, False
    return {"sound_id": sound_id, "reason": None}, False


def _valid_key(sound_id: str) -> None:
    encode_key(sound_id)  # raises InvalidKeyError (a ValidationError)


class Decisions:
    """foley's decision API and ours, journaled and undoable, over one backend."""

    def __init__(
        self, backend: SessionBackend, journal: Journal, problems: Problems, commit: Commit
    ) -> None:
        self.backend = backend
        self.journal = journal
        self.problems = problems
        self.commit = commit
        self._subscribers: list[Callable[[str], None]] = []

    def subscribe(self, written: Callable[[str], None]) -> None:
        """Call ``written(sound id)`` after each decision of ours writes that sound's
        records, under the session lock (a change detector records our own writes so
        its next poll does not mistake them for foley's)."""
        self._subscribers.append(written)

    # ------------------------------------------------------------------ the path
    def decide(
        self, edits: list[SoundEdit], *, kind: str = "do", target: int | None = None
    ) -> JournalEntry | None:
        """Read the sounds, compute every edit (which may refuse: undo's
        compare-and-swap) before anything is written, then apply them with ONE journal
        entry. The first edit's sound is the entry's own; an unchanged other sound is
        left out of it. None when nothing had to change."""
        for edit in edits:
            _valid_key(edit.sound_id)
        sound_ids = [edit.sound_id for edit in edits]
        commit = self.commit
        for _attempt in range(ATTEMPTS):
            with commit.session():
                planned: list[Planned] = []
                for edit, current in zip(edits, commit.read(sound_ids), strict=True):
                    after = edit.apply(current.verdicts)
                    if after is None:
                        continue
                    after = after.settled(current.verdicts)  # marks an edit leaves alone
                    if kind == "do" and planned and commit.unchanged(current.verdicts, after):
                        continue  # an unchanged other sound is not part of the entry
                    planned.append(Planned(current, after))
                if not planned:
                    return None
                first = planned[0]
                if (
                    kind == "do"
                    and len(planned) == 1
                    and commit.unchanged(first.before, first.after)
                ):
                    return None
                entry = commit.apply(planned, kind, target)
                if entry is None:
                    continue  # a sound changed between our read and the apply: again
                if kind != "skip":
                    for item in planned:
                        for written in self._subscribers:
                            written(item.sound_id)
                return entry
        raise StoreWriteError(f"the decision on {sound_ids[0]!r} kept being overtaken; try again")

    def one(self, edit: SoundEdit) -> JournalEntry | None:
        return self.decide([edit])

    # ------------------------------------------------------------------ decisions
    def add_pick(self, sound_id: str, layer: str | None, onset: Onset) -> None:
        self.one(SetPick(sound_id, validate_layer(layer), onset))

    def drop_pick(self, sound_id: str) -> None:
        self.one(DropPick(sound_id))

    def update_pick(
        self, sound_id: str, *, layer: Layer | _Keep | None = KEEP, onset: Onset | _Keep = KEEP
    ) -> JournalEntry | None:
        return self.one(SetPick(sound_id, layer, onset, strict=True))

    def set_reject(self, sound_id: str, reason: str | None = None) -> JournalEntry | None:
        return self.one(SetReject(sound_id, reason))

    def toggle_pick(
        self, sound_id: str, *, layer: Layer | _Keep | None = KEEP, onset: Onset | _Keep = KEEP
    ) -> JournalEntry | None:
        return self.one(TogglePick(sound_id, layer, onset))

    def toggle_reject(self, sound_id: str, reason: str | None = None) -> JournalEntry | None:
        return self.one(ToggleReject(sound_id, reason))

    def drop_reject(self, sound_id: str) -> JournalEntry | None:
        return self.one(DropReject(sound_id))

    def clear(self, sound_id: str) -> None:
        self.one(Clear(sound_id))

    def pick_and_drop(
        self,
        sound_id: str,
        others: Iterable[str],
        *,
        layer: Layer | _Keep | None = KEEP,
        onset: Onset | _Keep = KEEP,
    ) -> JournalEntry | None:
        edits: list[SoundEdit] = [SetPick(sound_id, layer, onset)]
        edits += [DropPick(sid) for sid in others if sid != sound_id]
        return self.decide(edits)

    # ------------------------------------------------------------------ our marks
    def update_marks(
        self,
        sound_id: str,
        marks: MarksEdit,
        *,
        duration_s: float | None = None,
        pick: SoundEdit | None = None,
    ) -> JournalEntry | None:
        """Change our marks of a sound (rating, hidden, region) as one journaled,
        undoable decision, computed on the marks read under the lock; with ``pick``,
        the same entry also makes that decision (``pick --in --out``). A region outside
        the sound (``duration_s``) or with in >= out raises :class:`ValidationError`,
        writing nothing."""
        return self.one(EditMarks(sound_id, marks, duration_s, pick))

    def marks(self) -> dict[str, Marks]:
        """Our marks of every sound that has some."""
        out: dict[str, Marks] = {}
        for key, value in self.backend.read_all(MARKS_NS, self.problems):
            marks = Marks.from_record(value)
            if not marks.empty:
                out[key] = marks
        return out

    def marks_of(self, sound_id: str) -> Marks:
        return Marks.from_record(marks_of(self.backend, self.problems, sound_id))

    # ------------------------------------------------------------------ undo / redo
    def step(self, kind: str, *, force: bool = False, skip: bool = False) -> JournalEntry | None:
        """Undo (``kind="undo"``) or redo the top of its stack by compare-and-swap, or
        step past it (``skip``: a ``skip`` record, nothing else written)."""
        with self.commit.session():
            for _attempt in range(ATTEMPTS):
                target = self._top(kind)
                if target is None:
                    return None
                try:
                    self.decide(
                        [
                            Swap(sid, kind, target, old, new, force=force, skip=skip)
                            for sid, old, new in target.changes()
                        ],
                        kind="skip" if skip else kind,
                        target=target.seq,
                    )
                except UndoConflictError:
                    # On a store without a cross-process lock (Redis), another process
                    # of ours may have moved the stack meanwhile: look again.
                    now = self._top(kind)
                    if now is not None and now.seq == target.seq:
                        raise
                    continue
                return target
            return None

    def _top(self, kind: str) -> JournalEntry | None:
        undo, redo = self.journal.tops()
        return undo if kind == "undo" else redo

    # ------------------------------------------------------------------ reads
    def verdicts(self, sound_id: str) -> Verdicts:
        return verdicts_of(self.backend, self.problems, sound_id)

    def picks(self) -> dict[str, Pick]:
        out: dict[str, Pick] = {}
        for key, value in self.backend.read_all("picks", self.problems):
            pick = Pick.from_dict(value, key)
            out[key] = Pick(key, pick.layer, pick.onset)
            bad = [
                f"{field} {value.get(field)!r} is invalid"
                for field, got in (("layer", pick.layer), ("onset", pick.onset))
                if got is None and value.get(field) is not None
            ]
            if bad:
                reason = "; ".join(bad) + " (foley's plan fails on it)"
                path = self.backend.path_of("picks", key)
                self.problems.note(StoreProblem("picks", key, path, reason))
        return out

    def rejects(self) -> dict[str, Reject]:
        return {
            key: Reject(key, Reject.from_dict(value, key).reason)
            for key, value in self.backend.read_all("rejects", self.problems)
        }

    def counts(self) -> DecisionCounts:
        picked = set(self.backend.names("picks", self.problems))
        rejected = set(self.backend.names("rejects", self.problems))
        candidates = self.backend.candidates
        ghosts = sum(1 for sid in picked if sid not in candidates)
        return DecisionCounts(
            picks=len(picked),
            rejects=len(rejected),
            conflicts=len(picked & rejected),
            ghosts=ghosts,
            candidates=self.backend.count("candidates"),
        )

    def status(self, sound_id: str) -> Status:
        picked = sound_id in self.backend.picks
        rejected = sound_id in self.backend.rejects
        if picked:
            return Status.CONFLICT if rejected else Status.PICKED
        return Status.REJECTED if rejected else Status.UNDECIDED


__all__ = ["ATTEMPTS", "Commit", "Current", "Decisions", "FileCommit", "Planned"]
