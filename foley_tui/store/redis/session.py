"""One session on Redis: :class:`RedisSessionBackend` and :class:`RedisCommit`, the
parts :class:`RedisSessionStore` composes (its state: :mod:`.state`, its rows:
:mod:`.rows`).

A :class:`~foley_tui.store.session.SessionStore` holds the same parts whatever the
backend; on Redis the namespaces are :mod:`.namespace`'s dol stores and the state is
:class:`RedisState` (shared meta in a HASH, each user's cursor and view in their own
HASH, the journal as a STREAM). What differs is made by the parts given here:

* a decision is applied by :class:`RedisCommit` in ONE server-side script: it checks the
  sound (or every sound of a group: a pick that drops its event's other picks) is still
  in the state we read (compare-and-swap on the stored bytes), writes the verdicts,
  appends the one journal entry (its seq handed out by the script), bumps the version
  and appends a change event per sound. All land together or not at all (AOF
  ``appendfsync always`` makes it durable on return); when a sound changed since it was
  read, the decision is read and computed again;
* undo and redo are per user (you undo your own decisions only) and compare-and-swap,
  as on files;
* the list rows come from the rows index kept by the candidates namespace's writes.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError

from foley_tui.domain import ValidationError
from foley_tui.safe_io import MAX_RECORD_BYTES
from foley_tui.store.backend import DecisionReads, FolderState, RowsReader, choose_namespace
from foley_tui.store.codec import DecodeError, dumps, encode_key, loads_object
from foley_tui.store.decisions import Current, Planned
from foley_tui.store.errors import StoreProblem
from foley_tui.store.journal import Journal
from foley_tui.store.reads import Problems, read_value
from foley_tui.store.records import (
    MARKS_NS,
    JournalEntry,
    RawRecord,
    Verdicts,
    entry_states,
    new_ulid,
    now_utc,
    record_of_bytes,
    same_record,
)
from foley_tui.store.redis.audio import RedisAudio
from foley_tui.store.redis.conn import RedisKeyError
from foley_tui.store.redis.feed import ChangeFeed
from foley_tui.store.redis.keys import CHANGES_MAXLEN
from foley_tui.store.redis.namespace import RedisBackend, RedisHash, json_namespace, too_large
from foley_tui.store.redis.rows import RedisRows
from foley_tui.store.redis.state import RedisState, deleted
from foley_tui.store.session import SessionStore

# KEYS: picks, rejects, journal, seq, version, changes, sessions, picks stamps,
#       rejects stamps, nsver
# ARGV: record (JSON, no seq), author, changes maxlen, session id, n (sounds), the
#       record cap, then per sound 5 args: sound id, expected pick, expected reject (''
#       absent, 'v'..bytes present, 'L'..length when over the cap), new pick, new reject
#       ('' delete, 'v'..bytes write).
# One decision over one sound or several (a pick that drops its event's other picks, the
# undo of such a group): every sound is checked against what we read before anything is
# written (compare-and-swap), then every verdict, ONE journal entry and a change event
# per sound land together, or nothing does. A session deleted meanwhile (no longer in the
# session set) is never written: {-1}.
DECIDE = """
if redis.call('SISMEMBER', KEYS[7], ARGV[4]) == 0 then return {-1} end
local n = tonumber(ARGV[5])
local cap = tonumber(ARGV[6])
local function cur(key, sid)
  local len = redis.call('HSTRLEN', key, sid)
  if len > cap then return 'L' .. len end
  local v = redis.call('HGET', key, sid)
  if not v then return '' end
  return 'v' .. v
end
for i = 0, n - 1 do
  local b = 7 + i * 7
  if cur(KEYS[1], ARGV[b]) ~= ARGV[b + 1] or cur(KEYS[2], ARGV[b]) ~= ARGV[b + 2]
      or cur(KEYS[11], ARGV[b]) ~= ARGV[b + 5] then
    return {0}
  end
