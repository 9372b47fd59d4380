"""TimelineWriter: the timeline's store calls, run by a worker in the order they were asked.

A widget with nothing to draw that the timeline composes. A key that writes (a layer, an
onset, a nudge, undo) resolves its pick when it arrives and hands a :class:`Task` here:
its store calls (the write, then the picks read back for the redraw) run in a thread
worker, one task at a time and in key order, and its outcome is handed back to the UI
thread. The dialogs' reads (the records a confirm is checked against) go through the same
queue, so they see every write asked before them. The UI thread never waits for the
store: with a stalled server the keys, help and quit keep working, the status line says
"saving…" while a write is outstanding, then the answer, or "not confirmed" when the
store's deadline passed (the poll shows what the store holds once it answers).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import work
from textual.message import Message
from textual.widget import Widget


@dataclass(eq=False, slots=True)
class Task:
    """Store calls asked for on the UI thread: ``run`` (in the worker) and ``then`` (on
    the UI thread, with what ``run`` returned or the exception it raised; None: nothing
    to show). ``write``:
    it changes the session (counted by :attr:`TimelineWriter.saving`)."""

    run: Callable[[], Any]
    then: Callable[[Any], None] | None = None
    write: bool = True


class TaskDone(Message):
    """A task's outcome (posted by the worker)."""

    def __init__(self, task: Task, outcome: object) -> None:
        super().__init__()
        self.task = task
        self.outcome = outcome


class TimelineWriter(Widget):
    """Runs the timeline's store calls off the UI thread, in order (module docstring)."""

    DEFAULT_CSS = "TimelineWriter { display: none; }"

    def __init__(self, *, on_change: Callable[[], None]) -> None:
        """``on_change``: called on the UI thread when :attr:`saving` changes."""
        super().__init__()
        self._on_change = on_change
        self._queue: collections.deque[Task] = collections.deque()
        self._lock = threading.Lock()
        """Guards the queue and whether a worker is draining it."""
        self._draining = False
        self._saving = 0

    @property
    def saving(self) -> int:
        """Writes asked for whose outcome has not been handed back yet."""
        return self._saving

    @property
    def busy(self) -> bool:
        """Any task, a write or a read, not handed back yet."""
        with self._lock:
            return self._draining

    def submit(self, task: Task) -> None:
        """(UI thread.) Queue ``task`` behind the ones before it."""
        if task.write:
            self._saving += 1
            self._on_change()
        with self._lock:
            self._queue.append(task)
            start = not self._draining
            self._draining = True
        if start:
            self._drain()

    @work(thread=True, group="timeline-write", exit_on_error=False, name="timeline writes")
    def _drain(self) -> None:
        # Never stops on cancellation: a write asked for before the timeline closed is a
        # decision the user made; once the widget is gone its outcome goes nowhere (the
        # list it returns to shows it with its next poll).
        while True:
            with self._lock:
                if not self._queue:
                    self._draining = False
                    return
                task = self._queue.popleft()
            outcome: object
            try:
                outcome = task.run()
            except Exception as exc:  # the outcome: shown, never a crash of the UI
                outcome = exc
            self.post_message(TaskDone(task, outcome))

    def on_task_done(self, message: TaskDone) -> None:
        task = message.task
        if task.write:
            self._saving -= 1
        if task.then is not None:
            task.then(message.outcome)
        if task.write:
            self._on_change()


__all__ = ["Task", "TimelineWriter"]
