"""The session service's export and import: one JSON document per session, and back.

A mixin of :class:`~foley_tui.store.service.SessionService` (as
:class:`~foley_tui.store.ledger_service.LedgerServiceMixin` is): an export carries
everything of a session with a SHA-256 checksum; an import checks it strictly and, on
files, builds the session in a hidden staging folder renamed into place (a crash is
finished or rolled back on the next run: see :func:`foley_tui.store.recovery.recover`).

Headless: never imports textual.
"""

from __future__ import annotations

import builtins
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.safe_io import read_capped
from foley_tui.store.backend import JOURNAL_FILE, META_FILE, STATE_DIR
from foley_tui.store.codec import dumps, validate_session_id
from foley_tui.store.errors import SessionExportError, SessionImportError, SessionNotFoundError
from foley_tui.store.files import FileNamespace, atomic_write, fsync_dir
from foley_tui.store.records import iso, now_utc
from foley_tui.store.recovery import replaced_name, staging_name
from foley_tui.store.session import SessionStore
from foley_tui.store.trash import move_to_trash

if TYPE_CHECKING:
    import threading

    from foley_tui.store.messages import Message
    from foley_tui.store.usage import Usage

#: Largest export file we import (parsing takes about four times its size in memory).
MAX_IMPORT_BYTES = 512 << 20