end
local v = redis.call('INCR', KEYS[5])
local function put(key, stamps, ns, sid, value)
  if value == '' then
    if redis.call('HDEL', key, sid) == 1 then
      redis.call('HDEL', stamps, sid)
      redis.call('HSET', KEYS[10], ns, v)
    end
  else
    redis.call('HSET', key, sid, string.sub(value, 2))
    redis.call('HSET', stamps, sid, v)
    redis.call('HSET', KEYS[10], ns, v)
  end
end
for i = 0, n - 1 do
  local b = 7 + i * 7
  put(KEYS[1], KEYS[8], 'picks', ARGV[b], ARGV[b + 3])
  put(KEYS[2], KEYS[9], 'rejects', ARGV[b], ARGV[b + 4])
  if ARGV[b + 6] ~= ARGV[b + 5] then
    if ARGV[b + 6] == '' then
      redis.call('HDEL', KEYS[11], ARGV[b])
    else
      redis.call('HSET', KEYS[11], ARGV[b], string.sub(ARGV[b + 6], 2))
    end
  end
end
local seq = redis.call('INCR', KEYS[4])
local id = redis.call('XADD', KEYS[3], '*', 'seq', seq, 'by', ARGV[2], 'rec', ARGV[1])
for i = 0, n - 1 do
  redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[3], '*',
    'ns', 'decision', 'key', ARGV[7 + i * 7], 'op', 'decide', 'by', ARGV[2], 'v', v,
    'seq', seq)
