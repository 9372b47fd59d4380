"""What reaches the device from hostile audio, through the real output: PortAudio -> the
ALSA ``file`` PCM -> the frames we read back (see tests/alsa_capture.py).

- ``foley-tui play`` of a float WAV of NaN, of +-inf, of a DOUBLE WAV of 1e300, at
  -40 dB: silence (never a non-finite or full-scale sample), and a warning naming the
  file and how many samples were replaced;
- a sine with NaN and inf sprinkled in it: the sine at its gain, the bad samples silent;
- the full-scale path: a full-scale preview replaced by a full-scale scene, so that the
  preview fades out under the scene's limited mix. Nothing reaches the device above the
  master's ceiling.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.audio.bus import CEILING_DB
from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "foley_tui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _device_rate(env: dict[str, str]) -> int:
    devices = _run(env, "devices")
    assert devices.returncode == 0, devices.stderr
    match = re.search(r"^\*.*, (\d+) Hz\)$", devices.stdout, re.MULTILINE)
    assert match, devices.stdout
    return int(match.group(1))


@pytest.mark.parametrize(
    ("name", "subtype", "value"),
    [
        ("allnan.wav", "FLOAT", np.nan),
        ("posinf.wav", "FLOAT", np.inf),
        ("neginf.wav", "FLOAT", -np.inf),
        ("double.wav", "DOUBLE", 1e300),
    ],
)
def test_play_of_a_non_finite_file_is_silence_whatever_the_volume(
    tmp_path: Path, name: str, subtype: str, value: float
) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = capture.env()
    rate = _device_rate(env)
    path = tmp_path / name
    sf.write(str(path), np.full((rate // 2, 2), value), rate, subtype=subtype)
    played = _run(env, "play", str(path), "--volume", "-40")
    assert played.returncode == 0, played.stderr
    frames = capture.read_frames(channels=2)
    assert len(frames) >= rate // 2  # the sound was played out, frame by frame
    assert np.isfinite(frames).all()
    assert not np.any(frames), float(np.abs(frames).max())  # silence, not full scale
    assert f"non-finite samples in {name}: {rate} replaced by silence" in played.stderr


def test_a_sine_with_non_finite_samples_plays_as_the_sine(tmp_path: Path) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = capture.env()
    rate = _device_rate(env)
    n = np.arange(rate // 2)
    sine = (0.25 + 0.5 * np.abs(np.sin(2 * np.pi * 440 * n / rate))).astype(np.float32)
    data = np.stack([sine, -sine], axis=1)
    # One side at a time, so no frame is silent on both (those are the unpaced sink's
    # idle or late frames, which strip_silence drops).
    left_bad = n % 101 == 50
    right_bad = (n % 103 == 20) & ~left_bad
    data[left_bad, 0] = np.nan
    data[right_bad, 1] = np.inf
    path = tmp_path / "sprinkled.wav"
    sf.write(str(path), data, rate, subtype="FLOAT")
    played = _run(env, "play", str(path), "--volume", "-6.02")
    assert played.returncode == 0, played.stderr
    frames = capture.read_frames(channels=2)
    assert np.isfinite(frames).all()
    got = strip_silence(frames)
    expected = data.copy()
    expected[left_bad, 0] = 0.0
    expected[right_bad, 1] = 0.0
    expected *= np.float32(10 ** (-6.02 / 20))
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    count = int(left_bad.sum() + right_bad.sum())
    assert f"non-finite samples in sprinkled.wav: {count} replaced" in played.stderr


FADE_UNDER_SCENE = textwrap.dedent(
    """
    import json, sys, threading, time
    from pathlib import Path
    import numpy as np, soundfile as sf
    from foley_tui.audio.base import AudioFormat, Source
    from foley_tui.audio.mixer import MixVoice, Scene
    from foley_tui.audio.player import SoundDevicePlayer

    folder = Path(sys.argv[1])
    player = SoundDevicePlayer()
    rate = player.samplerate
    full = np.ones((rate, 2), np.float32)  # full-scale DC: every sample at 0 dBFS
    preview = folder / "preview.wav"
    sf.write(str(preview), full, rate, subtype="FLOAT")
    bed = folder / "bed.wav"
    sf.write(str(bed), full, rate, subtype="FLOAT")
    player.set_loop(True)  # the preview sounds until the scene replaces it
    player.play(Source(preview, AudioFormat.WAV, "path", str(preview)))
    deadline = time.monotonic() + 10
    while player.status().position_s < 0.05 and time.monotonic() < deadline:
        time.sleep(0.005)
    player.set_loop(False)
    player.play_scene(Scene([MixVoice(bed, 0.0), MixVoice(bed, 0.0, lane="music")]))
    time.sleep(0.3)
    player.stop()
    time.sleep(0.1)
    player.close()
    print(json.dumps({"rate": rate}))
    """
)


def test_a_preview_fading_under_a_scene_never_passes_the_ceiling(tmp_path: Path) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    result = subprocess.run(
        [sys.executable, "-c", FADE_UNDER_SCENE, str(tmp_path)],
        env=capture.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout.strip().splitlines()[-1])
    frames = strip_silence(capture.read_frames(channels=2))
    assert len(frames) > 0 and np.isfinite(frames).all()
    ceiling = np.float32(10 ** (CEILING_DB / 20))
    # The preview alone reaches 0 dBFS; from the scene's start, nothing passes the
    # master's ceiling, the preview's fade-out included.
    first_limited = int(np.argmax(frames[:, 0] < 1.0))
    assert first_limited > 0 and np.all(frames[:first_limited] == 1.0)
    after = frames[first_limited:]
    assert float(np.abs(after).max()) <= ceiling, float(np.abs(after).max())
