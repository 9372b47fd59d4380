"""The metadata document of a session store: title, cursor, view, opened/updated times.

:class:`MetaDocument` is a part of :class:`~foley_tui.store.session.SessionStore` with its
own state: the document as read, whether a write is owed and when it last wrote.
Kept in ``.foley-tui/meta.json`` (per user on Redis); cursor/view writes are coalesced
(see ``META_COALESCE_S``) and made durable by :meth:`MetaDocument.flush`.
Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from foley_tui.domain import ValidationError
from foley_tui.limits import sanitize_view
from foley_tui.store.backend import StateBackend
from foley_tui.store.codec import dumps
from foley_tui.store.errors import StoreWriteError
from foley_tui.store.records import (
    SCHEMA_VERSION,
    SessionMeta,
    _write_error,
    fs_time,
    iso,
    now_utc,
    parse_iso,
)

#: Cursor/view writes are coalesced to at most one per this many seconds (flush() forces).
META_COALESCE_S = 1.0


class MetaDocument:
    """Title, cursor, view and times of a session (our metadata, never foley's files).

    Thread-safe: the document is read and changed under the part's lock; one writer at
    a time writes a snapshot taken under it, so the stored document never goes back to
    an older snapshot and no write holds the lock.
    """

    def __init__(self, state: StateBackend, session_path: str | os.PathLike[str] | None) -> None:
        self.state = state
        self.session_path = session_path
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._meta: dict[str, Any] | None = None
        self._dirty = False
        self._written = 0.0
        self.write_behind = False
        """Coalesced cursor/view writes are made by a background thread (the app sets
        this: a store that stalls must not hold its UI thread); :meth:`flush` still
        writes on the caller's thread."""
        self._behind: threading.Thread | None = None

    def _fs_created(self) -> datetime:
        if self.session_path is not None:
            try:
                st = os.stat(self.session_path)
                return fs_time(min(st.st_mtime_ns, st.st_ctime_ns))
            except OSError:
                pass
        return now_utc()

    def document(self) -> dict[str, Any]:
        """The document itself (change it only through :meth:`update`)."""
        with self._lock:
            return self._load()

    def update(self, **fields: Any) -> None:
        """Change fields of the document in memory (:meth:`write` stores it)."""
        with self._lock:
            self._load().update(fields)

    def _load(self) -> dict[str, Any]:
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
                "view": sanitize_view(view),  # clamped where it enters (hearing safety)
                "origin": stored.get("origin")
                if stored.get("origin") in ("foley", "foley-tui")
                else "foley",
            }
            if not stored:
                self._meta["origin"] = "foley"
        return self._meta

    def meta(self, last_write: Callable[[], datetime | None]) -> SessionMeta:
        """The document as :class:`SessionMeta`; ``updated`` is the later of its own and
        ``last_write()`` (listing sessions never reads whole journals)."""
        meta = self.document()
        created = parse_iso(meta["created"]) or now_utc()
        updated = parse_iso(meta["updated"]) or created
        last = last_write()
        if last and last > updated:
            updated = last
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

    def write(self, *, durable: bool = True) -> None:
        """Store the document now."""
        with self._write_lock:
            with self._lock:
                meta = self._load()
                snapshot = {**meta, "view": dict(meta["view"])}
                self._dirty = False
            try:
                self.state.write_meta(snapshot, durable=durable)
            except OSError as exc:
                with self._lock:
                    self._dirty = True
                if isinstance(exc, StoreWriteError):
                    raise
                raise _write_error(exc, "could not save the session metadata") from exc
            self._written = time.monotonic()

    def set_title(self, title: str | None) -> None:
        if title is not None and not isinstance(title, str):
            raise ValidationError(f"title must be text (got {title!r})")
        with self._lock:
            meta = self._load()
            meta["title"] = (title or "").strip() or None
            meta["updated"] = iso(now_utc())
        self.write()

    def set_cursor(self, sound_id: str | None) -> None:
        """Remember the cursor; written at most once a second (and by :meth:`flush`)."""
        with self._lock:
            meta = self._load()
            if meta["cursor"] == sound_id:
                return
            meta["cursor"] = sound_id
        self._touch_coalesced()

    def set_view(self, view: dict[str, Any]) -> None:
        if not isinstance(view, dict):
            raise ValidationError(f"view must be a dict (got {type(view).__name__})")
        view = sanitize_view(view)
        dumps(view)  # refuse what cannot be stored before keeping it
        with self._lock:
            meta = self._load()
            meta["view"] = dict(view)
        self._touch_coalesced()

    def mark_opened(self) -> None:
        with self._lock:
            meta = self._load()
            meta["opened"] = iso(now_utc())
            self._dirty = True
        self.write(durable=False)

    def _touch_coalesced(self) -> None:
        with self._lock:
            self._dirty = True
        if time.monotonic() - self._written < META_COALESCE_S:
            return
        if self.write_behind:
            self._write_later()
            return
        self.write(durable=False)
        with self._lock:
            self._dirty = True  # still owe a durable write at flush()

    def _write_later(self) -> None:
        with self._lock:
            if self._behind is not None and self._behind.is_alive():
                return  # one at a time; flush() or a later change writes the rest
            self._written = time.monotonic()  # no new thread per move while one is due
            self._behind = threading.Thread(
                target=self._write_behind, name="meta write-behind", daemon=True
            )
            behind = self._behind
        behind.start()

    def _write_behind(self) -> None:
        # Failed: kept dirty, and flush() at quit writes it or says why not.
        with contextlib.suppress(OSError):
            self.write(durable=False)
        with self._lock:
            self._dirty = True  # still owe a durable write at flush()

    def flush(self) -> None:
        """Write pending cursor/view changes durably (call when the app quits)."""
        if self._dirty:
            self.write(durable=True)


__all__ = ["META_COALESCE_S", "MetaDocument"]