end
redis.call('SADD', KEYS[7], ARGV[4])
return {1, seq, id}
"""


def _stored(record: dict[str, Any] | None) -> str:
    """A record as the decide script stores it ("" deletes): foley's encoding, or the
    exact bytes of a :class:`RawRecord` (a NaN foley wrote, restored verbatim)."""
    if record is None:
        return ""
    if isinstance(record, RawRecord):
        return "v" + record.raw.decode("utf-8", "surrogateescape")
    return "v" + dumps(record).decode()


class RedisSessionBackend:
    """One session's keys on one Redis server, as a
    :class:`~foley_tui.store.backend.SessionBackend`."""

    label = "Redis"

    def __init__(self, redis: RedisBackend, session_id: str) -> None:
        self.redis = redis
        self.session_id = session_id
        self.hashes = {
            name: RedisHash(redis, session_id, name)
            for name in ("candidates", "picks", "rejects", MARKS_NS)
        }
        self.candidates = json_namespace(self.hashes["candidates"])
        self.picks = json_namespace(self.hashes["picks"])
        self.rejects = json_namespace(self.hashes["rejects"])
        #: Our marks (rating, hidden, region): a hash of their own, never foley's.
        self.marks = json_namespace(self.hashes[MARKS_NS])
        self.state = RedisState(redis, session_id)
        self._bulk: dict[str, bytes] | None = None
        self._bulk_large: dict[str, int] = {}
        self._audio: RedisAudio | None = None

    def namespace(self, name: str) -> Any:
        return choose_namespace(name, self.candidates, self.picks, self.rejects, self.marks)

    # ------------------------------------------------------------------ reading
    def names(self, name: str, problems: Problems) -> list[str]:
        return sorted(self.hashes[name])

    def read(self, name: str, key: str, problems: Problems) -> dict[str, Any] | None:
        if name == "candidates" and self._bulk is not None:
            # An export in progress: read from the one HSCAN pass.
            raw = self._bulk.get(key)
            if raw is None:
                size = self._bulk_large.get(key)
                if size is not None:
                    reason = too_large(size, MAX_RECORD_BYTES)
                    problems.note(StoreProblem(name, key, self.hashes[name].key, reason))
                return None
            try:
                return loads_object(raw)
            except DecodeError as exc:
                problems.note(StoreProblem(name, key, self.hashes[name].key, str(exc)))
                return None
        return read_value(self.namespace(name), name, key, problems)

    def read_all(self, name: str, problems: Problems) -> list[tuple[str, dict[str, Any]]]:
        """Every readable (key, dict) of a namespace in one HSCAN pass (not a read per
        key); unreadable and over-cap values are reported, never fatal."""
        raw = self.hashes[name]
        out: list[tuple[str, dict[str, Any]]] = []

        def large(key: str, size: int) -> None:
            problems.note(StoreProblem(name, key, raw.key, too_large(size, MAX_RECORD_BYTES)))

        for key, value in raw.raw_items(too_large=large):
            try:
                out.append((key, loads_object(value)))
            except DecodeError as exc:
                problems.note(StoreProblem(name, key, raw.key, str(exc)))
                continue
            problems.clear(name, key)
        return sorted(out, key=lambda item: item[0])

    def count(self, name: str) -> int:
        return len(self.hashes[name])

    def path_of(self, name: str, key: str) -> str:
        return encode_key(key)

    def raw(self, name: str, key: str) -> bytes:
        return bytes(self.hashes[name][key])

    def put(self, name: str, key: str, value: dict[str, Any]) -> None:
        if isinstance(value, RawRecord):
            self.hashes[name][key] = value.raw
        else:
            self.namespace(name)[key] = value

    def discard(self, name: str, key: str) -> None:
        self.hashes[name].pop(key, None)

    @contextlib.contextmanager
    def bulk_reads(self) -> Iterator[None]:
        """Within: candidates are read from one HSCAN pass over them all (an export
        reads them all; a round trip per candidate would cost seconds)."""
        self._bulk_large = {}
        self._bulk = dict(
            self.hashes["candidates"].raw_items(too_large=self._bulk_large.__setitem__)
        )
        try:
            yield
        finally:
            self._bulk = None
            self._bulk_large = {}

    # ------------------------------------------------------------------ writing
    def cache_candidates(self, items: Iterable[tuple[str, dict[str, Any]]]) -> int:
        """Cache candidates in batches (a thousand scripts per round trip)."""
        encoded: list[tuple[str, bytes]] = []
        for sid, data in items:
            try:
                encoded.append((sid, dumps(data)))
            except ValueError as exc:
                if isinstance(exc, ValidationError):
                    raise
                raise ValidationError(f"candidate {sid!r}: {exc}") from None
        return self.hashes["candidates"].set_many(encoded)

    def warm(self) -> None:
        return None

    # ------------------------------------------------------------------ change
    def change_token(self) -> Hashable:
        """The session's version counter and journal seq: one round trip, no scan."""
        keys = self.redis.keys
        with self.redis.errors("could not reach the session"):
            values = self.redis.client.mget(
                [keys.version(self.session_id), keys.seq(self.session_id)]
            )
        return tuple(values)

    def version(self) -> int:
        with self.redis.errors("could not reach the session"):
            value = self.redis.client.get(self.redis.keys.version(self.session_id))
        return int(value or 0)

    def last_write(self) -> datetime | None:
        """When the session last changed: the newest change event's time (None, and a
        problem naming the key, when the change stream is not a stream)."""
        key = self.redis.keys.changes(self.session_id)
        try:
            with self.redis.errors("could not read the session's changes", key):
                last = self.redis.client.xrevrange(key, count=1)
        except RedisKeyError as exc:
            self.state.note_problem(key, str(exc))
            return None
        if not last:
            return None
        ms = int(last[0][0].split(b"-")[0])
        return datetime.fromtimestamp(ms / 1000, UTC)

    def stamps(self, name: str) -> FolderState:
        """Per key, the version of its last write (what a watcher compares)."""
        return dict(self.hashes[name].stamps())

    def stamps_after_write(self, name: str, state: FolderState, key: str) -> FolderState:
        return self.stamps(name)

    def candidates_token(self) -> Hashable:
        return self.hashes["candidates"].token()

    # ------------------------------------------------------------------ parts
    def rows_reader(self, problems: Problems, decisions: DecisionReads) -> RowsReader:
        return RedisRows(self.redis, self.session_id, self.hashes, problems)

    def remote_audio(self) -> RedisAudio:
        """The audio pushed with the session (``session push --with-audio``): the player
        streams it from Redis when the file is not on this machine."""
        if self._audio is None:
            self._audio = RedisAudio(self.redis, self.session_id)
        return self._audio

    def change_feed(self, *, block_ms: int = 1000, since: str = "$") -> ChangeFeed:
        """A blocking feed of this session's changes (run its ``wait`` in a worker)."""
        return ChangeFeed(self.redis, self.session_id, block_ms=block_ms, since=since)

    def ping(self) -> bool:
        """True when the server answers (the status line's "Redis down" check)."""
        try:
            return bool(self.redis.client.ping())
        except RedisError:
            return False

    def writes_settled(self) -> None:
        """A script that writes nothing: a paused server holds it like any write, and
        runs it after what it queued before (so a decision that timed out has run, or
        was dropped with its connection, once this returns)."""
        with self.redis.errors("the store is not running writes"):
            self.redis.client.eval("return 1", 0)


