"""The output ceiling is a guarantee: whatever the blocks hold, nothing non-finite and
nothing above the ceiling leaves the limiter, the master bus, the offline render or the
player's audio callback.

Hypothesis feeds each stage adversarial blocks: NaN, +-inf, denormals, DC, full-scale
squares, inter-sample peaks (a quarter-rate sine at 45 degrees: its samples are 0.707 of
its true peak), huge finite values (whose sums overflow float32), gain jumps (volume, mute
and solo changed between blocks, loudness gains far above unity) and voice swaps in the
middle of the callback's work (a preview retired under a scene, a scene under a preview).
The decoder's side (non-finite samples become silence, counted) is checked on files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import soundfile as sf
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from foley_tui.audio.base import AudioFormat, Source
from foley_tui.audio.bus import CEILING_DB, MasterBus
from foley_tui.audio.decode import NONFINITE_PROBLEM, AudioInfo, BlockDecoder, sanitise
from foley_tui.audio.limiter import TruePeakLimiter, db_to_gain
from foley_tui.audio.loudness import measure_file
from foley_tui.audio.mixer import MixVoice, Scene, SceneMix, StemMix
from foley_tui.audio.peaks import exact_peaks, overview_peaks
from foley_tui.audio.ring import OutputRing
from foley_tui.audio.scene_voice import SceneVoice
from foley_tui.audio.stream_engine import RING_CAPACITY_S, StreamEngine
from foley_tui.audio.voice import Ramp, Voice

RATE = 48000
CEILING = db_to_gain(CEILING_DB)
Audio = npt.NDArray[np.float32]

KINDS = (
    "nan",
    "posinf",
    "neginf",
    "denormal",
    "dc",
    "square",
    "intersample",
    "huge",
    "noise",
    "silence",
    "sprinkled",
)


def adversarial(
    kind: str, frames: int, level: float, seed: int, shape: tuple[int, ...] = (2,)
) -> Audio:
    """A block of ``frames`` frames of the given kind (channels in ``shape``)."""
    rng = np.random.default_rng(seed)
    n = np.arange(frames, dtype=np.float64)[:, None]
    full = (frames, *shape)
    if kind == "nan":
        data = np.full(full, np.nan)
    elif kind == "posinf":
        data = np.full(full, np.inf)
    elif kind == "neginf":
        data = np.full(full, -np.inf)
    elif kind == "denormal":
        data = np.full(full, 1e-40) * np.where(rng.random(full) < 0.5, -1.0, 1.0)
    elif kind == "dc":
        data = np.full(full, level)
    elif kind == "square":
        period = int(rng.integers(2, 64))
        sign = np.where((n // (period // 2 or 1)) % 2 == 0, 1.0, -1.0)
        data = np.broadcast_to(sign.reshape(frames, *([1] * len(shape))), full) * level
    elif kind == "intersample":
        wave = np.sin(np.pi / 4 + n * np.pi / 2)
        data = np.broadcast_to(wave.reshape(frames, *([1] * len(shape))), full) * level
    elif kind == "huge":
        data = np.full(full, 3e38) * np.where(rng.random(full) < 0.5, -1.0, 1.0)
    elif kind == "noise":
        data = rng.standard_normal(full) * level
    elif kind == "silence":
        data = np.zeros(full)
    else:  # sprinkled: a loud signal with NaN and inf here and there
        data = rng.standard_normal(full) * level
        marks = rng.random(full)
        data[marks < 0.01] = np.nan
        data[(marks >= 0.01) & (marks < 0.02)] = np.inf
        data[(marks >= 0.02) & (marks < 0.03)] = -np.inf
    with np.errstate(over="ignore", invalid="ignore"):
        return np.ascontiguousarray(data, dtype=np.float32)


blocks = st.lists(
    st.tuples(
        st.sampled_from(KINDS),
        st.integers(1, 3000),
        st.sampled_from([0.1, 0.89, 1.0, 4.0, 1e6]),
        st.integers(0, 2**31),
    ),
    min_size=1,
    max_size=12,
)


def assert_safe(out: npt.NDArray[np.floating], ceiling: float) -> None:
    assert np.isfinite(out).all(), "a non-finite sample left the output stage"
    assert float(np.abs(out).max(initial=0.0)) <= ceiling, float(np.abs(out).max())


# ---------------------------------------------------------------------------- limiter
@settings(max_examples=150, deadline=None)
@given(blocks)
def test_the_limiter_never_passes_the_ceiling(spec: list[tuple[str, int, float, int]]) -> None:
    limiter = TruePeakLimiter(RATE)
    for kind, frames, level, seed in spec:
        block = adversarial(kind, frames, level, seed)
        out = limiter.process(block)
        assert len(out) == frames
        assert_safe(out, limiter.ceiling)


def test_the_limiter_recovers_after_non_finite_input() -> None:
    """A NaN does not poison the estimate: a loud sine after it is limited smoothly (not
    muted, not merely clipped)."""
    limiter = TruePeakLimiter(RATE)
    limiter.process(np.full((512, 2), np.nan, dtype=np.float32))
    t = np.arange(RATE // 2) / RATE
    sine = (2.0 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    out = limiter.process(np.stack([sine, sine], 1))
    tail = out[RATE // 4 :]
    assert np.isfinite(out).all()
    assert 0.8 * CEILING < float(np.abs(tail).max()) <= CEILING
    assert limiter.min_gain < 0.6  # the gain came down: the estimate saw the peaks


# ---------------------------------------------------------------------------- the bus
@settings(max_examples=100, deadline=None)
@given(
    blocks,
    st.lists(
        st.tuples(st.sampled_from([-60.0, 0.0, 6.0, 24.0]), st.booleans(), st.booleans()),
        min_size=1,
        max_size=12,
    ),
)
def test_the_master_bus_never_passes_the_ceiling(
    spec: list[tuple[str, int, float, int]], controls: list[tuple[float, bool, bool]]
) -> None:
    scene = Scene([], volume_db=0.0)
    bus = MasterBus(scene, ["a", "b", "c"], RATE)
    for i, (kind, frames, level, seed) in enumerate(spec):
        volume, mute, solo = controls[i % len(controls)]
        scene.volume_db = volume  # a gain jump between blocks
        scene.set_muted("a", mute)
        scene.set_soloed("b", solo)
        stems = adversarial(kind, frames, level, seed, shape=(3, 2))
        out = bus.process(stems)
        assert_safe(out, CEILING)
    assert np.isfinite(bus.peak) and bus.peak <= CEILING


# ---------------------------------------------------------------------------- render
@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Files that hold what a damaged or crafted candidate may hold."""
    folder = tmp_path_factory.mktemp("hostile-audio")
    files: dict[str, Path] = {}
    second = RATE
    for kind in KINDS:
        path = folder / f"{kind}.wav"
        data = adversarial(kind, second, 1.0, 7)
        sf.write(str(path), data, RATE, format="WAV", subtype="FLOAT")
        files[kind] = path
    files["double"] = folder / "double.wav"
    sf.write(str(files["double"]), np.full((second, 2), 1e300), RATE, subtype="DOUBLE")
    files["resampled"] = folder / "resampled.wav"
    sf.write(
        str(files["resampled"]), adversarial("sprinkled", 44100, 4.0, 3), 44100, subtype="FLOAT"
    )
    files["loud"] = folder / "loud.wav"
    sf.write(str(files["loud"]), adversarial("square", second, 1.0, 5), RATE, subtype="PCM_24")
    return files


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted([*KINDS, "double", "resampled", "loud"])),
            st.floats(0.0, 1.5),
            st.sampled_from([0.0, 0.5, 1.0, 8.0, 1e4]),
            st.sampled_from(["sfx_fg", "music", "narration"]),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([-20.0, 0.0, 12.0]),
    st.sampled_from([64, 1000, 4096]),
)
def test_the_render_never_passes_the_ceiling_and_reports_its_peak(
    hostile_files: dict[str, Path],
    voices: list[tuple[str, float, float, str]],
    volume: float,
    block: int,
) -> None:
    scene = Scene(
        [
            MixVoice(hostile_files[name], onset, gain=gain, lane=lane)
            for name, onset, gain, lane in voices
        ],
        volume_db=volume,
    )
    mix = SceneMix(scene, RATE)
    outs = list(mix.blocks(block))
    mix.close()
    out = np.concatenate(outs) if outs else np.zeros((0, 2), np.float32)
    assert_safe(out, CEILING)
    # The peak the render reports is the peak of what it wrote.
    assert mix.peak == float(np.abs(out).max(initial=0.0))
    bad = {"nan", "posinf", "neginf", "sprinkled", "double", "resampled"}
    if bad & {name for name, _, _, _ in voices}:
        assert any(NONFINITE_PROBLEM in p for p in mix.problems), mix.problems


