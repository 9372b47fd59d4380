"""DecisionWriter: the audition screen's decisions, written by a worker in key order.

A widget with nothing to draw that the screen composes. The model resolves a key into a
:class:`~foley_tui.audition.model.Job` when it arrives (the row, what to write) and
hands it here; each job runs its store calls in a thread worker, one at a time and in
the order the keys came (one worker drains the queue), and posts its outcome back to
this widget, which gives it to the model and the model's Change to the screen. The UI
thread never
waits for the store: a stalled server leaves the keys, help and quit working, the rows
say "saving…", then the answer, or "not confirmed" when the store's deadline passed.

A dialog's reads (the records its confirm is checked against, and the check itself) go
through the same queue as :class:`Read`: they run behind the decisions asked before them,
so a key pressed just before a dialog opened is ours, never a change under it.

A write that was not confirmed may still land (a paused server runs what it queued
once the pause ends): nothing is written again; the sounds are read back by a worker
that asks until the store answers, and their rows then show what it holds.
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from foley_tui.audition.change import Change
from foley_tui.audition.model import AuditionModel, Job, ReadBack, Written, attempt

#: Between two attempts to read back what was not confirmed, while the store is silent.
READ_BACK_RETRY_S = 0.5


@dataclass(eq=False, slots=True)
class Read:
    """Store reads a dialog needs: ``run`` (in the worker, behind the decisions queued
    before it) and ``then`` (on the UI thread, with what ``run`` returned or the exception
    it raised; None: nothing to show)."""

    run: Callable[[], Any]
    then: Callable[[Any], None] | None = None


class ReadDone(Message):
    """A read's outcome (posted by the worker)."""

    def __init__(self, read: Read, outcome: object) -> None:
        super().__init__()
        self.read = read
        self.outcome = outcome


class Settled(Message):
    """A job's outcome (posted by its worker)."""

    def __init__(self, job: Job, outcome: Written | BaseException) -> None:
        super().__init__()
        self.job = job
        self.outcome = outcome


class ReadBackDone(Message):
    """The unconfirmed sounds as the store holds them (posted by the read-back worker)."""

    def __init__(self, read: ReadBack) -> None:
        super().__init__()
        self.read = read


class DecisionWriter(Widget):
    """Writes the model's decisions off the UI thread, in key order (module docstring)."""

    DEFAULT_CSS = "DecisionWriter { display: none; }"

    def __init__(self, model: AuditionModel, *, apply: Callable[[Change], None]) -> None:
        super().__init__()
        self.model = model
        self.apply = apply
        self._queue: collections.deque[Job | Read] = collections.deque()
        self._lock = threading.Lock()
        """Guards the queue and whether a worker is draining it."""
        self._draining = False
        self._serial = threading.Lock()
        """Held while a job's store calls run: one at a time, whoever runs them."""
        self._stop = threading.Event()
        self._outstanding = 0
        self._when_idle: list[Callable[[], None]] = []
        model.writer = self.submit

    def on_unmount(self) -> None:
        """Leaving (quit, another session): jobs still queued are written now, in order,
        here (a worker not started yet would never run, and a key pressed before leaving
        is a decision the user made); what failed is said by the app."""
        self._stop.set()
        with self._serial:
            while True:
                with self._lock:
                    if not self._queue:
                        self._draining = False
                        break
                    job = self._queue.popleft()
                if isinstance(job, Read):
                    continue  # its dialog is gone with the screen
                outcome = attempt(job.write, Exception)
                if isinstance(outcome, BaseException):
                    with contextlib.suppress(Exception):
                        self.app.notify(f"Not saved: {outcome}", severity="error")

    @property
    def writing(self) -> bool:
        """(Any thread.) A job is queued or its store calls are running: the files may
        not hold every decision submitted yet."""
        with self._lock:
            return self._draining or bool(self._queue)

    @property
    def outstanding(self) -> int:
        """Jobs submitted whose outcome has not been applied yet."""
        return self._outstanding

    def submit(self, job: Job) -> None:
        """(UI thread.) Queue a job behind the ones before it; one worker drains the
        queue, so jobs run one at a time in the order of their keys."""
        self._outstanding += 1
        with self._lock:
            self._queue.append(job)
            start = not self._draining
            self._draining = True
        if start:
            self._drain()

    def read(self, read: Read) -> None:
        """(UI thread.) Queue a dialog's reads behind the decisions asked before them."""
        with self._lock:
            self._queue.append(read)
            start = not self._draining
            self._draining = True
        if start:
            self._drain()

    def when_idle(self, then: Callable[[], None]) -> None:
        """Call ``then`` once every job submitted so far has its outcome shown (now, when
        none is outstanding): quitting waits for the decisions the user made."""
        if self._outstanding == 0:
            then()
        else:
            self._when_idle.append(then)

    @work(thread=True, group="decide", exit_on_error=False, name="write decisions")
    def _drain(self) -> None:
        with self._serial:
            while True:
                with self._lock:
                    if not self._queue:
                        self._draining = False
                        return
                    job = self._queue.popleft()
                if isinstance(job, Read):
                    answer: object
                    try:
                        answer = job.run()
                    except Exception as exc:  # the dialog says it; never a crash of the UI
                        answer = exc
                    self.post_message(ReadDone(job, answer))
                    continue
                # Anything it raises is its outcome: a row never stays "saving…".
                outcome = attempt(job.write, Exception)
                self.post_message(Settled(job, outcome))  # in order: one thread posts

    def on_settled(self, message: Settled) -> None:
        self._outstanding -= 1
        self.apply(self.model.settle(message.job, message.outcome))
        self._read_back_when_needed()
        if self._outstanding == 0 and self._when_idle:
            waiting, self._when_idle = self._when_idle, []
            for then in waiting:
                then()

    def on_read_done(self, message: ReadDone) -> None:
        if message.read.then is not None:
            message.read.then(message.outcome)

    def _read_back_when_needed(self) -> None:
        model = self.model
        if not (model.listing.unconfirmed or model.reread_journal):
            return
        if any(w.group == "read-back" and w.is_running for w in self.workers):
            return
        self._read_back(tuple(model.listing.unconfirmed))

    @work(thread=True, group="read-back", exit_on_error=False, name="read back")
    def _read_back(self, sound_ids: tuple[str, ...]) -> None:
        """Ask the store for the unconfirmed sounds until it answers."""
        worker = get_current_worker()
        while not (worker.is_cancelled or self._stop.is_set()):
            try:
                read = self.model.read_back(sound_ids)
            except OSError:
                self._stop.wait(READ_BACK_RETRY_S)
                continue
            self.post_message(ReadBackDone(read))
            return

    def on_read_back_done(self, message: ReadBackDone) -> None:
        self.apply(self.model.apply_read_back(message.read))
        self._read_back_when_needed()  # a write that timed out meanwhile


__all__ = ["DecisionWriter", "Read"]
