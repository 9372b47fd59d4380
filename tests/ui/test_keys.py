"""Pilot tests: every binding of the audition screen, through a real file store and a fake
player. Each asserts what reached the foley files and/or the player."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from foley_tui.audio.base import PlayerState
from foley_tui.audition import filtering
from foley_tui.config import Settings
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.screens.help import HelpScreen
from foley_tui.screens.onset import OnsetScreen
from foley_tui.screens.reason import RejectReasonScreen
from tests.fakes import FakePlayer
from tests.ui.conftest import IDS, SIZE, Session, current, ready, wait_workers
from tests.ui.palette import palette_run

# -- move ------------------------------------------------------------------------------


async def test_space_in_the_filter_box_types_a_space_and_plays_nothing(session: Session) -> None:
    """Space plays from where the key arrives (no bubbling through the screen), yet a
    text box keeps its typing."""
    from foley_tui.widgets.filter_input import FilterInput

    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("slash", "a", "space", "b")
        box = app.screen.query_one(FilterInput)
        assert box.value == "a b"
        assert player.played() == []
        await pilot.press("escape", "escape")  # clear the box, back to the list
        await pilot.press("space")
        assert player.played() == [("tone-0.wav", 0.0)]


async def test_down_up_j_k_move_the_cursor(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert current(app) == IDS[0]
        await pilot.press("down", "j", "j")
        assert current(app) == IDS[3]
        await pilot.press("up", "k")
        assert current(app) == IDS[1]


async def test_first_last_and_pages(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=(100, 12)) as pilot:
        await ready(pilot)
        await pilot.press("G")
        assert current(app) == IDS[-1]
        await pilot.press("g")
        assert current(app) == IDS[0]
        await pilot.press("pagedown")
        page = app.audition.candidate_list.page  # type: ignore[union-attr]
        assert current(app) == IDS[page]
        await pilot.press("end", "pageup")
        assert current(app) == IDS[len(IDS) - 1 - page]
        await pilot.press("home")
        assert current(app) == IDS[0]


async def test_n_goes_to_next_undecided(session: Session) -> None:
    store = session.service.get(session.session_id)
    store.add_pick(IDS[1])
    store.add_reject(IDS[2])
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("n")
        assert current(app) == IDS[3]


# -- preview ---------------------------------------------------------------------------


async def test_space_plays_then_stops_and_enter_plays_from_start(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("space")
        assert player.played() == [("tone-0.wav", 0.0)]
        await pilot.press("space")
        assert player.names()[-1] == "stop"
        await pilot.press("enter")
        assert player.played()[-1] == ("tone-0.wav", 0.0)
        await pilot.press("escape")
        assert player.names()[-1] == "stop"
        assert player.state is PlayerState.STOPPED


async def test_seek_keys(session: Session) -> None:
    player = FakePlayer(duration_s=10.0)
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("space", "right", "shift+right", "left", "shift+left")
        seeks = [args for name, args in player.calls if name == "seek"]
        assert seeks == [(1.0, True), (5.0, True), (-1.0, True), (-5.0, True)]


async def test_autoplay_plays_on_move_and_is_saved(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("j")
        assert player.played() == []
        await pilot.press("a", "j")
        await pilot.pause()  # the list posts Highlighted; the screen plays on it
        assert player.played() == [("tone-2.wav", 0.0)]
    assert session.service.get(session.session_id).meta().view["autoplay"] is True


async def test_loop_volume_and_loudness_reach_the_player(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("r", "plus", "plus", "minus", "L")
    assert player.loop is True
    assert player.volume_db == 2.0
    assert player.loudness_match is True
    view = session.service.get(session.session_id).meta().view
    assert (view["loop"], view["volume_db"], view["loudness_match"]) == (True, 2.0, True)


# -- decide ----------------------------------------------------------------------------


async def test_p_picks_on_disk_and_advances_then_toggles_off(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("p")
        assert session.pick_file(IDS[0]) == {"sound_id": IDS[0], "layer": None, "onset": None}
        assert current(app) == IDS[1]
        await pilot.press("k", "p")
        assert session.pick_file(IDS[0]) is None
        assert current(app) == IDS[0]  # un-picking does not advance


async def test_x_rejects_and_removes_a_pick(session: Session) -> None:
    session.service.get(session.session_id).add_pick(IDS[0], layer="voice")
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("x")
        assert session.reject_file(IDS[0]) == {"sound_id": IDS[0], "reason": None}
        assert session.pick_file(IDS[0]) is None
        assert current(app) == IDS[1]


async def test_shift_x_rejects_with_a_preset_reason(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("X")
        assert isinstance(app.screen, RejectReasonScreen)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert session.reject_file(IDS[0]) == {"sound_id": IDS[0], "reason": "too noisy"}
        assert isinstance(app.screen, AuditionScreen)


async def test_shift_x_free_text_reason_and_cancel(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("X", "escape")
        assert session.reject_file(IDS[0]) is None
        await pilot.press("X", "tab", *"hiss", "enter")
        await pilot.pause()
        assert session.reject_file(IDS[0]) == {"sound_id": IDS[0], "reason": "hiss"}


async def test_c_clears_the_verdict(session: Session) -> None:
    session.service.get(session.session_id).add_reject(IDS[0], reason="meh")
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("c")
        assert session.reject_file(IDS[0]) is None
        assert current(app) == IDS[0]


async def test_undo_and_redo_survive_a_restart(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("p", "2")
        assert session.pick_file(IDS[1]) == {"sound_id": IDS[1], "layer": "sfx_fg", "onset": None}
        await pilot.press("u")
        assert session.pick_file(IDS[1]) is None
        assert session.pick_file(IDS[0]) is not None
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("u")
        assert session.pick_file(IDS[0]) is None
        assert current(app) == IDS[0]
        await pilot.press("ctrl+r")
        assert session.pick_file(IDS[0]) == {"sound_id": IDS[0], "layer": None, "onset": None}


async def test_undo_disabled_when_nothing_to_undo(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.check_action("undo", ()) is None
        assert screen.check_action("redo", ()) is None
        await pilot.press("p")
        assert screen.check_action("undo", ()) is True


# -- place -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "layer"),
    [("1", "voice"), ("2", "sfx_fg"), ("3", "ambience"), ("4", "stinger"), ("5", "music")],
)
async def test_number_keys_set_the_layer_and_pick(session: Session, key: str, layer: str) -> None:
    session.service.get(session.session_id).add_reject(IDS[0])
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(key)
        assert session.pick_file(IDS[0]) == {"sound_id": IDS[0], "layer": layer, "onset": None}
        assert session.reject_file(IDS[0]) is None
        assert current(app) == IDS[0]  # placing does not advance


async def test_o_sets_the_onset_from_m_ss(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("o")
        assert isinstance(app.screen, OnsetScreen)
        await pilot.press(*"1:02.5", "enter")
        await pilot.pause()
        assert session.pick_file(IDS[0]) == {"sound_id": IDS[0], "layer": None, "onset": 62.5}


async def test_o_rejects_a_bad_onset_and_keeps_the_modal(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("o", *"1:75", "enter")
        assert isinstance(app.screen, OnsetScreen)
        error = app.screen.query_one("#error")
        assert "below 60" in str(error.render())
        await pilot.press("escape")
        assert session.pick_file(IDS[0]) is None


async def test_bracket_keys_nudge_the_onset(session: Session) -> None:
    session.service.get(session.session_id).add_pick(IDS[0], layer="music", onset=2.0)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("]", "]", "}", "[")
        assert session.pick_file(IDS[0]) == {"sound_id": IDS[0], "layer": "music", "onset": 3.1}
        await pilot.press("{", "{", "{", "{")  # clamps at zero
        assert session.pick_file(IDS[0]) == {"sound_id": IDS[0], "layer": "music", "onset": 0.0}


# -- view ------------------------------------------------------------------------------


async def test_slash_filters_and_the_filter_is_saved(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"door", "enter")
        assert screen.listing.view == ["bbc:1001", "freesound:1006"]
        await pilot.press("p")  # keys act on the list again after Enter
        assert session.pick_file("bbc:1001") is not None
    assert session.service.get(session.session_id).meta().view["filter"] == "door"


async def test_slash_builds_the_search_texts_in_a_worker(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the filter box builds every row's search text off the UI thread, so the
    first keystroke only scans (at 100k rows the build is most of a keystroke)."""
    built_on_main: list[bool] = []
    real = filtering.search_texts

    def recording(ids: Any, rows: Any) -> list[str]:
        built_on_main.append(threading.current_thread() is threading.main_thread())
        return real(ids, rows)

    monkeypatch.setattr(filtering, "search_texts", recording)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash")
        await wait_workers(app)
        assert built_on_main == [False]
        await pilot.press(*"door")
        assert screen.listing.view == ["bbc:1001", "freesound:1006"]
        assert built_on_main == [False]  # the keystrokes reused the texts


