"""The transport through Pilot: pause/resume keeps the position, the position readout,
A/B between the last two candidates at the same position, click-to-seek on the waveform,
skip-silence (measured with the peaks; a first play never waits for them) and the
spectrogram pane."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
from textual.geometry import Offset

from foley_tui.audio.base import PlayerState
from foley_tui.audio.peaks import DEFAULT_CACHE, PREROLL_S
from foley_tui.screens.audition.transport import clock
from foley_tui.widgets.spectrogram import Spectrogram
from foley_tui.widgets.status_line import StatusLine
from foley_tui.widgets.waveform import Waveform
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready, settle

RATE = 8000


def lead_in(session: Session, index: int, silence_s: float = 1.5) -> float:
    """Give candidate ``index``'s audio ``silence_s`` of silence before a tone; returns
    where skip-silence starts it."""
    path = session.data_dir.parent / "audio-files" / f"tone-{index}.wav"
    t = np.arange(int(0.5 * RATE)) / RATE
    tone = 0.8 * np.cos(2 * np.pi * 440 * t)
    sf.write(str(path), np.concatenate([np.zeros(int(silence_s * RATE)), tone]), RATE)
    DEFAULT_CACHE.clear()
    return silence_s - PREROLL_S


def test_the_readout_is_minutes_seconds_and_milliseconds() -> None:
    assert clock(1.25, 3.0) == "0:01.250 / 0:03.000"
    assert clock(61.0006, 125.4) == "1:01.001 / 2:05.400"


async def test_pause_resumes_at_the_same_position_and_the_status_shows_it(
    session: Session,
) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        line = screen.query_one(StatusLine)
        assert line.clock == ""
        await pilot.press("space")
        await settle(pilot)
        player.position_s = 1.25
        await pilot.press("semicolon")
        await settle(pilot)
        assert player.state is PlayerState.PAUSED
        assert line.clock == "0:01.250 / 0:02.000"
        assert "▶ 0:01.250 / 0:02.000" in str(line.render())
        await pilot.press("semicolon")
        await settle(pilot)
        assert player.state is PlayerState.PLAYING and player.position_s == 1.25
        assert len(player.played()) == 1  # resumed, not restarted
        await pilot.press("escape")
        await settle(pilot)
        assert line.clock == ""


async def test_ab_switches_between_the_last_two_at_the_same_position(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("b")  # nothing heard yet: a notice, no play
        await settle(pilot)
        assert player.played() == []
        await pilot.press("space", "j", "space")
        await settle(pilot)
        assert [name for name, _ in player.played()] == ["tone-0.wav", "tone-1.wav"]
        player.position_s = 0.3
        await pilot.press("b")
        await settle(pilot)
        assert player.played()[-1] == ("tone-0.wav", 0.3)
        assert current(app) == IDS[0]  # the cursor follows: its waveform shows
        player.position_s = 0.35
        await pilot.press("b")
        await settle(pilot)
        assert player.played()[-1] == ("tone-1.wav", 0.35)
        assert current(app) == IDS[1]


async def test_a_click_on_the_waveform_plays_or_seeks_there(session: Session) -> None:
    player = FakePlayer(duration_s=0.5)  # the seeded tones' length
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        waveform = screen.query_one(Waveform)
        width = waveform.size.width
        duration = waveform.duration_s
        assert duration == pytest.approx(0.5)
        await pilot.click(Waveform, offset=Offset(width // 2, 0))
        await settle(pilot)
        assert player.played() == [("tone-0.wav", pytest.approx(0.25, abs=duration / width))]
        # Playing: a click seeks the same voice (no new play).
        await pilot.click(Waveform, offset=Offset(width // 4, 1))
        await settle(pilot)
        assert len(player.played()) == 1
        assert player.calls[-1][0] == "seek"
        assert player.position_s == pytest.approx(0.125, abs=duration / width)


async def test_skip_silence_starts_at_the_first_sound_and_z_turns_it_off(
    session: Session,
) -> None:
    start = lead_in(session, 0)
    player = FakePlayer(duration_s=2.0)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        waveform = screen.query_one(Waveform)
        assert waveform.first_sound_s == pytest.approx(start)  # drawn dimmed up to there
        await pilot.press("space")
        await settle(pilot)
        assert player.played() == [("tone-0.wav", pytest.approx(start))]
        await pilot.press("Z", "escape", "space")
        await settle(pilot)
        assert player.played()[-1] == ("tone-0.wav", 0.0)
        assert waveform.first_sound_s == 0.0
        assert "silence kept" in str(screen.query_one(StatusLine).render())
        assert screen.store.meta().view["skip_silence"] is False  # saved with the session


async def test_a_first_play_never_waits_for_the_peaks(session: Session) -> None:
    start = lead_in(session, 0)
    player = FakePlayer(duration_s=2.0)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        DEFAULT_CACHE.clear()  # as if the peaks were still being computed
        await pilot.press("space")
        await settle(pilot)
        assert player.played() == [("tone-0.wav", 0.0)]  # at once, from the top
        previewer = screen.previewer
        previewer.panes.peaks_for = None
        previewer.show_details()  # the peaks come in ...
        await settle(pilot)
        assert ("seek", (pytest.approx(start), False)) in player.calls  # ... and it jumps


async def test_w_shows_the_spectrogram_in_place_of_the_waveform(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        spectrogram = screen.query_one(Spectrogram)
        assert not spectrogram.display
        await pilot.press("w")
        await settle(pilot)
        assert spectrogram.display and not screen.query_one(Waveform).display
        assert spectrogram.has_levels and spectrogram.duration_s == pytest.approx(0.5)
        await pilot.press("j")
        await settle(pilot)
        assert spectrogram.has_levels  # the next row's, computed in its worker
        await pilot.click(Spectrogram, offset=Offset(spectrogram.size.width // 2, 1))
        await settle(pilot)
        assert player.played() == [("tone-1.wav", pytest.approx(0.25, abs=0.02))]
        await pilot.press("w")
        await settle(pilot)
        assert not spectrogram.display and screen.query_one(Waveform).display
