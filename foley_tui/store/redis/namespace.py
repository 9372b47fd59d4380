"""foley's three session namespaces as dol stores over Redis hashes.

Each namespace (candidates, picks, rejects) is one Redis HASH per session: field = sound
id, value = foley's exact JSON bytes (``json.dumps(value, indent=4)``, as the file store
writes them). :class:`RedisHash` is the raw ``MutableMapping[str, bytes]``; dol's
``wrap_kvs`` adds the JSON codec, as foley's own stores are built. Every write, whoever
makes it (foley's ``SessionStore`` included, since it goes through these mappings), is one
server-side script that also bumps the session's version counter and appends a change
event, and for candidates keeps the rows index (list columns) and first-seen order.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

import redis
from dol import wrap_kvs
from redis.exceptions import RedisError

from foley_tui.safe_io import MAX_RECORD_BYTES, human_size
from foley_tui.store.codec import (
    DecodeError,
    dumps,
    encode_key,
    loads_object,
    validate_session_id,
)
from foley_tui.store.errors import StoreProblem
from foley_tui.store.files import UnreadableEntry
from foley_tui.store.records import MARKS_NS
from foley_tui.store.redis.conn import (
    RedisStoreError,
    RedisTimeoutError,
    Target,
    connect,
    unavailable,
)
from foley_tui.store.redis.keys import CHANGES_MAXLEN, Keys
from foley_tui.store.rows import row_values

NAMESPACES = ("candidates", "picks", "rejects")
USER_ENV = "FOLEY_TUI_USER"

# KEYS: hash, version, changes, rows, order, sessions, stamps, nsver
# ARGV: op (set|del), field, value, row ('' none, '1' drop on delete), stamp ('1': keep a
#       per-key stamp), namespace, author, maxlen, session id
NS_WRITE = """
if ARGV[1] == 'del' then
  if redis.call('HDEL', KEYS[1], ARGV[2]) == 0 then return 0 end
  if ARGV[4] ~= '' then
    redis.call('HDEL', KEYS[4], ARGV[2])
    redis.call('ZREM', KEYS[5], ARGV[2])
  end
end
local v = redis.call('INCR', KEYS[2])
if ARGV[5] == '1' then
  if ARGV[1] == 'del' then redis.call('HDEL', KEYS[7], ARGV[2])
  else redis.call('HSET', KEYS[7], ARGV[2], v) end
end
redis.call('HSET', KEYS[8], ARGV[6], v)
if ARGV[1] ~= 'del' then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  if ARGV[4] ~= '' then
    redis.call('HSET', KEYS[4], ARGV[2], ARGV[4])
    -- first seen keeps its place in the list: the version is unique and only grows
    redis.call('ZADD', KEYS[5], 'NX', v, ARGV[2])
  end
end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[8], '*',
  'ns', ARGV[6], 'key', ARGV[2], 'op', ARGV[1], 'by', ARGV[7], 'v', v)
redis.call('SADD', KEYS[6], ARGV[9])
return v
"""


# Reads that never send a value over the cap they are given (the file store's caps, for
# every value read from Redis): an over-cap value comes back as its length instead, so a
# 200 MB candidate costs its length, not 200 MB of reply and a parse of it.
#: KEYS: hash. ARGV: cap, field... -> per field its bytes, nil, or its length (over cap).
CAPPED_HMGET = """
local cap = tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do
  local n = redis.call('HSTRLEN', KEYS[1], ARGV[i])
  if n > cap then out[i - 1] = n else out[i - 1] = redis.call('HGET', KEYS[1], ARGV[i]) end
end
return out
"""
#: KEYS: hash. ARGV: cursor, cap, count -> {next cursor, {field, value or length...}}.
CAPPED_HSCAN = """
local cap = tonumber(ARGV[2])
local reply = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[3])
local items = reply[2]
for i = 2, #items, 2 do
  if #items[i] > cap then items[i] = #items[i] end
end
return {reply[1], items}
"""
#: KEYS: hash. ARGV: cap -> {field, value or length...}.
CAPPED_HGETALL = """
local cap = tonumber(ARGV[1])
local items = redis.call('HGETALL', KEYS[1])
for i = 2, #items, 2 do
  if #items[i] > cap then items[i] = #items[i] end
