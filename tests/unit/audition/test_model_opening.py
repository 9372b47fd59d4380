"""The model's opening: settings and first page from :class:`Opening`, undo availability
from the load worker (a decision made meanwhile knows better)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foley_tui.audition.model import AuditionModel
from foley_tui.audition.opening import Opening
from foley_tui.store import SessionService

from ..store.helpers import candidate


def _model(data_dir: Path) -> AuditionModel:
    service = SessionService(data_dir)
    store = service.get(service.create("opening"))
    store.cache_candidates([candidate("a"), candidate("b")])
    store.add_pick("a")
    return AuditionModel(store)


def test_an_opening_given_leaves_undo_to_the_worker(data_dir: Path) -> None:
    model = _model(data_dir)
    model.open(Opening.read(model.store))
    assert not model.can_undo  # not read yet
    change = model.undo_read(True, False, model.generation)
    assert model.can_undo and change.undo


def test_a_decision_made_before_the_undo_read_wins(data_dir: Path) -> None:
    model = _model(data_dir)
    model.open(Opening.read(model.store))
    stale = model.generation
    model.listed(["a", "b"], model.store.picks(), model.store.rejects())
    model.sync_cursor("b", 1)
    model.reject()
    assert model.can_undo
    assert not model.undo_read(False, False, stale).undo
    assert model.can_undo


def test_headless_open_reads_undo_itself(data_dir: Path) -> None:
    model = _model(data_dir)
    model.open()
    assert model.can_undo and not model.can_redo


def test_the_opening_reads_the_decisions_once(data_dir: Path) -> None:
    """The page needs the picks and rejects, and so does the first paint: one read."""
    model = _model(data_dir)
    store = model.store
    store.rows()  # the stored index: the opening pages it
    reads: list[str] = []
    real_picks, real_rejects = store.picks, store.rejects

    def picks() -> Any:
        reads.append("picks")
        return real_picks()

    def rejects() -> Any:
        reads.append("rejects")
        return real_rejects()

    store.picks = picks  # type: ignore[method-assign]
    store.rejects = rejects  # type: ignore[method-assign]
    opening = Opening.read(store)
    assert opening.page is not None and opening.decided
    assert sorted(reads) == ["picks", "rejects"]
    assert set(opening.picks) == {"a"}
