"""A session's narration (or dialogue) file: a reference, its sha256, a word timeline.

Kept in our own state, ``sessions/<id>/.foley-tui/narration.json`` (never inside foley's
folders, never a copy of the audio): the absolute path, its size and sha256, and the word
timeline in foley's aligner format when one was given (copied in: it is small and makes
the export and a shared store self-contained). A narration whose file moved or changed is
reported, never silently played.

Headless: never imports textual.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.scene.words import Word, WordTimelineError, check_words, load_words
from foley_tui.store.narration import (
    FORMAT,
    NARRATION_FILE,
    NarrationError,
    NarrationRecord,
    read_record,
    write_record,
)

if TYPE_CHECKING:
    from foley_tui.store import SessionStore


def sha256_of(path: Path) -> str:
    """The sha256 of a file, read in 1 MiB blocks (a long narration is never held whole)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Narration:
    """A narration reference.

    Attributes:
        path: The audio file (absolute).
        sha256: Its content hash when it was set.
        size: Its size in bytes when it was set.
        words: The word timeline (``[{"word","start","end"}]``), empty when none.
        words_from: The file the word timeline came from, if any.
    """

    path: Path
    sha256: str
    size: int
    words: list[Word] = field(default_factory=list)
    words_from: str | None = None

    def to_record(self) -> dict[str, Any]:
        return self.record().to_record()

    @classmethod
    def from_record(cls, record: object) -> Narration:
        """A stored record (its shape checked by the store) whose words make a timeline."""
        if isinstance(record, dict):  # the word check first: it names the entry at fault
            try:
                check_words(record.get("words") or [], "narration record words")
            except WordTimelineError as exc:
                raise NarrationError(str(exc)) from None
        return cls.of(NarrationRecord.from_record(record))

    @classmethod
    def of(cls, stored: NarrationRecord) -> Narration:
        try:
            words = check_words(stored.words, "narration record words")
        except WordTimelineError as exc:
            raise NarrationError(str(exc)) from None
        return cls(stored.path, stored.sha256, stored.size, words, stored.words_from)

    def record(self) -> NarrationRecord:
        """The reference as the store keeps it."""
        return NarrationRecord(self.path, self.sha256, self.size, self.words, self.words_from)

    def problem(self) -> str | None:
        """Why the referenced file cannot be used as set (missing, changed), else None.

        Cheap when nothing changed in size; a same-size file is hashed again.
        """
        try:
            size = self.path.stat().st_size
        except OSError:
            return f"narration file missing: {self.path}"
        if size != self.size:
            return f"narration file changed since it was set: {self.path}"
        try:
            digest = sha256_of(self.path)
        except OSError as exc:
            return f"cannot read the narration {self.path}: {exc.strerror or exc}"
        if digest != self.sha256:
            return f"narration file changed since it was set: {self.path}"
        return None


def make_narration(audio: Path, words: Path | None = None) -> Narration:
    """Check ``audio`` (a decodable audio file) and ``words`` and build the reference."""
    from foley_tui.audio.decode import DecodeError, probe

    path = audio.expanduser().resolve()
    if not path.is_file():
        raise NarrationError(f"no such file: {audio}")
    try:
        probe(path)
    except DecodeError as exc:
        raise NarrationError(f"not a playable narration: {exc}") from None
    timeline: list[Word] = []
    words_from = None
    if words is not None:
        try:
            timeline = load_words(words.expanduser())
        except WordTimelineError as exc:
            raise NarrationError(str(exc)) from None
        words_from = str(words.expanduser().resolve())
    return Narration(path, sha256_of(path), path.stat().st_size, timeline, words_from)


def read_narration(store: SessionStore) -> Narration | None:
    """The session's narration, or None. A damaged record raises :class:`NarrationError`.

    Kept by the store as a document of the session's own state (``.foley-tui/narration.json``
    on the file store, a field of the session's state hash on Redis), so every store
    carries it.
    """
    stored = read_record(store.state)
    return None if stored is None else Narration.of(stored)


def write_narration(store: SessionStore, narration: Narration | None) -> None:
    """Store (or with None, forget) the session's narration reference: atomically and
    durably, compare-and-swap against another process doing the same."""
    write_record(store.state, None if narration is None else narration.record())


__all__ = [
    "FORMAT",
    "NARRATION_FILE",
    "Narration",
    "NarrationError",
    "make_narration",
    "read_narration",
    "sha256_of",
    "write_narration",
]
