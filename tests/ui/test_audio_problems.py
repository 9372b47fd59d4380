"""A sound whose file holds non-finite samples (NaN, inf) is played and drawn as silence,
and its details say so: "non-finite samples", with how many were replaced."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.app.foley_app import FoleyApp
from foley_tui.cli import main
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.store.sound_problems import sound_problems_of
from foley_tui.widgets.candidate_list import CandidateList
from foley_tui.widgets.details import Details
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready
from tests.ui.test_behaviour import plain
from tests.unit.store.helpers import run_py


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


FOLEY_READS = """
import json
from foley.agent.session import SessionStore
s = SessionStore({session!r})
print(json.dumps({{
    "picks": s.list_picks(),
    "rejects": s.list_rejects(),
    "cached": sorted(s.candidates),
}}))
"""


def foleys_files(folder: Path) -> dict[str, bytes]:
    """Every file foley owns in the session (its three folders), by relative path."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for name in ("candidates", "picks", "rejects")
        for path in sorted((folder / name).rglob("*"))
        if path.is_file()
    }


def row_text(screen: AuditionScreen, sound_id: str) -> str:
    """The list's line of ``sound_id`` (line 0 is the header; the list is not scrolled)."""
    return screen.query_one(CandidateList).render_line(screen.listing.view.index(sound_id) + 1).text


async def test_a_mended_sound_is_marked_in_the_next_run_and_never_in_foleys_files(
    session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    """Non-finite samples found by the waveform's whole read of a file are remembered in
    our state: the next run marks the row (``!``) and the details before the sound is
    read again, ``candidates --json`` lists the problem, foley's files stay byte for
    byte what they were, and a file changed since is no longer marked."""
    tone = session.data_dir.parent / "audio-files" / "tone-0.wav"
    data = np.zeros((4000, 2), np.float32)
    data[::10] = np.nan
    sf.write(str(tone), data, 8000, subtype="FLOAT")
    before = foleys_files(session.folder)
    foley_before = run_py(FOLEY_READS.format(session=session.session_id), session.data_dir)

    app = session.app(FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert current(app) == IDS[0]
        await pilot.press("j")  # leave the row: the next run resumes on IDS[1]
        await ready(pilot)
    store = session.service.get(session.session_id, touch=False)
    found = sound_problems_of(store).read()
    assert set(found) == {IDS[0]}
    assert found[IDS[0]].problem == "non-finite samples" and found[IDS[0]].count == 800

    code = main(["candidates", session.session_id, "--json"])
    listed = {item["sound_id"]: item for item in json.loads(capsys.readouterr().out)}
    assert code == 0
    assert [p["problem"] for p in listed[IDS[0]]["problems"]] == ["non-finite samples"]
    assert listed[IDS[0]]["problems"][0]["count"] == 800
    assert all(not listed[i]["problems"] for i in IDS[1:])

    # The next run: nothing reads tone-0.wav (the cursor is on IDS[1], the player is a
    # fake), yet the row is marked, and its details say why once it is highlighted.
    again = session.app(FakePlayer())
    async with again.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert current(again) == IDS[1]
        assert row_text(screen, IDS[0]).lstrip().startswith("·!")
        assert "!" not in row_text(screen, IDS[1])[:4]
        await pilot.press("k")
        await ready(pilot)
        text = " ".join(plain(screen.query_one(Details).content).split())
        assert "non-finite samples in tone-0.wav: 800 replaced by silence" in text

    assert foleys_files(session.folder) == before
    foley_after = run_py(FOLEY_READS.format(session=session.session_id), session.data_dir)
    assert foley_after == foley_before

    # The file is re-rendered clean: the finding is about a file that is no more.
    sf.write(str(tone), np.zeros((4000, 2), np.float32), 8000, subtype="FLOAT")
    os.utime(tone, ns=(time.time_ns(), time.time_ns() + 10**9))
    main(["candidates", session.session_id, "--json"])
    listed = {item["sound_id"]: item for item in json.loads(capsys.readouterr().out)}
    assert listed[IDS[0]]["problems"] == []
