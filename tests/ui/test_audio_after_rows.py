"""The player starts once the first rows are on screen, not with the first frame: a
session with no index lists its candidates after the first frame, and the player's
start-up (its thread imports the audio modules) must not compete with that listing."""

from __future__ import annotations

import threading
from typing import Any

from tests.fakes import FakePlayer
from tests.ui.conftest import SIZE, Session, ready


class StartWatch(FakePlayer):
    """A FakePlayer that notes whether the first rows were on screen when it started."""

    def __init__(self) -> None:
        super().__init__()
        self.rows_shown_at_start: list[bool] = []
        self.painted: threading.Event | None = None

    def start(self) -> None:
        super().start()
        assert self.painted is not None
        self.rows_shown_at_start.append(self.painted.is_set())


async def test_the_player_starts_after_the_first_rows_of_a_session_never_opened(
    session: Session,
) -> None:
    from foley_tui.store.index_db import INDEX_FILE

    (session.folder / ".foley-tui" / INDEX_FILE).unlink(missing_ok=True)
    player = StartWatch()
    app = session.app(player)
    listing = threading.Event()
    store: Any = app.store
    real_ids = store.candidate_ids

    def gated_ids() -> list[str]:
        listing.wait(30)  # a bound, not a deadline: the test opens the gate
        return list(real_ids())

    store.candidate_ids = gated_ids
    async with app.run_test(size=SIZE) as pilot:
        screen = app.audition
        assert screen is not None
        player.painted = screen.loader.painted
        for _ in range(5):
            await pilot.pause(0.05)
        # The first frame is on screen, the listing held back: no rows, no player yet.
        assert not screen.loader.painted.is_set()
        assert player.rows_shown_at_start == []
        listing.set()
        await ready(pilot)
        for _ in range(200):  # a bound for a loaded machine, not a target
            if player.rows_shown_at_start:
                break
            await pilot.pause(0.05)
        assert player.rows_shown_at_start == [True]
