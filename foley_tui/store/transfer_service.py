"""The session service's export and import: one JSON document per session, and back.

The transfer part of :class:`~foley_tui.store.service.SessionService`: an export carries
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from foley_tui.safe_io import read_capped
from foley_tui.store.backend import JOURNAL_FILE, META_FILE, STATE_DIR
from foley_tui.store.codec import dumps, validate_session_id
from foley_tui.store.errors import SessionExportError, SessionImportError, SessionNotFoundError
from foley_tui.store.files import FileNamespace, atomic_write, fsync_dir
from foley_tui.store.records import MARKS_NS, iso, new_ulid, now_utc
from foley_tui.store.recovery import replaced_name, staging_name
from foley_tui.store.session import SessionStore
from foley_tui.store.session_dirs import nested_session_dirs
from foley_tui.store.trash import move_to_trash

if TYPE_CHECKING:
    from foley_tui.store.messages import Message
    from foley_tui.store.usage import Usage

#: Largest export file we import (parsing takes about four times its size in memory).
MAX_IMPORT_BYTES = 512 << 20


@dataclass(frozen=True, slots=True)
class ImportedSession:
    """A checked export, ready to be written as a session. A record given as ``bytes``
    (a file foley wrote with a NaN...) is written verbatim; ``state_files`` are more of
    our state files by name (``*.jsonl`` logs and documents: the conversation, the usage
    counters, the narration)."""

    session_id: str
    meta: dict[str, Any]
    candidates: dict[str, Any]
    picks: dict[str, Any]
    rejects: dict[str, Any]
    journal: builtins.list[dict[str, Any]]
    overwrite: bool = False
    state_files: dict[str, bytes] = field(default_factory=dict)
    marks: dict[str, Any] = field(default_factory=dict)
    """Our marks records (rating, hidden, region) by sound id."""


class TransferHost(Protocol):
    """What the transfer part uses of its service."""

    @property
    def in_memory_store(self) -> bool: ...

    @property
    def window(self) -> int | None: ...

    def exists(self, session_id: str) -> bool: ...

    def open(self, session_id: str) -> SessionStore: ...

    def adopt(self, session_id: str, store: SessionStore) -> None: ...

    def forget(self, session_id: str) -> None: ...

    def write_import(self, imported: ImportedSession) -> None: ...

    def messages(self, session_id: str) -> builtins.list[Message]: ...

    def usage(self, session_id: str) -> Usage: ...


class Transfers:
    """Export and import of the sessions of a service (its transfer part)."""

    def __init__(self, host: TransferHost, *, max_import_bytes: int = MAX_IMPORT_BYTES) -> None:
        self.host = host
        #: The largest export file :meth:`import_from_file` reads.
        self.max_import_bytes = max_import_bytes

    # ------------------------------------------------------------------ export
    def export_session(self, session_id: str) -> dict[str, Any]:
        """One JSON document with everything of the session and a SHA-256 checksum."""
        validate_session_id(session_id)
        if not self.host.exists(session_id):
            raise SessionNotFoundError(f"no session {session_id!r}")
        store = self.host.open(session_id)
        with store.bulk_reads():
            return self._export(session_id, store)

    def _export(self, session_id: str, store: SessionStore) -> dict[str, Any]:
        from foley_tui.store.export_doc import (
            EXPORT_FORMAT,
            EXPORT_SCHEMA_VERSION,
            carry_raw,
            checksum_of,
            listed_keys,
            narration_record,
        )

        meta = store.meta()
        candidates: dict[str, Any] = {}
        # Names from the folder itself, never through the index (a cache we do not trust
        # with what a backup holds).
        for sid in listed_keys(store):
            value = store.candidate(sid)
            if value is not None:
                candidates[sid] = value
        picks = dict(store.read_all("picks"))
        rejects = dict(store.read_all("rejects"))
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
        doc["messages"] = [m.to_record() for m in self.host.messages(session_id)]
        doc["usage"] = self.host.usage(session_id).to_record()
        marks = store.marks_records()
        if marks:
            doc["marks"] = marks
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
    def import_from_file(
        self, path: Path | str, *, overwrite: bool = False, as_copy: bool = False
    ) -> str:
        # Imported when used: export and import are not part of opening the app.
        from foley_tui.store.export_doc import parse_export

        source = Path(path).expanduser()
        try:
            raw = read_capped(source, self.max_import_bytes, follow=True)
        except OSError as exc:
            raise SessionImportError(f"cannot read {source}: {exc.strerror or exc}") from None
        return self.import_session(
            parse_export(raw, str(source)), overwrite=overwrite, as_copy=as_copy
        )

    def import_session(
        self, doc: dict[str, Any], *, overwrite: bool = False, as_copy: bool = False
    ) -> str:
        """Import an export document; refuses a bad schema version, checksum or shape.

        ``as_copy``: under a new id (a ULID) and the title marked "(copy)", beside the
        session it came from, which is left as it is."""
        # Imported when used: export and import are not part of opening the app.
        from foley_tui.store.export_doc import (
            ledger_files,
            narration_files,
            validate_export,
            validate_marks,
            validate_narration,
        )

        session_id, parts = validate_export(doc)
        narration = validate_narration(doc)
        marks = validate_marks(doc)
        meta, candidates, picks, rejects, journal, messages, usage, raw = parts
        if as_copy:
            session_id, overwrite = new_ulid(), False
            title = meta.get("title")
            meta = {**meta, "title": f"{title} (copy)" if title else "(copy)"}
        if self.host.exists(session_id) and not overwrite:
            raise SessionImportError(
                f"session {session_id!r} already exists (import with overwrite to replace "
                "it, or as a copy beside it)"
            )
        # Records carried as raw bytes join their namespace as bytes, written verbatim.
        for name, values in (("candidates", candidates), ("picks", picks), ("rejects", rejects)):
            values.update(raw.get(name, {}))
        if self.host.in_memory_store:
            self._import_memory(
                session_id, meta, (candidates, picks, rejects), journal, messages, usage, marks
            )
            return session_id
        try:
            self.host.write_import(
                ImportedSession(
                    session_id,
                    meta,
                    candidates,
                    picks,
                    rejects,
                    journal,
                    overwrite,
                    state_files={**ledger_files(messages, usage), **narration_files(narration)},
                    marks=marks,
                )
            )
        except OSError as exc:
            raise SessionImportError(
                f"could not import {session_id!r}: {exc.strerror or exc}"
            ) from exc
        self.host.forget(session_id)
        return session_id

    def _import_memory(
        self,
        session_id: str,
        meta: dict[str, Any],
        values: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
        journal: builtins.list[dict[str, Any]],
        messages: builtins.list[dict[str, Any]],
        usage: Any,
        marks: dict[str, Any],
    ) -> None:
        from foley_tui.store.memory import MemoryBackend
        from foley_tui.store.messages import conversation_of
        from foley_tui.store.usage import ledger_of

        backend = MemoryBackend()
        store = SessionStore(session_id, backend=backend)
        for name, items in zip(("candidates", "picks", "rejects"), values, strict=True):
            for key, value in items.items():
                if isinstance(value, bytes):
                    backend.put_raw(name, key, value)
                else:
                    backend.put(name, key, value)
        for key, value in marks.items():
            backend.put(MARKS_NS, key, value)
        offset = 0
        for record in journal:
            offset = store.state.journal_write(record, offset)
        store.meta_doc.update(**meta)
        store.meta_doc.write()
        conversation_of(store, window=self.host.window).load(messages)
        ledger_of(store).replace(usage)
        self.host.adopt(session_id, store)


def write_files(sessions_dir: Path, target: Path, imported: ImportedSession) -> builtins.list[str]:
    """Write an imported session in a hidden staging folder of ``sessions_dir``, renamed
    into place at ``target``; the lines to report of what was left behind."""
    # Build the whole session in a hidden staging folder, then rename it into place:
    # a failed import leaves nothing half-made, and foley never sees the staging folder.
    sessions_dir.mkdir(parents=True, exist_ok=True)
    staging = sessions_dir / staging_name()
    staging.mkdir()
    replaced: Path | None = None
    try:
        for name, values in (
            ("candidates", imported.candidates),
            ("picks", imported.picks),
            ("rejects", imported.rejects),
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
        if imported.marks:  # ours, in our state folder (never foley's)
            marks = FileNamespace(state / MARKS_NS, MARKS_NS, durable=False)
            with marks.batch():
                for key, value in imported.marks.items():
                    marks[key] = value
        atomic_write(str(state / META_FILE), dumps(imported.meta), durable=True)
        lines = b"".join(
            json.dumps(r, separators=(",", ":"), allow_nan=False).encode() + b"\n"
            for r in imported.journal
        )
        atomic_write(str(state / JOURNAL_FILE), lines, durable=True)
        for name, data in imported.state_files.items():
            atomic_write(str(state / name), data, durable=True)
        # Two renames; a crash between them is rolled back on the next run (the
        # parked folder's name says which session it is), a crash after them is
        # finished (the parked folder goes to the trash): see recovery.recover.
        target.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(target):
            replaced = sessions_dir / replaced_name(imported.session_id)
            os.replace(target, replaced)
        os.replace(staging, target)
        fsync_dir(str(sessions_dir))
    except BaseException:
        if replaced is not None and not os.path.lexists(target):
            os.replace(replaced, target)  # roll back: the old session stays
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if replaced is not None:
        # Sessions nested under the replaced one (proj/scene1 of proj) are not part of
        # it: they move into the new session's folder before the old one goes.
        for name in nested_session_dirs(replaced):
            try:
                os.rename(replaced / name, target / name)
            except OSError as exc:
                return [
                    f"the replaced session is kept in {replaced}: a session nested in it "
                    f"({name}) could not be moved back ({exc.strerror or exc})"
                ]
        try:
            move_to_trash(replaced, original=target)
        except OSError as exc:
            return [
                f"the replaced session is kept in {replaced} "
                f"(the trash refused it: {exc.strerror or exc})"
            ]
    return []


__all__ = ["MAX_IMPORT_BYTES", "ImportedSession", "TransferHost", "Transfers", "write_files"]
