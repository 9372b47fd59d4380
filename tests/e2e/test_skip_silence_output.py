"""Skip-silence through the real output: the app (headless, the real SoundDevicePlayer on
the ALSA ``file`` PCM of tests/alsa_capture.py) previews a file with 1.5 s of leading
silence; what reaches the device starts within 20 ms of the file's first sound, and the
rest is the file, bit for bit. With ``Z`` (skip-silence off) the same key plays it whole.

The "silence" is a faint hiss 50 dB under the tone (the detector's threshold is relative
to the file's peak) that is never exactly zero, so the capture's idle zeros can be
stripped without losing a played frame.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import soundfile as sf

from foley_tui.store import SessionService
from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio
from tests.scene_fixtures import candidate_from_audio

LEAD_S = 1.5
TOLERANCE_S = 0.020

APP_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.audio.base import PlayerState
    from foley_tui.audio.player import SoundDevicePlayer
    from foley_tui.config import Config
    from foley_tui.store import SessionService
    from foley_tui.widgets.waveform import Waveform

    data, session = sys.argv[1:3]

    async def play_to_the_end(pilot, player) -> None:
        await pilot.press("space")
        for _ in range(100):  # until it started ...
            await pilot.pause(0.02)
            if player.status().state is PlayerState.PLAYING:
                break
        for _ in range(2400):  # ... and ended (the unpaced sink is fast)
            await pilot.pause(0.02)
            if player.status().state is PlayerState.STOPPED:
                break
        assert player.status().state is PlayerState.STOPPED, "never ended"

    async def main() -> None:
        service = SessionService(Path(data))
        player = SoundDevicePlayer()
        app = FoleyApp(service.get(session), player, Config(), service)
        async with app.run_test(size=(120, 30)) as pilot:
            screen = None
            for _ in range(1200):
                await pilot.pause(0.05)
                screen = app.audition
                if screen is not None and screen.model.loaded:
                    break
            assert screen is not None and screen.model.loaded, "never loaded"
            waveform = screen.query_one(Waveform)
            for _ in range(1200):  # the exact peaks measured where the sound starts
                await pilot.pause(0.05)
                if waveform.first_sound_s > 0:
                    break
            print("first", waveform.first_sound_s)
            await play_to_the_end(pilot, player)
            await pilot.press("Z")
            await pilot.pause(0.1)
            await play_to_the_end(pilot, player)
            print("error", player.status().error)
        player.close()

    asyncio.run(main())
    """
)


def test_skip_silence_starts_at_the_first_sound(tmp_path: Path) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = capture.env()
    devices = subprocess.run(
        [sys.executable, "-m", "foley_tui", "devices"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert devices.returncode == 0, devices.stderr
    match = re.search(r"^\*.*, (\d+) Hz\)$", devices.stdout, re.MULTILINE)
    assert match, devices.stdout
    rate = int(match.group(1))

    rng = np.random.default_rng(3)
    lead = int(LEAD_S * rate)
    hiss = rng.uniform(0.001, 0.002, (lead, 2)) * rng.choice([-1.0, 1.0], (lead, 2))
    t = np.arange(int(0.5 * rate)) / rate
    tone = np.stack([0.5 + 0.25 * np.sin(2 * np.pi * 440 * t)] * 2, axis=1)
    data = np.concatenate([hiss, tone]).astype(np.float32)
    path = tmp_path / "lead-in.wav"
    sf.write(str(path), data, rate, subtype="FLOAT")
    data_dir = Path(os.environ["FOLEY_DATA_DIR"])
    service = SessionService(data_dir)
    session_id = service.create("lead-in")
    service.get(session_id).cache_candidates([candidate_from_audio(path)])

    result = subprocess.run(
        [sys.executable, "-c", APP_SCRIPT, str(data_dir), session_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "error None" in result.stdout, result.stdout
    heard = strip_silence(capture.read_frames(channels=2))
    # Two plays: from the first sound, then (skip-silence off) the whole file.
    whole = len(data)
    skipped = len(heard) - whole
    np.testing.assert_array_equal(heard[skipped:], data)  # the second play: every frame
    started_at = whole - skipped  # where in the file the first play began
    assert abs(started_at - lead) <= TOLERANCE_S * rate, (started_at, lead, rate)
    tail = int(0.4 * rate)  # after the entry fade, the first play is the file exactly
    np.testing.assert_array_equal(heard[skipped - tail : skipped], data[-tail:])
