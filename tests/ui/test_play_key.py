"""Pilot tests: the play key is played where the key arrives at the app, before Textual
builds its chain of bindings, and keeps every meaning it had: a remapped key, a dialog, a
text box, a list with no row."""

from __future__ import annotations

import pytest

from foley_tui.keys.keymap import check_keymap
from foley_tui.screens.help import HelpScreen
from foley_tui.widgets.filter_input import FilterInput
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, ready


async def test_the_play_key_plays_without_textual_looking_its_binding_up(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's lookup asks the focused widget whether it consumes each key bound
    further up (the chain it builds for every key): the play key reaches the player
    before any such question (the footer asks them afterwards, redrawing its keys), any
    other key still takes the lookup."""
    player = FakePlayer()
    asked: list[str] = []
    asked_before_play: list[int] = []
    real_play = player.play

    def play(*args: object, **kwargs: object) -> None:
        asked_before_play.append(len(asked))
        real_play(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(player, "play", play)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        the_list = screen.candidate_list
        real = the_list.check_consume_key

        def consume(key: str, character: str | None) -> bool:
            asked.append(key)
            return real(key, character)

        monkeypatch.setattr(the_list, "check_consume_key", consume)
        await pilot.press("space")
        assert player.played() == [("tone-0.wav", 0.0)]
        assert asked_before_play == [0]
        asked.clear()
        await pilot.press("j")  # a key of the list's own: Textual's lookup
        assert "space" in asked
        assert screen.current_id == IDS[1]


async def test_a_remapped_play_key_plays_and_space_no_longer_does(session: Session) -> None:
    keymap = {"play-stop": "ctrl+o"}
    assert check_keymap(keymap) == []
    player = FakePlayer()
    app = session.app(player, keymap=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("space")
        assert player.played() == []
        await pilot.press("ctrl+o")
        assert player.played() == [("tone-0.wav", 0.0)]
        await pilot.press("ctrl+o")
        assert player.names()[-1] == "stop"


async def test_the_play_key_over_a_dialog_plays_nothing(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("space")
        assert player.played() == []
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("space")
        assert player.played() == [("tone-0.wav", 0.0)]


async def test_the_play_key_with_no_row_shown_plays_nothing(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"zzzz", "enter")  # Enter keeps the filter
        await pilot.pause()
        assert screen.query_one(FilterInput).value == "zzzz"
        assert screen.focused is screen.candidate_list
        assert screen.current_id is None
        await pilot.press("space")
        assert player.played() == []
        assert "play" not in player.names()
