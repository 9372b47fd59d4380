"""One session on Redis: :class:`RedisState` (our state) and :class:`RedisSessionStore`.

The seam: :class:`~foley_tui.store.session.SessionStore` already works over any three
namespace mappings plus a :class:`~foley_tui.store.backend.StateBackend`. On Redis the
namespaces are :mod:`.namespace`'s dol stores and the state is :class:`RedisState`
(shared meta in a HASH, each user's cursor and view in their own HASH, the journal as a
STREAM). :class:`RedisSessionStore` keeps the whole SessionStore API and replaces three
things the file store does in several steps:

* a decision is ONE server-side script: it checks the sound is still in the state we read
  (compare-and-swap on the stored bytes), writes the verdict, appends the journal entry
  (its seq handed out by the script), bumps the version and appends the change event. All
  land together or not at all (AOF ``appendfsync always`` makes it durable on return);
* undo and redo are per user (you undo your own decisions only) and compare-and-swap:
  an entry applies only while the sound is still as that entry left it, else
  :class:`UndoConflictError` says what it is now (``force=True`` applies anyway, and
  :meth:`RedisSessionStore.skip` steps past it with a ``skip`` journal entry);
* the list rows come from the rows index kept by the candidates namespace's writes.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from redis.exceptions import RedisError

from foley_tui.model import Row, ValidationError
from foley_tui.store.backend import StateBackend
from foley_tui.store.codec import DecodeError, dumps, loads_object
from foley_tui.store.errors import StoreProblem, StoreWriteError
from foley_tui.store.records import (
    UNDECIDED,
    JournalEntry,
    _to_dict,
    candidate_key,
    new_ulid,
    normalize_state,
    now_utc,
)
from foley_tui.store.redis.keys import CHANGES_MAXLEN
from foley_tui.store.redis.namespace import RedisBackend, RedisHash, json_namespace, row_json
from foley_tui.store.rows import _EMPTY_VALUES, _make_row
from foley_tui.store.session import SessionStore

# KEYS: picks, rejects, journal, seq, version, changes, sessions
# ARGV: sound id, expected pick, expected reject ('' absent, 'v'..bytes present),
#       new pick, new reject ('' delete, 'v'..bytes write), record (JSON, no seq),
#       author, changes maxlen, session id
DECIDE = """
local function cur(key)
  local v = redis.call('HGET', key, ARGV[1])
  if not v then return '' end
  return 'v' .. v
end
if cur(KEYS[1]) ~= ARGV[2] or cur(KEYS[2]) ~= ARGV[3] then return {0} end
local function put(key, value)
  if value == '' then redis.call('HDEL', key, ARGV[1])
  else redis.call('HSET', key, ARGV[1], string.sub(value, 2)) end
end
put(KEYS[1], ARGV[4])
put(KEYS[2], ARGV[5])
local seq = redis.call('INCR', KEYS[4])
local id = redis.call('XADD', KEYS[3], '*', 'seq', seq, 'by', ARGV[7], 'rec', ARGV[6])
local v = redis.call('INCR', KEYS[5])
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[8], '*',
  'ns', 'decision', 'key', ARGV[1], 'op', 'decide', 'by', ARGV[7], 'v', v, 'seq', seq)
