"""Metadata of a session store: title, cursor, view, opened/updated times.

Kept in ``.foley-tui/meta.json``; cursor/view writes are coalesced (see
``META_COALESCE_S``) and made durable by :meth:`MetaMixin.flush`.
Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
import time
from datetime import datetime
from typing import Any

from foley_tui.domain import ValidationError
from foley_tui.limits import sanitize_view
from foley_tui.store.errors import StoreWriteError
from foley_tui.store.file_state import FileState
from foley_tui.store.reads import StoreReads
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


class MetaMixin(StoreReads):
    """Title, cursor, view and times of a session (our metadata, never foley's files)."""

    def _fs_created(self) -> datetime:
        if self.session_path is not None:
            try:
                st = os.stat(self.session_path)
                return fs_time(min(st.st_mtime_ns, st.st_ctime_ns))
            except OSError:
                pass
        return now_utc()

    def _meta_dict(self) -> dict[str, Any]:
        with self._lock:
            return self._load_meta()

    def _load_meta(self) -> dict[str, Any]:
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

    def last_write(self) -> datetime | None:
        """When candidates, picks, rejects or the journal last changed (file times)."""
        latest = 0
        paths = [
            getattr(ns, "path", None) for ns in (self.candidates, self.picks_ns, self.rejects_ns)
        ]
        if isinstance(self.state, FileState):
            paths.append(os.path.join(self.state.path, "journal.jsonl"))
        for path in paths:
            if path:
                with contextlib.suppress(OSError):
                    latest = max(latest, os.stat(path).st_mtime_ns)
        if not latest and self._journal:
            return self._journal[-1].at
        return fs_time(latest) if latest else None

    def meta(self) -> SessionMeta:
        meta = self._meta_dict()
        created = parse_iso(meta["created"]) or now_utc()
        updated = parse_iso(meta["updated"]) or created
        # File times cover the journal too: listing sessions never reads whole journals.
        last = self.last_write()
        if last and last > updated:
            updated = last
        if self._journal and self._journal[-1].at > updated:
            updated = self._journal[-1].at
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

    def _write_meta(self, *, durable: bool = True) -> None:
        # One writer at a time, each writing a snapshot taken under the cache lock: the
        # file never goes back to an older snapshot and no write holds the cache lock.
        with self._meta_write_lock:
            with self._lock:
                meta = self._load_meta()
                snapshot = {**meta, "view": dict(meta["view"])}
                self._meta_dirty = False
            try:
                self.state.write_meta(snapshot, durable=durable)
            except OSError as exc:
                with self._lock:
                    self._meta_dirty = True
                if isinstance(exc, StoreWriteError):
                    raise
                raise _write_error(exc, "could not save the session metadata") from exc
            self._meta_written = time.monotonic()

    def set_title(self, title: str | None) -> None:
        if title is not None and not isinstance(title, str):
            raise ValidationError(f"title must be text (got {title!r})")
        with self._lock:
            meta = self._load_meta()
            meta["title"] = (title or "").strip() or None
            meta["updated"] = iso(now_utc())
        self._write_meta()

    def set_cursor(self, sound_id: str | None) -> None:
        """Remember the cursor; written at most once a second (and by :meth:`flush`)."""
        with self._lock:
            meta = self._load_meta()
            if meta["cursor"] == sound_id:
                return
            meta["cursor"] = sound_id
        self._touch_coalesced()

    def set_view(self, view: dict[str, Any]) -> None:
        if not isinstance(view, dict):
            raise ValidationError(f"view must be a dict (got {type(view).__name__})")
        from foley_tui.store.codec import dumps

        view = sanitize_view(view)
        dumps(view)  # refuse what cannot be stored before keeping it
        with self._lock:
            meta = self._load_meta()
            meta["view"] = dict(view)
        self._touch_coalesced()

    def mark_opened(self) -> None:
        with self._lock:
            meta = self._load_meta()
            meta["opened"] = iso(now_utc())
            self._meta_dirty = True
        self._write_meta(durable=False)

    def _touch_coalesced(self) -> None:
        with self._lock:
            self._meta_dirty = True
        if time.monotonic() - self._meta_written >= META_COALESCE_S:
            self._write_meta(durable=False)
            with self._lock:
                self._meta_dirty = True  # still owe a durable write at flush()

    def flush(self) -> None:
        """Write pending cursor/view changes durably (call when the app quits)."""
        if self._meta_dirty:
            self._write_meta(durable=True)

    def close(self) -> None:
        self.flush()
