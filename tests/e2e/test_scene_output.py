"""play-scene and a candidate in context through the real output: PortAudio -> the ALSA
``file`` PCM -> the frames we compare (see test_audio_output.py for the capture).

The session holds tones at known onsets (numeric, word, sentence-span bed, scene
boundary) over a narration tone that is never zero, so the silence a capture may hold
(idle, an underrun of the unpaced sink) can be stripped without losing a frame. Each tone
must start within 1 ms of its onset (it is exact: the files are at the device rate) at
unity gain, and ``render-scene`` at the device rate must be the same mix, bit for bit.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import soundfile as sf

from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio
from tests.scene_fixtures import (
    TONES,
    attach_narration,
    expected_mix,
    find_tones,
    in_context_tones,
    make_tone_session,
)


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "foley_tui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_play_scene_and_in_context_reach_the_output_on_time(tmp_path: Path) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = capture.env()
    devices = _run(env, "devices")
    assert devices.returncode == 0, devices.stderr
    match = re.search(r"^\*.*, (\d+) Hz\)$", devices.stdout, re.MULTILINE)
    assert match, devices.stdout
    rate = int(match.group(1))
    data_dir = Path(os.environ["FOLEY_DATA_DIR"])
    tones = make_tone_session(data_dir, tmp_path / "audio", rate)
    assert attach_narration(tones) == 0

    played = _run(env, "play-scene", tones.session_id)
    assert played.returncode == 0, played.stderr
    assert "left out: zebra" in played.stderr
    heard = strip_silence(capture.read_frames())
    expected = expected_mix(rate)
    assert len(heard) == len(expected)
    np.testing.assert_allclose(heard, expected, atol=1e-6)
    tolerance = rate // 1000  # 1 ms
    for name, (start, gain) in find_tones(heard, rate).items():
        spec = next(t for t in TONES if t.name == name)
        assert spec.expected_onset is not None
        assert abs(start - spec.expected_onset * rate) <= tolerance, name
        assert abs(gain - 1.0) < 1e-4, name

    bounce = tmp_path / "mix.wav"
    rendered = _run(
        env, "render-scene", tones.session_id, "-o", str(bounce), "--float", "--rate", str(rate)
    )
    assert rendered.returncode == 0, rendered.stderr
    mix, _ = sf.read(str(bounce), dtype="float32")
    np.testing.assert_array_equal(mix, heard)  # the same mix, bit for bit

    # The candidate in context (the `C` key's path): ALT at its event's onset (0.4 s) with
    # a 0.3 s pre-roll, its picked alternative left out, from 0.1 s to the end.
    context = _run(
        env, "play-scene", tones.session_id, "--candidate", tones.ids["alt"], "--pre-roll", "0.3"
    )
    assert context.returncode == 0, context.stderr
    heard = strip_silence(capture.read_frames())
    start = round(0.1 * rate)
    expected = expected_mix(rate, in_context_tones())[start:]
    assert len(heard) == len(expected)
    np.testing.assert_allclose(heard, expected, atol=1e-6)
    found = find_tones(heard, rate, in_context_tones(), start=start)
    assert abs(found["alt"][0] - 0.4 * rate) <= tolerance
    assert "slam" not in found
