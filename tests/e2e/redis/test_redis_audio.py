"""Audio shared through Redis: pushed with ``--with-audio`` on one machine, streamed by the
player on another where the file does not exist (real redis-server, real PortAudio into
an ALSA file PCM; two HOMEs stand for two machines)."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path

import numpy as np
import soundfile as sf

from foley_tui.audio.blob import BLOCK_BYTES
from foley_tui.audio.resolve import local_file
from foley_tui.store import SessionService
from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio, signal
from tests.e2e.test_scene_output import _run
from tests.unit.store.helpers import candidate

from .server import RedisServer


def machine(root: Path, capture: AlsaCapture | None = None) -> dict[str, str]:
    """The environment of one "machine": its own HOME, data dir and XDG dirs."""
    home = root / "home"
    env = capture.env() if capture is not None else dict(os.environ)
    env.update(
        HOME=str(home),
        FOLEY_DATA_DIR=str(root / "data"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        FOLEY_TUI_STORE="",
    )
    return env


def library_session(
    root: Path, sounds: dict[str, tuple[np.ndarray, int, bool]]
) -> tuple[SessionService, str, dict[str, Path]]:
    """Machine A (``root``): a file-store session whose candidates are files of a library
    folder (index in place), ``name -> (signal, rate, cache_bytes_ok)``."""
    library = root / "library"
    library.mkdir(parents=True)
    files = SessionService(root / "data")
    sid = files.create("shared audio")
    paths: dict[str, Path] = {}
    cands = []
    for name, (data, rate, cache_ok) in sounds.items():
        paths[name] = library / f"{name}.wav"
        sf.write(str(paths[name]), data, rate, format="WAV", subtype="FLOAT")
        cand = candidate(f"fs:{name}")
        cand["sound"]["uri"] = str(paths[name])
        cand["sound"]["license"]["cache_bytes_ok"] = cache_ok
        cands.append(cand)
    files.get(sid).cache_candidates(cands)
    return files, sid, paths


def device_rate(env: dict[str, str]) -> int:
    devices = _run(env, "devices")
    assert devices.returncode == 0, devices.stderr
    match = re.search(r"^\*.*, (\d+) Hz\)$", devices.stdout, re.MULTILINE)
    assert match, devices.stdout
    return int(match.group(1))


def test_the_player_streams_pushed_audio_from_redis(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env_a = machine(tmp_path / "a")
    env_b = machine(tmp_path / "b", capture)
    rate = device_rate(env_b)

    # Machine A: a session whose sounds are files in a library folder (index in place).
    # The first is longer than one range block, so it streams in several GETRANGEs.
    long_signal = signal(rate, 1.0 + 3 * BLOCK_BYTES / (rate * 8))
    _, sid, paths = library_session(
        tmp_path / "a",
        {"door": (long_signal, rate, True), "rain": (signal(rate, 0.2), rate, False)},
    )
    door, rain = paths["door"], paths["rain"]
    assert door.stat().st_size > 3 * BLOCK_BYTES
    door_bytes = door.read_bytes()

    pushed = _run(env_a, "session", "push", sid, redis_server.url, "--with-audio")
    assert pushed.returncode == 0, pushed.stderr
    assert "audio: 1 copied, 1 skipped" in pushed.stdout
    why = r"skipped fs:rain: licence forbids caching.*cache_bytes_ok false"
    assert re.search(why, pushed.stderr)
    sha = hashlib.sha256(door_bytes).hexdigest()
    assert redis_server.client().get(f"foley:audio:{sha}") == door_bytes
    # The files are not on machine B (nor anywhere now).
    door.unlink()
    rain.unlink()

    # Machine B: play the shared session's candidate; the audio comes from Redis.
    played = _run(env_b, "--store", redis_server.url, "play", sid, "fs:door")
    assert played.returncode == 0, played.stderr
    got = strip_silence(capture.read_frames())
    np.testing.assert_array_equal(got, long_signal)  # every sample, in order, exactly
    # Streamed into memory only: nothing was written to B's byte store or caches.
    data_b = Path(env_b["FOLEY_DATA_DIR"])
    assert not (data_b / "audio").exists()
    written = [p for p in (tmp_path / "b").rglob("*") if p.is_file()]
    assert all(p.stat().st_size < len(door_bytes) // 2 for p in written), written

    # The sound whose licence forbids caching it was never pushed: it says why.
    refused = _run(env_b, "--store", redis_server.url, "play", sid, "fs:rain")
    assert refused.returncode == 1
    assert "cannot play: its licence forbids caching its bytes (cache_bytes_ok false)" in (
        refused.stderr
    )
    assert f"missing {rain}" in refused.stderr  # and where the file was looked for

    # A blob gone from the server: the reason says so (no crash, no "corrupt").
    redis_server.client().delete(f"foley:audio:{sha}")
    gone = _run(env_b, "--store", redis_server.url, "play", sid, "fs:door")
    assert gone.returncode == 1
    assert f"its audio blob {sha[:12]}… is missing on Redis at {redis_server.url}" in gone.stderr


def test_play_scene_streams_pushed_audio_too(redis_server: RedisServer, tmp_path: Path) -> None:
    """The scene mixer reads the same streamed blobs (``play-scene`` on machine B)."""
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env_a = machine(tmp_path / "a")
    env_b = machine(tmp_path / "b", capture)
    rate = device_rate(env_b)
    files, sid, paths = library_session(tmp_path / "a", {"door": (signal(rate, 0.3), rate, True)})
    door = paths["door"]
    store = files.get(sid)
    store.add_pick("fs:door", layer="sfx_fg", onset=0.0)
    pushed = _run(env_a, "session", "push", sid, redis_server.url, "--with-audio")
    assert pushed.returncode == 0, pushed.stderr
    door.unlink()
    played = _run(env_b, "--store", redis_server.url, "play-scene", sid)
    assert played.returncode == 0, played.stderr
    got = strip_silence(capture.read_frames())
    assert len(got) >= int(rate * 0.3) * 0.95  # the whole sound reached the device


async def test_the_app_plays_pushed_audio_from_redis(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The app's own path (details pane, space): the file is not on this machine, the
    source is the blob on Redis, and the details say where it comes from."""
    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.audio.base import Source
    from foley_tui.audio.blob import RemoteBlob
    from foley_tui.screens.audition.screen import AuditionScreen
    from foley_tui.store.byte_store import StoredBytes
    from foley_tui.store.redis.service import RedisSessionService
    from foley_tui.store.redis.transfer import push
    from foley_tui.widgets.details import Details
    from tests.fakes import FakePlayer
    from tests.ui.test_behaviour import plain

    files, sid, paths = library_session(tmp_path / "a", {"door": (signal(48000, 0.2), 48000, True)})
    door = paths["door"]
    report = push(files, RedisSessionService(redis_server.url), sid, audio=local_file)
    assert report.audio_copied == ["fs:door"]
    door.unlink()

    service = RedisSessionService(redis_server.url, data_dir=tmp_path / "b" / "data")
    player = FakePlayer()
    store = service.get(sid)
    shared = store.remote_audio()
    assert shared is not None
    asked_on: list[bool] = []
    real_find = shared.find

    def find(sound_id: str) -> StoredBytes | None:
        asked_on.append(threading.current_thread() is threading.main_thread())
        return real_find(sound_id)

    shared.find = find  # type: ignore[method-assign]
    app = FoleyApp(store, player)
    async with app.run_test(size=(120, 30)) as pilot:
        for _ in range(200):  # the follow worker never ends: wait for the screen instead
            await pilot.pause(0.02)
            screen = app.screen
            if isinstance(screen, AuditionScreen) and screen.model.loaded and screen.current_id:
                break
        screen = app.screen
        assert isinstance(screen, AuditionScreen) and screen.current_id == "fs:door"
        await pilot.press("space")  # may come before the lookup's answer: played on it
        for _ in range(200):
            await pilot.pause(0.02)
            if any(name == "play" for name, _ in player.calls):
                break
        [played] = [args[0] for name, args in player.calls if name == "play"]
        assert isinstance(played, Source) and played.how == "redis"
        assert isinstance(played.path, RemoteBlob) and played.path.size > 0
        shown = " ".join(plain(screen.query_one(Details).content).split())
        assert "wav · redis · Redis blob" in shown
        assert asked_on and not any(asked_on)  # never on the UI thread
        await pilot.press("q")
