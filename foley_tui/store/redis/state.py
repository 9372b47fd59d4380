"""Our state of one session on Redis: :class:`RedisState`.

Shared meta in a HASH, each user's cursor and view in their own HASH, the journal as a
STREAM (with its seq counter), our ``*.jsonl`` logs as strings appended only at
the length we read, our documents as fields swapped only while they hold what we read.
The decisions written against it: :mod:`foley_tui.store.redis.session`.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Hashable, Iterator, Mapping
from typing import Any

from foley_tui.safe_io import (
    MAX_JOURNAL_BYTES,
    MAX_RECORD_BYTES,
    MAX_STATE_BYTES,
    FileTooLargeError,
)
from foley_tui.store.backend import StateBackend
from foley_tui.store.errors import SessionDeletedError, StoreProblem
from foley_tui.store.redis.namespace import RedisBackend, too_large

#: Journal entries read per round trip when the journal is read in blocks.
JOURNAL_BATCH = 500
#: Entries read at most by one catch-up read of what is new.
MAX_JOURNAL_ENTRIES = 10_000_000
#: Meta fields shared by everyone on the session; the rest are per user.
SHARED_META = ("schema_version", "title", "created", "updated", "origin")
USER_META = ("cursor", "view", "opened")

#: APPEND only when the log's length is ARGV[2] (-1: any); the new length, or -1.
APPEND_IF_AT = """
local at = tonumber(ARGV[2])
if at >= 0 and redis.call('STRLEN', KEYS[1]) ~= at then return -1 end
return redis.call('APPEND', KEYS[1], ARGV[1])
"""
#: HSET a document field only when it still holds ARGV[2] (ARGV[3] == '1': absent).
SWAP_DOC = """
if redis.call('SISMEMBER', KEYS[2], ARGV[5]) == 0 then return -1 end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[3] == '1' then
  if cur then return 0 end
elseif cur ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[5])
return 1
"""


#: KEYS: sessions, shared meta, the user's hash, users. ARGV: session id, user, the
#: number of shared (field, value) pairs, then the pairs (shared first, then the user's).
#: Nothing is written to a session no longer in the session set (deleted meanwhile):
#: a late save never brings it back as an empty ghost. 1 written, 0 deleted.
WRITE_META = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return 0 end
local i = 4
for _ = 1, tonumber(ARGV[3]) do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
local mine = false
while i <= #ARGV do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  i = i + 2
  mine = true
end
if mine then redis.call('SADD', KEYS[4], ARGV[2]) end
return 1
"""


def deleted(session_id: str) -> SessionDeletedError:
    """The error of a write to a session deleted on the server while it was open."""
    return SessionDeletedError(
        f"the session {session_id} was deleted on the server (by another window or "
        "machine): nothing was saved, and it is not recreated"
    )


