"""Live lane controls: mute, solo and volume land on the very next block the bus mixes
(it reads them per block, after the premixed stems), ramped without a step, under the
limiter's ceiling; in the offline mix, and in the player once the frames its output ring
already holds have played."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from foley_tui.audio.base import MixVoice, Scene
from foley_tui.audio.bus import LANE_RAMP_S
from foley_tui.audio.limiter import db_to_gain, lookahead_frames
from foley_tui.audio.mixer import SceneMix
from foley_tui.audio.player import SoundDevicePlayer
from foley_tui.audio.stream_engine import RING_MAX_S

from .test_audio_player import RATE, FakeStream, const, drain, write
from .test_audio_player import fake_sd as fake_sd
from .test_audio_player import player as player

Audio = npt.NDArray[np.float32]
BED = 0.1  # the narration lane's level
HIT = 0.2  # the sfx_fg lane's level
RAMP = LANE_RAMP_S * RATE


def two_lanes(tmp_path: Path, seconds: float = 2.0) -> Scene:
    frames = round(seconds * RATE)
    narration = write(tmp_path / "n.wav", const(BED, frames))
    hit = write(tmp_path / "h.wav", const(HIT, frames))
    return Scene(
        [MixVoice(narration.path, 0.0, lane="narration"), MixVoice(hit.path, 0.0, lane="sfx_fg")]
    )


def first_change(out: Audio, level: float) -> int:
    """The first frame of ``out`` (left channel) that is not ``level``."""
    return int(np.argmax(np.abs(out[:, 0] - level) > 1e-6))


def max_step(out: Audio) -> float:
    return float(np.abs(np.diff(out[:, 0])).max())


def test_a_mute_lands_on_the_next_block_as_a_ramp(tmp_path: Path) -> None:
    scene = two_lanes(tmp_path)
    mix = SceneMix(scene, RATE)
    block = 1024
    before = np.concatenate([mix.read(block) for _ in range(4)])
    np.testing.assert_allclose(before[:, 0], BED + HIT, atol=1e-6)
    scene.set_muted("sfx_fg", True)
    after = np.concatenate([mix.read(block) for _ in range(2)])
    delay = lookahead_frames(RATE)
    # The next block already carries the change: after the limiter's look-ahead, which
    # is shorter than a block.
    assert delay < block
    assert first_change(after, BED + HIT) == delay
    # A linear ramp over LANE_RAMP_S: no step larger than one ramp increment...
    assert max_step(np.concatenate([before, after])) <= HIT / RAMP * 1.01
    # ... that ends on the bed alone.
    end = delay + int(np.ceil(RAMP))
    np.testing.assert_allclose(after[end:, 0], BED, atol=1e-6)


def test_solo_and_volume_land_on_the_next_block(tmp_path: Path) -> None:
    scene = two_lanes(tmp_path)
    mix = SceneMix(scene, RATE)
    delay = lookahead_frames(RATE)
    mix.read(2048)
    scene.set_soloed("narration", True)
    out = mix.read(2048)
    assert first_change(out, BED + HIT) == delay
    np.testing.assert_allclose(out[delay + int(np.ceil(RAMP)) :, 0], BED, atol=1e-6)
    scene.volume_db = -6.0
    out = mix.read(2048)
    assert first_change(out, BED) == delay
    np.testing.assert_allclose(
        out[delay + int(np.ceil(RAMP)) :, 0], BED * db_to_gain(-6.0), atol=1e-6
    )
    assert max_step(out) <= BED / RAMP


def test_a_change_in_the_middle_of_a_ramp_turns_back_without_a_step(tmp_path: Path) -> None:
    scene = two_lanes(tmp_path)
    mix = SceneMix(scene, RATE)
    chunks = [mix.read(512)]
    scene.set_muted("sfx_fg", True)
    chunks.append(mix.read(300))  # the ramp down is under way
    scene.set_muted("sfx_fg", False)
    chunks += [mix.read(512) for _ in range(4)]
    out = np.concatenate(chunks)
    assert out[:, 0].min() < BED + HIT - 0.01  # it did go down
    assert max_step(out) <= HIT / RAMP * 1.01
    np.testing.assert_allclose(out[-512:, 0], BED + HIT, atol=1e-6)  # and came back


def pull_blocks(stream: FakeStream, player: SoundDevicePlayer, count: int) -> Audio:
    return np.concatenate([drain(stream, player, 512) for _ in range(count)])


def wait_for_full_ring(player: SoundDevicePlayer) -> int:
    """The frames the output ring holds once the feeder has mixed as far ahead as it
    goes (it then waits for the device)."""
    for _ in range(1000):
        if player.queued_frames >= player.ring_target_frames:
            break
        time.sleep(0.002)
    assert player.queued_frames >= player.ring_target_frames
    return player.queued_frames


def test_a_mute_is_heard_once_the_ring_has_played(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    """The feeder mixes the lane gains ahead of the device: a control is heard after
    the frames already in the output ring (at most RING_MAX_S) and the limiter's
    look-ahead, ramped, under the ceiling."""
    stream = FakeStream.instances[-1]
    scene = two_lanes(tmp_path)
    player.play_scene(scene)
    before = pull_blocks(stream, player, 8)
    np.testing.assert_allclose(before[:, 0], BED + HIT, atol=1e-6)
    ahead = wait_for_full_ring(player)
    assert ahead <= RING_MAX_S * RATE
    scene.set_muted("sfx_fg", True)  # what the timeline's `m` does while it plays
    out = drain(stream, player, ahead + 2048)
    delay = lookahead_frames(RATE)
    assert first_change(out, BED + HIT) == ahead + delay
    heard = np.concatenate([before, out])
    assert max_step(heard) <= HIT / RAMP * 1.01
    np.testing.assert_allclose(out[ahead + delay + int(np.ceil(RAMP)) :, 0], BED, atol=1e-6)
    ahead = wait_for_full_ring(player)
    player.set_volume_db(-12.0)  # the preview volume: the scene's bus reads it
    out = drain(stream, player, ahead + 2048)
    assert first_change(out, BED) == ahead + delay
    np.testing.assert_allclose(
        out[ahead + delay + int(np.ceil(RAMP)) :, 0], BED * db_to_gain(-12.0), atol=1e-6
    )


def test_raising_the_volume_never_passes_the_ceiling(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    stream = FakeStream.instances[-1]
    rng = np.random.default_rng(3)
    loud = write(tmp_path / "loud.wav", rng.uniform(-0.9, 0.9, (RATE, 2)).astype(np.float32))
    scene = Scene([MixVoice(loud.path, 0.0), MixVoice(loud.path, 0.0, lane="music")])
    scene.set_muted("music", True)
    player.play_scene(scene)
    pull_blocks(stream, player, 4)
    scene.set_muted("music", False)  # the sum doubles ...
    player.set_volume_db(12.0)  # ... and the volume goes to the top
    out = pull_blocks(stream, player, 40)
    ceiling = db_to_gain(-1.0)
    assert np.abs(out).max() <= ceiling + 1e-6
    assert np.abs(out).max() > 0.5 * ceiling  # limited, not silenced


@pytest.mark.parametrize("block", [256, 1000])
def test_live_controls_leave_placement_sample_accurate(tmp_path: Path, block: int) -> None:
    frames = RATE // 10
    hit = write(tmp_path / "hit.wav", const(HIT, frames))
    onset = 0.123457
    scene = Scene([MixVoice(hit.path, onset, lane="sfx_fg")])
    mix = SceneMix(scene, RATE)
    out = np.concatenate(list(mix.blocks(block)))
    assert first_change(out, 0.0) == round(onset * RATE)


def test_a_prefetched_scene_starts_with_the_controls_set_since(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    stream = FakeStream.instances[-1]
    scene = two_lanes(tmp_path)
    player.prefetch_scene(scene)
    scene.set_muted("sfx_fg", True)  # after the prefetch, before the key
    player.play_scene(scene)
    first = drain(stream, player, 512)
    np.testing.assert_allclose(first[:, 0], BED, atol=1e-6)  # muted from frame 0, no ramp


def test_closing_the_player_closes_a_prefetched_scenes_files(
    player: SoundDevicePlayer, tmp_path: Path
) -> None:
    scene = two_lanes(tmp_path)
    player.prefetch_scene(scene)
    voice = player.prepared_scene
    assert voice is not None
    assert any(voice.stems.open_decoders())  # files open
    player.close()
    assert not any(voice.stems.open_decoders())
