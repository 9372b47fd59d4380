"""The real-output integration test: PortAudio -> ALSA ``file`` PCM -> bytes we compare.

Each check runs in a subprocess because ``ALSA_CONFIG_PATH`` must be set before PortAudio
initialises (the pytest process may already have initialised it). The capture device is
unpaced, so the feeder can fall behind the callback: the player then plays silence and
holds the playhead (no frame is dropped). The signals therefore never contain an exact
zero, and the check compares the non-silent frames with the expected signal:

- at unity gain, from a file already at the device's default rate: bit-exact;
- at -6.02 dB preview volume: equal to ``signal * 10 ** (-6.02 / 20)`` within float32
  rounding (the gain is applied in float32).

No fade applies: each sound starts at 0 on an idle player and ends by itself. Between
the two plays the idle stream naps (the sink is unpaced) and the second play cuts the
nap short, so that path is checked too.

With ``FOLEY_TUI_REQUIRE_PORTAUDIO`` set (CI), a missing PortAudio is a failure, not a skip.
"""

from __future__ import annotations

import ctypes.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.alsa_capture import AlsaCapture, strip_silence

GAIN_DB = -6.02


def require_portaudio() -> None:
    if ctypes.util.find_library("portaudio") is None:
        message = "PortAudio (libportaudio2) is not installed"
        if os.environ.get("FOLEY_TUI_REQUIRE_PORTAUDIO"):
            pytest.fail(f"{message}, and FOLEY_TUI_REQUIRE_PORTAUDIO is set")
        pytest.skip(message)


def signal(rate: int, seconds: float) -> np.ndarray:
    """Stereo, never exactly zero: offset sines of different pitch per side."""
    t = np.arange(int(rate * seconds)) / rate
    left = 0.5 + 0.25 * np.sin(2 * np.pi * 440 * t)
    right = -0.5 + 0.25 * np.sin(2 * np.pi * 660 * t)
    return np.stack([left, right], axis=1).astype(np.float32)


PLAYER_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading, time
    from pathlib import Path
    import numpy as np, soundfile as sf
    from foley_tui.audio.base import AudioFormat, PlayerState, Source
    from foley_tui.audio.player import SoundDevicePlayer

    folder = Path(sys.argv[1])
    player = SoundDevicePlayer()
    rate = player.samplerate
    t = np.arange(int(rate * 0.4)) / rate
    data = np.stack([0.5 + 0.25 * np.sin(2 * np.pi * 440 * t),
                     -0.5 + 0.25 * np.sin(2 * np.pi * 660 * t)], axis=1).astype(np.float32)
    path = folder / "signal"
    sf.write(str(path), data, rate, format="WAV", subtype="FLOAT")
    source = Source(path, AudioFormat.WAV, "path", str(path))
    ended = threading.Event()
    player.set_state_callback(
        lambda s: ended.set() if s.state is PlayerState.STOPPED else None)
    idle_speed = None
    for volume in (0.0, float(sys.argv[2])):
        ended.clear()
        player.set_volume_db(volume)
        player.play(source)
        assert ended.wait(10), "the sound never ended"
        if idle_speed is None:  # idle, the unpaced sink must not run far ahead of time
            time.sleep(0.1)
            before, t0 = player.frames_out, time.monotonic()
            time.sleep(0.3)
            idle_speed = (player.frames_out - before) / (time.monotonic() - t0) / rate
    status = player.status()
    player.close()
    print(json.dumps({"rate": rate, "position": status.position_s, "idle": idle_speed,
                      "error": status.error, "device": player.device_name}))
    """
)


def test_real_output_is_exactly_the_signal_after_gain(tmp_path: Path) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    result = subprocess.run(
        [sys.executable, "-c", PLAYER_SCRIPT, str(tmp_path), str(GAIN_DB)],
        env=capture.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["error"] is None and report["device"].startswith("default")
    # Idle, the unpaced sink is paced by the player's naps (else ~300x real time).
    assert report["idle"] < 4
    expected = signal(report["rate"], 0.4)
    assert report["position"] == pytest.approx(len(expected) / report["rate"])

    played = strip_silence(capture.read_frames(channels=2))
    assert len(played) == 2 * len(expected)  # both plays, every frame, tails included
    np.testing.assert_array_equal(played[: len(expected)], expected)  # unity: bit-exact
    gain = np.float32(10 ** (GAIN_DB / 20))
    np.testing.assert_allclose(played[len(expected) :], expected * gain, rtol=1e-6, atol=1e-7)


def test_cli_devices_and_play_a_session_candidate(tmp_path: Path) -> None:
    """`foley-tui play SESSION SOUND_ID` resolves and plays through the real path."""
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = capture.env()
    devices = subprocess.run(
        [sys.executable, "-m", "foley_tui", "devices"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert devices.returncode == 0, devices.stderr
    assert "default" in devices.stdout and "*" in devices.stdout

    data_dir = Path(env["FOLEY_DATA_DIR"])
    # The blob is written at the device's default rate (listed by `devices`), so the
    # player need not resample and the comparison can be exact.
    match = re.search(r"^\*.*, (\d+) Hz\)$", devices.stdout, re.MULTILINE)
    assert match, devices.stdout
    rate = int(match.group(1))
    blob = signal(rate, 0.25)
    blob_path = tmp_path / "blob"
    sf.write(str(blob_path), blob, rate, format="FLAC", subtype="PCM_24")
    import hashlib

    key = hashlib.sha256(blob_path.read_bytes()).hexdigest()
    (data_dir / "audio").mkdir(parents=True)
    (data_dir / "audio" / key).write_bytes(blob_path.read_bytes())
    candidates = data_dir / "sessions" / "s1" / "candidates"
    candidates.mkdir(parents=True)
    candidate = {"sound": {"id": "fs:1", "content_sha256": key}, "preview_uri": None}
    (candidates / "fs%3A1.json").write_bytes(json.dumps(candidate, indent=4).encode())
    played = subprocess.run(
        [sys.executable, "-m", "foley_tui", "play", "s1", "fs:1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert played.returncode == 0, played.stderr
    decoded, _ = sf.read(str(blob_path), dtype="float32")
    got = strip_silence(capture.read_frames())
    # No resampling (the blob is at the device rate): the FLAC's samples, exactly.
    np.testing.assert_array_equal(got, decoded)
