"""The ALSA capture helper other tests and benchmarks rely on (no audio device needed)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np

from tests.alsa_capture import AlsaCapture, SoundWatcher, strip_silence


def test_config_and_readback(tmp_path: Path) -> None:
    capture = AlsaCapture.create(tmp_path / "alsa")
    text = capture.config_path.read_text()
    assert "type file" in text and 'slave.pcm "null"' in text and 'format "raw"' in text
    assert str(capture.capture_path) in text
    assert capture.env({"A": "1"}) == {"A": "1", "ALSA_CONFIG_PATH": str(capture.config_path)}
    frames = np.array([[0, 0], [0.5, -0.5], [0, 0], [0, 0.25]], np.float32)
    capture.capture_path.write_bytes(frames.tobytes() + b"\x00\x00")  # a torn last sample
    np.testing.assert_array_equal(capture.read_frames(), frames)
    np.testing.assert_array_equal(strip_silence(capture.read_frames()), frames[[1, 3]])
    capture.truncate()
    assert capture.size() == 0


def test_watcher_stamps_the_first_sound_after_arming(tmp_path: Path) -> None:
    capture = AlsaCapture.create(tmp_path / "alsa")
    capture.capture_path.write_bytes(np.ones(64, np.float32).tobytes())  # old sound: ignored
    with SoundWatcher(capture) as watcher:
        watcher.arm()
        stamps: list[float] = []

        def writer() -> None:
            with open(capture.capture_path, "r+b") as out:
                # A writer far past the end (as after truncate()): a hole, then silence.
                out.seek(64 * 1024 * 1024)
                out.write(bytes(4096))
                out.flush()
                time.sleep(0.05)
                stamps.append(time.perf_counter())
                out.write(np.full(8, 0.5, np.float32).tobytes())

        thread = threading.Thread(target=writer)
        thread.start()
        heard = watcher.wait()
        thread.join()
        assert stamps and heard >= stamps[0]
    assert os.path.getsize(capture.capture_path) > 64 * 1024 * 1024
