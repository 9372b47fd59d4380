"""Errors and problem reports of the session store.

Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StoreProblem:
    """An entry we could not use: unreadable, corrupt, foreign. Reported, never deleted.

    ``namespace`` is ``candidates``, ``picks``, ``rejects`` or ``foley-tui`` (our own files);
    ``key`` is the sound id when the file name decodes to one, else the raw file name.
    """

    namespace: str
    key: str
    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.key}: {self.reason} ({self.path})"


class StoreWriteError(OSError):
    """A durable write failed; the state on disk is what it was before the call."""


class StoreTimeoutError(StoreWriteError):
    """The store did not answer within its deadline. A write that timed out may still
    land (a paused server runs what it queued when the pause ends): its outcome is
    unknown, not refused; read the sound back once the store answers, never write it
    again blindly."""


class SessionServiceError(Exception):
    """Base of the session service errors (one-line, user-facing messages)."""


class SessionNotFoundError(SessionServiceError, KeyError):
    """No session with that id, id prefix or title."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "session not found"


class SessionExportError(SessionServiceError):
    """A session could not be exported (target exists, write failed...)."""


class SessionImportError(SessionServiceError):
    """An export document was refused (bad schema version, checksum, structure...)."""


class InvalidSessionIdError(SessionServiceError, ValueError):
    """A session id that could escape ``sessions/`` or collide with our own folders."""


class SessionDeletedError(StoreWriteError):
    """The session folder was deleted (another window, process or foley) while it was
    open: nothing is written, so the session is never resurrected by a late save."""


class UndoConflictError(StoreWriteError):
    """Undo or redo refused: the sound changed since the journal entry (another process or
    foley's agent wrote it). Nothing was written; ``force`` applies anyway, ``skip`` steps
    past the entry. ``entry`` is the journal entry, ``now`` what the files hold."""

    def __init__(self, message: str, entry: object = None, now: object = None) -> None:
        super().__init__(message)
        self.entry = entry
        self.now = now

    def __str__(self) -> str:
        return str(self.args[0])
