"""What the decoder found wrong in a sound's audio, remembered across runs.

A float WAV of NaN or inf is played and drawn as silence (the decoder replaces every
non-finite sample); this keeps that finding so the list and the details say it the next
time the session opens, before the sound is played again, and so ``candidates --json``
can tell a script. It is our observation of a file, never foley's data: it lives in our
state beside the session (``sessions/<id>/.foley-tui/sound-problems.json``, or the
session's state on Redis), and nothing of it ever goes into ``candidates/``, ``picks/``
or ``rejects/``.

Each record names the file it was found in with its size and modification time: a
finding about a file that has changed since (re-rendered, replaced) no longer applies and
is not shown. Updates are a read-modify-write with a compare-and-swap of the document, so
two processes noting problems at once never lose one.

Headless: never imports textual.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from foley_tui.safe_io import MAX_STATE_BYTES
from foley_tui.store.backend import StateBackend, attached
from foley_tui.store.codec import DecodeError, dumps, loads_object
from foley_tui.store.errors import StoreProblem
from foley_tui.store.messages import MAX_RACES
from foley_tui.store.records import iso, now_utc

SOUND_PROBLEMS_FILE = "sound-problems.json"
#: Findings kept per session: the oldest go first beyond this, or beyond half the size
#: our state files may have (the document is read whole).
MAX_SOUNDS = 1000
MAX_DOC_BYTES = MAX_STATE_BYTES // 2
_TEXT_MAX = 500


@dataclass(frozen=True, slots=True)
class FileStamp:
    """Which version of a file a finding is about: its path, size and mtime."""

    path: str
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> FileStamp | None:
        """The file as it is now; None when it cannot be read (gone, not a file)."""
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        return cls(os.fspath(path), st.st_size, st.st_mtime_ns)

    def current(self) -> bool:
        """The file is still the one the finding is about."""
        return FileStamp.of(self.path) == self


@dataclass(frozen=True, slots=True)
class SoundProblem:
    """One finding: ``problem`` (the kind, e.g. ``non-finite samples``), ``note`` (the
    sentence the details show), ``count`` (samples affected, when counted) and the file."""

    problem: str
    note: str
    count: int
    stamp: FileStamp

    def to_record(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "note": self.note,
            "count": self.count,
            "file": self.stamp.path,
            "size": self.stamp.size,
            "mtime_ns": self.stamp.mtime_ns,
            "noted": iso(now_utc()),
        }

    @classmethod
    def from_record(cls, record: object) -> SoundProblem | None:
        """A finding from its stored record; None when the record is not one of ours."""
        if not isinstance(record, Mapping):
            return None
        problem, note, path = record.get("problem"), record.get("note"), record.get("file")
        count, size, mtime = record.get("count"), record.get("size"), record.get("mtime_ns")
        if not all(isinstance(v, str) and v for v in (problem, note, path)):
            return None
        if not all(type(v) is int and v >= 0 for v in (count, size, mtime)):
            return None
        assert isinstance(problem, str) and isinstance(note, str) and isinstance(path, str)
        assert isinstance(count, int) and isinstance(size, int) and isinstance(mtime, int)
        return cls(problem[:_TEXT_MAX], note[:_TEXT_MAX], count, FileStamp(path, size, mtime))

    def same_finding(self, other: SoundProblem) -> bool:
        return (self.problem, self.count, self.stamp) == (other.problem, other.count, other.stamp)


class SoundProblems:
    """The findings of one session, on file, on Redis or in memory."""

    def __init__(self, state: StateBackend) -> None:
        self.state = state
        self._stored = state.keeps_documents
        self._where = state.where(SOUND_PROBLEMS_FILE)
        self._memory: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._problems: list[StoreProblem] = []

    def _load(self) -> tuple[dict[str, dict[str, Any]], bytes | None]:
        """The stored records by sound id and the bytes they came from; raises
        ValueError when the document is unreadable (never overwritten then)."""
        if not self._stored:
            return dict(self._memory), None
        try:
            data = self.state.read_doc(SOUND_PROBLEMS_FILE)
            if data is None:
                return {}, None
            doc = loads_object(data)
            sounds = doc.get("sounds")
            if not isinstance(sounds, dict):
                raise ValueError("no 'sounds' object")
            return {k: v for k, v in sounds.items() if isinstance(v, dict)}, data
        except (DecodeError, ValueError, OSError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            problem = StoreProblem("foley-tui", SOUND_PROBLEMS_FILE, self._where, reason)
            if problem not in self._problems:
                self._problems.append(problem)
            raise ValueError(reason) from None

    def read(self, *, current_only: bool = True) -> dict[str, SoundProblem]:
        """Every finding by sound id; with ``current_only`` only those whose file is
        still the one they are about. Unreadable findings read as none (reported in
        :attr:`problems`)."""
        try:
            records, _ = self._load()
        except ValueError:
            return {}
        out: dict[str, SoundProblem] = {}
        for sound_id, record in records.items():
            found = SoundProblem.from_record(record)
            if found is not None and (not current_only or found.stamp.current()):
                out[sound_id] = found
        return out

    def note(self, sound_id: str, found: SoundProblem) -> bool:
        """Remember ``found`` for ``sound_id``; False when it was known already (nothing
        written). Raises OSError when the store cannot be written, ValueError when the
        stored findings are unreadable (left as they are)."""
        with self._lock, self.state.lock():
            for _ in range(MAX_RACES):
                records, raw = self._load()
                known = SoundProblem.from_record(records.get(sound_id))
                if known is not None and known.same_finding(found):
                    return False
                records.pop(sound_id, None)
                records[sound_id] = found.to_record()
                while len(records) > MAX_SOUNDS:
                    del records[next(iter(records))]
                if self._store(records, raw):
                    return True
        raise OSError(f"could not note the problem: {MAX_RACES} other writers came first")

    def _store(self, records: dict[str, dict[str, Any]], old: bytes | None) -> bool:
        if not self._stored:
            self._memory = records
            return True
        data = dumps({"version": 1, "sounds": records})
        while len(data) > MAX_DOC_BYTES and len(records) > 1:
            for key in list(records)[: max(1, len(records) // 8)]:
                del records[key]
            data = dumps({"version": 1, "sounds": records})
        return self.state.swap_doc(SOUND_PROBLEMS_FILE, old, data)

    def token(self) -> Hashable:
        """Differs after any update (by any process): cheap to poll."""
        if self._stored:
            return self.state.token_of(SOUND_PROBLEMS_FILE)
        return tuple(self._memory)

    @property
    def problems(self) -> list[StoreProblem]:
        return list(self._problems)


def sound_problems_of(store: Any) -> SoundProblems:
    """The :class:`SoundProblems` of a :class:`SessionStore` (made on first use)."""
    return attached(store, SoundProblems, lambda: SoundProblems(store.state))


__all__ = [
    "MAX_SOUNDS",
    "SOUND_PROBLEMS_FILE",
    "FileStamp",
    "SoundProblem",
    "SoundProblems",
    "sound_problems_of",
]
