"""A read that blocks never holds up what is already decoded: PortAudio -> ALSA ``file``.

The player's reader thread decodes each sound ahead; the feeder mixes what it decoded
into the output ring. Here a sound's bytes come from a store by range (a
:class:`~foley_tui.audio.blob.RemoteBlob`, as a Redis session's pushed audio does), and
the store stops answering partway through the sound, as a disk or a network does under
load. While the fetch is blocked, the device must go on playing everything decoded
before it (most of a second), and once the store answers again the sound goes on
without a frame lost. When one thread both decoded and filled the ring, the blocked
read stopped the sound after the ring's few milliseconds.

The waits are on states (the fetch reached, the playhead passed a point), each with a
generous timeout; none times anything.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio, signal

SECONDS = 4.0

PLAYER_SCRIPT = textwrap.dedent(
    """
    import io, json, sys, threading, time
    import numpy as np, soundfile as sf
    from foley_tui.audio.base import AudioFormat, PlayerState, Source
    from foley_tui.audio.blob import BLOCK_BYTES, RemoteBlob
    from foley_tui.audio.player import SoundDevicePlayer

    seconds = float(sys.argv[1])
    player = SoundDevicePlayer()
    rate = player.samplerate
    t = np.arange(int(rate * seconds)) / rate
    data = np.stack([0.5 + 0.25 * np.sin(2 * np.pi * 440 * t),
                     -0.5 + 0.25 * np.sin(2 * np.pi * 660 * t)], axis=1).astype(np.float32)
    buffer = io.BytesIO()
    sf.write(buffer, data, rate, format="WAV", subtype="FLOAT")
    raw = buffer.getvalue()
    hold_from = 2 * BLOCK_BYTES  # well past the first block play() itself decodes
    answer = threading.Event()
    reached = threading.Event()

    def fetch(start, end):
        if hold_from <= start < len(raw) - BLOCK_BYTES and not answer.is_set():
            reached.set()
            answer.wait(120)
        return raw[start : end + 1]

    blob = RemoteBlob("blocking store", len(raw), "blocking", fetch, raw[:4096])
    source = Source(blob, AudioFormat.WAV, "redis", "blocking")
    ended = threading.Event()
    player.set_state_callback(
        lambda s: ended.set() if s.state is PlayerState.STOPPED else None)
    player.play(source)
    assert reached.wait(60), "the reader never reached the blocked range"
    blocked_at = player.status().position_s
    # The reader is blocked in the store: the device goes on with what it decoded.
    deadline = time.monotonic() + 60
    while player.status().position_s < blocked_at + 0.4 and time.monotonic() < deadline:
        time.sleep(0.01)
    played_while_blocked = player.status().position_s - blocked_at
    still_blocked = not answer.is_set()
    answer.set()
    assert ended.wait(60), "the sound never ended"
    status = player.status()
    player.close()
    print(json.dumps({"rate": rate, "blocked_at": blocked_at,
                      "played_while_blocked": played_while_blocked,
                      "still_blocked": still_blocked, "position": status.position_s,
                      "error": status.error}))
    """
)


def test_a_blocked_read_never_stops_what_is_decoded(tmp_path: Path) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    result = subprocess.run(
        [sys.executable, "-c", PLAYER_SCRIPT, str(SECONDS)],
        env=capture.env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["error"] is None
    assert report["still_blocked"]
    # Most of a second was decoded ahead when the read blocked; the ring alone holds
    # at most 50 ms.
    assert report["played_while_blocked"] >= 0.4, report
    assert report["position"] == pytest.approx(SECONDS)
    # Once the store answered, the sound went on: every frame, in order, bit-exact.
    expected = signal(report["rate"], SECONDS)
    played = strip_silence(capture.read_frames(channels=2))
    np.testing.assert_array_equal(played, expected)
