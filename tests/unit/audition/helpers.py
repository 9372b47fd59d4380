"""Helpers for the audition model tests: a seeded session, a fake clock, a loaded model."""

from __future__ import annotations

from pathlib import Path

from foley_tui.audition.change import Change
from foley_tui.audition.model import AuditionModel
from foley_tui.config import Settings
from foley_tui.store import SessionService, SessionStore

IDS = [f"lib:{i}" for i in range(6)]


class Clock:
    """A fake monotonic clock for the repeat guard."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make_session(data_dir: Path) -> tuple[SessionService, str]:
    service = SessionService(data_dir)
    session_id = service.create("model test")
    service.get(session_id).cache_candidates(
        {"sound": {"id": sid, "caption": f"sound {i}", "duration_s": 1.0 + i}}
        for i, sid in enumerate(IDS)
    )
    return service, session_id


def open_model(
    store: SessionStore, clock: Clock | None = None, **settings: object
) -> AuditionModel:
    """Open and load a session the way the screen's workers do, synchronously."""
    model = AuditionModel(store, Settings(**settings), clock=clock or Clock())  # type: ignore[arg-type]
    model.open()
    model.listed(store.candidate_ids(), store.picks(), store.rejects())
    model.begin_load()
    model.loaded_rows(store.rows(), store.picks(), store.rejects(), [], model.generation)
    first = model.listing.view[0]
    model.highlight(first, 0, by_user=False)
    return model


def move(model: AuditionModel, sound_id: str) -> Change:
    return model.highlight(sound_id, model.listing.view.index(sound_id), by_user=True)


def follow(model: AuditionModel, change: Change) -> None:
    """Do what the screen does with a Change's cursor: the list reports the new row."""
    if change.cursor is not None and change.cursor in model.listing.view:
        model.highlight(change.cursor, model.listing.view.index(change.cursor), by_user=False)