class TransferServiceMixin:
    """Export and import of the sessions of a service (see SessionService)."""

    # What the mixin uses of SessionService, declared for mypy.
    _memory: dict[str, SessionStore] | None
    _stores: dict[str, SessionStore]
    _window: int | None
    _lock: threading.RLock
    recovered: builtins.list[str]

    if TYPE_CHECKING:  # SessionService and LedgerServiceMixin provide these

        @property
        def sessions_dir(self) -> Path:
            raise NotImplementedError

        def _path(self, session_id: str) -> Path:
            raise NotImplementedError

        def _exists(self, session_id: str) -> bool:
            raise NotImplementedError

        def _open(self, session_id: str) -> SessionStore:
            raise NotImplementedError

        def _admit(
            self, cache: dict[str, SessionStore], session_id: str, store: SessionStore
        ) -> None:
            raise NotImplementedError

        def messages(self, session_id: str) -> builtins.list[Message]:
            raise NotImplementedError

        def usage(self, session_id: str) -> Usage:
            raise NotImplementedError

    # ------------------------------------------------------------------ export
    def export_session(self, session_id: str) -> dict[str, Any]:
        """One JSON document with everything of the session and a SHA-256 checksum."""
        # Imported when used: export and import are not part of opening the app.
        from foley_tui.store.export_doc import (
            EXPORT_FORMAT,
            EXPORT_SCHEMA_VERSION,
            carry_raw,
            checksum_of,
            listed_keys,
            narration_record,
        )

        validate_session_id(session_id)
        if not self._exists(session_id):
            raise SessionNotFoundError(f"no session {session_id!r}")
        store = self._open(session_id)
        meta = store.meta()
        candidates: dict[str, Any] = {}
        # Names from the folder itself, never through the index (a cache we do not trust
        # with what a backup holds).
        for sid in listed_keys(store.candidates):
            value = store.candidate(sid)
            if value is not None:
                candidates[sid] = value
        picks = dict(store._read_all(store.picks_ns, "picks"))
        rejects = dict(store._read_all(store.rejects_ns, "rejects"))
        doc: dict[str, Any] = {
            "format": EXPORT_FORMAT,
            "schema_version": EXPORT_SCHEMA_VERSION,
            "exported_at": iso(now_utc()),
            "session_id": session_id,
            "meta": {
                "title": meta.title,
                "created": iso(meta.created),
                "updated": iso(meta.updated),
                "cursor": meta.cursor,
                "view": meta.view,
                "origin": meta.origin,
            },
            "candidates": candidates,
            "picks": picks,
            "rejects": rejects,
            "journal": [entry.to_record() for entry in store.journal()],
            "problems": [
                {"namespace": p.namespace, "key": p.key, "reason": p.reason}
                for p in store.problems()
            ],
        }
        doc["messages"] = [m.to_record() for m in self.messages(session_id)]
        doc["usage"] = self.usage(session_id).to_record()
        narration = narration_record(store)
        if narration is not None:
            doc["narration"] = narration
        try:
            doc["checksum"] = checksum_of(doc)
        except (ValueError, RecursionError):
            # A file foley wrote with a NaN onset (or text our canonical form cannot
            # encode) travels as its exact bytes and is restored verbatim.
            carry_raw(doc, store)
            try:
                doc["checksum"] = checksum_of(doc)
            except (ValueError, RecursionError) as exc:
                raise SessionExportError(
                    f"session {session_id!r} holds a value JSON cannot carry: {exc}"
                ) from exc
        return doc

    def export_to_file(self, session_id: str, path: Path | str, *, overwrite: bool = False) -> Path:
        target = Path(path).expanduser()
        if target.exists() and not overwrite:
            raise SessionExportError(f"{target} exists (use overwrite to replace it)")
        doc = self.export_session(session_id)
        # ASCII escapes: valid JSON whatever text the session holds (even lone surrogates).
        data = json.dumps(doc, indent=1, ensure_ascii=True, allow_nan=False).encode("utf-8")
        try:
            atomic_write(str(target.resolve()), data, durable=True)
        except OSError as exc:
            raise SessionExportError(f"could not write {target}: {exc.strerror or exc}") from exc
        return target

    # ------------------------------------------------------------------ import
    def import_from_file(self, path: Path | str, *, overwrite: bool = False) -> str:
        # Imported when used: export and import are not part of opening the app.
        from foley_tui.store.export_doc import parse_export

        source = Path(path).expanduser()
        try:
            raw = read_capped(source, MAX_IMPORT_BYTES, follow=True)
        except OSError as exc:
            raise SessionImportError(f"cannot read {source}: {exc.strerror or exc}") from None
        return self.import_session(parse_export(raw, str(source)), overwrite=overwrite)

    def import_session(self, doc: dict[str, Any], *, overwrite: bool = False) -> str:
        """Import an export document; refuses a bad schema version, checksum or shape."""
        # Imported when used: export and import are not part of opening the app.
        from foley_tui.store.export_doc import (
            fixed_record,
            ledger_files,
            narration_files,
            validate_export,
            validate_narration,
        )
        from foley_tui.store.messages import conversation_of
        from foley_tui.store.usage import ledger_of

        session_id, parts = validate_export(doc)
        narration = validate_narration(doc)
        if self._exists(session_id) and not overwrite:
            raise SessionImportError(
                f"session {session_id!r} already exists (import with overwrite to replace it)"
            )
        meta, candidates, picks, rejects, journal, messages, usage, raw = parts
        # Records carried as raw bytes join their namespace as bytes, written verbatim.
        for name, values in (("candidates", candidates), ("picks", picks), ("rejects", rejects)):
            values.update(raw.get(name, {}))
        if self._memory is not None:
            store = SessionStore.in_memory(session_id)
            for ns, values in (
                (store.candidates, candidates),
                (store.picks_ns, picks),
                (store.rejects_ns, rejects),
            ):
                for key, value in values.items():
                    if isinstance(value, bytes):
                        ns.put_raw(key, value)  # type: ignore[attr-defined]
                    else:
                        ns[key] = value
            offset = 0
            for record in journal:
                offset = store.state.journal_append(offset, fixed_record(record)).end
            store._meta_dict().update(meta)
            store._write_meta()
            conversation_of(store, window=self._window).load(messages)
            ledger_of(store).replace(usage)
            with self._lock:
                self._memory.pop(session_id, None)
                self._admit(self._memory, session_id, store)
                self._stores.pop(session_id, None)
            return session_id
        try:
            self._import_files(
                session_id,
                meta,
                candidates,
                picks,
                rejects,
                journal,
                overwrite,
                state_files={**ledger_files(messages, usage), **narration_files(narration)},
            )
        except OSError as exc:
            raise SessionImportError(
                f"could not import {session_id!r}: {exc.strerror or exc}"
            ) from exc
        self._stores.pop(session_id, None)
        return session_id

    def _import_files(
        self,
        session_id: str,
        meta: dict[str, Any],
        candidates: dict[str, Any],
        picks: dict[str, Any],
        rejects: dict[str, Any],
        journal: builtins.list[dict[str, Any]],
        overwrite: bool,
        state_files: dict[str, bytes] | None = None,
    ) -> None:
        """Write an imported session; ``state_files`` are more of our state files by name
        (``*.jsonl`` logs and documents: the conversation, the usage counters...). A record
        given as ``bytes`` (a file foley wrote with a NaN...) is written verbatim."""
        # Build the whole session in a hidden staging folder, then rename it into place:
        # a failed import leaves nothing half-made, and foley never sees the staging folder.
        self.sessions_dir.mkdir(parents=True, exist_ok=True)
        staging = self.sessions_dir / staging_name()
        staging.mkdir()
        replaced: Path | None = None
        target = self._path(session_id)
        try:
            for name, values in (
                ("candidates", candidates),
                ("picks", picks),
                ("rejects", rejects),
            ):
                folder = staging / name
                folder.mkdir()
                ns = FileNamespace(folder, name, durable=False)
                with ns.batch():
                    for key, value in values.items():
                        if isinstance(value, bytes):
                            ns.write_bytes(key, value)
                        else:
                            ns[key] = value
            state = staging / STATE_DIR
            state.mkdir()
            atomic_write(str(state / META_FILE), dumps(meta), durable=True)
            lines = b"".join(
                json.dumps(r, separators=(",", ":"), allow_nan=False).encode() + b"\n"
                for r in journal
            )
            atomic_write(str(state / JOURNAL_FILE), lines, durable=True)
            for name, data in (state_files or {}).items():
                atomic_write(str(state / name), data, durable=True)
            # Two renames; a crash between them is rolled back on the next run (the
            # parked folder's name says which session it is), a crash after them is
            # finished (the parked folder goes to the trash): see recovery.recover.
            target.parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(target):
                replaced = self.sessions_dir / replaced_name(session_id)
                os.replace(target, replaced)
            os.replace(staging, target)
            fsync_dir(str(self.sessions_dir))
        except BaseException:
            if replaced is not None and not os.path.lexists(target):
                os.replace(replaced, target)  # roll back: the old session stays
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if replaced is not None:
            try:
                move_to_trash(replaced, original=target)
            except OSError as exc:
                self.recovered = [
                    *self.recovered,
                    f"the replaced session is kept in {replaced} "
                    f"(the trash refused it: {exc.strerror or exc})",
                ]


__all__ = ["MAX_IMPORT_BYTES", "TransferServiceMixin"]
