"""A refused decision is never half-applied silently: its rollback attempts every step
even when one fails (writes before removals, as the decision itself), and whatever state
is left is journaled as what it is (so undo restores the one before) and named in the
error with the reason.

Each step of a decision fails in turn, and some pairs together: the write of the pick,
of the reject, the removal of either, the journal append; each either refused for good
(an immutable folder or journal: EPERM) or once (ENOSPC, the disk full at that write).
The chattr +i cases of the report run for real in
``tests/e2e/hostile/test_immutable_decisions.py``.
"""

from __future__ import annotations

import errno
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from foley_tui.store import SessionService, SessionStore, StoreWriteError

A = "freesound:1"

Act = Callable[[SessionStore], object]
#: name -> (how the sound starts, the decision that is refused)
DECISIONS: dict[str, tuple[Act | None, Act]] = {
    "reject-a-pick": (
        lambda s: s.add_pick(A, layer="sfx_fg"),
        lambda s: s.add_reject(A, reason="hiss"),
    ),
    "pick-a-reject": (lambda s: s.add_reject(A, reason="hiss"), lambda s: s.add_pick(A)),
    "pick": (None, lambda s: s.add_pick(A, layer="music")),
    "clear-a-pick": (lambda s: s.add_pick(A), lambda s: s.clear(A)),
    "layer-of-a-pick": (lambda s: s.add_pick(A, layer="music"), lambda s: s.set_layer(A, "voice")),
}
STEPS = ["put-picks", "put-rejects", "discard-picks", "discard-rejects", "journal"]
FAULTS: list[tuple[str, ...]] = [
    *[(step,) for step in STEPS],
    ("put-picks", "discard-picks"),  # picks/ immutable
    ("put-rejects", "discard-rejects"),  # rejects/ immutable
    ("journal", "discard-picks"),
    ("journal", "discard-rejects"),
    ("journal", "put-picks"),
    ("journal", "put-rejects"),
]


class Faults:
    """Make some steps of the store fail: for good (EPERM) or once each (ENOSPC)."""

    def __init__(self, store: SessionStore, steps: tuple[str, ...], once: bool) -> None:
        self.steps = set(steps)
        self.once = once
        self.on = True
        backend, journal = store.backend, store.journal_log
        self._originals: list[tuple[Any, str, Any]] = []
        self._wrap(backend, "put", lambda name: f"put-{name}")
        self._wrap(backend, "discard", lambda name: f"discard-{name}")
        self._wrap(journal, "append", lambda *_: "journal")

    def _wrap(self, target: Any, method: str, step_of: Callable[..., str]) -> None:
        original = getattr(target, method)
        self._originals.append((target, method, original))

        def failing(*args: Any, **kwargs: Any) -> Any:
            step = step_of(*args[:1])
            if self.on and step in self.steps:
                if self.once:
                    self.steps.discard(step)
                    raise OSError(errno.ENOSPC, "No space left on device")
                raise OSError(errno.EPERM, "Operation not permitted")
            return original(*args, **kwargs)

        setattr(target, method, failing)

    def lift(self) -> None:
        for target, method, original in self._originals:
            setattr(target, method, original)


def _state(root: Path) -> tuple[bool, bool]:
    """(picked, rejected) as foley reads the folders."""
    return (root / "picks" / "freesound%3A1.json").exists(), (
        root / "rejects" / "freesound%3A1.json"
    ).exists()


@pytest.mark.parametrize("once", [False, True], ids=["refused", "disk-full-once"])
@pytest.mark.parametrize("faults", FAULTS, ids=["+".join(f) for f in FAULTS])
@pytest.mark.parametrize("decision", sorted(DECISIONS))
def test_a_refused_decision_is_rolled_back_or_journaled_as_it_is(
    data_dir: Path, decision: str, faults: tuple[str, ...], once: bool
) -> None:
    service = SessionService(data_dir)
    session_id = service.create("refusals")
    store = service.get(session_id)
    store.cache_candidates([{"sound": {"id": A, "caption": "door"}}])
    root = data_dir / "sessions" / session_id
    setup, act = DECISIONS[decision]
    if setup is not None:
        setup(store)
    before = _state(root)
    entries_before = len(store.journal())
    fault = Faults(store, faults, once)
    message: str | None = None
    try:
        act(store)
    except StoreWriteError as exc:
        message = str(exc)
    fault.lift()
    now = _state(root)
    if message is None:  # the failing step was not one this decision takes
        return
    assert "could not" in message
    assert "Operation not permitted" in message or "No space left" in message
    if now == before:
        assert "is left" not in message, message
        assert len(store.journal()) == entries_before  # nothing to undo: nothing happened
        return
    # Left neither as it was nor as decided: said, and (when the journal took it) undoable.
    picked, rejected = now
    said = {
        (True, True): "picked and rejected",
        (True, False): "picked",
        (False, True): "rejected",
        (False, False): "undecided",
    }[now]
    assert f"{A!r} is left {said}" in message, message
    if (before[0] or before[1]) and decision != "clear-a-pick":
        # From one verdict to another: never neither (writes come before removals).
        assert picked or rejected, "a refused decision lost both verdicts"
    if "journaled as it is" in message:
        assert len(store.journal()) == entries_before + 1
        store.undo()
        assert _state(root) == before
    else:
        assert "not journaled either" in message
        assert len(store.journal()) == entries_before


def test_the_reported_case_picks_immutable_then_reject(data_dir: Path) -> None:
    """pick A; picks/ refuses every change; reject A: refused, and A is still only
    picked (before, the reject stayed: a conflict nobody journaled)."""
    service = SessionService(data_dir)
    session_id = service.create("refusals")
    store = service.get(session_id)
    store.cache_candidates([{"sound": {"id": A, "caption": "door"}}])
    store.add_pick(A)
    root = data_dir / "sessions" / session_id
    fault = Faults(store, ("put-picks", "discard-picks"), once=False)
    with pytest.raises(StoreWriteError, match="could not save the decision"):
        store.add_reject(A, reason="hiss")
    fault.lift()
    assert _state(root) == (True, False)
    assert A in store.picked_ids() and A not in store.rejected_ids()


def test_every_fault_combination_is_covered() -> None:
    """The list above holds every single step and every journal pair."""
    singles = {f for f in FAULTS if len(f) == 1}
    assert singles == {(s,) for s in STEPS}
    pairs = {f for f in FAULTS if "journal" in f and len(f) == 2}
    assert pairs == {("journal", s) for s in STEPS if s != "journal"}
    assert len(set(itertools.chain.from_iterable(FAULTS))) == len(STEPS)
