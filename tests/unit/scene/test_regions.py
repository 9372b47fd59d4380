"""A pick's region on the scene: the flat mix places that part of the sound at its onset
(its in-point's sample on the onset's sample), the timeline draws it that long, and
``scene --json`` reports it; the woven mix plays the whole sound and says so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.cli import main
from foley_tui.scene.build import build_scene
from foley_tui.scene.contract import FLAT, REGION_NOTE, WOVEN
from foley_tui.scene.narration import make_narration
from foley_tui.scene.timeline import TimelineModel
from foley_tui.store import SessionService
from tests.scene_fixtures import (
    REGION_IN,
    REGION_ONSET,
    REGION_OUT,
    ToneSession,
    add_region_pick,
    attach_narration,
    expected_mix,
    make_tone_session,
    placed_region,
    region_take,
)

RATE = 48000
Capture = pytest.CaptureFixture[str]


@pytest.fixture
def tones(data_dir: Path, tmp_path: Path) -> ToneSession:
    made = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(made) == 0
    return made


def test_render_scene_flat_places_the_regions_in_point_on_its_onset(
    tmp_path: Path, tones: ToneSession, capsys: Capture
) -> None:
    add_region_pick(tones, tmp_path / "audio")
    out = tmp_path / "mix.wav"
    assert main(["render-scene", tones.session_id, "-o", str(out), "--float", "--mix", "flat"]) == 0
    mix, rate = sf.read(str(out), dtype="float32")
    assert rate == RATE
    others = expected_mix(RATE)
    assert len(mix) == len(others)
    np.testing.assert_allclose(mix, others + placed_region(RATE, len(others)), atol=1e-6)
    # Sample-exact: nothing of the take before the onset's sample, whose value is the
    # in-point's sample; nothing after the out point's.
    take = mix - others
    onset, first, last = (int(s * RATE) for s in (REGION_ONSET, REGION_IN, REGION_OUT))
    assert np.max(np.abs(take[:onset])) < 1e-6
    np.testing.assert_allclose(take[onset], region_take(RATE)[first], atol=1e-6)
    end = onset + last - first
    np.testing.assert_allclose(take[end - 1], region_take(RATE)[last - 1], atol=1e-6)
    assert np.max(np.abs(take[end:])) < 1e-6


def test_the_woven_mix_plays_the_whole_sound_and_says_so(
    tmp_path: Path, data_dir: Path, tones: ToneSession, capsys: Capture
) -> None:
    sid = add_region_pick(tones, tmp_path / "audio")
    store = SessionService(data_dir).get(tones.session_id)
    model = build_scene(store)
    [flat] = [v for v in model.to_scene(mix=FLAT).voices if v.key == sid]
    assert (flat.onset_s, flat.in_point_s, flat.out_point_s) == (
        REGION_ONSET,
        REGION_IN,
        REGION_OUT,
    )
    [woven] = [v for v in model.to_scene(mix=WOVEN, master=False).voices if v.key == sid]
    assert (woven.onset_s, woven.in_point_s, woven.out_point_s) == (REGION_ONSET, 0.0, None)
    pick = model.pick(sid)
    assert pick is not None and model.woven_note(pick) == REGION_NOTE
    capsys.readouterr()
    out = tmp_path / "woven.wav"
    assert main(["render-scene", tones.session_id, "-o", str(out), "--mix", "woven"]) == 0
    assert f"take: {REGION_NOTE}" in capsys.readouterr().err
    # The woven bounce holds the take's start (before its in-point) at its onset.
    mix, _ = sf.read(str(out), dtype="float32")
    onset = int(REGION_ONSET * RATE)
    assert np.max(np.abs(mix[onset : onset + int(REGION_IN * RATE) // 2])) > 1e-3


def test_scene_json_reports_the_region_and_its_in_point(
    tmp_path: Path, tones: ToneSession, capsys: Capture
) -> None:
    sid = add_region_pick(tones, tmp_path / "audio")
    capsys.readouterr()
    assert main(["scene", tones.session_id, "--json", "--rate", "44100"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["picks"] if r["sound_id"] == sid)
    assert row["region"] == {"in_s": REGION_IN, "out_s": REGION_OUT}
    assert row["frame"] == int(REGION_ONSET * 44100)
    assert (row["in_point_s"], row["in_point_frame"]) == (REGION_IN, int(REGION_IN * 44100))
    assert row["length_frames"] == int(REGION_OUT * 44100) - int(REGION_IN * 44100)
    assert row["length_s"] == pytest.approx(REGION_OUT - REGION_IN)
    assert row["woven_note"] == REGION_NOTE
    assert row["gain_db"]["woven"] is not None  # woven: the whole sound, at its gain
    assert main(["scene", tones.session_id]) == 0
    assert REGION_NOTE in capsys.readouterr().out


def test_the_timeline_draws_the_regions_length(
    tmp_path: Path, data_dir: Path, tones: ToneSession
) -> None:
    sid = add_region_pick(tones, tmp_path / "audio")
    store = SessionService(data_dir).get(tones.session_id)
    narration = make_narration(tones.narration_path, tones.words_path)
    timeline = TimelineModel(build_scene(store, narration=narration))
    pick = timeline.pick(sid)
    assert pick is not None
    # 0.25 s a cell: 1.05 s to 1.35 s (the region's 0.3 s, not the take's 0.8 s).
    assert timeline.zoom == 0.25
    assert timeline.span_of(pick, 40) == (4, 5)
    timeline.mix = WOVEN
    assert REGION_NOTE in timeline.describe(pick)  # the woven mix's status line says so


def test_an_in_point_alone_plays_to_the_end_and_a_bed_stops_at_the_out_point(
    tmp_path: Path, data_dir: Path, tones: ToneSession
) -> None:
    sid = add_region_pick(tones, tmp_path / "audio")
    store = SessionService(data_dir).get(tones.session_id)
    assert main(["pick", tones.session_id, sid, "--out", "none"]) == 0
    pick = build_scene(store).pick(sid)
    assert pick is not None and pick.clip is not None
    assert pick.length_s == pytest.approx(0.8 - REGION_IN)
    assert pick.clip.length_frames(RATE, round(0.8 * RATE)) == round(0.8 * RATE) - int(
        REGION_IN * RATE
    )
    # On a bed's sentence (0.8 s, looping), a 0.3 s region plays once and stops.
    assert main(["pick", tones.session_id, sid, "--out", str(REGION_OUT)]) == 0
    store.picks_ns[sid] = {"sound_id": sid, "layer": "ambience", "onset": "during 'rain'"}
    pick = build_scene(store).pick(sid)
    assert pick is not None and pick.clip is not None and pick.woven_clip is not None
    assert pick.clip.length_frames(RATE, round(0.8 * RATE)) == int(REGION_OUT * RATE) - int(
        REGION_IN * RATE
    )
    assert pick.woven_clip.in_point_s == 0.0 and pick.woven_clip.span_s == pytest.approx(0.8)
