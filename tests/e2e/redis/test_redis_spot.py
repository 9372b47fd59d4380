"""Spotting a shared session on another machine: a sound pushed to Redis with its audio is
read through the store (as a preview is) and copied into the bundle; one whose licence
forbids keeping its bytes was never pushed and is listed with why (real redis-server;
two HOMEs stand for two machines)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

from tests.e2e.redis.test_redis_audio import library_session, machine
from tests.e2e.test_audio_output import signal
from tests.e2e.test_scene_output import _run
from tests.spot_check import ffprobe, read_cues

from .server import RedisServer


def test_a_redis_session_spots_with_its_pushed_audio(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    env_a = machine(tmp_path / "a")
    env_b = machine(tmp_path / "b")
    door_signal = signal(48000, 0.5)
    files, sid, paths = library_session(
        tmp_path / "a",
        {"door": (door_signal, 48000, True), "rain": (signal(48000, 0.2), 48000, False)},
    )
    store = files.get(sid)
    store.add_pick("fs:door", layer="sfx_fg", onset=1.25)
    store.add_pick("fs:rain", layer="ambience", onset=0.0)
    pushed = _run(env_a, "session", "push", sid, redis_server.url, "--with-audio")
    assert pushed.returncode == 0, pushed.stderr
    for path in paths.values():
        path.unlink()  # not on machine B (nor anywhere now)

    out = tmp_path / "b" / "bundle"
    done = _run(env_b, "--store", redis_server.url, "spot", sid, "-o", str(out), "--float")
    assert done.returncode == 0, done.stderr
    cues = {r["sound_id"]: r for r in read_cues(out / "cues.csv")}
    door = cues["fs:door"]
    assert door["status"] == "placed"
    probe = ffprobe(out / door["file"])
    assert int(probe["format"]["tags"]["time_reference"]) == int(1.25 * 48000)
    copy, rate = sf.read(str(out / door["file"]), dtype="float32", always_2d=True)
    assert rate == 48000
    np.testing.assert_array_equal(copy, np.asarray(door_signal, np.float32).reshape(copy.shape))
    rain = cues["fs:rain"]
    assert rain["status"] == "left out"
    assert "cache_bytes_ok false" in rain["note"]
    assert "fs:rain" in done.stdout or "left out" in done.stdout
