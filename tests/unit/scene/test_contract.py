"""The scene contract against foley 0.0.89's own functions: placement sample, fitted
length, the woven gain (reference gain + layer gain), the ducking envelope and what weave
leaves out."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from foley.audio import load, to_mono
from foley.level import REFERENCE_PEAK_CEILING_DBFS, reference_gain_db
from foley.weave.mix import (
    DUCK_ATTACK_S,
    DUCK_DB,
    DUCK_RELEASE_S,
    LAYER_GAIN_DB,
    fit_duration,
    speech_duck_gain,
)
from foley.weave.render import _speech_spans

from foley_tui.audio.duck import DuckEnvelope
from foley_tui.scene import contract
from foley_tui.scene.contract import (
    CUT_NOTE,
    MAX_PLACEMENT_S,
    VOICE_NOTE,
    ClipPlacement,
    placement_frame,
    woven_gain,
    woven_note,
)

ASSETS = Path(__file__).resolve().parents[3] / "assets" / "demo"


def test_the_placement_sample_is_foleys_int_rule() -> None:
    # 0.29 s at 48 kHz is 13919.99...: foley's overlay truncates, round() would not.
    assert placement_frame(0.29, 48000) == int(0.29 * 48000) == 13919
    assert round(0.29 * 48000) == 13920
    assert ClipPlacement(0.29).frame(48000) == 13919


@pytest.mark.parametrize(
    ("span", "loop", "frames"),
    [(None, False, 1000), (0.01, False, 1000), (0.05, False, 1000), (0.05, True, 1000)],
)
def test_the_length_is_foleys_fit_duration(span: float | None, loop: bool, frames: int) -> None:
    rate = 48000
    clip = np.ones(frames, dtype=np.float32)
    fitted = fit_duration(clip, rate, duration=span, loop=loop)
    assert ClipPlacement(1.0, span_s=span, loop=loop).length_frames(rate, frames) == len(fitted)


def test_the_woven_gain_is_foleys_reference_gain_plus_layer_gain(tmp_path: Path) -> None:
    """On a real clip (the demo's door slam, CC0) the reference gain is measured, not the
    0 dB foley returns when the loudness meter is missing."""
    from foley.base import Layer

    path = ASSETS / "sounds" / "door_slam.flac"
    samples, rate = load(str(path))
    mono = to_mono(samples).astype(np.float32)
    for layer in ("sfx_fg", "ambience", "stinger", "music"):
        layer_db = LAYER_GAIN_DB[Layer(layer)]
        expected = reference_gain_db(
            mono, rate, peak_ceiling_dbfs=REFERENCE_PEAK_CEILING_DBFS - layer_db
        )
        gain = woven_gain(path, layer, ClipPlacement(0.0))
        assert gain.reference_db == pytest.approx(expected, abs=1e-6), layer
        assert gain.layer_db == layer_db
        assert gain.clip_db == pytest.approx(expected + layer_db, abs=1e-6)
        assert abs(gain.reference_db) > 0.5, layer  # the meter is there: a real gain
    # A bed's gain is measured on the fitted clip (trimmed to its span).
    span = ClipPlacement(0.0, span_s=0.5, loop=False)
    fitted = fit_duration(mono, rate, duration=0.5, loop=False)
    ceiling = REFERENCE_PEAK_CEILING_DBFS - LAYER_GAIN_DB[Layer.ambience]
    assert woven_gain(path, "ambience", span).reference_db == pytest.approx(
        reference_gain_db(fitted, rate, peak_ceiling_dbfs=ceiling), abs=1e-6
    )


def test_without_the_loudness_meter_the_woven_gain_refuses_to_guess(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """foley's reference gain quietly returns 0 dB when mixing's meter is missing; ours
    says what is missing instead of passing a flat mix off as the woven one."""
    import sys

    monkeypatch.setitem(sys.modules, "mixing", None)  # an import of it now fails
    clip = np.full(4800, 0.25, dtype=np.float32)
    with pytest.raises(ImportError, match=r"mixing\[loudness\]"):
        contract.measure_woven_gain(clip, 48000, "sfx_fg", ClipPlacement(0.0))


def test_the_woven_gain_is_cached_by_content_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = tmp_path / "a.flac"
    shutil.copy(ASSETS / "sounds" / "bell.flac", first)
    measured = woven_gain(first, "sfx_fg", ClipPlacement(2.0))
    copy = tmp_path / "elsewhere" / "same.flac"
    copy.parent.mkdir()
    shutil.copy(first, copy)

    def no_read(ref: object) -> None:
        raise AssertionError("read again")

    monkeypatch.setattr(contract, "read_mono", no_read)
    assert woven_gain(copy, "sfx_fg", ClipPlacement(5.0)) == measured  # same content
    different = tmp_path / "other.wav"
    data, rate = sf.read(str(first), dtype="float32")
    sf.write(str(different), data * 0.5, rate)
    with pytest.raises(AssertionError, match="read again"):
        woven_gain(different, "sfx_fg", ClipPlacement(0.0))


def test_the_duck_envelope_is_foleys_speech_duck_gain() -> None:
    """Block by block, at two rates, the envelope is foley's to float32 rounding (foley's
    follower accumulates in float32)."""
    import json

    words = json.loads((ASSETS / "narration_words.json").read_text())[:40]
    spans = _speech_spans(words)
    length_s = float(words[-1]["end"]) + 1.0
    env = DuckEnvelope(
        spans,
        length_s=length_s,
        depth_db=DUCK_DB,
        attack_s=DUCK_ATTACK_S,
        release_s=DUCK_RELEASE_S,
    )
    for rate in (16000, 44100):
        n = round(length_s * rate)
        expected = speech_duck_gain(n, rate, spans)
        ours = np.concatenate([env.block(i, min(1000, n - i), rate) for i in range(0, n, 1000)])
        np.testing.assert_allclose(ours, expected, atol=1e-4)
        assert float(expected.min()) == pytest.approx(10 ** (DUCK_DB / 20), abs=0.01)


def test_what_weave_leaves_out() -> None:
    assert woven_note("voice", 1.0, 2.0, 10.0) == VOICE_NOTE
    assert woven_note("sfx_fg", 10.0, 11.0, 10.0) == CUT_NOTE
    assert woven_note("sfx_fg", MAX_PLACEMENT_S + 1, None, None) == CUT_NOTE
    assert woven_note("ambience", 8.0, 12.5, 10.0) == "weave cuts its last 2.5 s"
    assert woven_note("sfx_fg", 1.0, 2.0, 10.0) is None
    assert woven_note("sfx_fg", 1.0, 2.0, None) is None


_LATER_RUN = """
import sys
from pathlib import Path

