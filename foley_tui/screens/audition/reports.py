"""What the audition screen's workers and the player's thread report (Textual messages).

Workers never touch widgets: they post one of these to the part that started them (the
loader, the previewer), which handles it on the main thread; none bubbles further.
Names: past tense, for events (``RowsLoaded``). High-rate messages implement
``can_replace`` so a backlog of stale positions or progress ticks collapses to the latest
one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.worker import Worker, WorkerState

from foley_tui.audio.base import PlayerStatus, Source, Unplayable
from foley_tui.audition.change import Outside
from foley_tui.audition.opening import Opening
from foley_tui.domain import Pick, Reject, Row

if TYPE_CHECKING:
    from foley_tui.audition.similar import SimilarResult
    from foley_tui.marks import Marks


class IdsListed(Message, bubble=False):
    """The session's candidate ids (file names only), for the first paint."""

    def __init__(
        self,
        ids: Sequence[str],
        picks: dict[str, Pick],
        rejects: dict[str, Reject],
        rows: list[Row] | None = None,
    ) -> None:
        super().__init__()
        self.ids = ids
        self.picks = picks
        self.rejects = rejects
        self.rows = rows
        """Provisional rows from the stored index (names checked, stats not yet), when the
        index could be used; the exact rows follow in :class:`RowsLoaded`."""


class SessionOpened(Message, bubble=False):
    """The session's settings and first page, read by the opening thread after the screen
    had mounted (else the screen applied them on mount)."""

    def __init__(self, opening: Opening) -> None:
        super().__init__()
        self.opening = opening


class UndoRead(Message, bubble=False):
    """Undo availability, read by the load worker after the first paint."""

    def __init__(self, can_undo: bool, can_redo: bool, generation: int) -> None:
        super().__init__()
        self.can_undo = can_undo
        self.can_redo = can_redo
        self.generation = generation


class MarksRead(Message, bubble=False):
    """Our marks of every sound (rating, hidden, region), read by the load worker."""

    def __init__(self, marks: Mapping[str, Marks], generation: int) -> None:
        super().__init__()
        self.marks = marks
        self.generation = generation


class LoadProgress(Message, bubble=False):
    """Rows with all their columns: ``done`` of ``total`` so far."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress)


class RowsParsed(Message, bubble=False):
    """Rows parsed so far while a session loads (their ``rank`` is provisional): the
    list fills them in progressively; :class:`RowsLoaded` brings the final list."""

    def __init__(self, rows: list[Row]) -> None:
        super().__init__()
        self.rows = rows


class RowsLoaded(Message, bubble=False):
    """Every row with all its columns, plus the store's problems (unreadable entries)."""

    def __init__(
        self,
        rows: list[Row],
        problems: list[str],
        picks: dict[str, Pick],
        rejects: dict[str, Reject],
    ) -> None:
        super().__init__()
        self.rows = rows
        self.problems = problems
        self.picks = picks
        self.rejects = rejects
        self.generation = 0
        """The screen's decision counter when the decisions were read."""


class IdsPaged(Message, bubble=False):
    """Every file checked and the stored index current, for a list that pages its rows
    in: the candidate ids in rank order, the problems and the decisions."""

    def __init__(
        self,
        ids: list[str],
        problems: list[str],
        picks: dict[str, Pick],
        rejects: dict[str, Reject],
        generation: int,
    ) -> None:
        super().__init__()
        self.ids = ids
        self.problems = problems
        self.picks = picks
        self.rejects = rejects
        self.generation = generation


