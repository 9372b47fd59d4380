"""Prefetch: when the highlight changes, the screen warms the player (from a worker) for
the highlighted candidate and for the one auto-advance would move to next."""

from __future__ import annotations

import threading
from typing import Any

from textual.pilot import Pilot

from foley_tui.audio.base import Source
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, ready, settle


class ThreadNotingPlayer(FakePlayer):
    """Also notes whether each prefetch() came on the UI (main) thread."""

    def __init__(self) -> None:
        super().__init__()
        self.on_main: list[bool] = []

    def prefetch(self, source: Source) -> None:
        self.on_main.append(threading.current_thread() is threading.main_thread())
        super().prefetch(source)


def tone(sound_id: str) -> str:
    """The seeded WAV of a candidate (see tests/ui/seed.py)."""
    return f"tone-{IDS.index(sound_id)}.wav"


async def prefetched_pair(pilot: Pilot[Any], player: FakePlayer, count: int) -> list[str]:
    """The last two prefetched files once at least ``count`` prefetch calls came in."""
    for _ in range(50):
        await settle(pilot)
        if len(player.prefetched()) >= count:
            break
    return player.prefetched()[-2:]


async def test_highlight_prefetches_the_row_and_the_next_undecided(session: Session) -> None:
    player = ThreadNotingPlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert await prefetched_pair(pilot, player, 2) == [tone(IDS[0]), tone(IDS[1])]

        await pilot.press("j")
        assert await prefetched_pair(pilot, player, 4) == [tone(IDS[1]), tone(IDS[2])]

        await pilot.press("p")  # picks IDS[1]; auto-advance moves to IDS[2]
        assert await prefetched_pair(pilot, player, 6) == [tone(IDS[2]), tone(IDS[3])]

        await pilot.press("g")  # back to the top: IDS[1] is decided, so IDS[2] is next
        assert await prefetched_pair(pilot, player, 8) == [tone(IDS[0]), tone(IDS[2])]

        calls = len(player.prefetched())
        await pilot.press("space")  # playing changes no highlight: nothing new to warm
        await settle(pilot)
        assert len(player.prefetched()) == calls
        assert player.played()[-1] == (tone(IDS[0]), 0.0)
        assert player.on_main and not any(player.on_main)  # always from a worker


async def test_unplayable_rows_are_not_prefetched(data_dir: Any) -> None:
    from foley_tui.store import SessionService
    from tests.ui.seed import seed_session

    service, session_id = seed_session(data_dir, audio_count=1)  # only IDS[0] has audio
    player = FakePlayer()
    app = Session(data_dir, service, session_id).app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert await prefetched_pair(pilot, player, 1) == [tone(IDS[0])]
        await pilot.press("j")
        await settle(pilot)
        assert player.prefetched() == [tone(IDS[0])]  # IDS[1] has only a remote URL
        assert IDS[1] in screen.candidate_list.unplayable
    assert isinstance(service, SessionService)


async def test_prefetch_is_repeated_once_a_deferred_player_is_up(session: Session) -> None:
    """Hints given while the device was still opening were dropped: the screen gives them
    again when the player is up, so the first row is warm too."""
    from foley_tui.audio.deferred import DeferredPlayer

    gate = threading.Event()
    fake = FakePlayer()

    def build() -> FakePlayer:
        gate.wait(5)
        return fake

    player = DeferredPlayer(build)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert fake.prefetched() == []  # still starting: dropped
        gate.set()
        assert await prefetched_pair(pilot, fake, 2) == [tone(IDS[0]), tone(IDS[1])]
