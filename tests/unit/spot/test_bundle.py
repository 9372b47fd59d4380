"""The spot bundle, written by the real path and read back by readers that are not its
writers (ffprobe, wavinfo, a plain-text RPP parse, opentimelineio, pyaaf2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from foley_tui.scene.build import build_scene
from foley_tui.spot.bundle import SpotCancelled, spot
from foley_tui.spot.plan import SpotError, SpotOptions
from foley_tui.store import SessionService
from foley_tui.store.local import candidate_from_audio
from tests.scene_fixtures import TONES, ToneSession, attach_narration, make_tone_session, tone
from tests.spot_check import check_bundle, ffprobe, parse_rpp, read_cues, scene_rows, scene_samples

SOURCE_RATE = 44100  # the copies are converted to 48 kHz
RATE = 48000


@pytest.fixture
def tones(data_dir: Path, tmp_path: Path) -> ToneSession:
    made = make_tone_session(data_dir, tmp_path / "audio", SOURCE_RATE)
    assert attach_narration(made) == 0
    return made


def _spot(data_dir: Path, session: str, out: Path, **options: Any) -> Any:
    store = SessionService(data_dir).get(session)
    return spot(store, build_scene(store), out, SpotOptions(**options))


def test_every_format_lands_every_pick_where_scene_places_it(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bundle"
    result = _spot(data_dir, tones.session_id, out, start_tc="01:00:00:00", fps="25")
    rows = scene_rows(tones.session_id, capsys)
    expected = scene_samples(rows, RATE)
    # The anchored picks are there, at their words' times: the contract is the scene's.
    placed = {t.name: t.expected_onset for t in TONES if t.expected_onset is not None}
    assert {tones.ids[n] for n in placed} == set(expected)
    for name, onset in placed.items():
        assert abs(expected[tones.ids[name]] - onset * RATE) <= 1
    read = check_bundle(out, expected, start_samples=3600 * RATE)
    # bext: TimeReference is the start timecode plus the placement (no pre-handle here).
    for sid, stamp in read["stamps"].items():
        assert stamp == 3600 * RATE + expected[sid]
    # The unplaced anchor is left out, listed in the cue sheet and the summary with why.
    zebra = tones.ids["zebra"]
    left = [r for r in read_cues(out / "cues.csv") if r["sound_id"] == zebra]
    assert left and left[0]["status"] == "left out" and "no word matches" in left[0]["note"]
    assert any("zebra" in line and "left out" in line for line in result.summary())
    # Markers: each scene event and each word an anchor landed on.
    names = {name for _, name in read["markers"]}
    assert {"a door slams", "slammed.", "rain on a roof", "fell"} <= names
    # The narration is on its own track everywhere.
    assert any(i.track == "narration" and i.position_s == 0 for i in read["rpp"])
    # The looping bed fills its sentence span in its copy.
    rain = next(r for r in read["cues"] if r["sound_id"] == tones.ids["rain"])
    info = sf.info(str(out / rain["file"]))
    assert info.frames == round(0.8 * RATE) and info.samplerate == RATE
    # AAF: a timecode slot at the start timecode, the clip name is the caption.
    assert read["timecode"] == {"start": 90000, "fps": 25, "drop": False}
    assert {c.name for c in read["aaf"]} >= {"numeric", "slam", "rain", "sting"}
    for name in ("README.txt", "cues.csv", "scene.RPP", "scene.aaf", "scene.otio", "mix.wav"):
        assert (out / name).is_file(), name
    assert not list(tmp_path.glob(".bundle.*")), "the temporary folder is gone"


def test_clip_gains_are_the_woven_static_gain_and_copies_are_unity(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bundle"
    from tests.spot_check import read_aaf

    _spot(
        data_dir,
        tones.session_id,
        out,
        rate=SOURCE_RATE,
        formats=frozenset({"bwf", "rpp", "csv", "aaf", "otio"}),
    )
    items, _, _ = parse_rpp((out / "scene.RPP").read_text())
    # Each item's clip gain is the woven mix's, as `scene --json` reports it.
    woven = {r["caption"]: r["gain_db"]["woven"] for r in scene_rows(tones.session_id, capsys)}
    for item in items:
        if item.track == "narration":
            assert item.volume == pytest.approx(1.0)
            continue
        assert woven[item.name] is not None and woven[item.name] != 0.0
        assert 20 * np.log10(item.volume) == pytest.approx(woven[item.name], abs=0.001)
    # The AAF's Audio Gain amplitude on every slot of a clip is the same gain.
    clips, _ = read_aaf(out / "scene.aaf")
    assert {c.name for c in clips} == {i.name for i in items}
    for clip in clips:
        if clip.slot.startswith("narration"):
            assert clip.gain == 1.0
            continue
        assert 20 * np.log10(clip.gain) == pytest.approx(woven[clip.name], abs=0.001)
    # The copy itself is at unity gain: the source's samples, to 24 bits.
    numeric = next(i for i in items if i.name == "numeric")
    copy, _ = sf.read(str(out / numeric.file), dtype="float32")
    assert np.max(np.abs(copy - tone(SOURCE_RATE, 0.2, 1000.0))) < 2e-7


def test_mix_is_what_render_scene_bounces(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    from foley_tui.cli import main

    out = tmp_path / "bundle"
    _spot(data_dir, tones.session_id, out, formats=frozenset({"mix", "csv"}))
    assert main(["render-scene", tones.session_id, "-o", str(tmp_path / "ref.wav")]) == 0
    ours, _ = sf.read(str(out / "mix.wav"), dtype="float32")
    ref, _ = sf.read(str(tmp_path / "ref.wav"), dtype="float32")
    assert ours.shape == ref.shape and np.array_equal(ours, ref)


def test_bit_depths_rates_and_timecode_rates(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = scene_rows(tones.session_id, capsys)
    cases: list[tuple[dict[str, Any], str, int, int]] = [
        (
            {"bits": 16, "fps": "29.97df", "start_tc": "01:00:00;00"},
            "pcm_s16le",
            48000,
            round(107892 * 1001 / 30000 * 48000),
        ),
        (
            {"float_": True, "fps": "23.976", "start_tc": "01:00:00:00", "rate": 96000},
            "pcm_f32le",
            96000,
            round(86400 * 1001 / 24000 * 96000),
        ),
        (
            {"fps": "29.97", "start_tc": "00:59:59:29"},
            "pcm_s24le",
            48000,
            round((3600 * 30 - 1) * 1001 / 30000 * 48000),
        ),
        (
            {"fps": "24", "start_tc": "10:00:00:00", "rate": 44100},
            "pcm_s24le",
            44100,
            36000 * 44100,
        ),
        ({"fps": "30", "start_tc": "00:00:01:15"}, "pcm_s24le", 48000, 72000),
    ]
    for i, (options, codec, rate, start) in enumerate(cases):
        out = tmp_path / f"b{i}"
        _spot(data_dir, tones.session_id, out, **options, formats=frozenset({"bwf", "otio", "csv"}))
        read = check_bundle(
            out,
            scene_samples(rows, rate),
            rate=rate,
            start_samples=start,
            formats=frozenset({"bwf", "otio", "csv"}),
        )
        first = read["cues"][0]
        assert ffprobe(out / first["file"])["streams"][0]["codec_name"] == codec


def test_overlapping_picks_spill_onto_numbered_tracks(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SessionService(data_dir).get(tones.session_id)
    path = tmp_path / "audio" / "over.wav"
    sf.write(str(path), tone(SOURCE_RATE, 0.3, 900.0), SOURCE_RATE)
    candidate = candidate_from_audio(path)
    store.cache_candidates([candidate])
    sid = candidate["sound"]["id"]
    store.picks_ns[sid] = {"sound_id": sid, "layer": "sfx_fg", "onset": 0.6}  # over "numeric"
    out = tmp_path / "bundle"
    _spot(data_dir, tones.session_id, out)
    read = check_bundle(out, scene_samples(scene_rows(tones.session_id, capsys), RATE))
    tracks = {c.track for c in read["otio"]}
    assert {"sfx_fg", "sfx_fg (2)"} <= tracks
    assert next(c.track for c in read["otio"] if c.metadata["sound_id"] == sid) == "sfx_fg (2)"
    assert {c.slot for c in read["aaf"]} >= {"sfx_fg L", "sfx_fg (2) L", "sfx_fg (2) R"}


def test_handles_keep_the_tail_a_bed_cuts(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SessionService(data_dir).get(tones.session_id)
    path = tmp_path / "audio" / "bed.wav"
    sf.write(str(path), tone(SOURCE_RATE, 2.0, 400.0), SOURCE_RATE)
    candidate = candidate_from_audio(path)
    candidate["event"] = {"query": "wind", "layer": "ambience", "onset": "during 'rain'"}
    store.cache_candidates([candidate])
    sid = candidate["sound"]["id"]
    store.picks_ns[sid] = {"sound_id": sid, "layer": None, "onset": None}
    out = tmp_path / "bundle"
    _spot(data_dir, tones.session_id, out, handles_s=0.5)
    read = check_bundle(out, scene_samples(scene_rows(tones.session_id, capsys), RATE))
    row = next(r for r in read["cues"] if r["sound_id"] == sid)
    # The bed plays its sentence span (0.8 s); half a second of the rest is kept after it.
    assert sf.info(str(out / row["file"])).frames == round(0.8 * RATE) + round(0.5 * RATE)
    item = next(i for i in read["rpp"] if i.file == row["file"])
    assert item.length_s == pytest.approx(0.8) and item.offset_s == 0


def test_refuses_a_non_empty_folder_and_force_replaces_it_whole(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    out = tmp_path / "bundle"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(SpotError, match="not empty"):
        _spot(data_dir, tones.session_id, out)
    assert (out / "mine.txt").read_text() == "keep me"
    _spot(data_dir, tones.session_id, out, force=True, formats=frozenset({"csv"}))
    assert not (out / "mine.txt").exists() and (out / "cues.csv").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_cancel_leaves_nothing(data_dir: Path, tmp_path: Path, tones: ToneSession) -> None:
    store = SessionService(data_dir).get(tones.session_id)
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(SpotCancelled):
        spot(store, build_scene(store), tmp_path / "bundle", SpotOptions(), cancelled=cancelled)
    assert not (tmp_path / "bundle").exists()
    assert [p for p in tmp_path.iterdir() if p.name.startswith(".bundle")] == []


def test_missing_and_undecodable_audio_is_listed_and_the_rest_written(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    (tmp_path / "audio" / "slam.wav").unlink()
    (tmp_path / "audio" / "sting.wav").write_bytes(b"RIFF\0\0\0\0WAVEjunk" * 8)
    out = tmp_path / "bundle"
    result = _spot(data_dir, tones.session_id, out)
    cues = read_cues(out / "cues.csv")
    status = {r["caption"]: (r["status"], r["note"]) for r in cues}
    assert status["numeric"][0] == "placed" and status["rain"][0] == "placed"
    assert status["slam"][0] == "left out" and "no audio" in status["slam"][1]
    assert status["sting"][0] == "left out" and "audio" in status["sting"][1]
    assert any("slam" in line for line in result.summary())


def test_audio_that_stops_decoding_mid_copy_is_left_out_of_every_project(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sound whose header reads but whose body does not decode fails while it is
    copied, after the AAF was described: it is left out of the AAF too, and its copy
    is gone."""
    slam = tmp_path / "audio" / "slam.wav"
    data, rate = sf.read(str(slam), dtype="float32")
    sf.write(str(slam), np.tile(data, (8, 1)), rate, format="FLAC")  # sniffed, not named
    body = bytearray(slam.read_bytes())
    third = len(body) // 3
    body[third : third + 4000] = np.random.default_rng(3).bytes(4000)
    slam.write_bytes(bytes(body))
    rows = scene_rows(tones.session_id, capsys)
    out = tmp_path / "bundle"
    result = _spot(data_dir, tones.session_id, out)
    cues = read_cues(out / "cues.csv")
    row = next(r for r in cues if r["caption"] == "slam")
    assert row["status"] == "skipped" and "cannot read its audio" in row["note"]
    expected = scene_samples(rows, RATE)
    del expected[tones.ids["slam"]]
    read = check_bundle(out, expected)
    assert "slam" not in {c.name for c in read["aaf"]}
    assert not any("slam" in p.name for p in out.rglob("*.wav"))
    assert any("slam" in line and "skipped" in line for line in result.summary())


