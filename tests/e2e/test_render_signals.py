"""``render-scene`` stopped part-way: SIGTERM and SIGHUP remove its partial file (exit
128+signal, nothing at the output); after SIGKILL the partial file stays, and the next
render to that folder sweeps it (and only partial files of our own naming whose render
is gone)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.scene.bounce import PARTIAL_SUFFIX
from foley_tui.store import SessionService
from foley_tui.store.local import candidate_from_audio


def _long_session(data_dir: Path, folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    service = SessionService(data_dir)
    session_id = service.create("long render")
    store = service.get(session_id)
    rate = 44100  # rendered at 48 kHz: resampled, so the render takes a while
    rng = np.random.default_rng(1)
    path = folder / "long.wav"
    sf.write(str(path), (0.1 * rng.standard_normal((rate * 90, 2))).astype(np.float32), rate)
    candidate = candidate_from_audio(path)
    store.cache_candidates([candidate])
    sid = candidate["sound"]["id"]
    store.picks_ns[sid] = {"sound_id": sid, "layer": "ambience", "onset": 0.0}
    return session_id


def _partials(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(PARTIAL_SUFFIX)]


def _start_render(session_id: str, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "foley_tui", "render-scene", session_id, "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_partial(proc: subprocess.Popen[str], folder: Path) -> Path:
    """The partial file, once the render has started writing it (or fail if it ended)."""
    while proc.poll() is None:
        found = _partials(folder)
        if found and found[0].stat().st_size > 0:
            return found[0]
        time.sleep(0.01)
    raise AssertionError(f"the render ended before writing: {proc.communicate()}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_render_leaves_no_partial_file(
    data_dir: Path, tmp_path: Path, sig: signal.Signals
) -> None:
    session_id = _long_session(data_dir, tmp_path / "audio")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = _start_render(session_id, out_dir / "mix.wav")
    partial = _wait_for_partial(proc, out_dir)
    assert partial.name.startswith(".mix.wav.")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, err
    assert f"stopped by {sig.name}" in err and "Traceback" not in err
    assert list(out_dir.iterdir()) == []  # no partial file, no output


def test_a_killed_renders_partial_file_is_swept_by_the_next(data_dir: Path, tmp_path: Path) -> None:
    session_id = _long_session(data_dir, tmp_path / "audio")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = _start_render(session_id, out_dir / "mix.wav")
    left = _wait_for_partial(proc, out_dir)
    proc.kill()
    proc.communicate(timeout=60)
    assert left.exists()  # SIGKILL cannot be caught: the file stays...
    # ...beside files that are not ours, or are ours but still being written.
    theirs = out_dir / ".mix.wav.partial"
    theirs.write_bytes(b"someone else's")
    live = out_dir / f".other.wav.{os.getpid()}{PARTIAL_SUFFIX}"
    live.write_bytes(b"a render still running")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "foley_tui",
            "render-scene",
            session_id,
            "-o",
            str(out_dir / "b.wav"),
            "--to",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not left.exists()
    assert theirs.exists() and live.exists()
    assert (out_dir / "b.wav").exists()
