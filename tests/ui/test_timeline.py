"""The timeline screen through Pilot, checked against the files on disk: open and leave,
move, nudge (and the question before replacing an anchor), layer, undo, tap, mute/solo,
play the scene; and ``C`` in the list (a candidate in context)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from foley_tui.app.foley_app import FoleyApp
from foley_tui.audio.base import SCENE_HOW, Scene
from foley_tui.config import Config, Settings
from foley_tui.scene.narration import make_narration, write_narration
from foley_tui.screens.sessions_modals import ConfirmModal
from foley_tui.screens.timeline.screen import TimelineScreen
from foley_tui.store import SessionService, encode_key
from tests.fakes import FakePlayer
from tests.scene_fixtures import ToneSession, make_tone_session
from tests.ui.conftest import settle, wait_workers

SIZE = (120, 30)


def _tones(data_dir: Path, tmp_path: Path) -> ToneSession:
    tones = make_tone_session(data_dir, tmp_path / "audio", 48000)
    store = SessionService(data_dir).get(tones.session_id)
    write_narration(store, make_narration(tones.narration_path, tones.words_path))
    return tones


def _app(data_dir: Path, tones: ToneSession, player: FakePlayer, **settings: Any) -> FoleyApp:
    service = SessionService(data_dir)
    config = Config(settings=Settings(**settings))
    return FoleyApp(service.get(tones.session_id), player, config, service)


def _pick(data_dir: Path, tones: ToneSession, name: str) -> dict[str, Any]:
    path = data_dir / "sessions" / tones.session_id / "picks" / encode_key(tones.ids[name])
    data: dict[str, Any] = json.loads(path.read_text())
    return data


async def _timeline(pilot: Pilot[Any]) -> TimelineScreen:
    """Press ``t`` and wait for the timeline (its picks are read in a worker first)."""
    await settle(pilot)
    await pilot.press("t")
    for _ in range(200):
        await pilot.pause(0.01)
        if isinstance(pilot.app.screen, TimelineScreen):
            break
    screen = pilot.app.screen
    assert isinstance(screen, TimelineScreen)
    return screen


async def _written(pilot: Pilot[Any], screen: TimelineScreen) -> None:
    """Wait until every store call the timeline asked for has its answer shown (they run
    in its writer's worker)."""
    for _ in range(500):
        await wait_workers(pilot.app)
        await pilot.pause()
        if not screen.writer.busy and screen.writer.saving == 0:
            return
    raise AssertionError("the timeline's writes never settled")


async def test_open_move_nudge_layer_undo(data_dir: Path, tmp_path: Path) -> None:
    tones = _tones(data_dir, tmp_path)
    app = _app(data_dir, tones, FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        assert screen.model.cursor == tones.ids["numeric"]
        await pilot.press("]")  # numeric 0.5 -> 0.6, written through
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "numeric")["onset"] == 0.6
        assert screen.model.current is not None and screen.model.current.onset_s == 0.6
        await pilot.press("2")  # the layer it has: sfx_fg
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "numeric")["layer"] == "sfx_fg"
        await pilot.press("4")
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "numeric")["layer"] == "stinger"
        assert screen.model.lane_of(screen.model.current) == "stinger"
        await pilot.press("u")
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "numeric")["layer"] == "sfx_fg"
        await pilot.press("u")
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "numeric")["onset"] == 0.5
        await pilot.press("right")
        assert screen.model.cursor == tones.ids["slam"]
        await pilot.press("escape")  # nothing plays: back to the list
        await pilot.pause()
        assert not isinstance(app.screen, TimelineScreen)


async def test_nudging_an_anchor_asks_first(data_dir: Path, tmp_path: Path) -> None:
    tones = _tones(data_dir, tmp_path)
    app = _app(data_dir, tones, FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        await pilot.press("right")  # slam: on 'slammed' (0.8 s)
        await pilot.press("]")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "slam")["onset"] == "on 'slammed'"  # kept
        await pilot.press("]")
        await pilot.pause()
        await pilot.press("y")
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "slam")["onset"] == 0.9
        assert screen.model.current is not None and screen.model.current.onset_s == 0.9