def test_no_placed_pick_says_so(data_dir: Path, tmp_path: Path) -> None:
    service = SessionService(data_dir)
    session = service.create("empty")
    with pytest.raises(SpotError, match="no placed pick"):
        _spot(data_dir, session, tmp_path / "bundle")
    assert not (tmp_path / "bundle").exists()


def test_unsafe_captions_become_safe_unique_names(data_dir: Path, tmp_path: Path) -> None:
    service = SessionService(data_dir)
    session = service.create("names")
    store = service.get(session)
    for i, caption in enumerate(["a/b\\c: d?", "bell\x07\x1b[31m", "é" * 250, "CON", "  ..  "]):
        path = tmp_path / f"s{i}.wav"
        sf.write(str(path), tone(RATE, 0.1, 500.0 + i), RATE)
        candidate = candidate_from_audio(path)
        candidate["sound"]["caption"] = caption
        store.cache_candidates([candidate])
        sid = candidate["sound"]["id"]
        store.picks_ns[sid] = {"sound_id": sid, "layer": "sfx_fg", "onset": float(i)}
    out = tmp_path / "bundle"
    _spot(data_dir, session, out, formats=frozenset({"bwf", "csv"}))
    files = sorted((out / "sfx_fg").iterdir())
    assert len(files) == 5
    for f in files:
        name = f.name
        assert len(name.encode()) <= 255
        assert not any(ch in name for ch in '/\\:?*"<>|') and all(ord(ch) >= 32 for ch in name)
        assert not name.startswith((" ", "."))
        assert not name.upper().startswith("CON.")


