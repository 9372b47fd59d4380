"""The scene mixer: sample-accurate placement, gains, lanes, loop region, limiter,
streaming (decoders open only while their voice sounds)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import soundfile as sf
from scipy.signal import resample_poly

from foley_tui.audio.base import MixVoice, Scene
from foley_tui.audio.limiter import TruePeakLimiter
from foley_tui.audio.mixer import SceneMix, render

RATE = 48000


def burst(path: Path, rate: int, seconds: float, amp: float = 0.5, freq: float = 1000.0) -> Path:
    """A sine starting at full amplitude on its first sample (sin phase pi/2)."""
    t = np.arange(int(rate * seconds)) / rate
    data = amp * np.cos(2 * np.pi * freq * t)
    sf.write(
        str(path), np.stack([data, data], 1).astype(np.float32), rate, format="WAV", subtype="FLOAT"
    )
    return path


def mixdown(
    scene: Scene, start_s: float = 0.0, end_s: float | None = None
) -> npt.NDArray[np.float32]:
    return np.concatenate(list(render(scene, RATE, start_s=start_s, end_s=end_s, block=1000)))


def first_sound(mix: npt.NDArray[np.float32], after: int = 0, level: float = 1e-4) -> int:
    return after + int(np.argmax(np.abs(mix[after:, 0]) > level))


def test_voices_start_on_their_frame_at_their_gain(tmp_path: Path) -> None:
    a = burst(tmp_path / "a.wav", RATE, 0.2)
    b = burst(tmp_path / "b.wav", RATE, 0.2, freq=500.0)
    scene = Scene([MixVoice(a, 1.0, gain=0.5), MixVoice(b, 0.37321, gain=0.25, lane="music")])
    mix = mixdown(scene)
    assert len(mix) == round(1.2 * RATE)
    assert first_sound(mix) == round(0.37321 * RATE)
    assert mix[round(0.37321 * RATE), 0] == pytest.approx(0.25 * 0.5, abs=1e-6)
    start_a = round(1.0 * RATE)
    assert np.all(mix[round(0.6 * RATE) : start_a] == 0.0)
    assert mix[start_a, 0] == pytest.approx(0.5 * 0.5, abs=1e-6)
    # Block boundaries (every 1000 frames) do not quantise onsets: 17913.
    assert first_sound(mix) % 1000 != 0


def test_resampled_voice_lands_within_a_millisecond(tmp_path: Path) -> None:
    a = burst(tmp_path / "a44.wav", 44100, 0.3, freq=300.0)
    mix = mixdown(Scene([MixVoice(a, 2.0)]))
    onset = first_sound(mix, level=0.05)
    assert abs(onset - 2.0 * RATE) <= RATE // 1000


def test_start_from_the_middle_and_end(tmp_path: Path) -> None:
    a = burst(tmp_path / "a.wav", RATE, 1.0)
    whole = mixdown(Scene([MixVoice(a, 0.5)]))
    part = mixdown(Scene([MixVoice(a, 0.5)]), start_s=0.75, end_s=1.25)
    assert len(part) == round(0.5 * RATE)
    np.testing.assert_allclose(part, whole[round(0.75 * RATE) : round(1.25 * RATE)], atol=1e-6)


def test_mute_and_solo_by_lane(tmp_path: Path) -> None:
    a = burst(tmp_path / "a.wav", RATE, 0.2)
    b = burst(tmp_path / "b.wav", RATE, 0.2, freq=250.0)
    voices = [MixVoice(a, 0.0, lane="sfx_fg"), MixVoice(b, 0.5, lane="narration")]
    muted = Scene(list(voices))
    muted.set_muted("sfx_fg", True)
    mix = mixdown(muted)
    assert np.all(mix[: round(0.5 * RATE)] == 0.0)
    assert np.abs(mix[round(0.5 * RATE) :]).max() > 0.4
    soloed = Scene(list(voices))
    soloed.set_soloed("sfx_fg", True)
    mix = mixdown(soloed)
    assert np.abs(mix[: round(0.2 * RATE)]).max() > 0.4
    assert np.all(mix[round(0.5 * RATE) :] == 0.0)


def test_mute_while_playing_ramps_without_a_click(tmp_path: Path) -> None:
    a = burst(tmp_path / "a.wav", RATE, 1.0)
    scene = Scene([MixVoice(a, 0.0)])
    mix = SceneMix(scene, RATE)
    first = mix.read(2000)
    scene.set_muted("sfx_fg", True)
    after = np.concatenate([mix.read(2000) for _ in range(5)])
    # No jump: the first muted frames fade, then silence.
    assert abs(after[0, 0]) > 0.0
    assert np.all(after[2000:] == 0.0)
    assert np.abs(np.diff(np.concatenate([first, after])[:, 0])).max() < 0.1


def test_loop_region_repeats(tmp_path: Path) -> None:
    a = burst(tmp_path / "a.wav", RATE, 2.0, freq=220.0)
    scene = Scene([MixVoice(a, 0.0)])
    scene.set_loop_region((0.5, 0.75))
    mix = SceneMix(scene, RATE, start_s=0.5)
    out = np.concatenate([mix.read(1000) for _ in range(40)])  # 40000 frames > 3 loops
    span = round(0.25 * RATE)
    np.testing.assert_allclose(out[:span], out[span : 2 * span], atol=1e-6)
    np.testing.assert_allclose(out[:span], out[2 * span : 3 * span], atol=1e-6)
    assert len(out) > 3 * span
    assert mix.position_s == pytest.approx(0.5 + (len(out) - 3 * span) / RATE)
    with pytest.raises(ValueError):
        scene.set_loop_region((1.0, 0.5))


def test_a_loud_scene_never_exceeds_the_ceiling(tmp_path: Path) -> None:
    voices = [
        MixVoice(burst(tmp_path / f"v{i}.wav", RATE, 0.5, amp=0.9, freq=997.0 + 31 * i), 0.01 * i)
        for i in range(8)
    ]
    mix = mixdown(Scene(voices))
    true_peak = np.abs(resample_poly(mix.astype(np.float64), 8, 1, axis=0)).max()
    assert 20 * np.log10(true_peak) <= -1.0 + 0.05
    assert np.abs(mix).max() > 0.5  # limited, not silenced


def test_limiter_is_transparent_below_the_ceiling() -> None:
    limiter = TruePeakLimiter(RATE)
    rng = np.random.default_rng(1)
    signal = (rng.standard_normal((5000, 2)) * 0.05).astype(np.float32)
    out = np.concatenate([limiter.process(signal[i : i + 777]) for i in range(0, 5000, 777)])
    d = limiter.delay
    np.testing.assert_array_equal(out[d:], signal[: 5000 - d])
    assert limiter.min_gain == 1.0


def test_decoders_open_only_while_their_voice_sounds(tmp_path: Path) -> None:
    a = burst(tmp_path / "a.wav", RATE, 0.1)
    scene = Scene([MixVoice(a, 0.0, key="early"), MixVoice(a, 5.0, key="late")])
    mix = SceneMix(scene, RATE)
    mix.read(1000)
    assert mix.stems.open_decoders() == [True, False]  # early, late
    while mix.position_s < 1.0:
        mix.read(4096)
    assert mix.stems.open_decoders() == [False, False]
    while mix.position_s < 5.01:
        mix.read(4096)
    assert mix.stems.open_decoders()[1]


def test_unreadable_voice_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not audio")
    a = burst(tmp_path / "a.wav", RATE, 0.1)
    mix = SceneMix(Scene([MixVoice(bad, 0.0), MixVoice(a, 0.0)]), RATE)
    assert mix.problems and "bad.wav" in mix.problems[0]
    assert np.abs(np.concatenate(list(mix.blocks()))).max() > 0.4


def test_the_limiters_fast_path_is_bit_exact() -> None:
    """Quiet blocks skip the true-peak estimate (a pure delay); the output is bit for bit
    the full path's, across quiet, loud and quiet again, in uneven blocks."""
    rng = np.random.default_rng(11)
    quiet = (rng.standard_normal((9000, 2)) * 0.05).astype(np.float32)
    loud = (rng.uniform(-1.0, 1.0, (6000, 2)) * 1.4).astype(np.float32)
    signal = np.concatenate([quiet, loud, quiet, quiet])
    sizes = rng.integers(1, 1500, 200)

    def run(limiter: TruePeakLimiter) -> npt.NDArray[np.float32]:
        out, at = [], 0
        for size in sizes:
            if at >= len(signal):
                break
            out.append(limiter.process(signal[at : at + int(size)]))
            at += int(size)
        return np.concatenate(out)

    fast = TruePeakLimiter(RATE)
    got = run(fast)
    full = TruePeakLimiter(RATE, fast_path=False)
    expected = run(full)
    assert fast.fast_blocks > 20 and full.fast_blocks == 0
    assert fast.min_gain < 0.8  # the loud part was limited
    np.testing.assert_array_equal(got, expected)