# ---------------------------------------------------------------------------- callback
def _engine(ring: OutputRing | None = None) -> StreamEngine:
    """The mixing and callback halves of the player, without a device or a feeder
    thread: the test mixes (what the feeder does) and pulls (what PortAudio does)."""
    return StreamEngine(RATE, read_ahead_s=1.0, ring=ring)


def _pull(engine: StreamEngine, frames: int) -> Audio:
    """Mix as the feeder would (up to the ring's depth), then run the callback."""
    while engine.queued_frames < engine.ring_target_frames and engine.mix(512):
        pass
    flags = SimpleNamespace(output_underflow=False)
    out = np.full((frames, 2), 7.0, np.float32)  # garbage: the callback overwrites it
    engine.pull(out, frames, None, flags)
    return out


def _preview(chunks: list[Audio], gain: float) -> Voice:
    info = AudioInfo(frames=RATE, samplerate=RATE, channels=2, format="WAV", subtype="FLOAT")
    source = Source(Path("preview.wav"), AudioFormat.WAV, "path", f"p{id(chunks)}")
    voice = Voice(source, None, info, RATE, 0.0, False)
    for chunk in chunks:
        voice.push(chunk)
    voice.eof = True
    voice.gain = Ramp(gain)
    return voice


def _scene_voice(hostile_files: dict[str, Path], chunks: list[Audio]) -> SceneVoice:
    scene = Scene(
        [MixVoice(hostile_files["loud"], 0.0), MixVoice(hostile_files["dc"], 0.0, lane="music")]
    )
    stems = StemMix(scene, RATE)
    voice = SceneVoice(scene, stems, RATE)
    for chunk in chunks:
        voice.push(np.stack([chunk, chunk[::-1]], axis=1))  # (frames, 2 lanes, 2)
    voice.eof = True
    return voice


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["preview", "scene", "retire", "none"]),
            blocks,
            st.sampled_from([0.01, 1.0, 30.0]),
            st.integers(1, 2048),
        ),
        min_size=1,
        max_size=8,
    )
)
@example(
    steps=[
        ("preview", [("dc", 513, 0.1, 0)], 30.0, 141),
        ("scene", [("nan", 1, 0.1, 0)], 0.01, 371),
    ]
)
# A scene fading out under a full-scale preview: the preview reaches full scale once the
# scene's fade has ended, not before.
@example(
    steps=[
        ("preview", [("nan", 1, 0.1, 0)], 0.01, 1025),
        ("scene", [("nan", 1, 0.1, 0), ("nan", 1267, 0.1, 0)], 0.01, 1),
        ("preview", [("dc", 515, 0.1, 0)], 30.0, 513),
        ("none", [("nan", 1, 0.1, 0)], 0.01, 512),
    ]
)
def test_the_callback_never_passes_the_ceiling_through_swaps(
    hostile_files: dict[str, Path],
    steps: list[tuple[str, list[tuple[str, int, float, int]], float, int]],
) -> None:
    """Voices replace each other between callbacks (the old one fading out, rendered
    after the new one): the output holds the ceiling of whatever sounds, the scene's
    while a scene is current or fading."""
    engine = _engine()
    for what, spec, gain, frames in steps:
        chunks = [adversarial(kind, n, level, seed) for kind, n, level, seed in spec]
        old = engine.voice
        if what == "preview":
            new: Voice | None = _preview(chunks, gain)
        elif what == "scene":
            new = _scene_voice(hostile_files, chunks)
        elif what == "retire":
            new = None
        else:
            new = old
        if new is not old:
            engine.switch(new)  # the old voice fades out, mixed beside the new one
        voices: list[Any] = [engine.voice, *engine.fading]
        scene_sounds = any(isinstance(v, SceneVoice) for v in voices)
        out = _pull(engine, frames)
        # A scene's ceiling holds while it sounds, and while its frames are in the ring.
        assert_safe(out, CEILING if scene_sounds else 1.0)
        if scene_sounds:
            # The next callback too, while the scene still sounds; once its fade has
            # ended, a preview alone may reach full scale (see the test below).
            still = any(isinstance(v, SceneVoice) for v in [engine.voice, *engine.fading])
            assert_safe(_pull(engine, frames), CEILING if still else 1.0)