def test_stacked_and_sequential_layouts(data_dir: Path, tmp_path: Path) -> None:
    service = SessionService(data_dir)
    session = service.create("folder")
    store = service.get(session)
    for i in range(3):
        path = tmp_path / f"s{i}.wav"
        sf.write(str(path), tone(RATE, 0.5, 500.0 + i), RATE)
        candidate = candidate_from_audio(path)
        store.cache_candidates([candidate])
        sid = candidate["sound"]["id"]
        store.picks_ns[sid] = {"sound_id": sid, "layer": None, "onset": None}
    stacked = _spot(data_dir, session, tmp_path / "a", formats=frozenset({"csv", "rpp"}))
    assert any("stack at 0:00" in w for w in stacked.plan.warnings)
    items, _, _ = parse_rpp((tmp_path / "a" / "scene.RPP").read_text())
    assert [i.position_s for i in items] == [0, 0, 0]
    assert {i.track for i in items} == {"sfx_fg", "sfx_fg (2)", "sfx_fg (3)"}
    _spot(data_dir, session, tmp_path / "b", layout="sequential", formats=frozenset({"csv", "rpp"}))
    items, _, _ = parse_rpp((tmp_path / "b" / "scene.RPP").read_text())
    assert sorted(i.position_s for i in items) == pytest.approx([0.0, 1.5, 3.0])
    assert {i.track for i in items} == {"sfx_fg"}


