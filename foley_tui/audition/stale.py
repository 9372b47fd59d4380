"""What a dialog was opened on, so its confirm never applies to an agent's newer state.

A dialog (the onset dialog, the question before a nudge replaces an anchor, picking that
drops a scene event's other picks) stays open while foley's agent may write the same
session. :class:`OpenedOn` keeps the raw pick records its confirm would write over, read
when it opens; on confirm :meth:`OpenedOn.changed` reads them again and says what the
agent changed meanwhile (then nothing is written: the user decides again on what is
there now).

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: A pick record as read (None: not picked; the string ``"unreadable"``: a torn file).
Record = Mapping[str, Any] | str | None

_UNREADABLE = "unreadable"


def _read(picks: Mapping[str, Any], sound_id: str) -> Record:
    try:
        record = picks.get(sound_id)
    except (OSError, ValueError):
        return _UNREADABLE
    if record is None or isinstance(record, Mapping):
        return record
    return _UNREADABLE


def _describe(before: Record, after: Record) -> str:
    if before is None:
        return "was picked"
    if after is None:
        return "was dropped"
    if _UNREADABLE in (before, after):
        return "was rewritten"
    assert isinstance(before, Mapping) and isinstance(after, Mapping)
    parts = []
    for key in ("onset", "layer"):
        if before.get(key) != after.get(key):
            parts.append(f"its {key} changed from {before.get(key)!r} to {after.get(key)!r}")
    return "; ".join(parts) if parts else "was rewritten"


@dataclass(frozen=True, slots=True)
class OpenedOn:
    """The raw pick records of ``sound_ids`` when a dialog opened.

    Attributes:
        records: Each sound's pick record then (None: not picked).
    """

    records: Mapping[str, Record]

    @classmethod
    def read(cls, picks: Mapping[str, Any], sound_ids: Iterable[str]) -> OpenedOn:
        """Read the records now (``picks``: the store's picks namespace)."""
        return cls({sid: _read(picks, sid) for sid in sound_ids})

    def changed(self, picks: Mapping[str, Any], caption: Callable[[str], str] = str) -> str | None:
        """What changed since the dialog opened (one line), or None when nothing did."""
        found = []
        for sid, before in self.records.items():
            after = _read(picks, sid)
            if after != before:
                found.append(f"{caption(sid)} {_describe(before, after)}")
        if not found:
            return None
        return (
            "Not saved: the session changed while the dialog was open ("
            + "; ".join(found)
            + "). Look again and decide on what is there now."
        )


class ChangedUnderDialog(ValueError):
    """A dialog's confirm refused: the session changed while it was open (or what it
    opened on could not be read). Nothing was written; the message says what changed."""


@dataclass(slots=True)
class Baseline:
    """What a dialog's confirm is checked against, filled in by a worker: the records read
    as the dialog opened (:attr:`opened`), or why they could not be (:attr:`failed`).
    The captions are taken on the UI thread when the dialog opens, so the check a worker
    runs on confirm reads nothing of the screen.

    Attributes:
        captions: The caption of each sound, for the message.
        opened: The records when the dialog opened (None: not read yet or not readable).
        failed: Why they could not be read (the store's error), if so.
    """

    captions: dict[str, str]
    opened: OpenedOn | None = None
    failed: BaseException | None = None

    def read(self, picks: Mapping[str, Any], sound_ids: Iterable[str]) -> None:
        """(Worker.) Read the records now. Run by the same worker as the confirm's
        check, before it: the check always finds what this read."""
        try:
            self.opened = OpenedOn.read(picks, sound_ids)
        except Exception as exc:  # the store's error: the confirm says it
            self.failed = exc

    def changed(self, picks: Mapping[str, Any]) -> str | None:
        """(Worker.) Why the confirm must not write (the session changed under the
        dialog, or what it opened on could not be read), or None."""
        if self.opened is None:
            why = self.failed if self.failed is not None else "not read"
            return f"Not saved: the session could not be read when the dialog opened ({why})."
        return self.opened.changed(picks, lambda sid: self.captions.get(sid, sid))

    def check(self, picks: Mapping[str, Any]) -> None:
        """(Worker.) Raise :class:`ChangedUnderDialog` when :meth:`changed` says why."""
        why = self.changed(picks)
        if why is not None:
            raise ChangedUnderDialog(why.removeprefix("Not saved: "))
