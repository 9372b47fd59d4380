"""The scene verbs without a sound card: ``session narration``, ``scene``,
``render-scene`` (the bounce is the same mix the player plays)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.cli import main
from foley_tui.scene.narration import read_narration, sha256_of
from foley_tui.store import SessionService
from tests.scene_fixtures import (
    TONES,
    attach_narration,
    expected_mix,
    find_tones,
    in_context_tones,
    make_tone_session,
)

RATE = 48000


def test_narration_is_a_reference_with_its_hash(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(tones) == 0
    store = SessionService(data_dir).get(tones.session_id)
    session_path = store.session_path
    assert session_path is not None
    stored = read_narration(store)
    assert stored is not None
    assert stored.path == tones.narration_path.resolve()
    assert stored.sha256 == sha256_of(tones.narration_path)
    assert [w["word"] for w in stored.words][:3] == ["The", "door", "slammed."]
    # A reference, never a copy: nothing but our small JSON record in our own state.
    state = Path(session_path) / ".foley-tui" / "narration.json"
    assert state.stat().st_size < 4096
    assert not any(p.suffix == ".wav" for p in Path(session_path).rglob("*"))
    capsys.readouterr()
    assert main(["session", "narration", tones.session_id, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["problem"] is None and shown["narration"]["sha256"] == stored.sha256
    # A changed file is reported, not silently played.
    sf.write(str(tones.narration_path), np.zeros((RATE, 2), np.float32), RATE, subtype="FLOAT")
    assert main(["session", "narration", tones.session_id]) == 1
    assert "changed" in capsys.readouterr().err
    assert main(["session", "narration", tones.session_id, "--clear"]) == 0
    assert read_narration(store) is None


def test_bad_narration_input_is_refused_cleanly(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    bad_words = tmp_path / "bad.json"
    bad_words.write_text('[{"word": "x", "start": "soon"}]')
    assert (
        main(
            [
                "session",
                "narration",
                tones.session_id,
                str(tones.narration_path),
                "--words",
                str(bad_words),
            ]
        )
        == 2
    )
    assert "finite 'start'" in capsys.readouterr().err
    not_audio = tmp_path / "notes.txt"
    not_audio.write_text("hello")
    assert main(["session", "narration", tones.session_id, str(not_audio)]) == 2
    assert "not a playable narration" in capsys.readouterr().err


def test_scene_lists_placed_and_unplaced(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    # Without a word timeline only the numeric onset is placed (and the no-cue bed would
    # be, but the rain bed has an anchor).
    assert main(["scene", tones.session_id, "--json"]) == 0
    rows = {r["sound_id"]: r for r in json.loads(capsys.readouterr().out)["picks"]}
    assert rows[tones.ids["numeric"]]["onset_s"] == 0.5
    assert rows[tones.ids["slam"]]["onset_s"] is None
    assert "no word timeline" in rows[tones.ids["slam"]]["note"]
    assert (
        main(
            [
                "scene",
                tones.session_id,
                "--json",
                "--narration",
                str(tones.narration_path),
                "--words",
                str(tones.words_path),
            ]
        )
        == 0
    )
    rows = {r["sound_id"]: r for r in json.loads(capsys.readouterr().out)["picks"]}
    for spec in TONES:
        row = rows[tones.ids[spec.name]]
        assert row["onset_s"] == spec.expected_onset, spec.name
    rain = rows[tones.ids["rain"]]
    assert rain["layer"] == "ambience" and rain["chosen"] == {"layer": False, "onset": False}
    assert rain["length_s"] == pytest.approx(0.8)
    assert "no word matches" in rows[tones.ids["zebra"]]["note"]


def test_render_scene_is_the_mix_of_tones_at_their_onsets(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(tones) == 0
    out = tmp_path / "mix.wav"
    assert main(["render-scene", tones.session_id, "-o", str(out), "--float", "--mix", "flat"]) == 0
    assert "left out: zebra" in capsys.readouterr().err
    mix, rate = sf.read(str(out), dtype="float32")
    assert rate == RATE
    expected = expected_mix(RATE)
    assert len(mix) == len(expected)
    np.testing.assert_allclose(mix, expected, atol=1e-6)
    for name, (start, gain) in find_tones(mix, RATE).items():
        spec = next(t for t in TONES if t.name == name)
        assert spec.expected_onset is not None
        assert start == int(spec.expected_onset * RATE), name  # sample-exact
        assert gain == pytest.approx(1.0, abs=1e-4), name
    # 24-bit FLAC of the same mix; a part of it; a refusal to overwrite.
    flac = tmp_path / "mix.flac"
    assert (
        main(
            [
                "render-scene",
                tones.session_id,
                "-o",
                str(flac),
                "--from",
                "1.5",
                "--to",
                "0:02.5",
                "--mix",
                "flat",
            ]
        )
        == 0
    )
    part, _ = sf.read(str(flac), dtype="float32")
    np.testing.assert_allclose(part, expected[round(1.5 * RATE) : round(2.5 * RATE)], atol=2e-7 * 8)
    assert sf.info(str(flac)).subtype == "PCM_24"
    assert main(["render-scene", tones.session_id, "-o", str(flac)]) == 2
    assert "exists" in capsys.readouterr().err


def test_a_candidate_in_context_replaces_its_alternative(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(tones) == 0
    out = tmp_path / "context.wav"
    # ALT sits at its event's suggestion (on 'door', 0.4 s); a 0.25 s pre-roll starts
    # the mix at 0.15 s; the picked alternative "slam" is left out.
    assert (
        main(
            [
                "render-scene",
                tones.session_id,
                "-o",
                str(out),
                "--float",
                "--candidate",
                tones.ids["alt"],
                "--pre-roll",
                "0.25",
                "--mix",
                "flat",
            ]
        )
        == 0
    )
    mix, _ = sf.read(str(out), dtype="float32")
    start = round(0.15 * RATE)
    expected = expected_mix(RATE, in_context_tones())
    np.testing.assert_allclose(mix, expected[start:], atol=1e-6)
    found = find_tones(mix, RATE, in_context_tones(), start=start)
    assert found["alt"][0] == round(0.4 * RATE)
    assert "slam" not in found
    capsys.readouterr()
    assert (
        main(
            [
                "render-scene",
                tones.session_id,
                "-o",
                str(tmp_path / "z.wav"),
                "--candidate",
                tones.ids["zebra"],
            ]
        )
        == 1
    )
    assert "no word matches" in capsys.readouterr().err


def test_export_carries_the_narration_reference(data_dir: Path, tmp_path: Path) -> None:
    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(tones) == 0
    service = SessionService(data_dir)
    doc = service.export_session(tones.session_id)
    assert doc["schema_version"] == 2
    assert doc["narration"]["path"] == str(tones.narration_path.resolve())
    assert len(doc["narration"]["words"]) == 5
    service.delete(tones.session_id)
    assert service.import_session(doc) == tones.session_id
    restored = read_narration(service.get(tones.session_id))
    assert restored is not None and restored.to_record() == doc["narration"]
    # A damaged reference is refused before anything is written.
    from foley_tui.store import SessionImportError
    from foley_tui.store.export_doc import checksum_of

    bad = {k: v for k, v in doc.items() if k != "checksum"}
    bad["narration"] = {**doc["narration"], "path": "relative.wav"}
    bad["session_id"] = "other"
    bad["checksum"] = checksum_of(bad)
    with pytest.raises(SessionImportError, match="narration"):
        service.import_session(bad)
    assert "other" not in [i.session_id for i in service.list()]


def test_open_with_a_narration_for_one_run(
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from foley_tui.cli import app as cli_app

    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    seen: list[object] = []

    def fake_launch(session_id: str, **kwargs: object) -> int:
        seen.append(kwargs.get("narration"))
        return 0

    monkeypatch.setattr(cli_app, "launch", fake_launch)
    argv = ["open", tones.session_id, "--narration", str(tones.narration_path)]
    assert main([*argv, "--words", str(tones.words_path)]) == 0
    narration = seen[-1]
    assert narration is not None
    assert getattr(narration, "sha256", None) == sha256_of(tones.narration_path)
    assert read_narration(SessionService(data_dir).get(tones.session_id)) is None  # not stored
    assert main(["open", tones.session_id, "--words", str(tones.words_path)]) == 2
    assert "--words needs --narration" in capsys.readouterr().err


def test_scene_json_reports_the_contract_of_each_pick(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Per pick: its sample position at the asked rate (foley's int rule), in-point,
    fitted length, and its gain in both mixes (flat: unity; woven: foley's reference gain
    on the fitted clip plus the layer gain); a voice pick is marked, a ghost unplaced."""
    from foley.audio import load, to_mono
    from foley.level import REFERENCE_PEAK_CEILING_DBFS, reference_gain_db
    from foley.weave.mix import fit_duration

    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(tones) == 0
    store = SessionService(data_dir).get(tones.session_id)
    store.picks_ns[tones.ids["alt"]] = {"sound_id": tones.ids["alt"], "layer": "voice", "onset": 1}
    store.picks_ns["ghost"] = {"sound_id": "ghost", "layer": "sfx_fg", "onset": 1.0}
    capsys.readouterr()
    assert main(["scene", tones.session_id, "--json", "--rate", "44100"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["narration_s"] == pytest.approx(3.0)
    rows = {r["sound_id"]: r for r in doc["picks"]}
    layer_db = {"sfx_fg": -9.0, "ambience": -21.0, "stinger": -6.0}
    for spec in TONES:
        row = rows[tones.ids[spec.name]]
        if spec.expected_onset is None:
            assert row["frame"] is None and row["gain_db"]["woven"] is None
            continue
        assert row["rate"] == 44100
        assert row["frame"] == int(spec.expected_onset * 44100), spec.name
        assert (row["in_point_s"], row["in_point_frame"]) == (0.0, 0)
        samples, rate = load(str(tmp_path / "audio" / f"{spec.name}.wav"))
        clip = fit_duration(
            to_mono(samples), rate, duration=spec.expected_length, loop=spec.name == "rain"
        )
        layer = row["layer"]
        ref = reference_gain_db(
            clip, rate, peak_ceiling_dbfs=REFERENCE_PEAK_CEILING_DBFS - layer_db[layer]
        )
        assert row["gain_db"]["flat"] == 0.0
        assert row["gain_db"]["woven"] == pytest.approx(ref + layer_db[layer], abs=1e-6)
        assert row["woven"]["channel_db"] == pytest.approx(row["gain_db"]["woven"] - 3.0103, 1e-3)
        expected_frames = (
            int(spec.expected_length * 44100)
            if spec.expected_length is not None
            else round(spec.seconds * 44100)
        )
        assert row["length_frames"] == expected_frames, spec.name
    voice = rows[tones.ids["alt"]]
    assert voice["woven_note"] == "weave does not render the voice layer"
    assert voice["gain_db"]["woven"] is None and voice["frame"] == 44100
    ghost = rows["ghost"]
    assert ghost["onset_s"] is None and ghost["frame"] is None
    assert ghost["note"] == "no cached candidate: foley plan drops it"


def test_a_huge_onset_is_shown_left_out_and_never_rendered(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent's pick at 1e17 s: the timeline draws (no ruler walk to it), scene says
    weave cuts it, render-scene writes the scene's length, not gigabytes; our own writes
    refuse an onset past MAX_PLACEMENT_S."""
    from foley_tui.domain import MAX_PLACEMENT_S, ValidationError, validate_onset
    from foley_tui.scene.build import build_scene
    from foley_tui.scene.timeline import TimelineModel
    from tests.unit.store.helpers import run_py

    tones = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(tones) == 0
    huge = tones.ids["numeric"]
    run_py(  # foley's agent places it (its own SessionStore)
        "import json\nfrom foley.agent.session import SessionStore\n"
        f"SessionStore({tones.session_id!r}).add_pick({huge!r}, layer='sfx_fg', onset=10**17)\n"
        "print(json.dumps(0))",
        data_dir,
    )
    store = SessionService(data_dir).get(tones.session_id)
    model = build_scene(store, resolve_audio=False)
    pick = model.pick(huge)
    assert pick is not None and not pick.placed and pick.note == "weave cuts it"
    timeline = TimelineModel(model)
    timeline.cursor = huge
    timeline.ensure_visible(80)
    assert len(timeline.ruler(80)) == 80 and timeline.end_s < 10
    capsys.readouterr()
    assert main(["scene", tones.session_id, "--json"]) == 0
    row = {r["sound_id"]: r for r in json.loads(capsys.readouterr().out)["picks"]}[huge]
    assert row["onset_s"] is None and row["note"] == "weave cuts it"
    out = tmp_path / "mix.wav"
    for mix in ("woven", "flat"):
        assert (
            main(["render-scene", tones.session_id, "-o", str(out), "--mix", mix, "--force"]) == 0
        )
        assert sf.info(str(out)).duration < 10
    with pytest.raises(ValidationError, match="within a day"):
        validate_onset(MAX_PLACEMENT_S + 1)
    assert validate_onset(MAX_PLACEMENT_S) == MAX_PLACEMENT_S
    assert main(["pick", tones.session_id, huge, "--onset", "100000"]) == 2
    assert "within a day" in capsys.readouterr().err
