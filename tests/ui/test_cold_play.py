"""A play that would open a file (its head not prefetched) runs in a worker: nothing on
the UI thread reads audio. A later key supersedes a cold play still opening."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from foley_tui.audio.base import Source
from tests.fakes import FakePlayer
from tests.ui.conftest import SIZE, Session, ready, settle


class ThreadedPlays(FakePlayer):
    """Notes the thread of each play() (True: the UI's)."""

    def __init__(self, warm: bool) -> None:
        super().__init__()
        self.warm = warm
        self.on_main: list[bool] = []

    def play(self, source: Source, start_s: float = 0.0) -> None:
        self.on_main.append(threading.current_thread() is threading.main_thread())
        super().play(source, start_s)


@pytest.mark.parametrize("warm", [True, False])
async def test_only_a_warm_play_runs_on_the_ui_thread(session: Session, warm: bool) -> None:
    player = ThreadedPlays(warm)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("space")
        for _ in range(50):
            await settle(pilot)
            if player.on_main:
                break
        assert player.on_main == [warm]
        assert len(player.played()) == 1


async def test_a_stop_before_a_cold_play_starts_drops_it(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = ThreadedPlays(warm=False)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        held: list[Callable[[], None]] = []
        real_run_worker = screen.previewer.run_worker

        def run_worker(work: Any, *args: Any, **kwargs: Any) -> Any:
            if kwargs.get("group") == "play":
                held.append(work)  # the cold open, not started yet
                return None
            return real_run_worker(work, *args, **kwargs)

        monkeypatch.setattr(screen.previewer, "run_worker", run_worker)  # the part that plays
        await pilot.press("space")
        assert len(held) == 1 and not player.played()
        await pilot.press("escape")  # stop: the cold play must not start after it
        held[0]()
        assert not player.played()

        await pilot.press("space")  # a new press plays
        held[-1]()
        assert len(player.played()) == 1