redis.call('SADD', KEYS[7], ARGV[9])
return {1, seq, id}
"""

#: Meta fields shared by everyone on the session; the rest are per user.
SHARED_META = ("schema_version", "title", "created", "updated", "origin")
USER_META = ("cursor", "view", "opened")
#: A decision whose sound keeps changing under it is retried this many times.
CAS_ATTEMPTS = 50


class UndoConflictError(StoreWriteError):
    """Undo/redo refused: the sound changed since that entry (nothing was written)."""

    def __init__(self, message: str, entry: JournalEntry, now: dict[str, Any]) -> None:
        super().__init__(message)
        self.entry = entry
        self.now = now


def describe_state(state: Mapping[str, Any]) -> str:
    """``picked, stinger at 12.0`` / ``rejected (too loud)`` / ``undecided``."""
    status = state.get("status")
    if status == "picked":
        parts = [str(state["layer"])] if state.get("layer") else []
        if state.get("onset") is not None:
            parts.append(f"at {state['onset']}")
        return "picked" + (", " + " ".join(parts) if parts else "")
    if status == "rejected":
        return "rejected" + (f" ({state['reason']})" if state.get("reason") else "")
    return "undecided"


class RedisState(StateBackend):
    """Meta (shared HASH + one HASH per user), the journal STREAM, the change token."""

    def __init__(self, backend: RedisBackend, session_id: str) -> None:
        self.backend = backend
        self.session_id = session_id
        keys = backend.keys
        self.k_meta = keys.meta(session_id)
        self.k_user = keys.user(session_id, backend.user)
        self.k_users = keys.users(session_id)
        self.k_journal = keys.journal(session_id)
        self.k_seq = keys.seq(session_id)
        self.k_version = keys.version(session_id)
        self._written: dict[str, str] = {}
        self._thread_lock = threading.RLock()
        # Where the last journal read stopped: (seq offset, stream id).
        self._cursor: tuple[int, str] = (0, "-")
        self._problems: list[StoreProblem] = []

    @property
    def problems(self) -> list[StoreProblem]:
        return list(self._problems)

    # -- meta --------------------------------------------------------------------
    def read_meta(self) -> dict[str, Any] | None:
        with self.backend.errors("could not read the session metadata"):
            pipe = self.backend.client.pipeline(transaction=False)
            pipe.hgetall(self.k_meta)
            pipe.hgetall(self.k_user)
            shared, mine = pipe.execute()
        out: dict[str, Any] = {}
        for source, fields in ((shared, SHARED_META), (mine, USER_META)):
            for raw_key, raw in source.items():
                key = raw_key.decode()
                if key not in fields:
                    continue
                with contextlib.suppress(ValueError):
                    out[key] = json.loads(raw)
                    self._written[key] = raw.decode()
        return out or None

    def write_meta(self, meta: dict[str, Any], *, durable: bool = True) -> None:
        shared: dict[str, str] = {}
        mine: dict[str, str] = {}
        for key, value in meta.items():
            text = json.dumps(value, separators=(",", ":"), allow_nan=False)
            if self._written.get(key) == text:
                continue  # unchanged since we read it: never clobber another user's edit
            if key in USER_META:
                mine[key] = text
            elif key in SHARED_META:
                shared[key] = text
        if not shared and not mine:
            return
        with self.backend.errors("could not save the session metadata"):
            pipe = self.backend.client.pipeline(transaction=True)
            if shared:
                pipe.hset(self.k_meta, mapping=shared)
            if mine:
                pipe.hset(self.k_user, mapping=mine)
                pipe.sadd(self.k_users, self.backend.user)
            pipe.sadd(self.backend.keys.sessions, self.session_id)
            pipe.execute()
        self._written.update(shared)
        self._written.update(mine)

    # -- journal -------------------------------------------------------------------
    @staticmethod
    def record_of(fields: Mapping[bytes, bytes]) -> dict[str, Any] | None:
        """A journal record from a stream entry's fields (None if damaged)."""
        try:
            record = json.loads(fields[b"rec"])
            if not isinstance(record, dict):
                return None
            record["seq"] = int(fields[b"seq"])
            author = fields.get(b"by")
            if author is not None:
                record["author"] = author.decode("utf-8", "replace")
            return record
        except (KeyError, ValueError):
            return None

    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        """Records with seq > ``offset`` (an offset is the last seq read)."""
        last_seq, last_id = self._cursor
        start = f"({last_id}" if offset == last_seq and last_id != "-" else "-"
        with self.backend.errors("could not read the journal"):
            entries = self.backend.client.xrange(self.k_journal, min=start)
        records: list[dict[str, Any]] = []
        new_offset = offset
        for stream_id, fields in entries:
            record = self.record_of(fields)
            if record is None:
                problem = StoreProblem(
                    "foley-tui", "journal", self.k_journal, f"unreadable entry {stream_id!r}"
                )
                if problem not in self._problems:
                    self._problems.append(problem)
                continue
            if record["seq"] <= offset:
                continue
            records.append(record)
            new_offset = max(new_offset, record["seq"])
            self._cursor = (new_offset, stream_id.decode())
        if not entries and start == "-":
            self._cursor = (offset, "-")
        return records, new_offset

    def took(self, seq: int, stream_id: str) -> None:
        """Our own entry was taken as read (the journal had no entry between)."""
        self._cursor = (seq, stream_id)

    def journal_append(self, record: dict[str, Any]) -> tuple[int, int]:
        """Append a record as it is (import): its seq is kept and the counter follows."""
        seq = int(record["seq"])
        body = {k: v for k, v in record.items() if k not in ("seq", "author")}
        fields = {"seq": seq, "rec": json.dumps(body, separators=(",", ":"), allow_nan=False)}
        if isinstance(record.get("author"), str):
            fields["by"] = record["author"]
        with self.backend.errors("could not journal the decision"):
            pipe = self.backend.client.pipeline(transaction=True)
            pipe.xadd(self.k_journal, fields)
            pipe.eval(
                "if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then "
                "redis.call('SET', KEYS[1], ARGV[1]) end",
                1,
                self.k_seq,
                seq,
            )
            pipe.execute()
        return seq - 1, seq

    def journal_token(self) -> Hashable:
        with self.backend.errors("could not read the journal"):
            return self.backend.client.get(self.k_seq)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        # Decisions are compare-and-swap scripts: no cross-process lock is needed.
        with self._thread_lock:
            yield


