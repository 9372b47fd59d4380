"""The timeline's headless model: lanes, cursor, viewport, ruler, nudge/tap edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from foley_tui.scene.build import build_scene
from foley_tui.scene.narration import make_narration
from foley_tui.scene.timeline import NARRATION, UNPLACED, TimelineModel
from foley_tui.store import SessionService
from tests.scene_fixtures import ToneSession, make_tone_session


def _model(data_dir: Path, tmp_path: Path) -> tuple[TimelineModel, ToneSession]:
    tones = make_tone_session(data_dir, tmp_path / "audio", 48000)
    store = SessionService(data_dir).get(tones.session_id)
    narration = make_narration(tones.narration_path, tones.words_path)
    return TimelineModel(build_scene(store, narration=narration)), tones


def test_lanes_cursor_and_unplaced(data_dir: Path, tmp_path: Path) -> None:
    model, tones = _model(data_dir, tmp_path)
    assert model.lanes() == [NARRATION, "voice", "sfx_fg", "ambience", "stinger", "music", UNPLACED]
    order = [p.sound_id for p in model.order()]
    ids = tones.ids
    assert order[0] == ids["numeric"] and order[-1] == ids["zebra"]
    assert model.cursor == ids["numeric"]
    assert [p.sound_id for p in model.in_lane(UNPLACED)] == [ids["zebra"]]
    assert model.move(1) is not None and model.cursor == ids["slam"]
    model.move(100)
    assert model.cursor == ids["zebra"]
    model.move(-100)
    assert model.cursor == ids["numeric"]
    # Down a lane: from sfx_fg at 0.5 s to the nearest ambience pick (the rain bed).
    assert model.move_lane(1) is not None and model.cursor == ids["rain"]


def test_viewport_ruler_and_bars(data_dir: Path, tmp_path: Path) -> None:
    model, tones = _model(data_dir, tmp_path)
    width = 40
    rain = model.pick(tones.ids["rain"])
    assert rain is not None
    assert model.span_of(rain, width) == (7, 10)  # 1.8 s to 2.6 s at 0.25 s per cell
    ruler = model.ruler(width)
    assert ruler.startswith("|0:00") and "|0:05" in ruler and len(ruler) == width
    model.zoom_step(-2, width)  # zoom in around the cursor (0.5 s)
    assert model.zoom == 0.1
    assert model.column_of(0.5) == 2  # the cursor stays where it was on screen
    assert model.offset_s == pytest.approx(0.3)
    assert model.ruler(width)[7:12] == "|0:01"
    model.scroll(30, width)
    assert model.offset_s == pytest.approx(model.end_s - width * model.zoom / 2)  # clamped
    model.ensure_visible(width)
    assert model.offset_s <= 0.5 < model.offset_s + width * model.zoom


def test_nudge_and_tap_edits(data_dir: Path, tmp_path: Path) -> None:
    model, tones = _model(data_dir, tmp_path)
    edit = model.nudge(0.1)
    assert edit is not None
    assert (edit.sound_id, edit.onset, edit.replaces_anchor) == (tones.ids["numeric"], 0.6, None)
    model.cursor = tones.ids["slam"]  # its own anchor: on 'slammed' (0.8 s)
    edit = model.nudge(-0.05)
    assert edit is not None and edit.onset == 0.75 and edit.replaces_anchor == "on 'slammed'"
    model.cursor = tones.ids["rain"]  # the event's suggestion: nothing of the pick's replaced
    tap = model.tap(2.3456, 0.0123)
    assert tap is not None and tap.onset == 2.333 and tap.replaces_anchor is None


def test_mute_solo_and_loop_region(data_dir: Path, tmp_path: Path) -> None:
    model, _ = _model(data_dir, tmp_path)
    assert model.toggle_mute("sfx_fg") and not model.audible("sfx_fg")
    assert model.toggle_solo("ambience")
    assert model.audible("ambience") and not model.audible(NARRATION)
    assert not model.toggle_solo("ambience") and model.audible(NARRATION)
    assert model.set_loop_edge(1.0, start=True) == (1.0, model.end_s)
    assert model.set_loop_edge(2.0, start=False) == (1.0, 2.0)
    assert model.set_loop_edge(0.5, start=False) == (0.0, 0.5)