def test_mute_solo_and_range_select_picks_at_absolute_positions(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    out = tmp_path / "a"
    _spot(data_dir, tones.session_id, out, mute=frozenset({"ambience"}), formats=frozenset({"csv"}))
    placed = {r["caption"] for r in read_cues(out / "cues.csv") if r["status"] == "placed"}
    assert placed == {"numeric", "slam", "sting"}
    out = tmp_path / "b"
    _spot(data_dir, tones.session_id, out, solo=frozenset({"sfx_fg"}), formats=frozenset({"csv"}))
    placed = {r["caption"] for r in read_cues(out / "cues.csv") if r["status"] == "placed"}
    assert placed == {"numeric", "slam"}
    out = tmp_path / "c"
    _spot(data_dir, tones.session_id, out, start_s=0.7, end_s=1.9, formats=frozenset({"csv"}))
    rows = [r for r in read_cues(out / "cues.csv") if r["status"] == "placed"]
    assert {r["caption"]: float(r["onset_s"]) for r in rows} == {
        "slam": 0.8,
        "rain": 1.8,
        "sting": 1.8,
    }


def test_attribution_goes_to_credits_and_the_ixml(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    from tests.spot_check import ixml_user

    store = SessionService(data_dir).get(tones.session_id)
    sid = tones.ids["slam"]
    candidate = store.candidate(sid)
    assert candidate is not None
    candidate["sound"]["license"].update(
        {
            "license_name": "CC BY 4.0",
            "license_url": "https://creativecommons.org/licenses/by/4.0/",
            "requires_attribution": True,
            "attribution_text": "Door slam by Jane Doe (freesound.org/s/1)",
            "creator_name": "Jane Doe",
        }
    )
    candidate["sound"]["ucs_category"] = "DOORS"
    candidate["sound"]["ucs_subcategory"] = "WOOD"
    store.candidates[sid] = candidate
    out = tmp_path / "bundle"
    _spot(data_dir, tones.session_id, out)
    credits = (out / "CREDITS.txt").read_text()
    assert "Door slam by Jane Doe" in credits and "CC BY 4.0" in credits
    assert "numeric" not in credits
    row = next(r for r in read_cues(out / "cues.csv") if r["sound_id"] == sid)
    assert row["licence"] == "CC BY 4.0" and row["attribution"].startswith("Door slam")
    user = ixml_user(out / row["file"])
    assert user["ATTRIBUTION"].startswith("Door slam") and user["CATEGORY"] == "DOORS"
    assert user["SUBCATEGORY"] == "WOOD" and user["EVENT"] == "a door slams"
    assert user["@SCENE"] == "a door slams"
    otio_meta = json.loads((out / "scene.otio").read_text())
    assert "Door slam by Jane Doe" in json.dumps(otio_meta)


def test_reference_points_the_projects_at_the_originals(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    out = tmp_path / "bundle"
    _spot(
        data_dir, tones.session_id, out, reference=True, formats=frozenset({"rpp", "otio", "csv"})
    )
    assert not any(p.suffix == ".wav" for p in out.rglob("*"))
    text = (out / "scene.RPP").read_text()
    items, _, _ = parse_rpp(text)
    for item in items:
        assert not Path(item.file).is_absolute()
        assert (out / item.file).resolve().is_file()
    assert "<SOURCE WAVE" in text and "<SOURCE FLAC" not in text  # the originals are WAVs


def test_remote_bytes_the_licence_forbids_keeping_are_listed_not_copied(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    store = SessionService(data_dir).get(tones.session_id)
    sid = "freesound:42"
    store.cache_candidates(
        [
            {
                "sound": {
                    "id": sid,
                    "caption": "a distant thunder roll",
                    "license": {"cache_bytes_ok": False, "requires_attribution": True},
                },
                "preview_uri": "https://cdn.example.org/previews/42.mp3",
                "event": None,
            }
        ]
    )
    store.picks_ns[sid] = {"sound_id": sid, "layer": "ambience", "onset": 1.0}
    out = tmp_path / "bundle"
    result = _spot(data_dir, tones.session_id, out)
    row = next(r for r in read_cues(out / "cues.csv") if r["sound_id"] == sid)
    assert row["status"] == "left out" and "remote audio" in row["note"]
    assert not any("thunder" in p.name for p in out.rglob("*.wav"))
    assert any("thunder" in line and "left out" in line for line in result.summary())


def test_a_region_spots_with_its_in_point_as_the_source_offset(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    """The clip plays the region (its length) from the in-point; with handles the copy
    starts that much earlier in the file (there is source before the in-point) and the
    projects start their source at the handle, so the region still lands on its onset."""
    from tests.scene_fixtures import REGION_IN, REGION_ONSET, REGION_OUT, add_region_pick
    from tests.spot_check import read_aaf, read_otio

    sid = add_region_pick(tones, tmp_path / "audio")
    rows = scene_rows(tones.session_id, capsys)
    expected = scene_samples(rows, RATE)
    position = int(REGION_ONSET * RATE)
    assert expected[sid] == position
    length = int(REGION_OUT * RATE) - int(REGION_IN * RATE)
    for handles, pre in ((0.0, 0), (0.1, round(0.1 * RATE))):
        out = tmp_path / f"bundle-{handles}"
        _spot(data_dir, tones.session_id, out, handles_s=handles)
        read = check_bundle(out, expected)
        row = next(r for r in read["cues"] if r["sound_id"] == sid)
        assert read["stamps"][sid] == position - pre  # bext TimeReference, by ffprobe
        post = pre  # the take has source after the out point too
        assert sf.info(str(out / row["file"])).frames == pre + length + post
        item = next(i for i in read["rpp"] if i.file == row["file"])
        assert round(item.position_s * RATE) == position
        assert round(item.offset_s * RATE) == pre and round(item.length_s * RATE) == length
        clip = next(c for c in read_otio(out / "scene.otio", RATE) if c.metadata["sound_id"] == sid)
        assert (clip.position, clip.start, clip.length) == (position, pre, length)
        aaf = [c for c in read_aaf(out / "scene.aaf")[0] if c.name == "take"]
        assert aaf and all((c.position, c.start, c.length) == (position, pre, length) for c in aaf)


def test_a_regions_copy_holds_the_source_from_the_handle_before_its_in_point(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    from foley_tui.audio.placement import span_frames
    from tests.scene_fixtures import REGION_IN, REGION_OUT, add_region_pick, region_take

    sid = add_region_pick(tones, tmp_path / "audio")
    out = tmp_path / "bundle"
    _spot(
        data_dir,
        tones.session_id,
        out,
        rate=SOURCE_RATE,
        handles_s=0.1,
        formats=frozenset({"bwf", "csv"}),
    )
    row = next(r for r in read_cues(out / "cues.csv") if r["sound_id"] == sid)
    copy, _ = sf.read(str(out / row["file"]), dtype="float32")
    pre = round(0.1 * SOURCE_RATE)
    first = span_frames(REGION_IN, SOURCE_RATE) - pre
    last = span_frames(REGION_OUT, SOURCE_RATE) + pre
    assert np.max(np.abs(copy - region_take(SOURCE_RATE)[first:last])) < 2e-7


def test_the_gain_measured_on_the_copys_decode_is_foleys(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    """A copy that reads its whole file hands what it decoded to the gain's measurement
    (no second decode); the gains are foley's own, computed here from the files by
    foley's functions; a copy that reads only part of its file (a region) does not hand
    it on (a looped bed has read all of it before it loops)."""
    from foley.audio import load, to_mono
    from foley.level import REFERENCE_PEAK_CEILING_DBFS, reference_gain_db
    from foley.weave.mix import fit_duration

    from foley_tui.scene.contract import read_mono
    from foley_tui.spot import copy
    from foley_tui.spot.plan import plan_spot
    from tests.scene_fixtures import add_region_pick

    sid = add_region_pick(tones, tmp_path / "audio")
    store = SessionService(data_dir).get(tones.session_id)
    plan = plan_spot(store, build_scene(store), SpotOptions())
    handed: dict[str, bool] = {}
    for clip in plan.clips:
        tap = copy.MonoTap()
        list(copy.source_blocks(clip, RATE, tap=tap))
        decoded = tap.decoded()
        handed[clip.caption] = decoded is not None
        if decoded is not None:
            mono, rate = read_mono(clip.source)
            assert decoded[1] == rate and np.array_equal(decoded[0], mono), clip.caption
    assert handed == {"numeric": True, "slam": True, "sting": True, "rain": True, "take": False}
    out = tmp_path / "bundle"
    _spot(data_dir, tones.session_id, out, formats=frozenset({"bwf", "rpp", "csv"}))
    items, _, _ = parse_rpp((out / "scene.RPP").read_text())
    layer_db = {"sfx_fg": -9.0, "ambience": -21.0, "stinger": -6.0}
    for clip in plan.clips:
        samples, rate = load(str(clip.source))
        span = 0.8 if clip.caption == "rain" else None
        fitted = fit_duration(to_mono(samples), rate, duration=span, loop=clip.caption == "rain")
        db = layer_db[clip.layer]
        want = reference_gain_db(fitted, rate, peak_ceiling_dbfs=REFERENCE_PEAK_CEILING_DBFS - db)
        item = next(i for i in items if i.name == clip.caption)
        assert 20 * np.log10(item.volume) == pytest.approx(want + db, abs=0.001), clip.caption
    assert sid in {c.sound_id for c in plan.clips}


def test_the_aaf_links_referenced_originals_at_the_bundles_rate(
    data_dir: Path, tmp_path: Path, tones: ToneSession, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.spot_check import read_aaf, url_path

    out = tmp_path / "bundle"
    formats = frozenset({"aaf", "csv"})
    _spot(data_dir, tones.session_id, out, reference=True, rate=SOURCE_RATE, formats=formats)
    expected = scene_samples(scene_rows(tones.session_id, capsys), SOURCE_RATE)
    clips, _ = read_aaf(out / "scene.aaf")
    audio = tmp_path / "audio"
    linked = {url_path(c.url) for c in clips if not c.slot.startswith("narration")}
    assert linked == {audio / f"{t.name}.wav" for t in TONES if t.expected_onset is not None}
    by_name = {c.name: c for c in clips}
    for spec in TONES:
        if spec.expected_onset is not None:
            sid = tones.ids[spec.name]
            assert abs(by_name[spec.name].position - expected[sid]) <= 1, spec.name
    # At another rate the AAF links converted copies in the bundle (its slots are at the
    # bundle's rate); the RPP still points at the originals.
    other = tmp_path / "bundle48"
    result = _spot(
        data_dir, tones.session_id, other, reference=True, formats=frozenset({"aaf", "rpp"})
    )
    expected = scene_samples(scene_rows(tones.session_id, capsys), RATE)
    clips, _ = read_aaf(other / "scene.aaf")
    placed = {t.name for t in TONES if t.expected_onset is not None}
    assert {c.name for c in clips if not c.slot.startswith("narration")} == placed
    for clip in clips:
        copy = url_path(clip.url)
        assert copy.is_relative_to(other) and copy.is_file(), clip.name
        assert sf.info(str(copy)).samplerate == RATE
        if not clip.slot.startswith("narration"):
            assert abs(clip.position - expected[tones.ids[clip.name]]) <= 1, clip.name
    items, _, _ = parse_rpp((other / "scene.RPP").read_text())
    assert {(other / i.file).resolve() for i in items if i.name in placed} == {
        (audio / f"{name}.wav").resolve() for name in placed
    }
    assert not any("not in the AAF" in w for w in result.plan.warnings)


def _aaf_chain(path: Path) -> dict[str, dict[str, Any]]:
    """By clip name: the file SourceMob's rate, locator, and whether a tape mob is
    behind it, walked from the composition's SourceClip through its MasterMob."""
    import aaf2

    found: dict[str, dict[str, Any]] = {}
    with aaf2.open(str(path), "r") as f:
        comp = next(iter(f.content.compositionmobs()))
        for slot in comp.slots:
            segment = slot.segment
            if isinstance(segment, aaf2.components.Timecode):
                continue
            for component in segment.components:
                clip = component
                if isinstance(component, aaf2.components.OperationGroup):
                    clip = component.segments[0]
                if not isinstance(clip, aaf2.components.SourceClip):
                    continue
                master = clip.mob
                assert isinstance(master, aaf2.mobs.MasterMob)
                file_clip = master.slot_at(clip.slot_id).segment.components[0]
                file_mob = file_clip.mob
                assert isinstance(file_mob, aaf2.mobs.SourceMob)
                descriptor = file_mob.descriptor
                tape_clip = file_mob.slot_at(file_clip.slot_id).segment.components[0]
                found[str(master.name)] = {
                    "slot_rate": float(slot.edit_rate),
                    "file_rate": float(descriptor["SampleRate"].value),
                    "kind": type(descriptor).__name__,
                    "url": str(next(iter(descriptor["Locator"]))["URLString"].value),
                    "tape": tape_clip.mob is not None,
                    "start": int(clip.start),
                    "summary": bytes(descriptor["Summary"].value),
                }
    return found


def test_the_aaf_links_a_wav_original_and_a_copy_of_a_flac_or_another_rate(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    """With --reference the AAF links a WAV at the bundle's rate where it is; a FLAC
    (which an AAF cannot link) at 44.1 kHz is linked as a converted copy in the bundle,
    read back through its mob chain: MasterMob, file SourceMob (a WAVE descriptor at the
    bundle's rate, a locator to the copy), tape mob."""
    from tests.spot_check import url_path

    store = SessionService(data_dir).get(tones.session_id)
    sources = {
        "flac44": (tmp_path / "audio" / "flac44.flac", 44100),
        "wav48": (tmp_path / "audio" / "wav48.wav", RATE),
    }
    for name, (path, rate) in sources.items():
        sf.write(str(path), tone(rate, 0.3, 330.0), rate)
        candidate = candidate_from_audio(path)
        candidate["sound"]["caption"] = name
        store.cache_candidates([candidate])
        sid = candidate["sound"]["id"]
        store.picks_ns[sid] = {"sound_id": sid, "layer": "stinger", "onset": 1.5}
    out = tmp_path / "bundle"
    result = _spot(
        data_dir, tones.session_id, out, reference=True, formats=frozenset({"aaf", "otio", "csv"})
    )
    chain = _aaf_chain(out / "scene.aaf")
    assert {"flac44", "wav48"} <= set(chain)
    wav = chain["wav48"]
    assert url_path(wav["url"]) == sources["wav48"][0]
    assert wav["file_rate"] == wav["slot_rate"] == RATE and wav["kind"] == "WAVEDescriptor"
    flac = chain["flac44"]
    copy = url_path(flac["url"])
    assert copy.is_relative_to(out) and copy.suffix == ".wav" and copy.is_file()
    assert flac["file_rate"] == flac["slot_rate"] == RATE and flac["kind"] == "WAVEDescriptor"
    assert wav["tape"] and flac["tape"]
    info = sf.info(str(copy))
    assert (info.samplerate, info.format) == (RATE, "WAV") and info.frames == round(0.3 * RATE)
    # The descriptor's Summary is the copy's own RIFF header and fmt chunk.
    raw = copy.read_bytes()
    assert raw[12:16] == b"fmt "
    fmt_size = int.from_bytes(raw[16:20], "little")
    assert flac["summary"] == raw[: 20 + fmt_size]
    assert int.from_bytes(raw[4:8], "little") == len(raw) - 8
    # The other projects point at the originals, the FLAC included.
    cues = {r["caption"]: r for r in read_cues(out / "cues.csv")}
    assert Path(cues["flac44"]["file"]).name == "flac44.flac"
    assert not any("not in the AAF" in w for w in result.plan.warnings)


def test_a_mono_clip_on_a_stereo_track_sits_on_both_slots(
    data_dir: Path, tmp_path: Path, tones: ToneSession
) -> None:
    from tests.spot_check import read_aaf

    store = SessionService(data_dir).get(tones.session_id)
    path = tmp_path / "audio" / "mono.wav"
    sf.write(str(path), tone(SOURCE_RATE, 0.2, 500.0)[:, 0], SOURCE_RATE)
    candidate = candidate_from_audio(path)
    store.cache_candidates([candidate])
    sid = candidate["sound"]["id"]
    store.picks_ns[sid] = {"sound_id": sid, "layer": "sfx_fg", "onset": 2.2}
    out = tmp_path / "bundle"
    _spot(data_dir, tones.session_id, out, formats=frozenset({"aaf", "csv"}))
    clips, _ = read_aaf(out / "scene.aaf")
    assert sorted(c.slot for c in clips if c.name == "mono") == ["sfx_fg L", "sfx_fg R"]
    assert {c.position for c in clips if c.name == "mono"} == {int(2.2 * RATE)}
    assert sorted(c.slot for c in clips if c.name == "numeric") == ["sfx_fg L", "sfx_fg R"]