class RedisCommit:
    """Decisions applied by one atomic script each (see the module docstring)."""

    def __init__(self, backend: RedisSessionBackend, journal: Journal) -> None:
        self.backend = backend
        self.journal = journal
        redis, session_id = backend.redis, backend.session_id
        keys = redis.keys
        self._script = redis.client.register_script(DECIDE)
        self._keys = [
            keys.ns(session_id, "picks"),
            keys.ns(session_id, "rejects"),
            keys.journal(session_id),
            keys.seq(session_id),
            keys.version(session_id),
            keys.changes(session_id),
            keys.sessions,
            keys.stamps(session_id, "picks"),
            keys.stamps(session_id, "rejects"),
            keys.nsver(session_id),
            keys.ns(session_id, MARKS_NS),
        ]

    def session(self) -> contextlib.AbstractContextManager[None]:
        # Decisions are compare-and-swap scripts: a lock of this process's threads only.
        return self.backend.state.lock()

    def read(self, sound_ids: list[str]) -> list[Current]:
        """Per sound, the records now and the stored bytes the script compares
        (compare-and-swap). One round trip."""
        redis = self.backend.redis
        hashes = self.backend.hashes
        with redis.errors(f"could not read the decision on {sound_ids[0]!r}"):
            pipe = redis.client.pipeline(transaction=False)
            redis.capped_hmget(hashes["picks"].key, sound_ids, client=pipe)
            redis.capped_hmget(hashes["rejects"].key, sound_ids, client=pipe)
            redis.capped_hmget(hashes[MARKS_NS].key, sound_ids, client=pipe)
            picks, rejects, marked = pipe.execute()
        out = []
        for i, sound_id in enumerate(sound_ids):
            want_pick, want_reject, verdicts = _verdicts_of(sound_id, picks[i], rejects[i])
            marks_raw = marked[i]
            marks: dict[str, Any] | None = None
            if isinstance(marks_raw, bytes | bytearray):
                try:
                    marks = loads_object(bytes(marks_raw))
                except DecodeError:
                    marks = None  # unreadable marks read as none (and are replaced)
            if marks_raw is None:
                want_marks = ""
            elif isinstance(marks_raw, bytes | bytearray):
                want_marks = "v" + bytes(marks_raw).decode("utf-8", "surrogateescape")
            else:  # over the cap: the script compares its length
                want_marks = f"L{int(marks_raw)}"
            verdicts = replace(verdicts, marks=marks)
            out.append(Current(sound_id, verdicts, (want_pick, want_reject, want_marks)))
        return out

    def unchanged(self, before: Verdicts, after: Verdicts) -> bool:
        return (
            before.clean
            and same_record(before.pick, after.pick)
            and same_record(before.reject, after.reject)
            and before.same_marks(after)
        )

    def apply(self, planned: list[Planned], kind: str, target: int | None) -> JournalEntry | None:
        redis = self.backend.redis
        first = planned[0]
        states = entry_states(first.before, first.after)
        entry = JournalEntry(
            seq=0,
            entry_id=new_ulid(),
            at=now_utc(),
            sound_id=first.sound_id,
            before=states[0],
            after=states[1],
            kind=kind,
            target=target,
            author=redis.user,
            also=tuple((p.sound_id, *entry_states(p.before, p.after)) for p in planned[1:]),
        )
        record = {k: v for k, v in entry.to_record().items() if k not in ("seq", "author")}
        args: list[Any] = [
            json.dumps(record, separators=(",", ":"), allow_nan=False),
            redis.user,
            CHANGES_MAXLEN,
            self.backend.session_id,
            len(planned),
            MAX_RECORD_BYTES,
        ]
        for item in planned:
            want_pick, want_reject, want_marks = item.current.expected
            if kind == "skip":  # a skip writes nothing but its journal record
                new_pick, new_reject, new_marks = want_pick, want_reject, want_marks
            else:
                new_pick, new_reject = _stored(item.after.pick), _stored(item.after.reject)
                new_marks = (
                    want_marks
                    if item.before.same_marks(item.after)
                    else _stored(item.after.marks if isinstance(item.after.marks, dict) else None)
                )
            args += [item.sound_id, want_pick, want_reject, new_pick, new_reject]
            args += [want_marks, new_marks]
        with redis.errors(f"could not save the decision on {first.sound_id!r}"):
            result = self._script(keys=self._keys, args=args)
        if int(result[0]) == -1:
            raise deleted(self.backend.session_id)  # deleted meanwhile: never recreated
        if int(result[0]) != 1:
            return None  # a sound changed between our read and the script: re-read
        entry = replace(entry, seq=int(result[1]))
        self.backend.state.took(entry.seq, result[2].decode())
        self.journal.recorded(entry, entry.seq)
        return entry


