"""Key bursts: thousands of seeded random keys, sent faster than the app handles them,
with screen toggles (``t`` opens and leaves the timeline) among them.

Keys are queued a few milliseconds apart without waiting for each to be handled, as a
fast typist or a held key does (the gaps only pace the stream; nothing is timed). They
land at every moment of a screen's life: while the timeline's scene is read, between its
push and its mount, while it is dismissed. The app must not crash, and every decision
written must be for the row that was highlighted on the screen showing when it was
written: a layer key typed just after ``t`` leaves the timeline lands on the list's row,
never on the timeline's pick (the timeline screen, being dismissed, may still be handed
keys that were queued). Both screens' decisions are resolved when their key arrives and
written by a worker afterwards (the list's decision writer, the timeline's writer): the
row highlighted is the one at the key, and the worker writes only that row.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from textual import events
from textual.screen import Screen

from foley_tui.app.foley_app import FoleyApp
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.screens.timeline.screen import TimelineScreen
from foley_tui.screens.timeline.writer import Task, TimelineWriter
from tests.fakes import FakePlayer
from tests.ui.conftest import SIZE, Session, ready, wait_workers

#: The keys of the report that crashed the timeline, and the screen toggle.
KEYS = ["p", "x", "c", "j", "k", "u", "ctrl+r", "1", "2", "3", "t", "[", "]", "escape"]
#: Writes whose target is the highlighted row (undo and redo follow the journal).
TARGETED = ("toggle_pick", "toggle_reject", "set_reject", "clear", "set_layer", "set_onset")


def highlighted(screen: Screen[Any]) -> str | None:
    if isinstance(screen, AuditionScreen):
        return screen.current_id
    if isinstance(screen, TimelineScreen):
        current = screen.model.current
        return current.sound_id if current is not None else None
    return None


def record_writes(
    app: FoleyApp, log: list[tuple[str, str, str | None, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wrap the store's decision methods: each call logs (method, sound id, the row
    highlighted on the screen showing at that moment, that screen's name). A call from
    a screen's writer worker logs the row highlighted when its key arrived instead (the
    job's or task's row, checked against the screen when it was asked for)."""
    store = app.store
    running = threading.local()
    audition = app.audition
    assert audition is not None
    model = audition.model
    submit = model.writer
    assert submit is not None

    def submitting(job: Any) -> None:
        screen = app.screen
        at_key = highlighted(screen)
        if job.sound_id is not None:
            log.append(("job", job.sound_id, at_key, type(screen).__name__))
        write = job.write

        def written() -> Any:
            running.row = at_key
            try:
                return write()
            finally:
                running.row = None

        job.write = written
        submit(job)

    model.writer = submitting
    submit_task = TimelineWriter.submit

    def submitting_task(writer: TimelineWriter, task: Task) -> None:
        at_key = highlighted(app.screen)
        run = task.run

        def ran() -> Any:
            running.row = at_key
            try:
                return run()
            finally:
                running.row = None

        task.run = ran
        submit_task(writer, task)

    monkeypatch.setattr(TimelineWriter, "submit", submitting_task)
    for name in TARGETED:
        original: Callable[..., Any] = getattr(store, name)

        def wrapped(sound_id: str, *args: Any, _name: str = name, _f: Any = original) -> Any:
            screen = app.screen
            if threading.current_thread() is not threading.main_thread():
                row = getattr(running, "row", None)
                log.append((_name, sound_id, row, "decision worker"))
            else:
                log.append((_name, sound_id, highlighted(screen), type(screen).__name__))
            return _f(sound_id, *args)

        setattr(store, name, wrapped)


def burst(app: FoleyApp, keys: list[str]) -> None:
    """Queue ``keys`` at once, as the terminal would deliver a fast burst."""
    for key in keys:
        char = key if len(key) == 1 else None
        if key == "escape":
            char = "\x1b"
        event = events.Key(key, char)
        event.set_sender(app)
        app.post_message(event)  # what the driver does with a key it has read


@pytest.mark.parametrize("seed", [1, 2])
async def test_key_bursts_never_crash_and_write_only_the_highlighted_row(
    session: Session, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = session.app(FakePlayer())
    rng = random.Random(seed)
    log: list[tuple[str, str, str | None, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("p", "j", "p", "j", "3", "j")  # three picks to start with
        record_writes(app, log, monkeypatch)
        for sent in range(1, 2001):
            burst(app, [rng.choice(KEYS)])
            await asyncio.sleep(rng.uniform(0.0, 0.012))
            assert app.is_running, f"the app stopped after {sent} keys"
        await pilot.pause()
        await wait_workers(app)
        assert app.is_running
    assert any(entry[3] == "decision worker" for entry in log), "no decision was written"
    wrong = [entry for entry in log if entry[1] != entry[2]]
    assert not wrong, f"{len(wrong)} of {len(log)} writes went to another row: {wrong[:5]}"