end
return items
"""
#: KEYS: string. ARGV: offset, cap -> its bytes from offset, or their length (over cap).
CAPPED_TAIL = """
local n = redis.call('STRLEN', KEYS[1]) - tonumber(ARGV[1])
if n > tonumber(ARGV[2]) then return n end
return redis.call('GETRANGE', KEYS[1], ARGV[1], -1)
"""
#: KEYS: stream. ARGV: start, end, count, cap, '1' for newest first -> the entries, any
#: field value over the cap emptied.
CAPPED_XRANGE = """
local r
if ARGV[5] == '1' then
  r = redis.call('XREVRANGE', KEYS[1], ARGV[1], ARGV[2], 'COUNT', ARGV[3])
else
  r = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[2], 'COUNT', ARGV[3])
end
local cap = tonumber(ARGV[4])
for _, entry in ipairs(r) do
  local f = entry[2]
  for i = 2, #f, 2 do
    if #f[i] > cap then f[i] = '' end
  end
end
return r
"""


def too_large(size: int, cap: int) -> str:
    """Why a value over the cap is not read (the file store's words)."""
    return f"too large ({human_size(size)}; the limit is {human_size(cap)})"


def default_user() -> str:
    """The author of our writes: ``$FOLEY_TUI_USER``, else the OS user."""
    name = os.environ.get(USER_ENV, "").strip()
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (a container with a bare uid)
        return f"uid{os.getuid()}"


class RedisBackend:
    """One client, its target and key names, the author of writes and the scripts."""

    def __init__(
        self,
        client: redis.Redis,
        target: Target,
        *,
        user: str | None = None,
    ) -> None:
        # redis-py's reply types are unions of bytes|str|Awaitable: typed loosely here.
        self.client: Any = client
        self.target = target
        self.keys = Keys(target.prefix)
        self.user = user or default_user()
        self.ns_write = client.register_script(NS_WRITE)
        self._hmget = client.register_script(CAPPED_HMGET)
        self._hscan = client.register_script(CAPPED_HSCAN)
        self._hgetall = client.register_script(CAPPED_HGETALL)
        self._tail = client.register_script(CAPPED_TAIL)
        self._xrange = client.register_script(CAPPED_XRANGE)

    # -- capped reads: an over-cap value is its length (an int), never its bytes -------
    def capped_hmget(
        self, key: str, fields: list[str], cap: int = MAX_RECORD_BYTES, *, client: Any = None
    ) -> Any:
        """Per field its bytes, None (absent) or its length when over ``cap``; with a
        pipeline as ``client``, queued (its reply comes with the pipeline's)."""
        return self._hmget(keys=[key], args=[cap, *fields], client=client)

    def capped_hgetall(self, key: str, cap: int, *, client: Any = None) -> Any:
        """Every (field, bytes or length over ``cap``) of a hash, as a flat list."""
        return self._hgetall(keys=[key], args=[cap], client=client)

    def capped_hscan(
        self, key: str, cap: int = MAX_RECORD_BYTES, *, count: int = 1000
    ) -> Iterator[tuple[bytes, bytes | int]]:
        """Every (field, bytes or length over ``cap``) of a hash, a batch at a time."""
        cursor: Any = 0
        while True:
            cursor, items = self._hscan(keys=[key], args=[cursor, cap, count])
            for i in range(0, len(items), 2):
                yield bytes(items[i]), items[i + 1]
            if int(cursor) == 0:
                return

    def capped_tail(self, key: str, offset: int, cap: int) -> bytes | int:
        """The string's bytes from ``offset`` on, or their length when over ``cap``."""
        reply = self._tail(keys=[key], args=[offset, cap])
        return reply if isinstance(reply, int) else bytes(reply or b"")

    def capped_xrange(
        self, key: str, start: str, end: str, count: int, cap: int, *, newest_first: bool = False
    ) -> list[Any]:
        """Stream entries (id, fields) like XRANGE (XREVRANGE: ``start`` is the newest
        end), any field over ``cap`` emptied."""
        args: list[Any] = [start, end, count, cap, "1" if newest_first else "0"]
        return [(entry[0], _pairs(entry[1])) for entry in self._xrange(keys=[key], args=args)]

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        user: str | None = None,
        prefix: str | None = None,
        timeout_s: float | None = None,
    ) -> RedisBackend:
        """``timeout_s``: the deadline of each operation when the URL gives none."""
        client, target = connect(url, prefix=prefix, timeout_s=timeout_s)
        return cls(client, target, user=user)

    @contextlib.contextmanager
    def errors(self, doing: str, key: str | None = None) -> Iterator[None]:
        """Turn a Redis failure into a :class:`RedisStoreError` saying what failed (and
        naming ``key`` when it holds the wrong kind of value)."""
        try:
            yield
        except (RedisStoreError, RedisTimeoutError):
            raise
        except RedisError as exc:
            raise unavailable(self.target, exc, doing, key) from None

    def close(self) -> None:
        with contextlib.suppress(RedisError):
            self.client.close()


