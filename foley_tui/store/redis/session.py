"""One session on Redis: :class:`RedisSessionStore` (its state: :mod:`.state`).

The seam: :class:`~foley_tui.store.session.SessionStore` already works over any three
namespace mappings plus a :class:`~foley_tui.store.backend.StateBackend`. On Redis the
namespaces are :mod:`.namespace`'s dol stores and the state is :class:`RedisState`
(shared meta in a HASH, each user's cursor and view in their own HASH, the journal as a
STREAM). :class:`RedisSessionStore` keeps the whole SessionStore API and replaces three
things the file store does in several steps:

* a decision is ONE server-side script: it checks the sound (or every sound of a group:
  a pick that drops its event's other picks) is still in the state we read
  (compare-and-swap on the stored bytes), writes the verdicts, appends the one journal
  entry (its seq handed out by the script), bumps the version and appends a change event
  per sound. All land together or not at all (AOF ``appendfsync always`` makes it durable
  on return);
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
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError

from foley_tui.domain import Row, ValidationError
from foley_tui.store.changes import note_own_decision
from foley_tui.store.codec import DecodeError, dumps, loads_object
from foley_tui.store.errors import StoreProblem, StoreWriteError
from foley_tui.store.records import (
    JournalEntry,
    RawRecord,
    Verdicts,
    _to_dict,
    candidate_key,
    new_ulid,
    now_utc,
    record_of_bytes,
    same_record,
)
from foley_tui.store.redis.audio import RedisAudio
from foley_tui.store.redis.feed import ChangeFeed
from foley_tui.store.redis.keys import CHANGES_MAXLEN
from foley_tui.store.redis.namespace import RedisBackend, RedisHash, json_namespace
from foley_tui.store.redis.rows import RedisRowsMixin
from foley_tui.store.redis.state import RedisState

# KEYS: picks, rejects, journal, seq, version, changes, sessions, picks stamps,
#       rejects stamps, nsver
# ARGV: record (JSON, no seq), author, changes maxlen, session id, n (sounds), then per
#       sound 5 args: sound id, expected pick, expected reject ('' absent, 'v'..bytes
#       present), new pick, new reject ('' delete, 'v'..bytes write).
# One decision over one sound or several (a pick that drops its event's other picks, the
# undo of such a group): every sound is checked against what we read before anything is
# written (compare-and-swap), then every verdict, ONE journal entry and a change event
# per sound land together, or nothing does.
DECIDE = """
local n = tonumber(ARGV[5])
local function cur(key, sid)
  local v = redis.call('HGET', key, sid)
  if not v then return '' end
  return 'v' .. v
end
for i = 0, n - 1 do
  local b = 6 + i * 5
  if cur(KEYS[1], ARGV[b]) ~= ARGV[b + 1] or cur(KEYS[2], ARGV[b]) ~= ARGV[b + 2] then
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
  local b = 6 + i * 5
  put(KEYS[1], KEYS[8], 'picks', ARGV[b], ARGV[b + 3])
  put(KEYS[2], KEYS[9], 'rejects', ARGV[b], ARGV[b + 4])
end
local seq = redis.call('INCR', KEYS[4])
local id = redis.call('XADD', KEYS[3], '*', 'seq', seq, 'by', ARGV[2], 'rec', ARGV[1])
for i = 0, n - 1 do
  redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[3], '*',
    'ns', 'decision', 'key', ARGV[6 + i * 5], 'op', 'decide', 'by', ARGV[2], 'v', v,
    'seq', seq)
