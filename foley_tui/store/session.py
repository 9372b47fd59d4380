"""One audition session: foley's SessionStore API plus what the TUI needs.

:class:`SessionStore` is one object that holds its parts, each with its own state and
an explicit interface, and wires them:

* the **backend** (:class:`~foley_tui.store.backend.SessionBackend`): where the session
  lives, files (:mod:`.file_backend`), memory or any three mappings (:mod:`.memory`),
  Redis (:mod:`.redis.session`); every backend implements the same methods;
* the **journal** (:class:`~foley_tui.store.journal.Journal`): appends, and the undo/redo
  stacks read from the journal's tail;
* the **decisions** (:class:`~foley_tui.store.decisions.Decisions`): the write path,
  verdicts -> change -> files -> journal, and compare-and-swap undo/redo, applied through
  the backend's :class:`~foley_tui.store.decisions.Commit`;
* the **meta document** (:class:`~foley_tui.store.meta.MetaDocument`): title, cursor and
  view, with coalesced writes;
* the **rows reader** (:mod:`.rows`): candidate ids and list rows, from an index;
* the **problems** (:class:`~foley_tui.store.reads.Problems`): what reads could not use.

A decision is a read-modify-write of the sound's records under the session lock, then
one journal append; both are durable before the call returns. A crash between the two
leaves the decision on disk but not in the journal, which reads exactly like a decision
made by foley's agent: consistent and readable, just not undoable.

Threading contract: a store may be used from any number of threads at once. Each part
guards its own in-memory state with its own lock, held for bookkeeping and the short
reads that fill a cache, never across a scan of the candidates. Decisions and undo/redo
are in addition serialised by the session lock (``state.lock()``: a per-store RLock plus
an ``flock`` shared with other processes; on Redis a per-store lock, the scripts being
compare-and-swap), which is always taken *before* any part's lock, never after, so they
cannot deadlock. Calls from one thread apply in the order that thread makes them.

Headless: never imports textual.
"""

from __future__ import annotations

import atexit
import contextlib
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping, MutableMapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from foley_tui.domain import Layer, Onset, Pick, Reject, Row, Status
from foley_tui.marks import Marks
from foley_tui.store.backend import Feed, PageQuery, SessionBackend, StateBackend
from foley_tui.store.byte_store import ByteStore
from foley_tui.store.changes import DecisionWatch
from foley_tui.store.codec import InvalidKeyError, encode_key
from foley_tui.store.decision_records import KEEP, DecisionCounts, _Keep
from foley_tui.store.decisions import Commit, Decisions, FileCommit
from foley_tui.store.edits import MarksEdit, SetPick
from foley_tui.store.errors import StoreProblem
from foley_tui.store.index_db import Page
from foley_tui.store.journal import Journal, Mine
from foley_tui.store.memory import MappingBackend, MemoryBackend
from foley_tui.store.meta import MetaDocument
from foley_tui.store.reads import Problems
from foley_tui.store.records import (
    MARKS_NS,
    JournalEntry,
    SessionMeta,
    Verdicts,
    _to_dict,
    candidate_key,
)

_live_stores: weakref.WeakSet[SessionStore] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:  # pragma: no cover - exercised at interpreter exit
    for store in list(_live_stores):
        with contextlib.suppress(Exception):
            store.flush()


CommitFactory = Callable[[SessionBackend, Journal, Problems], Commit]
"""Makes a backend's :class:`Commit` from the parts it applies through."""


def _anyone(entry: JournalEntry) -> bool:
    return True