async def test_play_scene_mute_solo_tap(data_dir: Path, tmp_path: Path) -> None:
    tones = _tones(data_dir, tmp_path)
    player = FakePlayer()
    player.latency_s = 0.034  # what the device reports
    app = _app(data_dir, tones, player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        for _ in range(1000):  # the scene is prepared in a worker when the timeline opens
            if screen.playback.prefetched is not None:
                break
            await pilot.pause(0.01)
        assert screen.playback.prefetched is not None
        await pilot.press("P")  # hands the prepared scene to the player at once
        played = [args for name, args in player.calls if name == "play_scene"]
        assert played, player.names()
        scene = played[-1][0]
        assert isinstance(scene, Scene)
        lanes = sorted(v.lane for v in scene.voices)
        assert lanes == ["ambience", "narration", "sfx_fg", "sfx_fg", "stinger"]  # no zebra
        assert player.status().source is not None
        assert player.status().source.how == SCENE_HOW  # type: ignore[union-attr]
        await pilot.press("m")  # mute the cursor's lane (sfx_fg) while it plays
        assert "sfx_fg" in scene.muted
        await pilot.press("M")  # solo it too
        assert scene.soloed == frozenset({"sfx_fg"})
        await pilot.press("M", "m")
        assert not scene.muted and not scene.soloed
        player.position_s = 1.234  # the playhead, read on the screen's next tick
        for _ in range(600):
            if screen.view.playhead_s == 1.234:
                break
            await pilot.pause(0.05)
        assert screen.view.playhead_s == 1.234
        await pilot.press("T")  # numeric pick: no question; heard 34 ms before the key
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "numeric")["onset"] == 1.2
        await pilot.press("escape")  # stops the scene, stays
        assert player.names()[-1] == "stop"
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("t")
        await pilot.pause()
        assert not isinstance(app.screen, TimelineScreen)


async def test_c_plays_a_candidate_in_context(data_dir: Path, tmp_path: Path) -> None:
    tones = _tones(data_dir, tmp_path)
    player = FakePlayer()
    app = _app(data_dir, tones, player, context_pre_roll_s=0.25)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.audition
        assert screen is not None
        row = screen.listing.view.index(tones.ids["alt"])
        screen.candidate_list.move_to(row)
        await pilot.pause()
        await pilot.press("C")
        await wait_workers(app)  # the scene is built in a worker
        calls = [args for name, args in player.calls if name == "play_scene"]
        assert calls
        scene, start, _end = calls[-1]
        assert abs(start - 0.15) < 1e-9  # on 'door' (0.4 s) less the 0.25 s pre-roll
        keys = {v.key for v in scene.voices}
        assert tones.ids["alt"] in keys and tones.ids["slam"] not in keys


def test_timeline_keys_never_shadow_an_audition_key_it_offers() -> None:
    from foley_tui.keys.bindings import binding_objects
    from foley_tui.screens.timeline.screen import TIMELINE_BINDINGS

    ALL_BINDINGS = binding_objects("audition") + binding_objects("candidate-list")
    audition = {key: b.id for b in ALL_BINDINGS for key in b.key.split(",")}
    offered = {b.id for b in TIMELINE_BINDINGS}
    for binding in TIMELINE_BINDINGS:
        for key in binding.key.split(","):
            theirs = audition.get(key)
            if theirs is not None and theirs in offered:
                assert theirs == binding.id, (key, theirs, binding.id)


def test_the_deferred_player_reports_the_devices_latency() -> None:
    from foley_tui.audio.deferred import DeferredPlayer

    fake = FakePlayer()
    fake.latency_s = 0.05
    deferred = DeferredPlayer(lambda: fake)
    assert deferred.latency_s == 0.0  # nothing to report before the device is up
    deferred.start()
    assert deferred.wait_ready(30.0)
    assert deferred.latency_s == 0.05


