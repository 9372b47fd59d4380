"""An idle player's stream rests and wakes whole: PortAudio -> ALSA ``file`` PCM.

Once nothing has sounded for a while the player stops its output stream (still open),
so no callback runs and the app idles at no cost; the next play() starts it again
after putting the sound's first frames in the ring. Through the real PortAudio: while
the stream rests no frame reaches the device, and the sound played after the rest is in
the capture whole, bit-exact, from its first frame (no block of it lost to the start).
The waits are on states, each with a generous timeout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio, signal

SECONDS = 0.3

PLAYER_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading, time
    from pathlib import Path
    import numpy as np, soundfile as sf
    from foley_tui.audio.base import AudioFormat, PlayerState, Source
    from foley_tui.audio.player import SoundDevicePlayer

    folder, seconds = Path(sys.argv[1]), float(sys.argv[2])
    player = SoundDevicePlayer()
    rate = player.samplerate
    t = np.arange(int(rate * seconds)) / rate
    data = np.stack([0.5 + 0.25 * np.sin(2 * np.pi * 440 * t),
                     -0.5 + 0.25 * np.sin(2 * np.pi * 660 * t)], axis=1).astype(np.float32)
    path = folder / "signal.wav"
    sf.write(str(path), data, rate, format="WAV", subtype="FLOAT")
    source = Source(path, AudioFormat.WAV, "path", str(path))
    ended = threading.Event()
    player.set_state_callback(
        lambda s: ended.set() if s.state is PlayerState.STOPPED else None)
    report = {"rate": rate}
    for turn in ("first", "after_rest"):
        ended.clear()
        player.play(source)
        report[turn + "_running"] = player.output_running
        assert ended.wait(60), "the sound never ended"
        deadline = time.monotonic() + 60
        while player.output_running and time.monotonic() < deadline:
            time.sleep(0.01)
        report[turn + "_rested"] = not player.output_running
        frames = player.frames_out
        time.sleep(0.2)
        report[turn + "_frames_while_resting"] = player.frames_out - frames
    status = player.status()
    player.close()
    report["error"] = status.error
    print(json.dumps(report))
    """
)


def test_the_stream_rests_while_idle_and_the_next_sound_is_whole(tmp_path: Path) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    result = subprocess.run(
        [sys.executable, "-c", PLAYER_SCRIPT, str(tmp_path), str(SECONDS)],
        env=capture.env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["error"] is None
    for turn in ("first", "after_rest"):
        assert report[turn + "_running"]  # play() started the stream itself
        assert report[turn + "_rested"]
        assert report[turn + "_frames_while_resting"] == 0  # no callback ran
    expected = signal(report["rate"], SECONDS)
    played = strip_silence(capture.read_frames(channels=2))
    assert len(played) == 2 * len(expected)
    np.testing.assert_array_equal(played[: len(expected)], expected)
    np.testing.assert_array_equal(played[len(expected) :], expected)  # whole after a rest
