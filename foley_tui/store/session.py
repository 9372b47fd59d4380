"""One audition session: foley's SessionStore API plus what the TUI needs.

Above the Mapping layer everything works on any ``MutableMapping`` (files by default, a
dict in tests). Decisions (pick, reject, clear, layer, onset, undo, redo) are applied to
the namespace files first, then journaled; both are fsync'd before the call returns.
A crash between the two leaves the decision on disk but not in the journal, which reads
exactly like a decision made by foley's agent: consistent and readable, just not undoable.

Headless: never imports textual.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import re
import stat as stat_mod
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ulid import ULID

from foley_tui.model import (
    Layer,
    Pick,
    Reject,
    Row,
    Status,
    ValidationError,
    validate_layer,
    validate_onset,
)
from foley_tui.store.backend import FileState, MemoryNamespace, StateBackend
from foley_tui.store.codec import DecodeError, InvalidKeyError, decode_name, encode_key
from foley_tui.store.errors import StoreProblem, StoreWriteError
from foley_tui.store.files import (
    RETRY_DELAYS,
    FileNamespace,
    UnreadableEntry,
    read_object,
)
from foley_tui.store.index import CandidateIndex, scan_digest, scan_stats

#: Version of our metadata/journal/export formats.
SCHEMA_VERSION = 1
#: A file modified this close to our scan may still change within the same timestamp
#: tick without changing size (file-system clocks are coarse): re-read it next time.
RACY_NS = 50_000_000
#: Cursor/view writes are coalesced to at most one per this many seconds (flush() forces).
META_COALESCE_S = 1.0

UNDECIDED: dict[str, Any] = {"status": "undecided"}


def now_utc() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_iso(text: object, default: datetime | None = None) -> datetime | None:
    if not isinstance(text, str):
        return default
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return default
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def fs_time(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, UTC)


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One decision in the journal. ``before``/``after`` are state dicts:
    ``{"status": "undecided"}``, ``{"status": "picked", "layer", "onset"}`` or
    ``{"status": "rejected", "reason"}``. ``kind`` is ``do``, ``undo`` or ``redo``;
    for undo/redo ``target`` is the seq of the entry undone/redone."""

    seq: int
    entry_id: str
    at: datetime
    sound_id: str
    before: dict[str, Any]
    after: dict[str, Any]
    kind: str = "do"
    target: int | None = None

    def to_record(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "id": self.entry_id,
            "at": iso(self.at),
            "kind": self.kind,
            "target": self.target,
            "sound_id": self.sound_id,
            "before": self.before,
            "after": self.after,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> JournalEntry | None:
        try:
            return cls(
                seq=int(record["seq"]),
                entry_id=str(record.get("id") or ""),
                at=parse_iso(record.get("at")) or datetime.fromtimestamp(0, UTC),
                sound_id=str(record["sound_id"]),
                before=normalize_state(record.get("before")),
                after=normalize_state(record.get("after")),
                kind=str(record.get("kind") or "do"),
                target=record.get("target") if isinstance(record.get("target"), int) else None,
            )
        except (KeyError, TypeError, ValueError):
            return None


def normalize_state(state: object) -> dict[str, Any]:
    """A state dict in canonical form; anything malformed reads as undecided."""
    if not isinstance(state, Mapping):
        return dict(UNDECIDED)
    status = state.get("status")
    if status == "picked":
        try:
            layer = validate_layer(state.get("layer"))
        except ValidationError:
            layer = None
        raw = state.get("onset")
        try:
            onset = validate_onset(raw)
        except ValidationError:
            onset = None
        if onset is not None and isinstance(raw, int) and not isinstance(raw, bool):
            onset = raw  # keep 3 as 3: foley writes it that way (byte-identical files)
        return {"status": "picked", "layer": layer, "onset": onset}
    if status == "rejected":
        reason = state.get("reason")
        return {"status": "rejected", "reason": reason if isinstance(reason, str) else None}
    return dict(UNDECIDED)


@dataclass(frozen=True, slots=True)
class SessionMeta:
    """Our metadata for a session (kept in ``.foley-tui/meta.json``)."""

    title: str | None
    created: datetime
    updated: datetime
    cursor: str | None = None
    view: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION
    opened: datetime | None = None
    origin: str = "foley-tui"


def _to_dict(candidate: object) -> dict[str, Any]:
    if isinstance(candidate, Mapping):
        return dict(candidate)
    to_dict = getattr(candidate, "to_dict", None)
    if callable(to_dict):
        data = to_dict()
        if isinstance(data, Mapping):
            return dict(data)
    raise ValidationError(f"not a candidate (a dict or an object with to_dict): {candidate!r}")


def candidate_key(data: Mapping[str, Any]) -> str | None:
    """The sound id keying a candidate dict (``sound.id``, as foley keys it)."""
    sound = data.get("sound")
    if isinstance(sound, Mapping):
        sid = sound.get("id")
        if isinstance(sid, str) and sid:
            return sid
    return None


# A hidden name ending in ".json" inside a NUL-separated blob of names.
_HIDDEN_JSON = re.compile("\0\\.(?:[^\0]*\\.)?json(?=\0)")


def count_entries(names: list[str]) -> int:
    """How many names are foley entries (``*.json``, not hidden), counted in C.

    add_pick returns this count (as foley's does) after every decision; a Python loop
    over 1,000 names cost a few hundred microseconds per pick, as much as an fsync.
    File names cannot hold NUL, so one joined string with C-level counts is exact."""
    if not names:
        return 0
    blob = "\0" + "\0".join(names) + "\0"
    return blob.count(".json\0") - len(_HIDDEN_JSON.findall(blob))


def _num(value: object) -> float | None:
    if value is None or value is True or value is False:
        return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _row_values(data: Mapping[str, Any]) -> list[Any]:
    """The index columns of a candidate dict: the same values as
    ``Candidate(data).to_row()`` (a test holds them equal), computed without building
    the view and the Row, since a first open runs this for every file."""
    sound = data.get("sound")
    if not isinstance(sound, Mapping):
        sound = {}
    lic = sound.get("license")
    if not isinstance(lic, Mapping):
        lic = {}
    tags = sound.get("tags")
    score = None
    for name in ("rerank_score", "rrf_score", "clap_score", "bm25_score"):
        score = _num(data.get(name))
        if score is not None:
            break
    cost = _num(data.get("cost_actual_usd"))
    if cost is None:
        cost = _num(data.get("cost_estimate_usd"))
    rate = _num(sound.get("sample_rate"))
    channels = _num(sound.get("channels"))
    return [
        str(sound.get("caption") or ""),
        _num(sound.get("duration_s")),
        str(lic.get("source") or ""),
        str(lic.get("license_id") or lic.get("license_name") or ""),
        [str(t) for t in tags] if isinstance(tags, list) else [],
        score,
        cost,
        str(data.get("origin") or ""),
        int(rate) if rate else None,
        int(channels) if channels else None,
        str(sound.get("format") or ""),
    ]


_EMPTY_VALUES: list[Any] = ["", None, "", "", [], None, None, "", None, None, ""]


def _make_row(sound_id: str, rank: int, values: list[Any], unreadable: str | None) -> Row:
    # Positional on purpose: this runs 100k times per open and kwargs cost a third more.
    (caption, duration, source, license_id, tags, score, cost, origin, rate, ch, fmt) = values
    return Row(
        sound_id,
        rank,
        caption,
        duration,
        source,
        license_id,
        tuple(tags),
        score,
        cost,
        origin,
        rate,
        ch,
        fmt,
        True,
        unreadable,
    )


_live_stores: weakref.WeakSet[SessionStore] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:  # pragma: no cover - exercised at interpreter exit
    for store in list(_live_stores):
        with contextlib.suppress(Exception):
            store.flush()


class SessionStore:
    """foley's ``SessionStore`` API over three namespaces, plus journal, metadata and index.

    ``candidates``/``picks``/``rejects`` are any ``MutableMapping[str, dict]``; when they are
    :class:`FileNamespace` objects the store also uses their scans (fast listing, the
    index, change tokens). ``state`` keeps our metadata and journal.
    """

    def __init__(
        self,
        session_id: str,
        *,
        candidates: MutableMapping[str, dict[str, Any]],
        picks: MutableMapping[str, dict[str, Any]],
        rejects: MutableMapping[str, dict[str, Any]],
        state: StateBackend,
        data_dir: Path | None = None,
        session_path: Path | None = None,
    ) -> None:
        self.session_id = session_id
        self.candidates = candidates
        self.picks_ns = picks
        self.rejects_ns = rejects
        self.state = state
        self.data_dir = data_dir
        self.session_path = session_path
        self._problems: dict[tuple[str, str], StoreProblem] = {}
        self._scan_problems: dict[str, list[StoreProblem]] = {}
        self._journal: list[JournalEntry] = []
        self._journal_offset = 0
        self._journal_lock = threading.Lock()
        self._meta: dict[str, Any] | None = None
        self._meta_dirty = False
        self._meta_written = 0.0
        # (ino, mtime_ns, size) -> parsed dict, per namespace, for cheap re-reads.
        # file name -> ((ino, mtime_ns, size), parsed dict or None if unreadable, key)
        self._decision_cache: dict[
            str, dict[str, tuple[tuple[int, int, int], dict[str, Any] | None, str]]
        ] = {
            "picks": {},
            "rejects": {},
        }
        self._index: CandidateIndex | None = None
        self._candidate_count_hint = 0
        _live_stores.add(self)

    @classmethod
    def in_memory(cls, session_id: str = "default") -> SessionStore:
        return cls(
            session_id,
            candidates=MemoryNamespace(),
            picks=MemoryNamespace(),
            rejects=MemoryNamespace(),
            state=_memory_state(),
        )

    def __repr__(self) -> str:
        return f"SessionStore({self.session_id!r}, data_dir={self.data_dir!r})"

    # ------------------------------------------------------------------ problems
    def _note(self, problem: StoreProblem) -> None:
        self._problems[(problem.namespace, problem.key)] = problem

    def _clear_problem(self, namespace: str, key: str) -> None:
        self._problems.pop((namespace, key), None)

    def problems(self) -> list[StoreProblem]:
        """Unreadable and foreign entries found by the last reads (never deleted)."""
        found = list(self._problems.values())
        for items in self._scan_problems.values():
            found.extend(items)
        found.extend(self.state.problems)
        return sorted(set(found), key=lambda p: (p.namespace, p.key, p.path))

    # ------------------------------------------------------------------ reading
    def _names(self, ns: MutableMapping[str, dict[str, Any]], name: str) -> list[str]:
        """Keys of a namespace, sorted; foreign names are reported, never fatal."""
        if isinstance(ns, FileNamespace):
            entries, problems = ns.scan(stat=False)
            self._scan_problems[name] = problems
            return sorted(e.key for e in entries)
        return sorted(ns)

    def _read(
        self, ns: MutableMapping[str, dict[str, Any]], name: str, key: str
    ) -> dict[str, Any] | None:
        try:
            value = ns[key]
        except KeyError:
            self._clear_problem(name, key)
            return None
        except UnreadableEntry as exc:
            self._note(exc.problem)
            return None
        except DecodeError as exc:
            self._note(StoreProblem(name, key, "", str(exc)))
            return None
        if not isinstance(value, dict):
            self._note(StoreProblem(name, key, "", "not a JSON object"))
            return None
        self._clear_problem(name, key)
        return value

    def _read_all(
        self, ns: MutableMapping[str, dict[str, Any]], name: str
    ) -> list[tuple[str, dict[str, Any]]]:
        """Every readable (key, dict) of a decision namespace, tolerant and cached by stat."""
        if not isinstance(ns, FileNamespace):
            out = []
            for key in sorted(ns):
                value = self._read(ns, name, key)
                if value is not None:
                    out.append((key, value))
            return out
        cache = self._decision_cache[name]
        started = time.time_ns()
        fresh: dict[str, tuple[tuple[int, int, int], dict[str, Any] | None, str]] = {}
        failed: list[tuple[str, str, tuple[int, int, int]]] = []
        out_map: dict[str, dict[str, Any]] = {}
        problems: list[StoreProblem] = []
        try:
            iterator = os.scandir(ns.path)
        except FileNotFoundError:
            self._scan_problems[name] = []
            self._decision_cache[name] = {}
            return []
        dir_fd = os.open(ns.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with iterator:
                for entry in iterator:
                    fname = entry.name
                    if fname[0] == ".":
                        continue
                    hit = cache.get(fname)
                    try:  # fstatat: no path walk per file
                        st = os.stat(fname, dir_fd=dir_fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
                    if hit is not None and hit[0] == stamp:
                        if hit[1] is not None:
                            out_map[hit[2]] = hit[1]
                        fresh[fname] = hit  # a known-unreadable file stays reported
                        continue
                    decoded = decode_name(fname)
                    if decoded is None:
                        problems.append(
                            StoreProblem(
                                name, fname, entry.path, "foreign file name (foley cannot read it)"
                            )
                        )
                        continue
                    key = decoded
                    if stat_mod.S_ISDIR(st.st_mode):
                        problems.append(StoreProblem(name, key, entry.path, "a folder, not a file"))
                        continue
                    try:
                        value = read_object(entry.path, retry=False)
                    except FileNotFoundError:
                        continue
                    except (DecodeError, OSError):
                        failed.append((fname, key, stamp))
                        continue
                    out_map[key] = value
                    self._clear_problem(name, key)
                    if st.st_mtime_ns < started - RACY_NS:
                        fresh[fname] = (stamp, value, key)
        finally:
            os.close(dir_fd)
        # One shared retry window (~50 ms) for every file that failed, not 50 ms each.
        for delay in (*RETRY_DELAYS, None):
            if not failed:
                break
            still = []
            for fname, key, stamp in failed:
                path = os.path.join(ns.path, fname)
                try:
                    value = read_object(path, retry=False)
                except FileNotFoundError:
                    continue
                except (DecodeError, OSError) as exc:
                    if delay is None:  # out of retries: report it, remember it by stamp
                        self._note(StoreProblem(name, key, path, _reason(exc)))
                        if stamp[1] < started - RACY_NS:
                            fresh[fname] = (stamp, None, key)
                    still.append((fname, key, stamp))
                    continue
                out_map[key] = value
                self._clear_problem(name, key)
            failed = still
            if failed and delay is not None:
                time.sleep(delay)
        self._decision_cache[name] = fresh
        self._scan_problems[name] = problems
        return sorted(out_map.items())

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
                    entry_id=str(ULID()),
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

    # ------------------------------------------------------------------ metadata
    def _fs_created(self) -> datetime:
        if self.session_path is not None:
            try:
                st = os.stat(self.session_path)
                return fs_time(min(st.st_mtime_ns, st.st_ctime_ns))
            except OSError:
                pass
        return now_utc()

    def _meta_dict(self) -> dict[str, Any]:
        if self._meta is None:
            stored = self.state.read_meta() or {}
            created = parse_iso(stored.get("created")) or self._fs_created()
            view = stored.get("view")
            cursor = stored.get("cursor")
            title = stored.get("title")
            self._meta = {
                "schema_version": SCHEMA_VERSION,
                "title": title if isinstance(title, str) and title else None,
                "created": iso(created),
                "updated": stored.get("updated")
                if isinstance(stored.get("updated"), str)
                else iso(created),
                "opened": stored.get("opened") if isinstance(stored.get("opened"), str) else None,
                "cursor": cursor if isinstance(cursor, str) else None,
                "view": view if isinstance(view, dict) else {},
                "origin": stored.get("origin")
                if stored.get("origin") in ("foley", "foley-tui")
                else "foley",
            }
            if not stored:
                self._meta["origin"] = "foley"
        return self._meta

    def last_write(self) -> datetime | None:
        """When candidates, picks, rejects or the journal last changed (file times)."""
        latest = 0
        paths = [
            getattr(ns, "path", None) for ns in (self.candidates, self.picks_ns, self.rejects_ns)
        ]
        if isinstance(self.state, FileState):
            paths.append(os.path.join(self.state.path, "journal.jsonl"))
        for path in paths:
            if path:
                with contextlib.suppress(OSError):
                    latest = max(latest, os.stat(path).st_mtime_ns)
        if not latest and self._journal:
            return self._journal[-1].at
        return fs_time(latest) if latest else None

    def meta(self) -> SessionMeta:
        meta = self._meta_dict()
        created = parse_iso(meta["created"]) or now_utc()
        updated = parse_iso(meta["updated"]) or created
        # File times cover the journal too: listing sessions never reads whole journals.
        last = self.last_write()
        if last and last > updated:
            updated = last
        if self._journal and self._journal[-1].at > updated:
            updated = self._journal[-1].at
        return SessionMeta(
            title=meta["title"],
            created=created,
            updated=updated,
            cursor=meta["cursor"],
            view=dict(meta["view"]),
            schema_version=SCHEMA_VERSION,
            opened=parse_iso(meta.get("opened")),
            origin=meta["origin"],
        )

    def _write_meta(self, *, durable: bool = True) -> None:
        meta = self._meta_dict()
        try:
            self.state.write_meta(meta, durable=durable)
        except OSError as exc:
            raise _write_error(exc, "could not save the session metadata") from exc
        self._meta_dirty = False
        self._meta_written = time.monotonic()

    def set_title(self, title: str | None) -> None:
        if title is not None and not isinstance(title, str):
            raise ValidationError(f"title must be text (got {title!r})")
        meta = self._meta_dict()
        meta["title"] = (title or "").strip() or None
        meta["updated"] = iso(now_utc())
        self._write_meta()

    def set_cursor(self, sound_id: str | None) -> None:
        """Remember the cursor; written at most once a second (and by :meth:`flush`)."""
        meta = self._meta_dict()
        if meta["cursor"] == sound_id:
            return
        meta["cursor"] = sound_id
        self._touch_coalesced()

    def set_view(self, view: dict[str, Any]) -> None:
        if not isinstance(view, dict):
            raise ValidationError(f"view must be a dict (got {type(view).__name__})")
        from foley_tui.store.codec import dumps

        dumps(view)  # refuse what cannot be stored before keeping it
        meta = self._meta_dict()
        meta["view"] = dict(view)
        self._touch_coalesced()

    def mark_opened(self) -> None:
        meta = self._meta_dict()
        meta["opened"] = iso(now_utc())
        self._meta_dirty = True
        self._write_meta(durable=False)

    def _touch_coalesced(self) -> None:
        self._meta_dirty = True
        if time.monotonic() - self._meta_written >= META_COALESCE_S:
            self._write_meta(durable=False)
            self._meta_dirty = True  # still owe a durable write at flush()

    def flush(self) -> None:
        """Write pending cursor/view changes durably (call when the app quits)."""
        if self._meta_dirty:
            self._write_meta(durable=True)

    def close(self) -> None:
        self.flush()

    # ------------------------------------------------------------------ change token
    def change_token(self) -> Hashable:
        """Differs after any write to candidates, picks, rejects or the journal.

        File backend: folder mtimes (any create/replace/unlink) plus (name, mtime, size)
        of every pick and reject (foley rewrites those in place) and, for sessions of up
        to 2,000 candidates, of every candidate too.
        """
        parts: list[Hashable] = []
        for ns in (self.candidates, self.picks_ns, self.rejects_ns):
            if isinstance(ns, FileNamespace):
                try:
                    parts.append(os.stat(ns.path).st_mtime_ns)
                except OSError:
                    parts.append(None)
                if ns is not self.candidates or self._candidate_count_hint <= 2000:
                    entries, _ = ns.scan(stat=True)
                    if ns is self.candidates:
                        self._candidate_count_hint = len(entries)
                    parts.append(hash(tuple((e.name, e.mtime_ns, e.size) for e in entries)))
            elif isinstance(ns, MemoryNamespace):
                parts.append(ns.version)
            else:
                parts.append(hash(tuple(sorted(ns))))
        parts.append(self.state.journal_token())
        return tuple(parts)

    # ------------------------------------------------------------------ rows / index
    def candidate_ids(self) -> list[str]:
        """Candidate ids from file names only (fast, for the first paint)."""
        if isinstance(self.candidates, FileNamespace):
            # The index maps names to keys (a pure function of the name, so even a stale
            # index is right); keep it loaded: rows() comes next and reuses it.
            index = self._load_index()
            known = index.key_of_name() if index is not None else None
            entries, problems = self.candidates.scan(stat=False, known=known)
            self._scan_problems["candidates"] = problems
            # change_token() stats every candidate of a small session only: tell it the
            # size now, or its first call (right after the first paint) stats 100k files.
            self._candidate_count_hint = len(entries)
            return sorted(e.key for e in entries)
        return self._names(self.candidates, "candidates")

    def rows(
        self,
        progress: Callable[[int, int], None] | None = None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]:
        """All list rows, ranked by (first-seen file mtime, id), from the compact index.

        Only files whose (name, mtime, size) changed since the index was written are
        parsed, one at a time: full candidate dicts are never all held at once.
        Unreadable files give a row with ``unreadable`` set and are in :meth:`problems`.
        ``partial`` receives the rows parsed so far in batches while files are parsed (a
        first open of a big session), so a list can fill in progressively; their ``rank``
        is provisional until the returned list.
        """
        if not isinstance(self.candidates, FileNamespace):
            return self._rows_generic(progress)
        return self._rows_indexed(self.candidates, progress, partial)

    def quick_rows(self) -> list[Row] | None:
        """The stored index's rows after a names-only check: no stat of every file.

        For the first paint of a big session (about half the cost of :meth:`rows` at
        100k files: the per-file ``fstatat`` is skipped). The names match the folder,
        but a file rewritten in place since the index was written still shows its old
        values, so call :meth:`rows` next for the exact list (it also refreshes
        :meth:`problems`). None when there is no usable index, the folder's names differ
        from it, or the backend is not files.
        """
        if not isinstance(self.candidates, FileNamespace):
            return None
        index = self._load_index()
        if index is None:
            return None
        try:
            names = os.listdir(self.candidates.path)
        except FileNotFoundError:
            names = []
        expected = set(index.names)
        expected.update(name for _, name, _ in index.problems)
        current = set(names)
        current.difference_update([name for name in names if name[:1] == "."])
        if current != expected:
            return None
        self._candidate_count_hint = len(current)  # as in candidate_ids()
        return index.rows()

    def _rows_generic(self, progress: Callable[[int, int], None] | None) -> list[Row]:
        keys = list(self.candidates)
        rows = []
        for rank, key in enumerate(keys):
            value = self._read(self.candidates, "candidates", key)
            if value is None:
                problem = self._problems.get(("candidates", key))
                reason = problem.reason if problem else "unreadable"
                rows.append(_make_row(key, rank, _EMPTY_VALUES, reason))
            else:
                rows.append(_make_row(key, rank, _row_values(value), None))
            if progress is not None and (rank % 1000 == 0 or rank == len(keys) - 1):
                progress(rank + 1, len(keys))
        return rows

    def _load_index(self) -> CandidateIndex | None:
        if self._index is None:
            raw = self.state.read_index()
            # A damaged or foreign index reads as none: it is only a cache, rebuilt.
            self._index = CandidateIndex.from_bytes(raw) if isinstance(raw, bytes) else None
        return self._index

    def _rows_indexed(
        self,
        ns: FileNamespace,
        progress: Callable[[int, int], None] | None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]:
        started = time.time_ns()
        old = self._load_index()
        names, mtimes, sizes = scan_stats(ns.path)
        digest = scan_digest(names, mtimes, sizes)
        self._candidate_count_hint = len(names)
        if (
            old is not None
            and digest == old.digest
            and (not mtimes or max(mtimes) < old.scanned_ns - RACY_NS)
        ):
            # Same names, mtimes and sizes in the same order, none young enough to change
            # within a clock tick: the stored rows are exact. The hot path of opening.
            self._index_problems(ns, old)
            if progress is not None:
                progress(0, 0)
            return old.rows()
        index = self._rebuild_index(
            ns, old, names, mtimes, sizes, started, digest, progress, partial
        )
        self._index = index
        self._index_problems(ns, index)
        if old is not None or names:
            with contextlib.suppress(OSError):
                self.state.write_index(index.to_bytes())
        return index.rows()

    def _index_problems(self, ns: FileNamespace, index: CandidateIndex) -> None:
        """Report the index's foreign names, folders and unreadable rows as problems."""
        self._scan_problems["candidates"] = [
            StoreProblem("candidates", key, os.path.join(ns.path, name), reason)
            for key, name, reason in index.problems
        ]
        unreadable = index.unreadable
        if unreadable.count(None) != len(unreadable):
            names = index.names
            for i, reason in enumerate(unreadable):
                if reason is not None:
                    path = os.path.join(ns.path, names[i])
                    self._note(StoreProblem("candidates", index.keys[i], path, reason))
        if any(ns_name == "candidates" for ns_name, _ in self._problems):
            present = set(index.keys)  # drop problems of files now gone
            for ns_name, key in list(self._problems):
                if ns_name == "candidates" and key not in present:
                    del self._problems[(ns_name, key)]

    def _rebuild_index(
        self,
        ns: FileNamespace,
        old: CandidateIndex | None,
        names: list[str],
        mtimes: list[int],
        sizes: list[int],
        started: int,
        digest: bytes,
        progress: Callable[[int, int], None] | None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> CandidateIndex:
        """Compare the scan with the index file by file; parse only new/changed files."""
        positions = old.positions() if old is not None else {}
        racy_before = old.scanned_ns - RACY_NS if old is not None else 0
        rows: list[tuple[Any, ...]] = []
        keep: list[int] = []  # positions of unchanged rows in the old index
        todo: list[tuple[str, str, int, int, int]] = []  # key, name, mtime, size, order
        problems: list[tuple[str, str, str]] = []
        for name, mtime, size in zip(names, mtimes, sizes, strict=True):
            i = positions.get(name)
            if old is not None and i is not None:
                if old.mtimes[i] == mtime and old.sizes[i] == size and mtime < racy_before:
                    keep.append(i)
                    continue
                todo.append((old.keys[i], name, mtime, size, old.orders[i]))
                continue
            key = decode_name(name)
            if key is None:
                problems.append((name, name, "foreign file name (foley cannot read it)"))
                continue
            todo.append((key, name, mtime, size, mtime))
        total = len(todo)
        failed: list[tuple[str, str, int, int, int]] = []
        emitted = 0  # rows[:emitted] were handed to ``partial`` already
        for done, (key, name, mtime, size, order) in enumerate(todo):
            try:
                data = read_object(os.path.join(ns.path, name), retry=False)
            except FileNotFoundError:
                continue
            except IsADirectoryError:
                problems.append((key, name, "a folder, not a file"))
                continue
            except (DecodeError, OSError):
                failed.append((key, name, mtime, size, order))
                continue
            rows.append((order, name, mtime, size, None, key, *_row_values(data)))
            self._clear_problem("candidates", key)
            if done % 1000 == 0:
                if progress is not None:
                    progress(done, total)
                if partial is not None and len(rows) > emitted:
                    partial([_make_row(t[5], t[0], list(t[6:]), None) for t in rows[emitted:]])
                    emitted = len(rows)
        # One shared retry window (~50 ms) for every file that failed, not 50 ms each.
        for delay in (*RETRY_DELAYS, None):
            if not failed:
                break
            still = []
            for key, name, mtime, size, order in failed:
                path = os.path.join(ns.path, name)
                try:
                    data = read_object(path, retry=False)
                except FileNotFoundError:
                    continue
                except (DecodeError, OSError) as exc:
                    if delay is None:  # out of retries: an unreadable row, reported
                        reason = _reason(exc)
                        rows.append((order, name, mtime, size, reason, key, *_EMPTY_VALUES))
                    still.append((key, name, mtime, size, order))
                    continue
                rows.append((order, name, mtime, size, None, key, *_row_values(data)))
                self._clear_problem("candidates", key)
            failed = still
            if failed and delay is not None:
                time.sleep(delay)
        if progress is not None:
            progress(total, total)
        if old is not None and keep:
            return CandidateIndex.merged(
                old, keep, rows, scanned_ns=started, digest=digest, problems=problems
            )
        return CandidateIndex.from_rows(rows, scanned_ns=started, digest=digest, problems=problems)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, IsADirectoryError):
        return "a folder, not a file"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def _picked(layer: object, onset: object) -> dict[str, Any]:
    validate_onset(onset)
    return {"status": "picked", "layer": validate_layer(layer), "onset": onset}


def _discard(ns: MutableMapping[str, dict[str, Any]], key: str) -> None:
    if isinstance(ns, FileNamespace):
        ns.discard(key)
    else:
        ns.pop(key, None)


def _write_error(exc: OSError, message: str) -> StoreWriteError:
    reason = exc.strerror or str(exc)
    err = StoreWriteError(f"{message}: {reason}")
    err.errno = exc.errno
    return err


def _memory_state() -> StateBackend:
    from foley_tui.store.backend import MemoryState

    return MemoryState()
