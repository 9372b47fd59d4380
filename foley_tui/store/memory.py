"""Sessions held by this process: any three mappings (:class:`MappingBackend`, as foley's
own tests inject dicts) or memory (:class:`MemoryBackend`: foley's bytes, a write counter
per namespace). Both implement :class:`~foley_tui.store.backend.SessionBackend`.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable, Iterable, MutableMapping
from datetime import datetime
from typing import Any

from foley_tui.domain import ValidationError
from foley_tui.store.backend import (
    NAMESPACE_NAMES,
    DecisionReads,
    Feed,
    FolderState,
    MemoryNamespace,
    MemoryState,
    RowsReader,
    StateBackend,
    choose_namespace,
)
from foley_tui.store.byte_store import ByteStore
from foley_tui.store.codec import dumps
from foley_tui.store.reads import Problems, read_value
from foley_tui.store.records import MARKS_NS, RawRecord, store_candidate
from foley_tui.store.rows import MappingRows


class MappingBackend:
    """Any three ``MutableMapping[str, dict]`` plus a :class:`StateBackend` (a dict in
    tests, as foley's own tests inject them)."""

    label = "store"

    def __init__(
        self,
        candidates: MutableMapping[str, dict[str, Any]],
        picks: MutableMapping[str, dict[str, Any]],
        rejects: MutableMapping[str, dict[str, Any]],
        state: StateBackend,
    ) -> None:
        self.candidates = candidates
        self.picks = picks
        self.rejects = rejects
        self.state = state
        self.marks: MutableMapping[str, dict[str, Any]] = MemoryNamespace()
        """Our marks (rating, hidden, region) by sound id: never in foley's namespaces."""

    def namespace(self, name: str) -> MutableMapping[str, dict[str, Any]]:
        return choose_namespace(name, self.candidates, self.picks, self.rejects, self.marks)

    def names(self, name: str, problems: Problems) -> list[str]:
        return sorted(self.namespace(name))

    def read(self, name: str, key: str, problems: Problems) -> dict[str, Any] | None:
        return read_value(self.namespace(name), name, key, problems)

    def read_all(self, name: str, problems: Problems) -> list[tuple[str, dict[str, Any]]]:
        ns = self.namespace(name)
        out = []
        for key in sorted(ns):
            value = read_value(ns, name, key, problems)
            if value is not None:
                out.append((key, value))
        return out

    def count(self, name: str) -> int:
        return len(self.namespace(name))

    def path_of(self, name: str, key: str) -> str:
        return ""

    def raw(self, name: str, key: str) -> bytes:
        # A plain mapping keeps no bytes: the record re-encoded as foley encodes it.
        return dumps(self.namespace(name)[key])

    def put(self, name: str, key: str, value: dict[str, Any]) -> None:
        if isinstance(value, RawRecord):
            raise ValidationError(f"cannot restore {key!r} verbatim in this store")
        self.namespace(name)[key] = value

    def discard(self, name: str, key: str) -> None:
        self.namespace(name).pop(key, None)

    def cache_candidates(self, items: Iterable[tuple[str, dict[str, Any]]]) -> int:
        count = 0
        for sid, data in items:
            store_candidate(self.candidates, sid, data)
            count += 1
        return count

    def bulk_reads(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def warm(self) -> None:
        return None

    def change_token(self) -> Hashable:
        return (*(self._token(name) for name in NAMESPACE_NAMES), self.state.journal_token())

    def _token(self, name: str) -> Hashable:
        return hash(tuple(sorted(self.namespace(name))))

    def last_write(self) -> datetime | None:
        return None

    def stamps(self, name: str) -> FolderState:
        return hash(tuple(sorted(self.namespace(name))))

    def stamps_after_write(self, name: str, state: FolderState, key: str) -> FolderState:
        # A counter cannot tell our write from another: we are the only writer of an
        # in-process namespace, so its new state is ours.
        return self.stamps(name)

    def candidates_token(self) -> Hashable:
        return len(self.candidates)

    def rows_reader(self, problems: Problems, decisions: DecisionReads) -> RowsReader:
        return MappingRows(self.candidates, problems)

    def remote_audio(self) -> ByteStore | None:
        return None

    def change_feed(self, *, block_ms: int = 1000, since: str = "$") -> Feed | None:
        return None

    def writes_settled(self) -> None:
        return None


class MemoryBackend(MappingBackend):
    """A session held in memory: :class:`MemoryNamespace` namespaces (foley's bytes,
    a write counter each) and a :class:`MemoryState`."""

    def __init__(self) -> None:
        self._memory = (MemoryNamespace(), MemoryNamespace(), MemoryNamespace())
        super().__init__(*self._memory, MemoryState())

    def _ns(self, name: str) -> MemoryNamespace:
        if name == MARKS_NS:
            assert isinstance(self.marks, MemoryNamespace)
            return self.marks
        return self._memory[NAMESPACE_NAMES.index(name)]

    def raw(self, name: str, key: str) -> bytes:
        return self._ns(name).raw(key)

    def put(self, name: str, key: str, value: dict[str, Any]) -> None:
        if isinstance(value, RawRecord):
            self._ns(name).put_raw(key, value.raw)
        else:
            self._ns(name)[key] = value

    def put_raw(self, name: str, key: str, data: bytes) -> None:
        """Keep exact bytes (an import restoring a file foley wrote with a NaN)."""
        self._ns(name).put_raw(key, data)

    def _token(self, name: str) -> Hashable:
        return self._ns(name).version

    def stamps(self, name: str) -> FolderState:
        return self._ns(name).version

    def candidates_token(self) -> Hashable:
        return self._ns("candidates").version


__all__ = ["MappingBackend", "MemoryBackend"]
