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
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.scene.words import Word, WordTimelineError, check_words, load_words

if TYPE_CHECKING:
    from foley_tui.store import SessionStore

NARRATION_FILE = "narration.json"
FORMAT = "foley-tui/narration"


class NarrationError(ValueError):
    """A narration that cannot be set or read (no such file, not audio, bad words)."""


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
        return {
            "format": FORMAT,
            "path": str(self.path),
            "sha256": self.sha256,
            "size": self.size,
            "words": self.words,
            "words_from": self.words_from,
        }

    @classmethod
    def from_record(cls, record: object) -> Narration:
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise NarrationError("not a foley-tui narration record")
        path, sha, size = record.get("path"), record.get("sha256"), record.get("size")
        if not isinstance(path, str) or not os.path.isabs(path):
            raise NarrationError("narration record: 'path' must be an absolute path")
        if not isinstance(sha, str) or len(sha) != 64:
            raise NarrationError("narration record: 'sha256' must be 64 hex digits")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise NarrationError("narration record: 'size' must be a byte count")
        words_from = record.get("words_from")
        try:
            words = check_words(record.get("words") or [], "narration record words")
        except WordTimelineError as exc:
            raise NarrationError(str(exc)) from None
        return cls(
            Path(path),
            sha,
            size,
            words,
            words_from if isinstance(words_from, str) else None,
        )

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

    Kept as a document of the session's own state (``.foley-tui/narration.json`` on the
    file store, a field of the session's state hash on Redis), so every store carries it.
    """
    try:
        data = store.state.read_doc(NARRATION_FILE)
    except NotImplementedError:  # a store that keeps no documents (in memory)
        return None
    except OSError as exc:
        raise NarrationError(f"cannot read {NARRATION_FILE}: {exc.strerror or exc}") from None
    if data is None:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise NarrationError(f"unreadable {NARRATION_FILE}: {exc}") from None
    return None if record is None else Narration.from_record(record)


def write_narration(store: SessionStore, narration: Narration | None) -> None:
    """Store (or with None, forget) the session's narration reference: atomically and
    durably, compare-and-swap against another process doing the same."""
    from foley_tui.store.codec import dumps

    new = b"null" if narration is None else dumps(narration.to_record())
    state = store.state
    try:
        with state.lock():
            old = state.read_doc(NARRATION_FILE)
            if old == new or (old is None and narration is None):
                return
            if not state.swap_doc(NARRATION_FILE, old, new):
                raise NarrationError("the narration changed meanwhile: try again")
    except NotImplementedError:
        raise NarrationError("this session's store keeps no narration") from None