end
redis.call('SADD', KEYS[7], ARGV[4])
return {1, seq, id}
"""

#: A decision whose sound keeps changing under it is retried this many times.
CAS_ATTEMPTS = 50


def _stored(record: dict[str, Any] | None) -> str:
    """A record as the decide script stores it ("" deletes): foley's encoding, or the
    exact bytes of a :class:`RawRecord` (a NaN foley wrote, restored verbatim)."""
    if record is None:
        return ""
    if isinstance(record, RawRecord):
        return "v" + record.raw.decode("utf-8", "surrogateescape")
    return "v" + dumps(record).decode()


class RedisSessionStore(RedisRowsMixin):
    """A :class:`SessionStore` whose namespaces and state are on Redis."""

    def __init__(
        self, backend: RedisBackend, session_id: str, *, data_dir: Path | None = None
    ) -> None:
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
            # This machine's byte store: audio found here plays before any from Redis.
            data_dir=data_dir,
        )
        self.redis_state = state
        self._bulk: dict[str, bytes] | None = None
        self._audio: RedisAudio | None = None
        self._quick: tuple[tuple[Any, ...], list[Row]] | None = None
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
            keys.stamps(session_id, "picks"),
            keys.stamps(session_id, "rejects"),
            keys.nsver(session_id),
        ]

    def __repr__(self) -> str:
        return f"RedisSessionStore({self.session_id!r}, {self.backend.target.url!r})"

    def remote_audio(self) -> RedisAudio:
        """The audio pushed with the session (``session push --with-audio``): the player
        streams it from Redis when the file is not on this machine."""
        if self._audio is None:
            self._audio = RedisAudio(self.backend, self.session_id)
        return self._audio

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

    def candidate(self, sound_id: str) -> dict[str, Any] | None:
        if self._bulk is not None:  # an export in progress: read from the one HSCAN pass
            raw = self._bulk.get(sound_id)
            if raw is None:
                return None
            try:
                return loads_object(raw)
            except DecodeError as exc:
                self._note(
                    StoreProblem("candidates", sound_id, self.raw["candidates"].key, str(exc))
                )
                return None
        return super().candidate(sound_id)

    @contextlib.contextmanager
    def bulk_candidates(self) -> Iterator[None]:
        """Within: :meth:`candidate` answers from one HSCAN pass over every candidate
        (an export reads them all; a round trip per candidate would cost seconds)."""
        self._bulk = dict(self.raw["candidates"].raw_items())
        try:
            yield
        finally:
            self._bulk = None

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
    def _current(self, sound_ids: list[str]) -> list[tuple[str, str, Verdicts]]:
        """Per sound, (expected pick, expected reject, the records now): the expectations
        are the stored bytes, compared by the script (compare-and-swap). One round trip."""
        with self.backend.errors(f"could not read the decision on {sound_ids[0]!r}"):
            pipe = self.backend.client.pipeline(transaction=False)
            for sound_id in sound_ids:
                pipe.hget(self.raw["picks"].key, sound_id)
                pipe.hget(self.raw["rejects"].key, sound_id)
            replies = pipe.execute()
        return [
            _verdicts_of(sound_id, replies[2 * i], replies[2 * i + 1])
            for i, sound_id in enumerate(sound_ids)
        ]

    def _decide(
        self,
        sound_id: str,
        change: Callable[[Verdicts], Verdicts | None],
        *,
        kind: str = "do",
        target: int | None = None,
    ) -> JournalEntry | None:
        return self._decide_group([(sound_id, change)], kind=kind, target=target)

    def _decide_group(
        self,
        items: list[tuple[str, Callable[[Verdicts], Verdicts | None]]],
        *,
        kind: str = "do",
        target: int | None = None,
    ) -> JournalEntry | None:
        """Read the sounds, compute each ``change(now)`` and apply them with ONE journal
        entry in ONE atomic script that first checks every sound's stored bytes are still
        what we read (re-read and retried when another writer got in between). The first
        item's sound is the entry's own; an unchanged other sound is left out of it.
        ``change`` raises :class:`UndoConflictError` for undo/redo's compare-and-swap
        (before anything is written). None: no change."""
        for sid, _ in items:
            self._valid_key(sid)
        sound_ids = [sid for sid, _ in items]
        for _attempt in range(CAS_ATTEMPTS):
            planned: list[tuple[str, str, str, Verdicts, Verdicts]] = []
            for (sid, change), (want_pick, want_reject, before) in zip(
                items, self._current(sound_ids), strict=True
            ):
                after = change(before)
                if after is None:
                    continue
                unchanged = (
                    before.clean
                    and same_record(before.pick, after.pick)
                    and same_record(before.reject, after.reject)
                )
                if kind == "do" and unchanged and planned:
                    continue  # an unchanged other sound is not part of the entry
                planned.append((sid, want_pick, want_reject, before, after))
            if not planned:
                return None
            first_sid, _, _, first_before, first_after = planned[0]
            if (
                kind == "do"
                and len(planned) == 1
                and first_before.clean
                and same_record(first_before.pick, first_after.pick)
                and same_record(first_before.reject, first_after.reject)
            ):
                return None
            entry = JournalEntry(
                seq=0,
                entry_id=new_ulid(),
                at=now_utc(),
                sound_id=first_sid,
                before=first_before.to_state(),
                after=first_after.to_state(),
                kind=kind,
                target=target,
                author=self.user,
                also=tuple((s, b.to_state(), a.to_state()) for s, _, _, b, a in planned[1:]),
            )
            record = {k: v for k, v in entry.to_record().items() if k not in ("seq", "author")}
            args: list[Any] = [
                json.dumps(record, separators=(",", ":"), allow_nan=False),
                self.user,
                CHANGES_MAXLEN,
                self.session_id,
                len(planned),
            ]
            for sid, want_pick, want_reject, _before, after in planned:
                if kind == "skip":  # a skip writes nothing but its journal record
                    new_pick, new_reject = want_pick, want_reject
                else:
                    new_pick, new_reject = _stored(after.pick), _stored(after.reject)
                args += [sid, want_pick, want_reject, new_pick, new_reject]
            with self.backend.errors(f"could not save the decision on {first_sid!r}"):
                result = self._decide_script(keys=self._decide_keys, args=args)
            if int(result[0]) != 1:
                continue  # a sound changed between our read and the script: re-read
            if kind != "skip":
                for sid, *_ in planned:
                    note_own_decision(self, sid)  # the app's watcher: our write, not news
            entry = replace(entry, seq=int(result[1]))
            self._took(entry, result[2].decode())
            return entry
        raise StoreWriteError(f"the decision on {sound_ids[0]!r} kept being overtaken; try again")

    def _took(self, entry: JournalEntry, stream_id: str) -> None:
        with self._lock:
            if self._journal_known and entry.seq == self._journal_offset + 1:
                self._journal.append(entry)
                self._journal_offset = self._last_seq = entry.seq
                if self._journal_start == 0:
                    self._stack(entry)
                self.redis_state.took(entry.seq, stream_id)
                return
        self._refresh_journal()

    # ------------------------------------------------------------------ per-user undo
    def _mine(self, entry: JournalEntry) -> bool:
        # Entries without an author predate sharing (a pushed file journal): anyone's.
        return entry.author is None or entry.author == self.user

    def skip(self, *, redo: bool = False) -> JournalEntry | None:
        """Step past the entry undo (or redo) would apply, writing nothing but a ``skip``
        journal entry (so every process agrees the entry is out of the stack)."""
        return self.skip_redo() if redo else self.skip_undo()

    # ------------------------------------------------------------------ live
    def change_feed(self, *, block_ms: int = 1000, since: str = "$") -> ChangeFeed:
        """A blocking feed of this session's changes (run its ``wait`` in a worker)."""
        return ChangeFeed(self.backend, self.session_id, block_ms=block_ms, since=since)

    # ------------------------------------------------------------------ faults
    def ping(self) -> bool:
        """True when the server answers (the status line's "Redis down" check)."""
        try:
            return bool(self.backend.client.ping())
        except RedisError:
            return False


def _verdicts_of(
    sound_id: str, pick_raw: bytes | None, reject_raw: bytes | None
) -> tuple[str, str, Verdicts]:
    """(expected pick, expected reject, the records) of one sound's stored bytes. A NaN
    foley wrote keeps its bytes; an unreadable record reads as a bare one (never written
    back as read: ``clean`` is False)."""
    parsed: list[dict[str, Any] | None] = [None, None]
    clean = True
    for i, raw in enumerate((pick_raw, reject_raw)):
        if raw is None:
            continue
        with contextlib.suppress(DecodeError):
            parsed[i] = record_of_bytes(raw)
        if parsed[i] is None:
            clean = False
            parsed[i] = (
                {"sound_id": sound_id, "layer": None, "onset": None}
                if i == 0
                else {"sound_id": sound_id, "reason": None}
            )

    def expect(raw: bytes | None) -> str:
        return "" if raw is None else "v" + raw.decode("utf-8", "surrogateescape")

    return expect(pick_raw), expect(reject_raw), Verdicts(parsed[0], parsed[1], clean)


__all__ = ["RedisSessionStore"]