from foley_tui.scene import contract
from foley_tui.scene.contract import ClipPlacement, woven_gain


def no_read(ref):
    raise AssertionError("read again")


contract.read_mono = no_read
path = Path(sys.argv[1])
gain = woven_gain(path, "ambience", ClipPlacement(3.0, span_s=0.5))
print(repr((gain.reference_db, gain.layer_db)))
try:
    woven_gain(path, "ambience", ClipPlacement(3.0, span_s=0.25))
except AssertionError:
    print("read-again")
else:
    print("not-read")
"""


def test_the_woven_gain_is_kept_across_runs(tmp_path: Path) -> None:
    """Measured once ever: a later run (the process's own cache empty) reads it from the
    user's cache dir, keyed by foley's version too; a cache file that is not a database
    is replaced."""
    from foley_tui.scene import gain_store

    path = tmp_path / "a.flac"
    shutil.copy(ASSETS / "sounds" / "bell.flac", path)
    measured = woven_gain(path, "ambience", ClipPlacement(1.0, span_s=0.5))
    assert gain_store.default_path().is_file()
    # A later run is another process (its own cache empty), with the same cache dir.
    later = subprocess.run(
        [sys.executable, "-c", _LATER_RUN, str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert later.returncode == 0, later.stderr
    again, other = later.stdout.splitlines()
    assert again == repr((measured.reference_db, measured.layer_db))
    assert other == "read-again"  # another span: measured
    assert gain_store.foley_version() in gain_store.gain_key("x", "sfx_fg", None, False)
    broken = gain_store.GainStore(tmp_path / "broken.sqlite")
    (tmp_path / "broken.sqlite").write_bytes(b"not a database" * 100)
    broken.put("k", 1.0, 2.0)
    assert broken.get("k") == (1.0, 2.0)
    broken.close()


_HASHED_RUN = """
import hashlib
import sys
from pathlib import Path

from foley_tui.scene.contract import ClipPlacement, cached_woven_gain


def no_hash(*args, **kwargs):
    raise AssertionError("hashed again")


hashlib.sha256 = no_hash
path = Path(sys.argv[1])
try:
    gain = cached_woven_gain(path, "sfx_fg", ClipPlacement(1.0))
except AssertionError:
    print("hashed-again")
else:
    print(repr(None if gain is None else gain.clip_db))
"""


def test_a_later_run_knows_a_files_hash_without_reading_it_until_it_changes(
    tmp_path: Path,
) -> None:
    """The content hash is kept with the file's stat facts: a later run finds the gain
    without hashing the file; once the file is written again it is hashed afresh."""
    path = tmp_path / "a.flac"
    noise = np.random.default_rng(11).uniform(-0.3, 0.3, 48000).astype(np.float32)
    sf.write(str(path), noise, 48000)  # bytes no other test measured in this process
    measured = woven_gain(path, "sfx_fg", ClipPlacement(1.0))

    def later() -> str:
        done = subprocess.run(
            [sys.executable, "-c", _HASHED_RUN, str(path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert later() == repr(measured.clip_db)
    path.write_bytes(path.read_bytes())  # the same bytes, written again
    assert later() == "hashed-again"