class EventsRead(Message, bubble=False):
    """The scene event of each candidate that carries one (sound id -> event dict)."""

    def __init__(self, events: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__()
        self.events = events


class FileColumnsRead(Message, bubble=False):
    """Each candidate's (file name, folder, UCS category, bit depth), from its file."""

    def __init__(self, columns: Mapping[str, tuple[str, str, str, int | None]]) -> None:
        super().__init__()
        self.columns = columns


class OutsideChanged(Message, bubble=False):
    """A poll found files another process (foley's agent) changed; the model merges it."""

    def __init__(self, outside: Outside) -> None:
        super().__init__()
        self.outside = outside


class StoreReachability(Message, bubble=False):
    """A shared store's server went away (``up`` False, ``error`` says why) or came back."""

    def __init__(self, up: bool, error: str | None = None) -> None:
        super().__init__()
        self.up = up
        self.error = error


class FollowBroken(Message, bubble=False):
    """The shared session cannot be followed live (a key of the wrong type, named in
    ``error``): it is polled instead."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class PeaksReady(Message, bubble=False):
    """Waveform peaks for ``sound_id``: ``exact`` False for the quick overview."""

    def __init__(
        self,
        sound_id: str,
        peaks: Sequence[tuple[float, float]],
        duration_s: float,
        exact: bool,
        error: str | None = None,
        first_sound_s: float | None = None,
        problem: str | None = None,
        nonfinite: int = 0,
    ) -> None:
        super().__init__()
        self.sound_id = sound_id
        self.peaks = peaks
        self.duration_s = duration_s
        self.exact = exact
        self.error = error
        """Why there are no peaks (the file could not be decoded)."""
        self.first_sound_s = first_sound_s
        """Where the sound starts (skip-silence), measured by the exact pass."""
        self.problem = problem
        """What the decoder found wrong and played as silence (non-finite samples)."""
        self.nonfinite = nonfinite
        """How many non-finite samples the pass read (the whole file's when exact)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, PeaksReady) and message.sound_id == self.sound_id


class SpectrogramReady(Message, bubble=False):
    """The spectrogram of ``sound_id`` (levels[band][column]), or why there is none."""

    def __init__(
        self,
        sound_id: str,
        levels: Sequence[Sequence[float]],
        duration_s: float,
        error: str | None = None,
    ) -> None:
        super().__init__()
        self.sound_id = sound_id
        self.levels = levels
        self.duration_s = duration_s
        self.error = error

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SpectrogramReady) and message.sound_id == self.sound_id


class SimilarFound(Message, bubble=False):
    """The sounds most like ``sound_id`` (a worker ranked them), or why it could not."""

    def __init__(self, sound_id: str, result: SimilarResult | None, error: str | None) -> None:
        super().__init__()
        self.sound_id = sound_id
        self.result = result
        self.error = error


class SimilarProgress(Message, bubble=False):
    """The search analysed ``done`` of the ``total`` sounds it had no features of."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total


class SourceResolved(Message, bubble=False):
    """Where a candidate's audio is, or why it cannot be played."""

    def __init__(self, sound_id: str, source: Source | Unplayable) -> None:
        super().__init__()
        self.sound_id = sound_id
        self.source = source


class DetailsRead(Message, bubble=False):
    """A candidate's dict (None: unreadable) and where its audio is, read by a worker for
    the details pane, a play or the prefetch (the UI thread reads no session file)."""

    def __init__(
        self,
        sound_id: str,
        candidate: dict[str, Any] | None,
        source: Source | Unplayable,
        *,
        asked: bool = False,
    ) -> None:
        super().__init__()
        self.sound_id = sound_id
        self.candidate = candidate
        self.source = source
        self.asked = asked
        """``source`` already includes the session's shared store's answer."""


class PlayerStateChanged(Message, bubble=False):
    """The player started, stopped, ended or failed (posted from the audio thread)."""

    def __init__(self, status: PlayerStatus) -> None:
        super().__init__()
        self.status = status

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, PlayerStateChanged)


class PlayheadMoved(Message, bubble=False):
    """The playhead position, sampled on a timer while playing."""

    def __init__(self, position_s: float, duration_s: float) -> None:
        super().__init__()
        self.position_s = position_s
        self.duration_s = duration_s

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, PlayheadMoved)


def worker_failure(event: Worker.StateChanged) -> str | None:
    """The notice for a worker that failed (None while it has not): each part of the
    screen says its own workers' failures, in the same words."""
    if event.state is not WorkerState.ERROR:
        return None
    return f"{event.worker.name} failed: {event.worker.error}"
