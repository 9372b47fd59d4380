"""A scene through the players: the SoundDevicePlayer (fake PortAudio stream pulled by
hand) plays exactly the offline mix through the preview's stream; the NullPlayer keeps the
scene's time."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

from foley_tui.audio.base import SCENE_HOW, MixVoice, PlayerState, Scene
from foley_tui.audio.mixer import render
from foley_tui.audio.player import NullPlayer, SoundDevicePlayer
from foley_tui.audio.scene_voice import SceneVoice

from .test_audio_player import RATE, FakeStream, Recorder, const, drain, write
from .test_audio_player import fake_sd as fake_sd
from .test_audio_player import player as player


def scene_of(tmp_path: Path) -> Scene:
    rng = np.random.default_rng(7)
    a = write(tmp_path / "a", (rng.uniform(-0.3, 0.3, (RATE // 2, 2))).astype(np.float32))
    b = write(tmp_path / "b", const(0.2, RATE // 4), rate=48000)  # resampled
    narration = write(tmp_path / "n", const(0.1, RATE))
    return Scene(
        [
            MixVoice(narration.path, 0.0, lane="narration"),
            MixVoice(a.path, 0.25, gain=0.5),
            MixVoice(b.path, 0.6, gain=2.0, lane="stinger"),
        ]
    )


def test_play_scene_is_the_offline_mix_on_the_preview_stream(
    player: SoundDevicePlayer,
    tmp_path: Path,
) -> None:
    stream = FakeStream.instances[-1]
    scene = scene_of(tmp_path)
    expected = np.concatenate(list(render(scene, RATE)))
    recorder = Recorder()
    player.set_state_callback(recorder)
    player.play_scene(scene)
    status = player.status()
    assert status.source is not None and status.source.how == SCENE_HOW
    assert status.duration_s == pytest.approx(len(expected) / RATE)
    out = drain(stream, player, len(expected) + 1000)
    np.testing.assert_array_equal(out[: len(expected)], expected)
    assert not out[len(expected) :].any()
    ended = recorder.wait_for(PlayerState.STOPPED)
    assert ended.position_s == pytest.approx(len(expected) / RATE)
    # The preview still plays on the same stream afterwards, and resume() does not
    # mistake the scene's pseudo-source for a file.
    player.resume()
    assert player.status().state is PlayerState.STOPPED
    player.play(write(tmp_path / "c", const(0.3, 2048)))
    np.testing.assert_array_equal(drain(stream, player, 2048)[:, 0], np.float32(0.3))


def test_scene_volume_and_seek_follow_the_scene_clock(
    player: SoundDevicePlayer,
    tmp_path: Path,
) -> None:
    stream = FakeStream.instances[-1]
    scene = scene_of(tmp_path)
    player.play_scene(scene, start_s=0.5, end_s=0.9)
    assert player.status().position_s == pytest.approx(0.5, abs=0.03)
    player.set_volume_db(-6.0)
    assert scene.volume_db == -6.0  # applied in the mix, before the limiter
    player.seek(0.7)
    out = drain(stream, player, 2048)
    assert player.status().position_s == pytest.approx(0.7 + 2048 / RATE, abs=1e-3)
    assert out.any()


def test_null_player_keeps_the_scene_time(tmp_path: Path) -> None:
    clock = [100.0]
    player = NullPlayer("no device", clock=lambda: clock[0])
    scene = scene_of(tmp_path)
    player.play_scene(scene, start_s=0.2)
    status = player.status()
    assert status.state is PlayerState.PLAYING and status.source is not None
    assert status.source.how == SCENE_HOW
    assert status.position_s == pytest.approx(0.2)
    assert status.duration_s == pytest.approx(1.0, abs=1e-3)
    clock[0] += 0.3
    assert player.status().position_s == pytest.approx(0.5)
    clock[0] += 5
    assert player.status().state is PlayerState.STOPPED
    player.close()


def test_fake_sd_fixture_is_used(fake_sd: types.ModuleType) -> None:
    assert fake_sd.OutputStream is FakeStream


def test_a_prefetched_scene_starts_from_its_premixed_block(
    player: SoundDevicePlayer,
    tmp_path: Path,
) -> None:
    stream = FakeStream.instances[-1]
    scene = scene_of(tmp_path)
    expected = np.concatenate(list(render(scene, RATE)))
    player.prefetch_scene(scene)
    assert player.prepared_scene is not None
    player.play_scene(scene)
    assert player.prepared_scene is None  # taken
    out = drain(stream, player, len(expected))
    np.testing.assert_array_equal(out, expected)
    # Mute, solo and volume apply after the stems: a mute after the prefetch keeps it.
    player.prefetch_scene(scene)
    prepared = player.prepared_scene
    assert prepared is not None
    scene.set_muted("stinger", True)
    player.play_scene(scene)
    assert player.prepared_scene is None
    voice = player.voice
    assert voice is prepared  # used, not redone
    muted = np.concatenate(list(render(scene, RATE)))
    np.testing.assert_array_equal(drain(stream, player, len(muted)), muted)
    # A changed loop region changes the stems: a prepared block is dropped, never played.
    player.prefetch_scene(scene)
    prepared = player.prepared_scene
    assert prepared is not None
    scene.set_loop_region((0.1, 0.3))
    player.play_scene(scene, 0.1)
    voice = player.voice
    assert isinstance(voice, SceneVoice) and voice is not prepared