class RedisSessionStore(SessionStore):
    """A :class:`SessionStore` composed of the Redis parts (backend and commit); it adds
    only what a shared store has (the server's version, its ping, the raw hashes)."""

    def __init__(
        self, redis: RedisBackend, session_id: str, *, data_dir: Path | None = None
    ) -> None:
        backend = RedisSessionBackend(redis, session_id)
        user = redis.user

        def mine(entry: JournalEntry) -> bool:
            # Entries without an author predate sharing (a pushed file journal): anyone's.
            return entry.author is None or entry.author == user

        super().__init__(
            session_id,
            backend=backend,
            commit=lambda _backend, journal, _problems: RedisCommit(backend, journal),
            mine=mine,
            # This machine's byte store: audio found here plays before any from Redis.
            data_dir=data_dir,
        )
        self.redis = redis
        self.redis_backend = backend
        self.user = user
        self.raw = backend.hashes

    def __repr__(self) -> str:
        return f"RedisSessionStore({self.session_id!r}, {self.redis.target.url!r})"

    def version(self) -> int:
        return self.redis_backend.version()

    def ping(self) -> bool:
        """True when the server answers (the status line's "Redis down" check)."""
        return self.redis_backend.ping()


def _verdicts_of(
    sound_id: str, pick_raw: bytes | int | None, reject_raw: bytes | int | None
) -> tuple[str, str, Verdicts]:
    """(expected pick, expected reject, the records) of one sound's stored bytes (their
    length when over the record cap). A NaN foley wrote keeps its bytes; an unreadable
    or over-cap record reads as a bare one (never written back as read: ``clean`` is
    False)."""
    parsed: list[dict[str, Any] | None] = [None, None]
    clean = True
    for i, raw in enumerate((pick_raw, reject_raw)):
        if raw is None:
            continue
        if not isinstance(raw, int):
            with contextlib.suppress(DecodeError):
                parsed[i] = record_of_bytes(bytes(raw))
        if parsed[i] is None:
            clean = False
            parsed[i] = (
                {"sound_id": sound_id, "layer": None, "onset": None}
                if i == 0
                else {"sound_id": sound_id, "reason": None}
            )

    def expect(raw: bytes | int | None) -> str:
        if raw is None:
            return ""
        if isinstance(raw, int):
            return f"L{raw}"
        return "v" + bytes(raw).decode("utf-8", "surrogateescape")

    return expect(pick_raw), expect(reject_raw), Verdicts(parsed[0], parsed[1], clean)


__all__ = ["RedisCommit", "RedisSessionBackend", "RedisSessionStore"]