async def test_escape_in_the_filter_clears_it(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"gravel")
        assert screen.listing.view == ["freesound:1002"]
        await pilot.press("escape")
        assert len(screen.listing.view) == len(IDS)


async def test_f_cycles_the_status_filter(session: Session) -> None:
    store = session.service.get(session.session_id)
    store.add_pick(IDS[4])
    store.add_reject(IDS[5])
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("f")
        assert len(screen.listing.view) == len(IDS) - 2
        await pilot.press("f")
        assert screen.listing.view == [IDS[4]]
        await pilot.press("f")
        assert screen.listing.view == [IDS[5]]
        await pilot.press("f")  # events without a pick: this session has no scene events
        assert screen.listing.view == []
        for shown in ("rated ≥ 1", "rated ≥ 3", "rated ≥ 5", "hidden"):  # none rated or hidden
            await pilot.press("f")
            assert screen.view_settings.status_filter == shown and screen.listing.view == []
        await pilot.press("f")
        assert len(screen.listing.view) == len(IDS)


async def test_s_cycles_the_sort_keeping_the_cursor(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("j", "s")
        assert screen.view_settings.sort == "caption"
        assert screen.listing.view[0] == "freesound:1008"  # campfire crackle close
        assert current(app) == IDS[1]
    assert session.service.get(session.session_id).meta().view["sort"] == "caption"


async def test_help_opens_with_question_mark_and_f1(session: Session) -> None:
    app = session.app(keymap={"pick": "P"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        pick = next(e for e in app.screen.entries if e.binding_id == "pick")
        assert pick.keys == "P"
        assert len(app.screen.entries) >= 40
        await pilot.press("escape", "f1")
        assert isinstance(app.screen, HelpScreen)


def test_the_help_header_names_the_config_table() -> None:
    """The ids column says where remapping goes: ``[keymap]`` in config.toml, drawn
    as written (not taken for Rich markup)."""
    from rich.console import Console

    from foley_tui.screens.help import help_table

    console = Console(width=160, record=True, color_system=None)
    console.print(help_table([]))
    assert "id (config.toml [keymap])" in console.export_text()


async def test_palette_runs_an_action(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await palette_run(pilot, "Decide: Pick", "Decide: Pick")
        await pilot.pause()
        await wait_workers(app)
        await pilot.pause()
        assert session.pick_file(IDS[0]) is not None


async def test_q_quits_and_saves_the_cursor(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("j", "j", "q")
    assert app.return_code == 0
    assert session.service.get(session.session_id).meta().cursor == IDS[2]


async def test_capital_s_opens_the_sessions_screen(session: Session) -> None:
    from foley_tui.screens.sessions import SessionsScreen

    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("S")
        assert isinstance(app.screen, SessionsScreen)


async def test_keymap_remaps_by_binding_id(session: Session) -> None:
    app = session.app(keymap={"pick": "ctrl+k", "cursor-down": "J"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("p")  # no longer bound
        assert session.pick_file(IDS[0]) is None
        await pilot.press("ctrl+k")
        assert session.pick_file(IDS[0]) is not None
        await pilot.press("J")
        assert current(app) == IDS[2]


async def test_auto_advance_off(session: Session) -> None:
    app = session.app(settings=Settings(auto_advance=False))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("x")
        assert session.reject_file(IDS[0]) is not None
        assert current(app) == IDS[0]


async def test_autoplay_plays_the_candidate_auto_advance_lands_on(session: Session) -> None:
    player = FakePlayer()
    app = session.app(player)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("a", "p")
        assert session.pick_file(IDS[0]) is not None
        assert current(app) == IDS[1]
        assert player.played() == [("tone-1.wav", 0.0)]


async def test_sessions_screen_switches_to_another_session(session: Session) -> None:
    from foley_tui.screens.sessions import SessionsScreen
    from tests.ui.seed import candidate

    other = session.service.create("Another scene")
    session.service.get(other).cache_candidates([candidate(3, None)])
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("S")
        assert isinstance(app.screen, SessionsScreen)
        await wait_workers(app)
        await pilot.pause()
        table = app.screen.query_one("DataTable")
        table.move_cursor(row=table.get_row_index(other))  # type: ignore[attr-defined]
        await pilot.press("o")
        await ready(pilot)
        assert app.store.session_id == other
        assert current(app) == "sonniss:1003"