def test_a_preview_fading_under_a_scene_stays_under_the_scene_ceiling(
    hostile_files: dict[str, Path],
) -> None:
    """The full-scale path: a full-scale preview retired as a full-scale scene starts
    sums both, the preview's fade added to the scene's limited mix."""
    engine = _engine()
    preview = _preview([np.ones((4096, 2), np.float32)], 1.0)
    engine.switch(preview)
    out = _pull(engine, 256)
    assert float(out.max()) == 1.0  # alone, a preview may reach 0 dBFS
    scene = _scene_voice(hostile_files, [np.ones((4096, 2), np.float32)])
    engine.switch(scene)
    assert preview in engine.retiring  # the preview fades out under the scene
    for _ in range(8):
        assert_safe(_pull(engine, 256), CEILING)


def test_the_ceiling_is_down_before_a_switch_fades_the_queued_frames(
    hostile_files: dict[str, Path],
) -> None:
    """The device's callback runs whenever it likes (an unpaced sink runs it back to
    back): here, right after a switch to a scene has faded a full-scale preview's queued
    frames and before the scene is mixed over them. What it copies is already under the
    scene's ceiling, the fade included."""
    copied: list[Audio] = []

    class CopiedOnFade(OutputRing):
        """A ring whose every fade is followed at once by a device callback."""

        pull: Callable[[], None] | None = None

        def fade_out(self, start: int, frames: int) -> float:
            level = super().fade_out(start, frames)
            if self.pull is not None:
                self.pull()
            return level

    ring = CopiedOnFade(int(RING_CAPACITY_S * RATE))
    engine = _engine(ring)

    def copy() -> None:
        out = np.full((1024, 2), 7.0, np.float32)
        engine.pull(out, 1024, None, SimpleNamespace(output_underflow=False))
        copied.append(out)

    engine.switch(_preview([np.ones((RATE, 2), np.float32)], 1.0))
    # A short device period, so the ring holds queued frames beyond it to fade.
    assert float(_pull(engine, 64).max()) == 1.0  # alone, a preview may reach 0 dBFS
    assert engine.queued_frames > 64
    ring.pull = copy
    engine.switch(_scene_voice(hostile_files, [np.ones((4096, 2), np.float32)]))
    assert copied, "the switch faded no queued frame"
    faded = copied[0][64:]  # past the period the callback may have been copying
    assert 0.0 < float(faded.max()) < 1.0  # the preview's fade, not silence
    assert_safe(copied[0], CEILING)


