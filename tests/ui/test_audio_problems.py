"""A sound whose file holds non-finite samples (NaN, inf) is played and drawn as silence,
and its details say so: "non-finite samples", with how many were replaced."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import soundfile as sf

from foley_tui.app.foley_app import FoleyApp
from foley_tui.widgets.details import Details
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready
from tests.ui.test_behaviour import plain


async def test_non_finite_samples_are_a_problem_in_the_details(
    session: Session, notifications: Callable[[FoleyApp], list[str]]
) -> None:
    tone = session.data_dir.parent / "audio-files" / "tone-0.wav"
    data = np.zeros((4000, 2), np.float32)
    data[::10] = np.nan
    sf.write(str(tone), data, 8000, subtype="FLOAT")
    app = session.app(FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert current(app) == IDS[0]
        text = " ".join(plain(screen.query_one(Details).content).split())
        assert "problem non-finite samples in tone-0.wav: 800 replaced by silence" in text
        assert any("non-finite samples" in n for n in notifications(app))
        await pilot.press("j")
        await ready(pilot)
        assert "non-finite" not in plain(screen.query_one(Details).content)


async def test_the_status_line_counts_underruns_and_says_what_the_player_did(
    session: Session,
) -> None:
    """The output falling behind is a hole in the sound: the status line says how often,
    and that the player raised the device latency because of it."""
    from rich.text import Text

    from foley_tui.widgets.status_line import StatusLine

    def plain_line(line: StatusLine) -> str:
        content = line.content
        assert isinstance(content, Text)
        return content.plain

    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await ready(pilot)
        line = screen.query_one(StatusLine)
        assert "underrun" not in plain_line(line)
        await pilot.press("space")
        await ready(pilot)
        player.underruns = 1
        player.emit_status()
        await pilot.pause()
        await ready(pilot)
        assert "⚠ 1 underrun" in plain_line(line)
        player.underruns = 4
        player.output_note = "output latency raised to 50 ms after underruns"
        player.emit_status()
        await pilot.pause()
        await ready(pilot)
        text = plain_line(line)
        assert "⚠ 4 underruns (output latency raised to 50 ms after underruns)" in text
