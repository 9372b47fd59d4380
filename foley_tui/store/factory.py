"""Choose the session store by URL: files (the embedded default) or Redis.

``open_service(store, data_dir)``: ``store`` is ``redis://[user@]host:port/db`` or
``rediss://`` (TLS) for the shared store, ``file`` (or nothing) for the file store under
the data dir; unset, ``$FOLEY_TUI_STORE`` decides. The Redis client is imported only when
a Redis URL is used. Headless: never imports textual.
"""

from __future__ import annotations

import os
from pathlib import Path

from foley_tui.store.errors import SessionServiceError
from foley_tui.store.service import SessionService

STORE_ENV = "FOLEY_TUI_STORE"
FILE_STORE = ("", "file", "files")


def store_url(explicit: str | None = None) -> str:
    """The store URL in effect: ``explicit``, else ``$FOLEY_TUI_STORE``, else ``file``."""
    chosen = explicit if explicit is not None else os.environ.get(STORE_ENV, "")
    return chosen.strip() or "file"


def open_service(
    store: str | None = None,
    data_dir: Path | str | None = None,
    *,
    user: str | None = None,
    timeout_s: float | None = None,
) -> SessionService:
    """A :class:`SessionService` over files or Redis, as ``store`` says (see module doc).
    ``timeout_s``: a shared store's deadline per operation, unless its URL sets one."""
    url = store_url(store)
    if url.lower() in FILE_STORE:
        return SessionService(data_dir) if data_dir else SessionService()
    scheme = url.split(":", 1)[0].lower()
    if scheme in ("redis", "rediss"):
        from foley_tui.store.redis.service import RedisSessionService

        return RedisSessionService(url, user=user, data_dir=data_dir, timeout_s=timeout_s)
    from foley_tui.store.redis.conn import redact

    raise SessionServiceError(
        f"unknown store {redact(url)!r}: use redis://host:port/db, rediss://... or file"
    )
