"""The shared session store on Redis (or Valkey): foley's namespaces as dol stores over
Redis hashes, our state (meta, journal stream, per-user cursor/view) beside them, one
atomic script per decision and a change feed to follow other machines' writes live.

Headless: never imports textual.
"""

from __future__ import annotations

from foley_tui.store.redis.conn import RedisStoreError, is_redis_url, redact
from foley_tui.store.redis.namespace import RedisBackend, RedisHash, namespaces

__all__ = ["RedisBackend", "RedisHash", "RedisStoreError", "is_redis_url", "namespaces", "redact"]
