"""The woven mix against foley 0.0.89's own weave, on one session of known tones, an
ambience bed and a narration, rendered three ways:

* ``foley-tui weave`` (foley's render in process, with the sounds our resolver finds);
* foley's own CLI ``foley weave`` on ``foley-tui scene --foley-timeline``, the sounds put
  in foley's library first (in a fresh interpreter: foley reads FOLEY_DATA_DIR at import);
* ``render-scene --mix woven`` (our mixer).

Every tone starts within 1 ms and sits within 1 dB in all three, the bed's ducking under
the words is within 2 dB, and what weave leaves out (the voice layer, a pick past the
narration's end) is silent in all three.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.cli import main
from tests.woven_fixtures import (
    BED_IN_GAP,
    BED_UNDER_WORDS,
    NARRATION_S,
    TONES,
    WovenSession,
    level_db,
    make_woven_session,
    onset_of,
)

RATE = 48000

FOLEY_CLI = """
import json, subprocess, sys
from foley.base import LicenseRecord, SoundRecord, StorageMode
from foley.index.library import default_library
args = json.loads(sys.argv[1])
lib = default_library()
for sid, path in args["sounds"].items():
    lib.meta[sid] = SoundRecord(
        id=sid, uri=path, storage_mode=StorageMode.by_reference,
        license=LicenseRecord(source="user", license_id="CC0-1.0"),
    )
done = subprocess.run(
    [args["foley"], "weave", args["narration"], open(args["timeline"]).read()],
    capture_output=True, text=True,
)
if done.returncode:
    raise SystemExit(done.stderr + done.stdout)
row = json.loads(done.stdout)
from foley.agent.verbs import _byte_store
open(args["out"], "wb").write(_byte_store()[row["audio_ref"]])
print(json.dumps({"sr": row["sr"], "master": row["master_report"]}))
"""


def _foley_cli_weave(woven: WovenSession, timeline: Path, out: Path, data_dir: Path) -> None:
    foley = Path(sys.executable).with_name("foley")
    payload = {
        "sounds": {woven.ids[name]: str(path) for name, path in woven.paths.items()},
        "narration": str(woven.narration_path),
        "timeline": str(timeline),
        "foley": str(foley),
        "out": str(out),
    }
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-c", FOLEY_CLI, json.dumps(payload)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def renders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    """The three renders of the session (a module fixture: foley's renders are slow)."""
    root = tmp_path_factory.mktemp("woven")
    data_dir = root / "data"
    data_dir.mkdir()
    old = os.environ.get("FOLEY_DATA_DIR")
    os.environ["FOLEY_DATA_DIR"] = str(data_dir)
    try:
        woven = make_woven_session(data_dir, root / "audio", RATE)
        sid = woven.session_id
        ours, theirs, cli = root / "ours.wav", root / "weave.wav", root / "cli.flac"
        assert main(["render-scene", sid, "-o", str(ours), "--float", "--mix", "woven"]) == 0
        assert main(["weave", sid, "-o", str(theirs), "--float"]) == 0
        timeline = root / "tl.json"
        assert main(["scene", sid, "--foley-timeline", "-o", str(timeline)]) == 0
        _foley_cli_weave(woven, timeline, cli, data_dir)
    finally:
        if old is None:
            os.environ.pop("FOLEY_DATA_DIR", None)
        else:
            os.environ["FOLEY_DATA_DIR"] = old
    out = {}
    for name, path in (("render-scene", ours), ("foley-tui weave", theirs), ("foley weave", cli)):
        audio, rate = sf.read(str(path), dtype="float32", always_2d=True)
        assert rate == RATE, name
        out[name] = audio
    return out


def test_the_three_renders_have_foleys_length(renders: dict[str, np.ndarray]) -> None:
    for name, audio in renders.items():
        assert len(audio) == round(NARRATION_S * RATE), name


def test_every_onset_within_1_ms_and_every_level_within_1_db(
    renders: dict[str, np.ndarray],
) -> None:
    reference = renders["foley weave"]
    for spec in TONES:
        if spec.onset_s is None:
            continue
        # Levels: the steady middle of each sound (a bed: where the words duck it).
        if spec.name == "bed":
            span = BED_UNDER_WORDS
        else:
            end = min(spec.onset_s + spec.seconds, NARRATION_S)
            span = (spec.onset_s + 0.1, end - 0.05)
        want_at = onset_of(reference, RATE, spec.freq, spec.onset_s)
        want_db = level_db(reference, RATE, spec.freq, span)
        assert abs(want_at - spec.onset_s) <= 0.01, spec.name  # the fade's half-way point
        for name, audio in renders.items():
            at = onset_of(audio, RATE, spec.freq, spec.onset_s)
            assert abs(at - want_at) <= 0.001, (spec.name, name, at, want_at)
            db = level_db(audio, RATE, spec.freq, span)
            assert abs(db - want_db) <= 1.0, (spec.name, name, db, want_db)


def test_the_bed_ducks_under_the_words_alike(renders: dict[str, np.ndarray]) -> None:
    bed = next(t for t in TONES if t.name == "bed")
    depths = {
        name: level_db(audio, RATE, bed.freq, BED_IN_GAP)
        - level_db(audio, RATE, bed.freq, BED_UNDER_WORDS)
        for name, audio in renders.items()
    }
    want = depths["foley weave"]
    assert want > 6.0, depths  # foley ducks it (DUCK_DB is -10 dB)
    for depth in depths.values():
        assert abs(depth - want) <= 2.0, depths


def test_what_weave_leaves_out_is_silent_in_every_render(
    renders: dict[str, np.ndarray],
) -> None:
    for spec in TONES:
        if spec.onset_s is not None:
            continue
        for name, audio in renders.items():
            at = min(float(spec.onset if isinstance(spec.onset, float) else 0.0), NARRATION_S)
            span = (max(at - 0.5, 0.0), min(at + 0.5, NARRATION_S))
            assert level_db(audio, RATE, spec.freq, span) < -60, (spec.name, name)