async def test_zoom_scroll_loop_region_and_the_unplaced_lane(
    data_dir: Path, tmp_path: Path
) -> None:
    tones = _tones(data_dir, tmp_path)
    player = FakePlayer()
    app = _app(data_dir, tones, player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        view = screen.view
        lanes = screen.model.lanes()
        unplaced = view.render_line(2 + lanes.index("unplaced")).text
        assert "zebra [on 'zebra']" in unplaced and "0:00" in unplaced
        zoom = screen.model.zoom
        await pilot.press(">")
        assert screen.model.zoom < zoom
        await pilot.press("<", "<")
        assert screen.model.zoom > zoom
        await pilot.press(">", ">", ">", ">", ">", ">", "shift+right")  # 0.01 s/col
        assert screen.model.offset_s > 0
        # A loop region around the slam (0.8 s): from the pick, to the pick's end.
        await pilot.press("shift+left", "right", "(", ")")
        region = screen.model.loop_region
        assert region is not None and region[0] == 0.8 and region[1] > 0.8
        await pilot.press("r", "P")
        scene, start, _ = [a for n, a in player.calls if n == "play_scene"][-1]
        assert start == 0.8 and scene.loop_region == region


async def test_an_outside_change_redraws_the_timeline(data_dir: Path, tmp_path: Path) -> None:
    tones = _tones(data_dir, tmp_path)
    app = _app(data_dir, tones, FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        other = SessionService(data_dir).get(tones.session_id)  # another process's view
        other.set_onset(tones.ids["zebra"], 2.0)  # the agent places the unplaced pick
        for _ in range(60):
            await pilot.pause(0.1)
            pick = screen.model.pick(tones.ids["zebra"])
            if pick is not None and pick.placed:
                break
        pick = screen.model.pick(tones.ids["zebra"])
        assert pick is not None and pick.onset_s == 2.0
        assert "unplaced" not in screen.model.lanes()


async def test_the_onset_dialog_says_how_foley_reads_it(data_dir: Path, tmp_path: Path) -> None:
    from textual.widgets import Input, Label

    from foley_tui.screens.onset import OnsetScreen

    tones = _tones(data_dir, tmp_path)
    app = _app(data_dir, tones, FakePlayer())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        await pilot.press("right", "o")  # slam: on 'slammed', sfx_fg
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, OnsetScreen)
        reading = dialog.query_one("#reading", Label)
        assert "word anchor on 'slammed' → 'slammed.' at 0:00.800" in str(reading.render())
        field = dialog.query_one(Input)
        field.value = "on 'zebra'"
        await pilot.pause()
        assert "no word matches" in str(reading.render())
        field.value = "1:02.5"
        await pilot.pause()
        assert "absolute: 1:02.500" in str(reading.render())
        await pilot.press("enter")
        await _written(pilot, screen)
        assert _pick(data_dir, tones, "slam")["onset"] == 62.5


async def test_the_timeline_reads_its_picks_off_the_ui_thread(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``t`` returns at once: the picks and the change token are read in a worker, and
    the timeline appears when they are in."""
    import threading

    from foley_tui.scene import build as scene_build

    tones = _tones(data_dir, tmp_path)
    app = _app(data_dir, tones, FakePlayer())
    threads: list[bool] = []
    real_build = scene_build.build_scene

    def noting_build(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return real_build(*args, **kwargs)

    monkeypatch.setattr(scene_build, "build_scene", noting_build)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        assert threads == [False]
        assert screen.model.cursor == tones.ids["numeric"]


async def test_w_switches_the_woven_and_the_flat_mix(data_dir: Path, tmp_path: Path) -> None:
    """The timeline plays the woven mix first and says so; ``w`` switches to the flat one
    (and back), the title and the status say which plays, and ``C`` then plays the mix the
    timeline chose. Woven: foley's gains, mono, a voice pick and what is past the
    narration's end left out; flat: every sound at unity."""
    from foley_tui.scene.contract import ClipPlacement, woven_gain

    tones = _tones(data_dir, tmp_path)
    store = SessionService(data_dir).get(tones.session_id)
    store.picks_ns[tones.ids["alt"]] = {"sound_id": tones.ids["alt"], "layer": "voice", "onset": 1}
    player = FakePlayer()
    app = _app(data_dir, tones, player)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _timeline(pilot)
        title = str(screen.query_one("#timeline-title").render())
        assert "woven mix" in title
        await pilot.press("P")
        await wait_workers(app)
        scene = [a for n, a in player.calls if n == "play_scene"][-1][0]
        assert scene.mix == "woven" and scene.master_gain_db != 0.0
        voices = {v.key: v for v in scene.voices}
        assert tones.ids["alt"] not in voices  # weave does not render the voice layer
        numeric = voices[tones.ids["numeric"]]
        want = woven_gain(numeric.path, "sfx_fg", ClipPlacement(0.5)).channel_gain
        assert numeric.mono and abs(numeric.gain - want) < 1e-9
        assert scene.duck is not None and "ambience" in scene.ducked
        for _ in range(10):  # to the first pick, then along the picks to the voice one
            await pilot.press("h")
        for _ in range(10):
            if screen.model.cursor == tones.ids["alt"]:
                break
            await pilot.press("l")
        assert screen.model.cursor == tones.ids["alt"]
        status = str(screen.query_one("#timeline-status").render())
        assert "weave does not render the voice layer" in status
        await pilot.press("escape")  # stop
        await pilot.press("w")
        await wait_workers(app)
        assert "flat mix" in str(screen.query_one("#timeline-title").render())
        assert "weave does not" not in str(screen.query_one("#timeline-status").render())
        await pilot.press("P")
        await wait_workers(app)
        scene = [a for n, a in player.calls if n == "play_scene"][-1][0]
        assert scene.mix == "flat" and scene.master_gain_db == 0.0
        assert all(v.gain == 1.0 and not v.mono for v in scene.voices)
        assert tones.ids["alt"] in {v.key for v in scene.voices}
        await pilot.press("escape", "t")
        await pilot.pause()
        audition = app.audition
        assert audition is not None and audition.in_context.mix == "flat"