class RedisSessionStore(SessionStore):
    """A :class:`SessionStore` whose namespaces and state are on Redis."""

    def __init__(self, backend: RedisBackend, session_id: str) -> None:
        self.backend = backend
        self.user = backend.user
        self.raw = {
            name: RedisHash(backend, session_id, name)
            for name in ("candidates", "picks", "rejects")
        }
        state = RedisState(backend, session_id)
        super().__init__(
            session_id,
            candidates=json_namespace(self.raw["candidates"]),
            picks=json_namespace(self.raw["picks"]),
            rejects=json_namespace(self.raw["rejects"]),
            state=state,
        )
        self.redis_state = state
        keys = backend.keys
        self._decide_script = backend.client.register_script(DECIDE)
        self._decide_keys = [
            keys.ns(session_id, "picks"),
            keys.ns(session_id, "rejects"),
            keys.journal(session_id),
            keys.seq(session_id),
            keys.version(session_id),
            keys.changes(session_id),
            keys.sessions,
        ]

    def __repr__(self) -> str:
        return f"RedisSessionStore({self.session_id!r}, {self.backend.target.url!r})"

    # ------------------------------------------------------------------ change token
    def change_token(self) -> Hashable:
        """The session's version counter and journal seq: one round trip, no scan."""
        keys = self.backend.keys
        with self.backend.errors("could not reach the session"):
            values = self.backend.client.mget(
                [keys.version(self.session_id), keys.seq(self.session_id)]
            )
        return tuple(values)

    def version(self) -> int:
        with self.backend.errors("could not reach the session"):
            value = self.backend.client.get(self.backend.keys.version(self.session_id))
        return int(value or 0)

    # ------------------------------------------------------------------ candidates
    def cache_candidates(self, candidates: Iterable[object]) -> int:
        """Cache candidates in batches (a thousand scripts per round trip)."""
        items: list[tuple[str, bytes]] = []
        for candidate in candidates:
            data = _to_dict(candidate)
            sid = candidate_key(data)
            if not sid:
                continue
            try:
                items.append((sid, dumps(data)))
            except ValueError as exc:
                if isinstance(exc, ValidationError):
                    raise
                raise ValidationError(f"candidate {sid!r}: {exc}") from None
        return self.raw["candidates"].set_many(items)

    def candidate_ids(self) -> list[str]:
        return sorted(self.raw["candidates"])

    def quick_rows(self) -> list[Row] | None:
        return self.rows()

    def rows(
        self,
        progress: Callable[[int, int], None] | None = None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]:
        """All list rows from the rows index: two replies, no candidate fetched (except
        candidates written around our namespace, which are indexed here once)."""
        keys = self.backend.keys
        sid = self.session_id
        with self.backend.errors("could not read the candidate list"):
            pipe = self.backend.client.pipeline(transaction=False)
            pipe.zrange(keys.order(sid), 0, -1)
            pipe.hgetall(keys.rows(sid))
            pipe.hlen(keys.ns(sid, "candidates"))
            order_raw, rows_raw, total = pipe.execute()
        order = [k.decode("utf-8", "surrogateescape") for k in order_raw]
        stored = {k.decode("utf-8", "surrogateescape"): v for k, v in rows_raw.items()}
        if total != len(order) or len(stored) != len(order):
            order, stored = self._reindex(order, stored)
        rows: list[Row] = []
        for rank, key in enumerate(order):
            raw = stored.get(key)
            try:
                values = json.loads(raw) if raw is not None else None
            except ValueError:
                values = None
            if isinstance(values, list) and len(values) == len(_EMPTY_VALUES):
                rows.append(_make_row(key, rank, values, None))
                self._clear_problem("candidates", key)
            else:
                reason = values.get("unreadable") if isinstance(values, dict) else None
                reason = str(reason or "unreadable")
                self._note(StoreProblem("candidates", key, self.raw["candidates"].key, reason))
                rows.append(_make_row(key, rank, _EMPTY_VALUES, reason))
        if progress is not None:
            progress(len(rows), len(rows))
        return rows

    def _reindex(
        self, order: list[str], stored: dict[str, bytes]
    ) -> tuple[list[str], dict[str, bytes]]:
        """Index candidates someone wrote straight into the hash; drop rows of gone ones."""
        keys = self.backend.keys
        sid = self.session_id
        present = set(self.raw["candidates"])
        missing = sorted(present - set(order) | (present - set(stored)))
        gone = [k for k in order if k not in present]
        pipe = self.backend.client.pipeline(transaction=False)
        for start in range(0, len(missing), 1000):
            chunk = missing[start : start + 1000]
            for key, value in zip(chunk, self.raw["candidates"].get_many(chunk), strict=True):
                if value is None:
                    continue
                row = row_json(value)
                stored[key] = row
                pipe.hset(keys.rows(sid), key, row)
                score = self.backend.client.incr(keys.version(sid))
                pipe.zadd(keys.order(sid), {key: score}, nx=True)
        if gone:
            pipe.zrem(keys.order(sid), *gone)
            pipe.hdel(keys.rows(sid), *gone)
        with self.backend.errors("could not update the candidate index"):
            pipe.execute()
            order = [
                k.decode("utf-8", "surrogateescape")
                for k in self.backend.client.zrange(keys.order(sid), 0, -1)
            ]
        return order, stored

    # ------------------------------------------------------------------ meta
    def last_write(self) -> datetime | None:
        """When the session last changed: the newest change event's time."""
        with self.backend.errors("could not reach the session"):
            last = self.backend.client.xrevrange(
                self.backend.keys.changes(self.session_id), count=1
            )
        if not last:
            return self._journal[-1].at if self._journal else None
        ms = int(last[0][0].split(b"-")[0])
        return datetime.fromtimestamp(ms / 1000, UTC)

    # ------------------------------------------------------------------ decisions
    def _current(self, sound_id: str) -> tuple[str, str, dict[str, Any], bool, list[Any]]:
        """(expected pick, expected reject, state, clean, [pick dict, reject dict])."""
        pick_raw, reject_raw = (
            self.raw["picks"].get_many([sound_id])[0],
            self.raw["rejects"].get_many([sound_id])[0],
        )
        parsed: list[Any] = [None, None]
        for i, raw in enumerate((pick_raw, reject_raw)):
            if raw is not None:
                with contextlib.suppress(DecodeError):
                    parsed[i] = loads_object(raw)
        clean = True
        if pick_raw is not None:
            if parsed[0] is not None:
                state = normalize_state({**parsed[0], "status": "picked"})
            else:
                state, clean = {"status": "picked", "layer": None, "onset": None}, False
        elif reject_raw is not None:
            if parsed[1] is not None:
                state = normalize_state({**parsed[1], "status": "rejected"})
            else:
                state, clean = {"status": "rejected", "reason": None}, False
        else:
            state = dict(UNDECIDED)

        def expect(raw: bytes | None) -> str:
            return "" if raw is None else "v" + raw.decode("utf-8", "surrogateescape")

        return expect(pick_raw), expect(reject_raw), state, clean, parsed

    @staticmethod
    def _new_values(sound_id: str, after: Mapping[str, Any], parsed: list[Any]) -> tuple[str, str]:
        """The new pick and reject values (``''`` deletes); fields we do not own are kept."""
        status = after["status"]
        if status == "picked":
            record = dict(parsed[0]) if isinstance(parsed[0], dict) else {}
            record.update(sound_id=sound_id, layer=after.get("layer"), onset=after.get("onset"))
            if not isinstance(parsed[0], dict):
                record = {
                    "sound_id": sound_id,
                    "layer": after.get("layer"),
                    "onset": after.get("onset"),
                }
            return "v" + dumps(record).decode(), ""
        if status == "rejected":
            record = dict(parsed[1]) if isinstance(parsed[1], dict) else {}
            record.update(sound_id=sound_id, reason=after.get("reason"))
            return "", "v" + dumps(record).decode()
        return "", ""

    def _decide(
        self,
        sound_id: str,
        after: dict[str, Any],
        *,
        kind: str = "do",
        target: int | None = None,
        expect: dict[str, Any] | None = None,
    ) -> JournalEntry | None:
        """Apply ``after`` and journal it in ONE atomic script; None when nothing changes.

        ``expect``: the state the sound must be in (undo/redo's compare-and-swap); a
        different state raises :class:`UndoConflictError` with nothing written.
        """
        self._valid_key(sound_id)
        after = normalize_state(after)
        for _attempt in range(CAS_ATTEMPTS):
            want_pick, want_reject, before, clean, parsed = self._current(sound_id)
            if kind == "do" and before == after and clean:
                return None
            if expect is not None and before != expect:
                entry = next((e for e in self._journal if e.seq == target), None)
                assert entry is not None
                raise UndoConflictError(
                    f"cannot {kind} the decision on {sound_id!r}: changed since, now "
                    f"{describe_state(before)} (use force to {kind} anyway, or skip it)",
                    entry,
                    before,
                )
            if kind == "skip":
                after = before
            new_pick, new_reject = self._new_values(sound_id, after, parsed)
            if kind == "skip":
                new_pick, new_reject = want_pick, want_reject
            entry = JournalEntry(
                seq=0,
                entry_id=new_ulid(),
                at=now_utc(),
                sound_id=sound_id,
                before=before,
                after=after,
                kind=kind,
                target=target,
                author=self.user,
            )
            record = {k: v for k, v in entry.to_record().items() if k not in ("seq", "author")}
            with self.backend.errors(f"could not save the decision on {sound_id!r}"):
                result = self._decide_script(
                    keys=self._decide_keys,
                    args=[
                        sound_id,
                        want_pick,
                        want_reject,
                        new_pick,
                        new_reject,
                        json.dumps(record, separators=(",", ":"), allow_nan=False),
                        self.user,
                        CHANGES_MAXLEN,
                        self.session_id,
                    ],
                )
            if int(result[0]) != 1:
                continue  # the sound changed between our read and the script: re-read
            seq = int(result[1])
            stream_id = result[2].decode()
            entry = replace(entry, seq=seq)
            self._took(entry, stream_id)
            return entry
        raise StoreWriteError(f"the decision on {sound_id!r} kept being overtaken; try again")

    def _took(self, entry: JournalEntry, stream_id: str) -> None:
        with self._journal_lock:
            if entry.seq == self._journal_offset + 1:
                self._journal.append(entry)
                self._journal_offset = entry.seq
                self.redis_state.took(entry.seq, stream_id)
                return
        self._refresh_journal()

    # ------------------------------------------------------------------ per-user undo
    def _mine(self, entry: JournalEntry) -> bool:
        # Entries without an author predate sharing (a pushed file journal): anyone's.
        return entry.author is None or entry.author == self.user

    def _stacks(self) -> tuple[list[JournalEntry], list[JournalEntry]]:
        """(done, undone) of THIS user's decisions: undo never reverts someone else's."""
        by_seq: dict[int, JournalEntry] = {}
        done: list[int] = []
        undone: list[int] = []
        for entry in self._journal:
            if not self._mine(entry):
                continue
            if entry.kind == "do":
                by_seq[entry.seq] = entry
                done.append(entry.seq)
                undone.clear()
            elif entry.target is None:
                continue
            elif entry.kind == "undo" and entry.target in done:
                done.remove(entry.target)
                undone.append(entry.target)
            elif entry.kind == "redo" and entry.target in undone:
                undone.remove(entry.target)
                done.append(entry.target)
            elif entry.kind == "skip":
                if entry.target in done:
                    done.remove(entry.target)
                elif entry.target in undone:
                    undone.remove(entry.target)
        return [by_seq[s] for s in done], [by_seq[s] for s in undone]

    def _step(self, which: int, kind: str, force: bool) -> JournalEntry | None:
        with self._locked():
            for _attempt in range(CAS_ATTEMPTS):
                self._refresh_journal()
                stack = self._stacks()[which]
                if not stack:
                    return None
                target = stack[-1]
                state = target.before if kind == "undo" else target.after
                expect = None if force else (target.after if kind == "undo" else target.before)
                try:
                    self._decide(
                        target.sound_id, state, kind=kind, target=target.seq, expect=expect
                    )
                except UndoConflictError:
                    self._refresh_journal()
                    if self._stacks()[which][-1:] != [target]:
                        continue  # another process of ours moved the stack: look again
                    raise
                return target
        return None

    def undo(self, *, force: bool = False) -> JournalEntry | None:
        """Undo this user's latest decision still done, if the sound is as it left it."""
        return self._step(0, "undo", force)

    def redo(self, *, force: bool = False) -> JournalEntry | None:
        """Redo this user's latest undone decision, if the sound is as the undo left it."""
        return self._step(1, "redo", force)

    def skip(self, *, redo: bool = False) -> JournalEntry | None:
        """Step past the entry undo (or redo) would apply, writing nothing but a ``skip``
        journal entry (so every process agrees the entry is out of the stack)."""
        with self._locked():
            self._refresh_journal()
            stack = self._stacks()[1 if redo else 0]
            if not stack:
                return None
            target = stack[-1]
            self._decide(target.sound_id, {}, kind="skip", target=target.seq)
            return target

    # ------------------------------------------------------------------ faults
    def ping(self) -> bool:
        """True when the server answers (the status line's "Redis down" check)."""
        try:
            return bool(self.backend.client.ping())
        except RedisError:
            return False


__all__ = ["RedisSessionStore", "RedisState", "UndoConflictError", "describe_state"]
