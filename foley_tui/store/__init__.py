"""The session store: foley's on-disk session layout, read and written safely.

``SessionService`` finds and manages sessions; ``SessionStore`` is one session with
foley's API plus durable decisions, a journal (undo/redo), metadata and a fast index.
Headless: never imports textual; the UI and the CLI use only the names exported here.
"""

from __future__ import annotations

from foley_tui.store.codec import decode_name, dumps, encode_key, validate_session_id
from foley_tui.store.edits import MarksEdit
from foley_tui.store.errors import (
    InvalidSessionIdError,
    SessionDeletedError,
    SessionExportError,
    SessionImportError,
    SessionNotFoundError,
    SessionServiceError,
    StoreProblem,
    StoreWriteError,
    UndoConflictError,
)
from foley_tui.store.factory import open_service, store_url
from foley_tui.store.records import SCHEMA_VERSION, JournalEntry, SessionMeta
from foley_tui.store.service import SessionInfo, SessionService
from foley_tui.store.session import SessionStore

__all__ = [
    "SCHEMA_VERSION",
    "InvalidSessionIdError",
    "JournalEntry",
    "MarksEdit",
    "SessionDeletedError",
    "SessionExportError",
    "SessionImportError",
    "SessionInfo",
    "SessionMeta",
    "SessionNotFoundError",
    "SessionService",
    "SessionServiceError",
    "SessionStore",
    "StoreProblem",
    "StoreWriteError",
    "UndoConflictError",
    "decode_name",
    "dumps",
    "encode_key",
    "open_service",
    "store_url",
    "validate_session_id",
]
