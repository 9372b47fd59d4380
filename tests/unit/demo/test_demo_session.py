"""The demo session builder: a foley-format session whose every candidate plays."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import soundfile as sf

from foley_tui.audio.base import Source
from foley_tui.audio.resolve import resolve
from foley_tui.demo import build as demo
from foley_tui.store import SessionService
from foley_tui.store.codec import encode_key


def _candidates(data_dir: Path, session_id: str) -> list[dict[str, Any]]:
    store = SessionService(data_dir).get(session_id)
    found = [store.candidate(sid) for sid in store.candidate_ids()]
    assert all(c is not None for c in found)
    return [c for c in found if c is not None]


def test_first_build_makes_the_demo_session(data_dir: Path) -> None:
    session_id = demo.build_demo(data_dir)
    service = SessionService(data_dir)
    [info] = service.list()
    assert info.session_id == session_id
    assert info.title == demo.DEMO_TITLE
    assert info.total == len(demo.SOUNDS) >= 20
    assert (info.picked, info.rejected) == (len(demo.DEMO_PICKS), len(demo.DEMO_REJECTS))
    events = {c["event"]["query"] for c in _candidates(data_dir, session_id)}
    assert {"rain on a tin roof", "a door slams shut", "footsteps on gravel"} <= events
    per_event = [sum(s.event["query"] == e for s in demo.SOUNDS) for e in events]
    assert min(per_event) >= 2  # several candidates for each scene event


def test_every_demo_candidate_resolves_to_playable_audio(data_dir: Path) -> None:
    session_id = demo.build_demo(data_dir)
    hows = set()
    for candidate in _candidates(data_dir, session_id):
        found = resolve(candidate, data_dir)
        assert isinstance(found, Source), (candidate["sound"]["id"], found)
        hows.add(found.how)
        data, rate = sf.read(found.path, dtype="float32")
        sound = candidate["sound"]
        assert rate == sound["sample_rate"]
        assert len(data) / rate == pytest.approx(sound["duration_s"], abs=0.01)
        assert (1 if data.ndim == 1 else data.shape[1]) == sound["channels"]
        assert float(abs(data).max()) > 0.05  # audible, not silence
    assert hows == {"content_sha256", "path", "generations"}


def test_storage_mix_by_value_local_and_generated(data_dir: Path) -> None:
    session_id = demo.build_demo(data_dir)
    candidates = _candidates(data_dir, session_id)
    by_value = [c for c in candidates if c["sound"]["storage_mode"] == "by_value"]
    local = [c for c in candidates if c["sound"]["uri"] and c["sound"]["uri"].startswith("/")]
    generated = [c for c in candidates if c["origin"] == "generated"]
    assert len(by_value) >= 5 and len(local) >= 5 and len(generated) == 1
    for c in by_value:
        sha = c["sound"]["content_sha256"]
        blob = data_dir / "audio" / sha  # raw bytes, no extension, named by their hash
        assert hashlib.sha256(blob.read_bytes()).hexdigest() == sha
    for c in local:
        path = Path(c["sound"]["uri"])
        assert c["sound"]["storage_mode"] == "by_reference"
        assert path.is_absolute() and path.is_file()
        assert data_dir / demo.LOCAL_FOLDER in path.parents
    [gen] = generated
    assert gen["cost_actual_usd"] > 0 and gen["cost_estimate_usd"] > 0
    assert gen["sound"]["license"]["is_ai_generated"] is True
    prefix = "paid generation kept in the generations cache: "
    [note] = [n for n in gen["notes"] if n.startswith(prefix)]
    request = data_dir / "generations" / "requests" / encode_key(note[len(prefix) :])
    entry = json.loads(request.read_text())
    assert (data_dir / "generations" / "audio" / entry["content_key"]).is_file()


def test_candidates_have_the_full_record(data_dir: Path) -> None:
    from foley.base import Candidate  # the real foley: our dicts are its to_dict()

    session_id = demo.build_demo(data_dir)
    candidates = _candidates(data_dir, session_id)
    with_verdict = [c for c in candidates if c["verdict"]]
    with_notes = [c for c in candidates if c["notes"]]
    assert 0 < len(with_verdict) < len(candidates)
    assert 0 < len(with_notes) < len(candidates)
    licences = {c["sound"]["license"]["license_id"] for c in candidates}
    assert len(licences) >= 4
    for c in candidates:
        assert Candidate.from_dict(c).to_dict() == c  # exactly foley's shape, no extra keys
        sound = c["sound"]
        assert sound["caption"] and sound["tags"]
        assert sound["duration_s"] and sound["sample_rate"] == 44100
        assert c["clap_score"] is not None and c["rrf_score"] is not None
        assert sound["license"]["license_id"] and sound["license"]["source"]


def test_foley_plan_reads_the_demo_picks(data_dir: Path) -> None:
    session_id = demo.build_demo(data_dir)
    foley = Path(sys.executable).parent / "foley"
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir)}
    out = subprocess.run(
        [str(foley), "plan", "--session", session_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    plan = json.loads(out.stdout)
    refs = sorted(item["clip_ref"] for item in plan["items"])
    assert refs == sorted(sid for sid, _, _ in demo.DEMO_PICKS)


def test_build_again_reuses_and_reset_rebuilds_only_the_demo(data_dir: Path) -> None:
    first = demo.build_demo(data_dir)
    assert demo.build_demo(data_dir) == first
    service = SessionService(data_dir)
    mine = service.create("My scene")
    service.get(mine).cache_candidates([_candidates(data_dir, first)[0]])
    picked = _candidates(data_dir, first)[0]["sound"]["id"]
    service.get(mine).add_pick(picked, layer="sfx_fg")
    second = demo.build_demo(data_dir, reset=True)
    assert second != first
    ids = {info.session_id for info in service.list()}
    assert ids == {mine, second}
    assert service.get(mine).picked_ids() == [picked]
    assert all(isinstance(resolve(c, data_dir), Source) for c in _candidates(data_dir, second))


def test_loudness_table_matches_a_measurement() -> None:
    import pyloudnorm

    folder = demo.sounds_dir()
    assert set(demo.LOUDNESS_LUFS) == {s.stem for s in demo.SOUNDS} | set(demo.LOUDNESS_LUFS)
    for stem, lufs in demo.LOUDNESS_LUFS.items():
        data, rate = sf.read(folder / f"{stem}.flac")
        assert pyloudnorm.Meter(rate).integrated_loudness(data) == pytest.approx(lufs, abs=0.15)


def test_sounds_are_found_where_a_wheel_installs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = tmp_path / "prefix"
    share = prefix / "share" / "foley-tui" / "demo" / "sounds"
    shutil.copytree(demo.sounds_dir(), share)
    monkeypatch.setattr(sysconfig, "get_path", lambda name, scheme=None: str(prefix))
    assert demo.sounds_dir(source_tree=tmp_path / "no-such-checkout") == share
    assert demo.sounds_dir(source_tree=None) == share
    shutil.rmtree(share)
    with pytest.raises(demo.DemoError, match="not installed"):
        demo.sounds_dir(source_tree=None)


def test_missing_sounds_are_a_clear_error_and_leave_no_session(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "sounds_dir", lambda: tmp_path / "empty")
    with pytest.raises(demo.DemoError, match="demo sound missing"):
        demo.build_demo(data_dir)
    assert SessionService(data_dir).list() == []


def test_a_failed_build_leaves_no_half_demo_and_keeps_the_old_one(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from foley_tui.store import SessionStore, StoreWriteError

    old = demo.build_demo(data_dir)

    def full_disk(self: SessionStore, *args: object, **kwargs: object) -> int:
        raise StoreWriteError("could not write the reject: No space left on device")

    monkeypatch.setattr(SessionStore, "add_reject", full_disk)
    with pytest.raises(demo.DemoError, match="No space left on device"):
        demo.build_demo(data_dir, reset=True)
    assert [s.session_id for s in SessionService(data_dir).list()] == [old]


def test_every_sound_has_audioset_labels_and_loudness() -> None:
    stems = {s.stem for s in demo.SOUNDS}
    assert stems <= set(demo.AUDIOSET_LABELS) and stems <= set(demo.LOUDNESS_LUFS)
    assert len(stems) == 20  # every generated sound is used by the demo


def test_the_list_opens_grouped_by_scene_event_best_first(data_dir: Path) -> None:
    session_id = demo.build_demo(data_dir)
    rows = sorted(SessionService(data_dir).get(session_id).rows(), key=lambda r: r.rank)
    assert [r.sound_id for r in rows] == [s.sound_id for s in demo.SOUNDS]
