"""Capture what PortAudio plays, without a sound card: an ALSA ``file`` PCM.

A standalone ALSA config (selected with ``ALSA_CONFIG_PATH``, which must be set before
PortAudio initialises, i.e. in a fresh process) makes the default PCM a ``file`` plugin
over the ``null`` plugin, writing every frame played as raw float32 (interleaved, at
whatever rate/channels the stream opened). The device is *unpaced* (it runs far faster
than real time) and the file is truncated whenever a stream is opened.

Used by the audio integration test and by key-to-sound benchmarks (audio and UI). API::

    cap = AlsaCapture.create(tmp_path)          # writes asound.conf, chooses capture.raw
    env = cap.env()                             # os.environ + ALSA_CONFIG_PATH, for Popen
    ... run a player in a subprocess with env ...
    frames = cap.read_frames(channels=2)        # (n, 2) float32, bit-exact what was played
    sound = strip_silence(frames)               # drop all-zero frames (idle, underruns)

    watcher = SoundWatcher(cap)                 # a separate process polling the file
    watcher.arm()                               # from now on, look for the first sound
    t0 = time.perf_counter(); player.play(...)
    t_sound = watcher.wait()                    # perf_counter() when the first non-zero
    watcher.close()                             # frame appeared in the capture file

``time.perf_counter`` is ``CLOCK_MONOTONIC`` on Linux, so the watcher's timestamps compare
with the player process's. Watching from another process keeps the poll loop from
competing for the player's GIL (its audio callback is Python).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_CONFIG = """\
# foley-tui test config: the default PCM writes raw float32 frames to a file.
pcm.!default {{
    type file
    slave.pcm "null"
    file "{capture}"
    format "raw"
}}
pcm.null {{
    type null
}}
ctl.!default {{
    type hw
    card 0
}}
"""


@dataclass(frozen=True)
class AlsaCapture:
    """An ALSA config whose default PCM writes to :attr:`capture_path`."""

    config_path: Path
    capture_path: Path

    @classmethod
    def create(cls, directory: Path) -> AlsaCapture:
        directory.mkdir(parents=True, exist_ok=True)
        capture = directory / "capture.raw"
        config = directory / "asound.conf"
        config.write_text(_CONFIG.format(capture=str(capture).replace('"', '\\"')))
        return cls(config, capture)

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """A copy of ``base`` (default ``os.environ``) with ``ALSA_CONFIG_PATH`` set."""
        env = dict(os.environ if base is None else base)
        env["ALSA_CONFIG_PATH"] = str(self.config_path)
        return env

    def size(self) -> int:
        """Bytes written so far (0 if the device was never opened)."""
        try:
            return self.capture_path.stat().st_size
        except FileNotFoundError:
            return 0

    def truncate(self) -> None:
        """Empty (or create) the capture file. A writer that has it open keeps its
        offset: the start becomes a hole that reads as zeros, so disk use stays bounded
        during a long benchmark."""
        fd = os.open(self.capture_path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)

    def read_frames(self, channels: int = 2, offset_bytes: int = 0) -> np.ndarray:
        """Everything captured from ``offset_bytes`` on, as ``(frames, channels)`` float32."""
        if not self.capture_path.exists():
            return np.zeros((0, channels), dtype=np.float32)
        data = np.fromfile(self.capture_path, dtype=np.float32, offset=offset_bytes)
        usable = len(data) - len(data) % channels
        return data[:usable].reshape(-1, channels)


def strip_silence(frames: np.ndarray) -> np.ndarray:
    """The frames with at least one non-zero sample, in order (drops idle and underruns)."""
    if frames.ndim == 1:
        return frames[frames != 0]
    return frames[np.any(frames != 0, axis=1)]


_WATCHER = textwrap.dedent(
    """
    import os, sys, time
    import numpy as np
    path = sys.argv[1]
    out = sys.stdout
    while True:
        line = sys.stdin.readline()
        if not line or line.strip() == "quit":
            break
        deadline = time.perf_counter() + float(line.split()[1])
        fd = None
        while fd is None and time.perf_counter() < deadline:
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                time.sleep(0.0002)
        if fd is None:
            out.write("timeout\\n"); out.flush(); continue
        offset = os.fstat(fd).st_size
        offset -= offset % 8
        out.write("armed\\n"); out.flush()
        found = None
        while time.perf_counter() < deadline:
            size = os.fstat(fd).st_size
            if size < offset:  # truncated by a new stream open: start over
                offset = 0
            if size - offset >= 8:
                # Skip a hole left by truncate() (the writer kept its offset): holes are
                # silence, and reading gigabytes of them would take seconds.
                try:
                    data_at = os.lseek(fd, offset, os.SEEK_DATA)
                except OSError:  # ENXIO: nothing but a hole after offset
                    offset = size - size % 8
                    continue
                if data_at > offset:
                    offset = data_at - data_at % 8
                want = min(size - offset, 1 << 24)
                data = os.pread(fd, want - want % 8, offset)
                # Any non-zero bits (float32 from PortAudio, S16 from aplay, even -0.0).
                samples = np.frombuffer(data, dtype=np.uint32)
                hit = np.flatnonzero(samples)
                if len(hit):
                    found = time.perf_counter()
                    break
                offset += len(data)
            else:
                # A short sleep, not a spin: on a busy machine a waking task is scheduled
                # promptly, a spinning one is preempted for whole time slices. The cost
                # is a resolution of ~0.1 ms, biased late (against the player measured).
                time.sleep(0.00005)
        os.close(fd)
        out.write(f"{found!r}\\n" if found else "timeout\\n"); out.flush()
    """
)


class SoundWatcher:
    """A subprocess that reports when the first non-zero sample reaches the capture file."""

    def __init__(self, capture: AlsaCapture, python: str = sys.executable) -> None:
        self.capture = capture
        self._proc = subprocess.Popen(
            [python, "-c", _WATCHER, str(capture.capture_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def arm(self, timeout_s: float = 30.0) -> None:
        """Start watching from the current end of the capture file; returns once armed."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(f"watch {timeout_s}\n")
        self._proc.stdin.flush()
        reply = self._proc.stdout.readline().strip()
        if reply != "armed":
            raise TimeoutError(f"capture file never appeared ({reply or 'watcher died'})")

    def wait(self) -> float:
        """The ``perf_counter()`` time the first sound was seen; raises ``TimeoutError``."""
        assert self._proc.stdout is not None
        reply = self._proc.stdout.readline().strip()
        if not reply or reply == "timeout":
            raise TimeoutError("no sound reached the capture file")
        return float(reply)

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write("quit\n")
                self._proc.stdin.flush()
                self._proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> SoundWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def wait_for_size(capture: AlsaCapture, min_bytes: int, timeout_s: float = 30.0) -> bool:
    """Poll until the capture holds ``min_bytes`` (used to wait for a stream to run)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if capture.size() >= min_bytes:
            return True
        time.sleep(0.001)
    return False
