"""Decisions written off the UI thread: the model with a writer (the app's way).

A key is resolved into a job when it arrives (its row says "saving…", an advancing
decision moves the cursor at once); the job's store calls run later (here: when the
test runs them, as the app's worker would); its outcome is settled on the UI thread. A
write the store did not answer in time says "not confirmed" and is read back, never
written again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from foley_tui.audition.listing import NOT_CONFIRMED, SAVING
from foley_tui.audition.model import AuditionModel, Job, attempt
from foley_tui.domain import Status
from foley_tui.store import SessionService, StoreWriteError
from foley_tui.store.errors import StoreTimeoutError

from .helpers import IDS, follow, make_session, open_model


@pytest.fixture
def session(data_dir: Path) -> tuple[SessionService, str]:
    return make_session(data_dir)


def background(model: AuditionModel) -> list[Job]:
    jobs: list[Job] = []
    model.writer = jobs.append
    return jobs


def test_a_pick_saves_in_the_background_and_the_cursor_moves_at_the_key(
    session: tuple[SessionService, str],
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    jobs = background(model)
    change = model.pick()
    assert change.cursor == IDS[1]  # at the key, before anything is written
    assert model.listing.note(IDS[0]) == SAVING
    assert store.picks() == {}
    follow(model, change)
    change = model.pick()  # the next key lands on the next row
    follow(model, change)
    assert [job.sound_id for job in jobs] == [IDS[0], IDS[1]]
    for job in jobs:
        change = model.settle(job, attempt(job.write))
        assert change.cursor is None  # already moved: it stays where the user is
    assert set(store.picked_ids()) == {IDS[0], IDS[1]}
    assert model.listing.note(IDS[0]) is None and model.listing.note(IDS[1]) is None
    assert model.status_of(IDS[0]) is Status.PICKED and model.cursor == IDS[2]
    assert model.can_undo


def test_a_failed_write_brings_the_cursor_back_and_changes_nothing(
    session: tuple[SessionService, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    jobs = background(model)

    def full(*args: object, **kwargs: object) -> None:
        raise StoreWriteError("No space left on device")

    monkeypatch.setattr(store, "toggle_pick", full)
    follow(model, model.pick())
    assert model.cursor == IDS[1]
    [job] = jobs
    change = model.settle(job, attempt(job.write))
    assert change.error is not None and "No space left" in change.error
    assert change.cursor == IDS[0]  # back on the row the key was for
    assert model.status_of(IDS[0]) is Status.UNDECIDED
    assert model.listing.note(IDS[0]) is None


def test_a_timed_out_write_is_not_confirmed_then_read_back(
    session: tuple[SessionService, str],
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    jobs = background(model)
    follow(model, model.pick())
    [job] = jobs
    job.write()  # the write lands, but its answer never comes back in time
    change = model.settle(job, StoreTimeoutError("the store did not answer in 2 s"))
    assert change.error is not None and "Not confirmed" in change.error
    assert model.listing.note(IDS[0]) == NOT_CONFIRMED
    assert model.status_of(IDS[0]) is Status.UNDECIDED  # not shown as saved either
    assert "not confirmed: the decision on " + IDS[0] in model.unsettled()[0]
    change = model.apply_read_back(model.read_back(sorted(model.listing.unconfirmed)))
    assert model.listing.note(IDS[0]) is None
    assert model.status_of(IDS[0]) is Status.PICKED  # what the store holds
    assert len(store.journal()) == 1  # read back, never written twice
    assert any("Read back" in n for n in change.notices)


def test_a_write_that_did_not_land_reads_back_as_it_was(
    session: tuple[SessionService, str],
) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    jobs = background(model)
    follow(model, model.reject())
    [job] = jobs  # never run: the server dropped it
    model.settle(job, StoreTimeoutError("the store did not answer in 2 s"))
    model.apply_read_back(model.read_back([IDS[0]]))
    assert model.status_of(IDS[0]) is Status.UNDECIDED and store.journal() == []
    assert model.unsettled() == []


def test_undo_in_the_background(session: tuple[SessionService, str]) -> None:
    service, session_id = session
    store = service.get(session_id)
    model = open_model(store)
    follow(model, model.pick())  # written at once (no writer yet)
    jobs = background(model)
    assert model.undo().rows == frozenset()  # nothing known until the journal answers
    [job] = jobs
    change = model.settle(job, attempt(job.write))
    assert change.cursor == IDS[0] and store.picked_ids() == []
    assert not model.can_undo and model.can_redo