# ---------------------------------------------------------------------------- decoders
def test_sanitise_replaces_and_counts() -> None:
    block = np.array([[0.5, np.nan], [np.inf, -np.inf], [1e-40, 2.0]], np.float32)
    assert sanitise(block) == 3
    np.testing.assert_array_equal(
        block, np.array([[0.5, 0.0], [0.0, 0.0], [1e-40, 2.0]], np.float32)
    )
    assert sanitise(block) == 0
    assert sanitise(np.zeros((0, 2), np.float32)) == 0


@pytest.mark.parametrize("name", ["nan", "sprinkled", "double", "resampled", "posinf"])
def test_every_reader_sees_silence_for_non_finite_samples(
    hostile_files: dict[str, Path], name: str
) -> None:
    path = hostile_files[name]
    decoder = BlockDecoder(path, RATE)
    total = 0
    while not decoder.done:
        block = decoder.read(4096)
        assert np.isfinite(block).all()
        total += len(block)
    assert total > 0 and decoder.nonfinite > 0
    decoder.close()
    peaks = exact_peaks(path, 50)
    assert peaks.nonfinite == decoder.nonfinite or name == "resampled"
    assert peaks.nonfinite > 0
    assert all(np.isfinite(lo) and np.isfinite(hi) for lo, hi in peaks.peaks)
    overview = overview_peaks(path, 20, window=256)
    assert all(np.isfinite(lo) and np.isfinite(hi) for lo, hi in overview.peaks)
    loudness = measure_file(path)
    assert not np.isnan(loudness)


def test_a_clean_file_counts_nothing(hostile_files: dict[str, Path]) -> None:
    decoder = BlockDecoder(hostile_files["loud"], RATE)
    while not decoder.done:
        decoder.read(4096)
    assert decoder.nonfinite == 0
    assert exact_peaks(hostile_files["loud"], 10).nonfinite == 0
