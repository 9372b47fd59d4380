"""The narration record of a session: which narration (or dialogue) file the session
follows, kept in our own state (``.foley-tui/narration.json`` on files, a document of
the session's state on Redis), never inside foley's folders and never a copy of the
audio: the absolute path, its size and sha256, and the word timeline (foley's aligner
format) when one was given, copied in.

The store keeps the record and checks its shape; what the words mean (their order,
their times) is the scene's business (:mod:`foley_tui.scene.narration`).

Headless: never imports textual.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foley_tui.store.backend import StateBackend
from foley_tui.store.codec import dumps

NARRATION_FILE = "narration.json"
FORMAT = "foley-tui/narration"


class NarrationError(ValueError):
    """A narration that cannot be set or read (no such file, not audio, bad words)."""


@dataclass(frozen=True, slots=True)
class NarrationRecord:
    """The stored reference: the file, its hash and size when set, its word timeline."""

    path: Path
    sha256: str
    size: int
    words: list[dict[str, Any]] = field(default_factory=list)
    words_from: str | None = None

    def to_record(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "path": str(self.path),
            "sha256": self.sha256,
            "size": self.size,
            "words": self.words,
            "words_from": self.words_from,
        }

    @classmethod
    def from_record(cls, record: object) -> NarrationRecord:
        """The record's shape checked (the words' meaning is the scene's to check)."""
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise NarrationError("not a foley-tui narration record")
        path, sha, size = record.get("path"), record.get("sha256"), record.get("size")
        if not isinstance(path, str) or not os.path.isabs(path):
            raise NarrationError("narration record: 'path' must be an absolute path")
        if not isinstance(sha, str) or len(sha) != 64:
            raise NarrationError("narration record: 'sha256' must be 64 hex digits")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise NarrationError("narration record: 'size' must be a byte count")
        words = record.get("words") or []
        if not isinstance(words, list) or not all(isinstance(w, dict) for w in words):
            raise NarrationError("narration record words: expected a JSON list of words")
        words_from = record.get("words_from")
        return cls(
            Path(path), sha, size, list(words), words_from if isinstance(words_from, str) else None
        )


def read_record(state: StateBackend) -> NarrationRecord | None:
    """The session's narration record, or None. A damaged one raises
    :class:`NarrationError`."""
    if not state.keeps_documents:
        return None
    try:
        data = state.read_doc(NARRATION_FILE)
    except OSError as exc:
        raise NarrationError(f"cannot read {NARRATION_FILE}: {exc.strerror or exc}") from None
    if data is None:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise NarrationError(f"unreadable {NARRATION_FILE}: {exc}") from None
    return None if record is None else NarrationRecord.from_record(record)


def write_record(state: StateBackend, record: NarrationRecord | None) -> None:
    """Store (or with None, forget) the session's narration record: atomically and
    durably, compare-and-swap against another process doing the same."""
    if not state.keeps_documents:
        raise NarrationError("this session's store keeps no narration")
    new = b"null" if record is None else dumps(record.to_record())
    with state.lock():
        old = state.read_doc(NARRATION_FILE)
        if old == new or (old is None and record is None):
            return
        if not state.swap_doc(NARRATION_FILE, old, new):
            raise NarrationError("the narration changed meanwhile: try again")


def record_files(record: NarrationRecord | None) -> dict[str, bytes]:
    """The state file holding an imported narration record (none without one)."""
    return {} if record is None else {NARRATION_FILE: dumps(record.to_record())}


__all__ = [
    "FORMAT",
    "NARRATION_FILE",
    "NarrationError",
    "NarrationRecord",
    "read_record",
    "record_files",
    "write_record",
]