def _pairs(flat: list[Any]) -> dict[bytes, Any]:
    return {bytes(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}


class RedisHash(MutableMapping[str, bytes]):
    """``Mapping[sound id -> JSON bytes]`` over one namespace HASH of one session.

    Keys are checked as the file store checks them (a key foley cannot store as a file
    name is refused), so a session can always be pulled back to files.
    """

    def __init__(self, backend: RedisBackend, session_id: str, namespace: str) -> None:
        if namespace not in NAMESPACES and namespace != MARKS_NS:  # foley's, or our marks
            raise ValueError(f"unknown namespace {namespace!r}")
        self.backend = backend
        self.session_id = validate_session_id(session_id)
        self.namespace = namespace
        keys = backend.keys
        self.key = keys.ns(session_id, namespace)
        self._script_keys = [
            self.key,
            keys.version(session_id),
            keys.changes(session_id),
            keys.rows(session_id),
            keys.order(session_id),
            keys.sessions,
            keys.stamps(session_id, namespace),
            keys.nsver(session_id),
        ]
        self._is_candidates = namespace == "candidates"
        self.stamps_key = keys.stamps(session_id, namespace)
        self.nsver_key = keys.nsver(session_id)

    def __repr__(self) -> str:
        return f"RedisHash({self.backend.target.url!r}, {self.key!r})"

    def __getitem__(self, key: str) -> bytes:
        if not isinstance(key, str):
            raise KeyError(key)
        with self.backend.errors(f"could not read {self.namespace}/{key}"):
            [value] = self.backend.capped_hmget(self.key, [key])
        if value is None:
            raise KeyError(key)
        if isinstance(value, int):
            reason = too_large(value, MAX_RECORD_BYTES)
            raise UnreadableEntry(StoreProblem(self.namespace, key, self.key, reason))
        return bytes(value)

    def _argv(self, op: str, key: str, value: bytes) -> list[Any]:
        row: bytes | str = ""
        if self._is_candidates:
            row = row_json(value) if op == "set" else "1"
        return [
            op,
            key,
            value,
            row,
            "" if self._is_candidates else "1",
            self.namespace,
            self.backend.user,
            CHANGES_MAXLEN,
            self.session_id,
        ]

    def __setitem__(self, key: str, value: bytes) -> None:
        encode_key(key)
        with self.backend.errors(f"could not write {self.namespace}/{key}"):
            self.backend.ns_write(keys=self._script_keys, args=self._argv("set", key, value))

    def __delitem__(self, key: str) -> None:
        if not isinstance(key, str):
            raise KeyError(key)
        with self.backend.errors(f"could not delete {self.namespace}/{key}"):
            removed = self.backend.ns_write(
                keys=self._script_keys, args=self._argv("del", key, b"")
            )
        if not removed:
            raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        with self.backend.errors(f"could not read {self.namespace}"):
            return bool(self.backend.client.hexists(self.key, key))

    def __iter__(self) -> Iterator[str]:
        with self.backend.errors(f"could not list {self.namespace}"):
            names = self.backend.client.hkeys(self.key)
        return iter([n.decode("utf-8", "surrogateescape") for n in names])

    def __len__(self) -> int:
        with self.backend.errors(f"could not count {self.namespace}"):
            return int(self.backend.client.hlen(self.key))

    # -- bulk, for imports and push/pull ------------------------------------------
    def set_many(self, items: Iterable[tuple[str, bytes]], *, chunk: int = 1000) -> int:
        """Write many entries, ``chunk`` scripts per round trip; returns the count."""
        count = 0
        with self.backend.errors(f"could not write {self.namespace}"):
            pipe = self.backend.client.pipeline(transaction=False)
            pending = 0
            for key, value in items:
                encode_key(key)
                self.backend.ns_write(
                    keys=self._script_keys, args=self._argv("set", key, value), client=pipe
                )
                pending += 1
                count += 1
                if pending >= chunk:
                    pipe.execute()
                    pending = 0
            if pending:
                pipe.execute()
        return count

    def raw_items(
        self, *, count: int = 1000, too_large: Callable[[str, int], None] | None = None
    ) -> Iterator[tuple[str, bytes]]:
        """Every (key, bytes), read with HSCAN (never one huge reply); a value over the
        record cap is left out and told to ``too_large(key, its length)``."""
        with self.backend.errors(f"could not read {self.namespace}"):
            for raw_name, value in self.backend.capped_hscan(self.key, count=count):
                name = raw_name.decode("utf-8", "surrogateescape")
                if isinstance(value, int):
                    if too_large is not None:
                        too_large(name, value)
                    continue
                yield name, bytes(value)

    def stamps(self) -> dict[str, tuple[int, int]]:
        """Per key, the version of its last write (picks and rejects): what a watcher
        compares, as it compares (mtime_ns, size) of files. One reply."""
        if self._is_candidates:
            raise TypeError("candidates keep no per-key stamps; use token()")
        with self.backend.errors(f"could not read {self.namespace}"):
            raw = self.backend.client.hgetall(self.stamps_key)
        return {k.decode("utf-8", "surrogateescape"): (int(v), 0) for k, v in raw.items()}

    def token(self) -> int:
        """The version of the last write to this namespace (0: none yet)."""
        with self.backend.errors(f"could not read {self.namespace}"):
            return int(self.backend.client.hget(self.nsver_key, self.namespace) or 0)

    def get_many(self, keys: list[str]) -> list[bytes | int | None]:
        """Per key its bytes, None (absent) or its length when over the record cap."""
        if not keys:
            return []
        with self.backend.errors(f"could not read {self.namespace}"):
            values = self.backend.capped_hmget(self.key, keys)
        return [v if v is None or isinstance(v, int) else bytes(v) for v in values]


def row_json(value: bytes) -> bytes:
    """The rows-index entry of a candidate's bytes (an unreadable one says why)."""
    try:
        data = loads_object(value)
    except DecodeError as exc:
        return json.dumps({"unreadable": str(exc)}).encode()
    return json.dumps(row_values(data), separators=(",", ":"), ensure_ascii=False).encode()


def json_namespace(raw: RedisHash) -> MutableMapping[str, dict[str, Any]]:
    """The dict-valued namespace: dol's key/value wrapper over the raw hash, with foley's
    exact codec (``dumps`` refuses NaN before anything is sent; ``loads_object`` insists
    on a JSON object, as the file store does)."""
    store: MutableMapping[str, dict[str, Any]] = wrap_kvs(
        raw, obj_of_data=loads_object, data_of_obj=dumps
    )
    return store


def namespaces(
    url: str | RedisBackend,
    session_id: str,
    *,
    user: str | None = None,
    prefix: str | None = None,
) -> dict[str, MutableMapping[str, dict[str, Any]]]:
    """``{"candidates", "picks", "rejects"}`` over Redis, for foley's own ``SessionStore``::

    from foley.agent.session import SessionStore
    SessionStore("my-session", **namespaces("redis://host:6379/0", "my-session"))
    """
    backend = (
        url
        if isinstance(url, RedisBackend)
        else RedisBackend.from_url(url, user=user, prefix=prefix)
    )
    return {name: json_namespace(RedisHash(backend, session_id, name)) for name in NAMESPACES}


__all__ = [
    "NAMESPACES",
    "RedisBackend",
    "RedisHash",
    "RedisStoreError",
    "default_user",
    "json_namespace",
    "namespaces",
    "row_json",
    "too_large",
]
