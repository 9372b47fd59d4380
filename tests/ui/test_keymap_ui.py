"""The keymap registry as Textual sees it: key names, and ids remapped in the app."""

from __future__ import annotations

import string

from textual.keys import _character_to_key

from foley_tui.audio.base import PlayerState
from foley_tui.keys import keymap
from foley_tui.keys.bindings import binding_objects
from foley_tui.widgets.filter_input import FilterInput
from tests.fakes import FakePlayer
from tests.ui.conftest import SIZE, Session, ready


def test_character_key_names_match_textual() -> None:
    for char in string.printable.strip():
        assert keymap.char_key(char) == _character_to_key(char), char


def test_bindings_carry_the_registry_ids() -> None:
    for scope in keymap.SCOPES:
        built = binding_objects(scope)
        assert [b.id for b in built] == [
            s.id for s in keymap.KEYS if s.remappable and scope in s.scopes
        ]


async def test_stop_all_and_filter_clear_are_remapped_by_id(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player, keymap={"stop-all": "ctrl+k", "filter-clear": "ctrl+u"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("space")
        assert player.played()
        await pilot.press("ctrl+k")
        assert player.names()[-1] == "stop" and player.state is PlayerState.STOPPED
        await pilot.press("slash", *"door")
        assert len(screen.listing.view) == 2
        await pilot.press("escape")  # no longer clears the filter box
        assert screen.query_one(FilterInput).value == "door"
        await pilot.press("ctrl+u")
        assert screen.query_one(FilterInput).value == ""


def test_every_character_name_textual_reports_is_accepted() -> None:
    for char in string.printable.strip():
        assert keymap.key_problem(_character_to_key(char)) is None, char
