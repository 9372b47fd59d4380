"""Follow a Redis session live, without polling: the store-level change feed.

:class:`ChangeFeed` blocks on the session's change stream (``XREAD BLOCK``): every write
through our namespaces (foley's agent included) and every decision appends an event, so
a pick made on one machine wakes the other at once. Each wake-up (and each block timeout)
also compares the session's version counter, a cheap ``GET``, so writes the stream did not
carry (an event trimmed away, a server restarted from an older AOF) are noticed too.

When the server goes away, :meth:`ChangeFeed.wait` reports it (``FeedUpdate(kind="down")``)
and keeps retrying by itself; once it is back it reports ``"up"`` and catches up from the
stream where it stopped. Headless: never imports textual; the app runs :meth:`wait` in a
worker thread and applies what it returns.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from redis.exceptions import RedisError, ResponseError

from foley_tui.store.redis.conn import wrong_type
from foley_tui.store.redis.namespace import RedisBackend


@dataclass(frozen=True, slots=True)
class FeedUpdate:
    """What :meth:`ChangeFeed.wait` saw.

    ``kind``: ``"changed"`` (events or a new version), ``"down"`` (the server is not
    answering; ``error`` says why, never with the password), ``"up"`` (it answers again),
    ``"idle"`` (the block timed out with nothing new) or ``"broken"`` (the server answers
    but a key of the session holds the wrong kind of value: ``error`` names it; the
    session cannot be followed live and is polled instead)."""

    kind: str
    events: list[dict[str, str]] = field(default_factory=list)
    version: int = 0
    error: str | None = None


class ChangeFeed:
    """Blocking reads of one session's change stream, from "now" (or a given stream id)."""

    def __init__(
        self,
        backend: RedisBackend,
        session_id: str,
        *,
        block_ms: int = 1000,
        since: str = "$",
    ) -> None:
        # Its own client: a blocking read must not hold up the store's connection. It
        # waits the block plus one deadline (a block is not a server that stopped).
        pool = backend.client.connection_pool
        kwargs = dict(pool.connection_kwargs)
        deadline = kwargs.get("socket_timeout") or backend.target.timeout_s or 2.0
        kwargs["socket_timeout"] = block_ms / 1000 + deadline
        own = pool.__class__(connection_class=pool.connection_class, **kwargs)
        self.backend = RedisBackend(
            backend.client.__class__(connection_pool=own), backend.target, user=backend.user
        )
        self.session_id = session_id
        self.block_ms = block_ms
        self.key = backend.keys.changes(session_id)
        self.version_key = backend.keys.version(session_id)
        self.last_id = since
        self.version = -1
        self.down = False
        self._closed = threading.Event()

    def close(self) -> None:
        self._closed.set()
        self.backend.close()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _start(self) -> None:
        """Pin "$" to the current last id, so nothing between two reads is missed."""
        if self.last_id == "$":
            last = self.backend.client.xrevrange(self.key, count=1)
            self.last_id = last[0][0].decode() if last else "0-0"
        if self.version < 0:
            self.version = int(self.backend.client.get(self.version_key) or 0)

    def wait(self) -> FeedUpdate:
        """Block until something changes, the server goes down or comes back, or a timeout."""
        client = self.backend.client
        try:
            self._start()
            reply = client.xread({self.key: self.last_id}, block=self.block_ms, count=1000)
            version = int(client.get(self.version_key) or 0)
        except RedisError as exc:
            if isinstance(exc, ResponseError) and str(exc).startswith("WRONGTYPE"):
                bad = self.key if self._wrong(self.key, "stream") else self.version_key
                error = f"cannot follow the session live: {wrong_type(bad)}"
                return FeedUpdate("broken", error=error)
            if not self.down:
                self.down = True
                where = self.backend.target.url  # redacted: never the password
                return FeedUpdate("down", error=f"Redis at {where} is unreachable ({exc})")
            self._closed.wait(min(1.0, self.block_ms / 1000))
            return FeedUpdate("idle")
        events: list[dict[str, str]] = []
        for _stream, entries in reply or []:
            for stream_id, fields in entries:
                self.last_id = stream_id.decode()
                event = {k.decode(): v.decode("utf-8", "replace") for k, v in fields.items()}
                event["id"] = self.last_id
                events.append(event)
        if self.down:
            self.down = False
            self.version = version
            return FeedUpdate("up", events, version)
        if events or version != self.version:
            self.version = version
            return FeedUpdate("changed", events, version)
        return FeedUpdate("idle", version=version)

    def _wrong(self, key: str, kind: str) -> bool:
        """Whether ``key`` exists and is not of ``kind`` (which key a WRONGTYPE was)."""
        try:
            found = self.backend.client.type(key)
        except RedisError:
            return False
        found = found.decode() if isinstance(found, bytes) else str(found)
        return found not in (kind, "none")

    def follow(self, until: float | None = None) -> list[FeedUpdate]:
        """Changes until one arrives (or ``until``, a monotonic deadline, passes)."""
        out: list[FeedUpdate] = []
        while not self.closed:
            change = self.wait()
            if change.kind != "idle":
                out.append(change)
                return out
            if until is not None and time.monotonic() >= until:
                return out
        return out


__all__ = ["ChangeFeed", "FeedUpdate"]
