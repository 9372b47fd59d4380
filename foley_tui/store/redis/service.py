"""The session service over Redis: the same contract as the file service.

Sessions are listed from ``<prefix>sessions`` (a SET: no key scan), created with a ULID
id, deleted key by key (every key of a session is known by name), and imported in ONE
``MULTI``/``EXEC`` transaction: a failed import leaves nothing half made. Export is the
file service's own code (the same checksummed document; the store reads every candidate
in one HSCAN pass for it).

Headless: never imports textual.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

from foley_tui import paths
from foley_tui.store.catalog import OpenStores, first_meta
from foley_tui.store.codec import dumps, validate_session_id
from foley_tui.store.errors import SessionServiceError
from foley_tui.store.records import MARKS_NS
from foley_tui.store.redis.keys import LOGS
from foley_tui.store.redis.namespace import RedisBackend, row_json
from foley_tui.store.redis.session import RedisSessionStore
from foley_tui.store.service import MAX_SESSIONS, SessionService
from foley_tui.store.session import SessionStore
from foley_tui.store.session_dirs import NAMESPACES
from foley_tui.store.transfer_service import ImportedSession


class RedisCatalog:
    """Sessions on one Redis server (a key prefix of it): the catalog part of a
    :class:`RedisSessionService`."""

    in_memory = False
    delete_outcome = "Its keys are deleted from the shared Redis store: this cannot be undone."

    def __init__(self, backend: RedisBackend, data_dir: Path, opened: OpenStores) -> None:
        self.backend = backend
        self.data_dir = data_dir
        self.opened = opened
        self.recovered: builtins.list[str] = []

    def exists(self, session_id: str) -> bool:
        with self.backend.errors("could not reach the session list"):
            return bool(self.backend.client.sismember(self.backend.keys.sessions, session_id))

    def open(self, session_id: str) -> SessionStore:
        stores = self.opened.stores
        store = stores.get(session_id)
        if store is None:
            store = RedisSessionStore(self.backend, session_id, data_dir=self.data_dir)
            stores[session_id] = store
        return store

    def ids(self) -> builtins.list[str]:
        with self.backend.errors("could not reach the session list"):
            members = self.backend.client.smembers(self.backend.keys.sessions)
        ids = []
        for raw in members:
            try:
                ids.append(validate_session_id(raw.decode("utf-8")))
            except (UnicodeDecodeError, SessionServiceError):
                continue
        return sorted(ids)

    def create(self, session_id: str, title: str | None) -> None:
        with self.backend.errors("could not create a session"):
            self.backend.client.sadd(self.backend.keys.sessions, session_id)
        store = self.open(session_id)
        first_meta(store, title)
        store.meta_doc.write()

    def session_keys(self, session_id: str) -> builtins.list[str]:
        """Every key of the session (each is known by name: no key scan)."""
        keys = self.backend.keys
        with self.backend.errors("could not reach the session"):
            users = self.backend.client.smembers(keys.users(session_id))
        per_user = [keys.user(session_id, u.decode("utf-8", "replace")) for u in users]
        return [*keys.fixed(session_id), *per_user]

    def delete(self, session_id: str) -> None:
        """Delete every key of that one session (and nothing else), atomically."""
        doomed = self.session_keys(session_id)
        with self.backend.errors(f"could not delete {session_id!r}"):
            pipe = self.backend.client.pipeline(transaction=True)
            pipe.delete(*doomed)
            pipe.srem(self.backend.keys.sessions, session_id)
            pipe.execute()

    def adopt(self, session_id: str, store: SessionStore) -> None:
        """Nothing to hold: an import to Redis is written (:meth:`write_import`)."""

    def write_import(self, imported: ImportedSession) -> None:
        """Write the whole session in one transaction (replacing it when it exists),
        with its state files (the conversation, the usage counters) in the same MULTI."""
        raw = {
            # A record given as bytes is a file foley wrote that JSON cannot carry (a NaN
            # onset): an export's ``raw`` entry, stored as it was.
            "candidates": {k: _data(v) for k, v in imported.candidates.items()},
            "picks": {k: _data(v) for k, v in imported.picks.items()},
            "rejects": {k: _data(v) for k, v in imported.rejects.items()},
            MARKS_NS: {k: _data(v) for k, v in imported.marks.items()},
        }
        self.write_raw(
            imported.session_id, raw, imported.meta, imported.journal, imported.state_files
        )

    def write_raw(
        self,
        session_id: str,
        values: dict[str, dict[str, bytes]],
        meta: dict[str, Any],
        journal: builtins.list[dict[str, Any]],
        state_files: dict[str, bytes] | None = None,
    ) -> None:
        """Replace a session by these exact bytes, meta and journal: one MULTI/EXEC.
        ``state_files``: more of our state by name (logs in ``LOGS``, else documents).

        Used by import and ``session push`` (which passes the files' bytes unchanged)."""
        keys = self.backend.keys
        old = self.session_keys(session_id)
        with self.backend.errors(f"could not write session {session_id!r}"):
            # The version only grows, even across a replace: a watcher never sees an old one.
            base = int(self.backend.client.get(keys.version(session_id)) or 0)
        pipe = self.backend.client.pipeline(transaction=True)
        pipe.delete(*old)
        for name in (*NAMESPACES, MARKS_NS):
            items = values.get(name, {})
            if items:
                pipe.hset(keys.ns(session_id, name), mapping=items)
        cands = values.get("candidates", {})
        if cands:
            pipe.hset(keys.rows(session_id), mapping={k: row_json(v) for k, v in cands.items()})
            # Keep the file order (first seen) as the list order: rank by position.
            pipe.zadd(keys.order(session_id), {k: base + i + 1 for i, k in enumerate(cands)})
        top = 0
        for record in journal:
            seq = int(record["seq"])
            top = max(top, seq)
            body = {k: v for k, v in record.items() if k not in ("seq", "author")}
            fields = {"seq": seq, "rec": json.dumps(body, separators=(",", ":"))}
            if isinstance(record.get("author"), str):
                fields["by"] = record["author"]
            pipe.xadd(keys.journal(session_id), fields)
        if top:
            pipe.set(keys.seq(session_id), top)
        for name, data in (state_files or {}).items():
            if name in LOGS:
                pipe.set(keys.log(session_id, name), data)
            else:
                pipe.hset(keys.extra(session_id), name, data)
        shared = {
            k: json.dumps(meta.get(k), separators=(",", ":"))
            for k in ("schema_version", "title", "created", "updated", "origin")
            if k in meta
        }
        if shared:
            pipe.hset(keys.meta(session_id), mapping=shared)
        mine = {
            k: json.dumps(meta.get(k), separators=(",", ":"))
            for k in ("cursor", "view")
            if meta.get(k) is not None
        }
        if mine:
            pipe.hset(keys.user(session_id, self.backend.user), mapping=mine)
            pipe.sadd(keys.users(session_id), self.backend.user)
        stamp = base + len(cands) + 1
        for name in ("picks", "rejects"):
            if values.get(name):
                pipe.hset(keys.stamps(session_id, name), mapping=dict.fromkeys(values[name], stamp))
        pipe.hset(keys.nsver(session_id), mapping=dict.fromkeys(NAMESPACES, stamp))
        # Past every order score above, so later candidates sort after these.
        pipe.set(keys.version(session_id), base + len(cands) + 1)
        pipe.xadd(
            keys.changes(session_id),
            {"ns": "session", "key": "", "op": "replace", "by": self.backend.user},
        )
        pipe.sadd(keys.sessions, session_id)
        with self.backend.errors(f"could not write session {session_id!r}"):
            pipe.execute()
        with self.opened.lock:
            self.opened.stores.pop(session_id, None)


class RedisSessionService(SessionService):
    """A :class:`SessionService` whose sessions live on one Redis server (its catalog
    part, :class:`RedisCatalog`); it adds only what a server has (its URL, the user,
    writing a session's exact bytes)."""

    def __init__(
        self,
        url: str | RedisBackend,
        *,
        user: str | None = None,
        prefix: str | None = None,
        data_dir: Path | str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """``timeout_s``: how long one operation waits for the server when the URL has no
        ``?socket_timeout=`` (the ``store_timeout_s`` setting)."""
        self.backend = (
            url
            if isinstance(url, RedisBackend)
            else RedisBackend.from_url(url, user=user, prefix=prefix, timeout_s=timeout_s)
        )
        # Local audio (blobs, by-reference files) is still found under the data dir.
        folder = paths.data_dir(data_dir) if data_dir else paths.data_dir()
        opened = OpenStores(MAX_SESSIONS)
        self.redis_catalog = RedisCatalog(self.backend, folder, opened)
        self._setup(folder, self.redis_catalog, opened)

    def __repr__(self) -> str:
        return f"RedisSessionService({self.backend.target.url!r})"

    @property
    def url(self) -> str:
        return self.backend.target.url

    @property
    def user(self) -> str:
        return self.backend.user

    def write_raw(
        self,
        session_id: str,
        values: dict[str, dict[str, bytes]],
        meta: dict[str, Any],
        journal: builtins.list[dict[str, Any]],
        state_files: dict[str, bytes] | None = None,
    ) -> None:
        """Replace a session by these exact bytes, meta and journal (see
        :meth:`RedisCatalog.write_raw`)."""
        self.redis_catalog.write_raw(session_id, values, meta, journal, state_files)


__all__ = ["RedisCatalog", "RedisSessionService"]


def _data(value: Any) -> bytes:
    return value if isinstance(value, bytes) else dumps(value)