class RedisState(StateBackend):
    """Meta (shared HASH + one HASH per user), the journal STREAM, the change token."""

    def __init__(self, backend: RedisBackend, session_id: str) -> None:
        self.backend = backend
        self.session_id = session_id
        #: Written on every message (several people share the session).
        self.author = backend.user
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
            self.backend.capped_hgetall(self.k_meta, MAX_STATE_BYTES, client=pipe)
            self.backend.capped_hgetall(self.k_user, MAX_STATE_BYTES, client=pipe)
            shared, mine = pipe.execute()
        out: dict[str, Any] = {}
        for source, fields, where in (
            (shared, SHARED_META, self.k_meta),
            (mine, USER_META, self.k_user),
        ):
            for i in range(0, len(source), 2):
                key, raw = bytes(source[i]).decode("utf-8", "replace"), source[i + 1]
                if key not in fields:
                    continue
                if isinstance(raw, int):  # never read: defaults apply, as for a bad file
                    self._problem(where, f"{key}: {too_large(raw, MAX_STATE_BYTES)}")
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
        args: list[str] = [self.session_id, self.backend.user, str(len(shared))]
        for pairs in (shared, mine):
            for key, text in pairs.items():
                args += [key, text]
        keys = [self.backend.keys.sessions, self.k_meta, self.k_user, self.k_users]
        with self.backend.errors("could not save the session metadata"):
            written = self.backend.client.eval(WRITE_META, len(keys), *keys, *args)
        if not int(written):
            raise deleted(self.session_id)
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

    def note_problem(self, key: str, reason: str) -> None:
        """A key of the session that could not be used (reported with the problems)."""
        self._problem(key, reason)

    def _problem(self, key: str, reason: str) -> None:
        problem = StoreProblem("foley-tui", key, key, reason)
        if problem not in self._problems:
            self._problems.append(problem)

    def _entries(
        self, start: str, end: str, count: int, *, newest_first: bool = False
    ) -> list[Any]:
        """Journal entries, any field over the record cap emptied (read as unreadable)."""
        with self.backend.errors("could not read the journal"):
            return self.backend.capped_xrange(
                self.k_journal, start, end, count, MAX_RECORD_BYTES, newest_first=newest_first
            )

    def _record(self, stream_id: bytes, fields: Mapping[bytes, bytes]) -> dict[str, Any] | None:
        record = self.record_of(fields)
        if record is None:
            problem = StoreProblem(
                "foley-tui", "journal", self.k_journal, f"unreadable entry {stream_id!r}"
            )
            if problem not in self._problems:
                self._problems.append(problem)
        return record

    def journal_read(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        """Records with seq > ``offset`` (an offset is the last seq read)."""
        last_seq, last_id = self._cursor
        start = f"({last_id}" if offset == last_seq and last_id != "-" else "-"
        entries = self._entries(start, "+", MAX_JOURNAL_ENTRIES)
        records: list[dict[str, Any]] = []
        new_offset = offset
        for stream_id, fields in entries:
            record = self._record(stream_id, fields)
            if record is None or record["seq"] <= offset:
                continue
            records.append(record)
            new_offset = max(new_offset, record["seq"])
            self._cursor = (new_offset, stream_id.decode())
        if not entries and start == "-":
            self._cursor = (offset, "-")
        return records, new_offset

    def journal_scan(self) -> Iterator[dict[str, Any]]:
        start = "-"
        while True:
            entries = self._entries(start, "+", JOURNAL_BATCH)
            for stream_id, fields in entries:
                record = self._record(stream_id, fields)
                if record is not None:
                    yield record
            if len(entries) < JOURNAL_BATCH:
                return
            start = f"({entries[-1][0].decode()}"

    def journal_back(self) -> Iterator[dict[str, Any]]:
        end = "+"
        while True:
            entries = self._entries(end, "-", JOURNAL_BATCH, newest_first=True)
            for stream_id, fields in entries:
                record = self._record(stream_id, fields)
                if record is not None:
                    yield record
            if len(entries) < JOURNAL_BATCH:
                return
            end = f"({entries[-1][0].decode()}"

    def took(self, seq: int, stream_id: str) -> None:
        """Our own entry was taken as read (the journal had no entry between)."""
        self._cursor = (seq, stream_id)

    def journal_tail(self) -> tuple[int | None, int]:
        """The last seq handed out (offsets are seqs on Redis)."""
        with self.backend.errors("could not read the journal"):
            value = self.backend.client.get(self.k_seq)
        seq = int(value or 0)
        return (seq or None), seq

    def journal_write(self, record: dict[str, Any], at: int) -> int:
        """Append a record as it is (import): its seq is kept and the counter follows.
        (Decisions append in their own atomic script, not here.)"""
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
        return seq

    def journal_token(self) -> Hashable:
        with self.backend.errors("could not read the journal"):
            return self.backend.client.get(self.k_seq)

    def journal_token_at(self, end: int) -> Hashable:
        # Offsets are seqs, and the token is the seq counter's stored bytes.
        return str(end).encode()

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        # Decisions are compare-and-swap scripts: no cross-process lock is needed.
        with self._thread_lock:
            yield

    # -- our logs and documents (the conversation, the usage counters) ------------------
    # Logs are STRINGs appended only if they still end where the writer read up to, and
    # documents fields of the session's ``extra`` HASH swapped only if unchanged: the
    # compare-and-swap that replaces a cross-process lock (the caller re-reads and retries).
    def append_line(
        self, name: str, line: bytes, *, expect: int | None = None
    ) -> tuple[int, int] | None:
        key = self.backend.keys.log(self.session_id, name)
        with self.backend.errors(f"could not append to {name}"):
            end = int(
                self.backend.client.eval(
                    APPEND_IF_AT, 1, key, line, -1 if expect is None else expect
                )
            )
        return None if end < 0 else (end - len(line), end)

    def read_from(self, name: str, offset: int) -> bytes:
        key = self.backend.keys.log(self.session_id, name)
        with self.backend.errors(f"could not read {name}"):
            data = self.backend.capped_tail(key, offset, MAX_JOURNAL_BYTES)
        if isinstance(data, int):
            raise FileTooLargeError(key, too_large(data, MAX_JOURNAL_BYTES))
        return data

    def token_of(self, name: str) -> Hashable:
        keys = self.backend.keys
        with self.backend.errors(f"could not read {name}"):
            pipe = self.backend.client.pipeline(transaction=False)
            pipe.strlen(keys.log(self.session_id, name))
            self.backend.capped_hmget(
                keys.extra(self.session_id), [name], MAX_STATE_BYTES, client=pipe
            )
            length, [doc] = pipe.execute()
        return (length, doc)

    def read_doc(self, name: str) -> bytes | None:
        key = self.backend.keys.extra(self.session_id)
        with self.backend.errors(f"could not read {name}"):
            [data] = self.backend.capped_hmget(key, [name], MAX_STATE_BYTES)
        if isinstance(data, int):
            raise FileTooLargeError(f"{key} {name}", too_large(data, MAX_STATE_BYTES))
        return None if data is None else bytes(data)

    def swap_doc(self, name: str, old: bytes | None, new: bytes) -> bool:
        keys = self.backend.keys
        absent = "1" if old is None else "0"
        with self.backend.errors(f"could not save {name}"):
            done = self.backend.client.eval(
                SWAP_DOC,
                2,
                keys.extra(self.session_id),
                keys.sessions,
                name,
                old or b"",
                absent,
                new,
                self.session_id,
            )
        if int(done) < 0:
            raise deleted(self.session_id)
        return bool(done)


__all__ = ["SHARED_META", "USER_META", "RedisState"]