class SessionStore:
    """foley's ``SessionStore`` API over a session backend, plus journal, metadata and index.

    Made over a ``backend`` (what the services pass), or, as foley's own store is, over
    three ``MutableMapping[str, dict]`` namespaces plus our ``state``.
    """

    def __init__(
        self,
        session_id: str,
        *,
        candidates: MutableMapping[str, dict[str, Any]] | None = None,
        picks: MutableMapping[str, dict[str, Any]] | None = None,
        rejects: MutableMapping[str, dict[str, Any]] | None = None,
        state: StateBackend | None = None,
        backend: SessionBackend | None = None,
        commit: CommitFactory = FileCommit,
        mine: Mine = _anyone,
        data_dir: Path | None = None,
        session_path: Path | None = None,
    ) -> None:
        if backend is None:
            if candidates is None or picks is None or rejects is None or state is None:
                raise TypeError("a SessionStore needs a backend or three namespaces and a state")
            backend = MappingBackend(candidates, picks, rejects, state)
        self.session_id = session_id
        self.backend = backend
        self.data_dir = data_dir
        self.session_path = session_path
        self.problem_log = Problems(lambda: backend.state.problems)
        self.journal_log = Journal(backend.state, mine=mine)
        self.decisions = Decisions(
            backend,
            self.journal_log,
            self.problem_log,
            commit(backend, self.journal_log, self.problem_log),
        )
        self.meta_doc = MetaDocument(backend.state, session_path)
        self.rows_reader = backend.rows_reader(self.problem_log, self.decisions)
        self._watch: DecisionWatch | None = None
        _live_stores.add(self)

    @classmethod
    def in_memory(cls, session_id: str = "default") -> SessionStore:
        return cls(session_id, backend=MemoryBackend())

    def __repr__(self) -> str:
        return f"SessionStore({self.session_id!r}, data_dir={self.data_dir!r})"

    # The namespaces and our state, as foley's store names them (``picks_ns``: ours has
    # a ``picks()`` method).
    @property
    def candidates(self) -> MutableMapping[str, dict[str, Any]]:
        return self.backend.candidates

    @property
    def picks_ns(self) -> MutableMapping[str, dict[str, Any]]:
        return self.backend.picks

    @property
    def rejects_ns(self) -> MutableMapping[str, dict[str, Any]]:
        return self.backend.rejects

    @property
    def state(self) -> StateBackend:
        return self.backend.state

    @property
    def label(self) -> str:
        """What the status line calls this store when it does not answer."""
        return self.backend.label

    # ------------------------------------------------------------------ whole session
    def inspect(self) -> list[StoreProblem]:
        """Read the whole session as the app does (every candidate row, pick, reject, the
        journal and our metadata) and return every problem found: what ``session show``
        lists, so no damaged file is known to the app and the export only."""
        self.rows()
        self.picks()
        self.rejects()
        self.journal_log.check()
        self.meta()
        return self.problems()

    def warm(self) -> None:
        """Build what opening skipped to paint sooner (the namespaces' dol stores): call
        it from a worker once the list is on screen, so the first decision does not pay
        for it."""
        self.backend.warm()

    def remote_audio(self) -> ByteStore | None:
        """Bytes the session's store keeps for candidates whose file is not on this
        machine (a shared store's pushed audio), for the resolver; None on files."""
        return self.backend.remote_audio()

    def bulk_reads(self) -> contextlib.AbstractContextManager[None]:
        """Within: reading every candidate costs one pass, not a read each (an export;
        on Redis one HSCAN instead of a round trip per candidate)."""
        return self.backend.bulk_reads()

    def change_token(self) -> Hashable:
        """Differs after any write to candidates, picks, rejects or the journal."""
        return self.backend.change_token()

    def change_feed(self, *, block_ms: int = 1000, since: str = "$") -> Feed | None:
        """A blocking feed of this session's changes (run its ``wait`` in a worker);
        None when the backend is polled instead (files)."""
        return self.backend.change_feed(block_ms=block_ms, since=since)

    def writes_settled(self) -> None:
        """Return once the store runs writes again (a write it had queued has run, or
        is gone); raises OSError while it does not answer. Before reading back a write
        whose answer never came."""
        self.backend.writes_settled()

    def decision_watch(self) -> DecisionWatch:
        """The watch of this session's files (made on first call); from then on our
        decisions are recorded in it as they are written."""
        if self._watch is None:
            watch = DecisionWatch(self.backend)
            self.decisions.subscribe(watch.own_write)
            self._watch = watch
        return self._watch

    def problems(self) -> list[StoreProblem]:
        """Unreadable and foreign entries found by the last reads (never deleted)."""
        return self.problem_log.all()

    def take_recovered(self) -> list[str]:
        """What this store cleaned up since the last call (stale temp files of an
        interrupted write of ours: one line each, as ``SessionService.recovered``);
        whoever shows them (the CLI, the app) takes them."""
        return self.problem_log.take_recovered()

    # ------------------------------------------------------------------ rows
    def candidate_ids(self) -> list[str]:
        """Candidate ids from file names only (fast, for the first paint)."""
        return self.rows_reader.candidate_ids()

    def rows(
        self,
        progress: Callable[[int, int], None] | None = None,
        partial: Callable[[list[Row]], None] | None = None,
    ) -> list[Row]:
        """All list rows, ranked by first seen (see :mod:`foley_tui.store.rows`).
        Unreadable candidates give a row with ``unreadable`` set and are in
        :meth:`problems`; ``partial`` receives rows while a first open parses files."""
        return self.rows_reader.rows(progress, partial)

    def quick_rows(self) -> list[Row] | None:
        """Rows for a first paint, cheaper than :meth:`rows` and possibly stale (call
        :meth:`rows` next); None when the backend has no such shortcut."""
        return self.rows_reader.quick_rows()

    def page(
        self,
        *,
        sort: str = "rank",
        status: str = "all",
        query: str = "",
        offset: int = 0,
        limit: int = 100,
        around: str | None = None,
        picks: Mapping[str, Pick] | None = None,
        rejects: Mapping[str, Reject] | None = None,
    ) -> Page | None:
        """One screen of the list from the backend's index: O(screen), not O(session).

        ``query`` filters like the list's ``/``: every term a substring of caption,
        tags, id or source. ``around``: a sound id the page should hold near its middle
        (a saved cursor), when the view shows it (``offset`` is then ignored).
        ``picks``/``rejects``: the decisions when the caller has just read them. None
        when there is no usable index for that view (call :meth:`rows`).
        """
        return self.rows_reader.page(
            PageQuery(sort, status, query, offset, limit, around, picks, rejects)
        )

    def view_ids(
        self,
        *,
        sort: str = "rank",
        status: str = "all",
        query: str = "",
        picks: Mapping[str, Pick] | None = None,
        rejects: Mapping[str, Reject] | None = None,
    ) -> list[str] | None:
        """Every sound id of a view (sort, status filter, ``/`` filter as :meth:`page`
        takes them), in view order, from the backend's index: a list that pages its rows
        in (:meth:`rows_of`) holds these ids and no row. None when there is no usable
        index (call :meth:`rows`)."""
        return self.rows_reader.view_ids(PageQuery(sort, status, query, 0, 0, None, picks, rejects))

    def search_texts(self) -> tuple[list[str], list[str]] | None:
        """Every candidate id in rank order and the text the ``/`` filter matches for
        it (caption, tags, id, source, lowercased), from the backend's index in one
        read; None when there is no usable index."""
        return self.rows_reader.search_texts()

    def rows_of(self, ids: Sequence[str]) -> dict[str, Row] | None:
        """The list rows of ``ids`` from the backend's index (an id it does not hold is
        left out); None when there is no usable index."""
        return self.rows_reader.rows_of(ids)

    def verify(self, progress: Callable[[int, int], None] | None = None) -> int | None:
        """:meth:`rows` without the rows: every candidate file checked, the changed ones
        parsed and the stored index brought up to date, nothing of it kept in memory.
        The candidate count; None when the backend keeps no index to page from (call
        :meth:`rows`)."""
        return self.rows_reader.verify(progress)

    def prepare_filter(self) -> bool:
        """Build the index the ``/`` filter of :meth:`page` uses, if it is not built yet
        (seconds at 100k candidates: call it from a worker). True when it can."""
        return self.rows_reader.prepare_filter()

    # ------------------------------------------------------------------ candidates
    def cache_candidates(self, candidates: Iterable[object]) -> int:
        """Cache each candidate's full dict keyed by ``sound.id``; return the count cached."""

        def items() -> Iterable[tuple[str, dict[str, Any]]]:
            for candidate in candidates:
                data = _to_dict(candidate)
                sid = candidate_key(data)
                if sid:
                    yield sid, data

        return self.backend.cache_candidates(items())

    def rehydrate(self, ids: Iterable[str]) -> list[dict[str, Any]]:
        """Candidate dicts for ``ids`` (missing or unreadable ids are skipped)."""
        out = []
        for sid in ids:
            value = self.candidate(sid)
            if value is not None:
                out.append(value)
        return out

    def candidate(self, sound_id: str) -> dict[str, Any] | None:
        """The full candidate dict, loaded on demand (None if absent or unreadable)."""
        try:
            encode_key(sound_id)
        except InvalidKeyError:
            return None
        return self.backend.read("candidates", sound_id, self.problem_log)

    def read_all(self, name: str) -> list[tuple[str, dict[str, Any]]]:
        """Every readable (key, record) of ``picks`` or ``rejects``, sorted by key
        (unreadable ones are reported in :meth:`problems`)."""
        return self.backend.read_all(name, self.problem_log)

    # ------------------------------------------------------------------ foley API
    def add_pick(self, sound_id: str, *, layer: str | None = None, onset: Onset = None) -> int:
        """Pick (and un-reject) a sound durably with this layer and onset; return the pick
        count (as foley does). Other keys of an existing pick are kept."""
        self.decisions.add_pick(sound_id, layer, onset)
        return self.backend.count("picks")

    def drop_pick(self, sound_id: str) -> int:
        """Remove a pick (idempotent; a reject stays, as in foley); return the pick count."""
        self.decisions.drop_pick(sound_id)
        return self.backend.count("picks")

    def list_picks(self) -> list[dict[str, Any]]:
        """All readable pick dicts, sorted by sound id (unreadable ones are reported)."""
        return [dict(v) for _, v in self.read_all("picks")]

    def picked_ids(self) -> list[str]:
        return self.backend.names("picks", self.problem_log)

    def add_reject(self, sound_id: str, *, reason: str | None = None) -> int:
        """Reject (and un-pick) a sound durably; return the reject count."""
        self.set_reject(sound_id, reason)
        return self.backend.count("rejects")

    def list_rejects(self) -> list[dict[str, Any]]:
        return [dict(v) for _, v in self.read_all("rejects")]

    def rejected_ids(self) -> list[str]:
        return self.backend.names("rejects", self.problem_log)

    # ------------------------------------------------------------------ decisions
    def update_pick(
        self, sound_id: str, *, layer: Layer | _Keep | None = KEEP, onset: Onset | _Keep = KEEP
    ) -> JournalEntry | None:
        """Pick a sound, setting only the fields given (read-modify-write under the lock,
        so concurrent edits of other fields are kept). A reject goes (a conflict resolves
        to picked). Returns the journal entry, or None when nothing changed. No counts,
        no listing: the cheapest decision."""
        return self.decisions.update_pick(sound_id, layer=layer, onset=onset)

    def set_reject(self, sound_id: str, reason: str | None = None) -> JournalEntry | None:
        """Reject a sound with ``reason`` (other keys of an existing reject are kept); a pick
        goes (a conflict resolves to rejected). None when nothing changed."""
        return self.decisions.set_reject(sound_id, reason)

    def toggle_pick(
        self, sound_id: str, *, layer: Layer | _Keep | None = KEEP, onset: Onset | _Keep = KEEP
    ) -> JournalEntry | None:
        """The ``p`` key, decided on the state read under the lock: a picked sound is
        unpicked; a conflict resolves to picked (the reject goes; it never toggles off);
        anything else is picked (with ``layer``/``onset`` where given)."""
        return self.decisions.toggle_pick(sound_id, layer=layer, onset=onset)

    def toggle_reject(self, sound_id: str, reason: str | None = None) -> JournalEntry | None:
        """The ``x`` key: a rejected sound is cleared; a conflict resolves to rejected (the
        pick goes; it never toggles off); anything else is rejected with ``reason``."""
        return self.decisions.toggle_reject(sound_id, reason)

    def drop_reject(self, sound_id: str) -> JournalEntry | None:
        """Remove a reject only (a pick stays)."""
        return self.decisions.drop_reject(sound_id)

    def clear(self, sound_id: str) -> None:
        """Remove a pick and a reject (no-op when undecided)."""
        self.decisions.clear(sound_id)

    def pick_and_drop(
        self,
        sound_id: str,
        others: Iterable[str],
        *,
        layer: Layer | _Keep | None = KEEP,
        onset: Onset | _Keep = KEEP,
    ) -> JournalEntry | None:
        """Pick ``sound_id`` and drop the picks of ``others`` (one pick per scene event), as
        ONE journal entry, undone and redone in one step. A reject of another sound stays
        (foley's ``drop_pick``). All the records are read under the session lock before
        anything is written; a failed write rolls every file back."""
        return self.decisions.pick_and_drop(sound_id, others, layer=layer, onset=onset)

    def set_layer(self, sound_id: str, layer: Layer | None) -> Pick:
        """Set the mix layer, picking the sound if needed (one journal entry); the onset
        and any other key of the pick are kept."""
        return self._pick_after(sound_id, self.update_pick(sound_id, layer=layer))

    def set_onset(self, sound_id: str, onset: Onset) -> Pick:
        """Set the onset (seconds or an anchor string), picking the sound if needed."""
        return self._pick_after(sound_id, self.update_pick(sound_id, onset=onset))

    def _pick_after(self, sound_id: str, entry: JournalEntry | None) -> Pick:
        """The pick a decision left (from its journal entry: no re-read of the file)."""
        # Nothing changed (no entry): the file is as it was, read it.
        record = entry.after.get("pick") if entry is not None else self._verdicts(sound_id).pick
        return Pick.from_dict(record if isinstance(record, dict) else {}, sound_id)

    # ------------------------------------------------------------------ our marks
    def marks(self) -> dict[str, Marks]:
        """Our marks (rating, hidden, region) of every sound that has some: kept in our
        state beside the session, never in foley's files."""
        return self.decisions.marks()

    def marks_records(self) -> dict[str, dict[str, Any]]:
        """Our stored marks records as they are (export, push), by sound id."""
        return dict(self.backend.read_all(MARKS_NS, self.problem_log))

    def marks_of(self, sound_id: str) -> Marks:
        encode_key(sound_id)
        return self.decisions.marks_of(sound_id)

    def update_marks(
        self,
        sound_id: str,
        marks: MarksEdit,
        *,
        duration_s: float | None = None,
    ) -> JournalEntry | None:
        """Change a sound's marks: one journal entry, undone and redone like a decision.
        None when nothing changed; :class:`ValidationError` (nothing written) for a
        rating outside 0-5 or a region outside the sound (``duration_s``) or in >= out."""
        return self.decisions.update_marks(sound_id, marks, duration_s=duration_s)

    def pick_with_region(
        self,
        sound_id: str,
        marks: Marks,
        *,
        duration_s: float | None = None,
        layer: Layer | _Keep | None = KEEP,
        onset: Onset | _Keep = KEEP,
    ) -> JournalEntry | None:
        """Pick a sound (the fields given, as :meth:`update_pick`) and set its region to
        ``marks``' in and out points, as ONE journal entry."""
        region = MarksEdit(region_in=marks.region_in, region_out=marks.region_out)
        pick = SetPick(sound_id, layer, onset)
        return self.decisions.update_marks(sound_id, region, duration_s=duration_s, pick=pick)

    # ------------------------------------------------------------------ decision reads
    def picks(self) -> dict[str, Pick]:
        """Every readable pick. A layer or onset foley's ``plan`` would choke on (written
        by someone else) reads as unset and is reported in :meth:`problems`."""
        return self.decisions.picks()

    def rejects(self) -> dict[str, Reject]:
        return self.decisions.rejects()

    def conflicts(self) -> list[str]:
        """Sounds both picked and rejected (foley can leave both), sorted."""
        return sorted(set(self.picked_ids()) & set(self.rejected_ids()))

    def ghost_picks(self) -> list[str]:
        """Picks with no cached candidate (foley's ``plan`` drops them), sorted."""
        return [sid for sid in self.picked_ids() if sid not in self.candidates]

    def counts(self) -> DecisionCounts:
        """Every decision count from one listing per folder (the CLI, the sessions list
        and the app all count this way, so they agree)."""
        return self.decisions.counts()

    def status(self, sound_id: str) -> Status:
        return self.decisions.status(sound_id)

    def verdicts(self, sound_id: str) -> Verdicts:
        """The raw pick and reject records of a sound, as the files hold them now."""
        encode_key(sound_id)  # raises InvalidKeyError (a ValidationError)
        return self._verdicts(sound_id)

    def state_of(self, sound_id: str) -> dict[str, Any]:
        """The decision state dict of a sound, as the journal records it."""
        return self._verdicts(sound_id).to_state()

    def _verdicts(self, sound_id: str) -> Verdicts:
        return self.decisions.verdicts(sound_id)

    # ------------------------------------------------------------------ journal, undo
    def journal(self) -> list[JournalEntry]:
        """Every journal entry so far (also those written by other processes). Reads the
        whole journal: an export needs it; undo and the history need its tail only."""
        return self.journal_log.entries()

    def last_entries(self, n: int) -> list[JournalEntry]:
        """The newest ``n`` journal entries, oldest first (the tail only is read)."""
        return self.journal_log.last(n)

    def journaled_sounds(self) -> set[str]:
        """Every sound a journal entry changed (the journal is read in blocks)."""
        return self.journal_log.sounds()

    def undo(self, *, force: bool = False) -> JournalEntry | None:
        """Restore the ``before`` state of the latest decision not yet undone, only while
        the sound is still in that decision's ``after`` state (compare-and-swap).

        Raises :class:`UndoConflictError` (nothing written) when the sound changed since,
        unless ``force``. Returns the entry undone, or None when there is nothing to undo.
        """
        return self.decisions.step("undo", force=force)

    def redo(self, *, force: bool = False) -> JournalEntry | None:
        """Re-apply the ``after`` state of the latest undone decision, only while the
        sound is still in its ``before`` state (compare-and-swap, as :meth:`undo`)."""
        return self.decisions.step("redo", force=force)

    def skip_undo(self) -> JournalEntry | None:
        """Step past the entry undo would revert, writing nothing but a ``skip`` record
        (so redo, the app and other processes agree). Returns the entry skipped."""
        return self.decisions.step("undo", skip=True)

    def skip_redo(self) -> JournalEntry | None:
        """Step past the entry redo would re-apply (see :meth:`skip_undo`)."""
        return self.decisions.step("redo", skip=True)

    def skip(self, *, redo: bool = False) -> JournalEntry | None:
        """Step past the entry undo (or redo) would apply (see :meth:`skip_undo`)."""
        return self.skip_redo() if redo else self.skip_undo()

    def undo_target(self) -> JournalEntry | None:
        """The entry :meth:`undo` would revert, or None."""
        return self.journal_log.undo_target()

    def redo_target(self) -> JournalEntry | None:
        """The entry :meth:`redo` would re-apply, or None."""
        return self.journal_log.redo_target()

    def undo_redo(self, *, fresh: bool = True) -> tuple[bool, bool]:
        """(can undo, can redo) in one go; ``fresh=False`` answers from what this process
        knows, right after its own append."""
        undo, redo = self.journal_log.tops(fresh=fresh)
        return undo is not None, redo is not None

    def can_undo(self) -> bool:
        return self.undo_target() is not None

    def can_redo(self) -> bool:
        return self.redo_target() is not None

    # ------------------------------------------------------------------ meta
    def last_write(self) -> datetime | None:
        """When candidates, picks, rejects or the journal last changed."""
        return self.backend.last_write() or self.journal_log.last_at()

    def meta(self) -> SessionMeta:
        return self.meta_doc.meta(self.last_write)

    def set_title(self, title: str | None) -> None:
        self.meta_doc.set_title(title)

    def set_cursor(self, sound_id: str | None) -> None:
        """Remember the cursor; written at most once a second (and by :meth:`flush`)."""
        self.meta_doc.set_cursor(sound_id)

    def set_view(self, view: dict[str, Any]) -> None:
        self.meta_doc.set_view(view)

    def mark_opened(self) -> None:
        self.meta_doc.mark_opened()

    def flush(self) -> None:
        """Write pending cursor/view changes durably (call when the app quits)."""
        self.meta_doc.flush()

    def close(self) -> None:
        self.flush()


def file_store(session_id: str, folder: Path, data_dir: Path | None) -> SessionStore:
    """The store of the session folder ``folder`` (foley's layout)."""
    from foley_tui.store.file_backend import FileBackend

    return SessionStore(
        session_id, backend=FileBackend(folder), data_dir=data_dir, session_path=folder
    )


__all__ = ["SessionStore", "file_store"]
