"""A session of known tones, an ambience bed and a narration, for comparing our woven mix
with foley's own weave (unit: render-scene, foley-tui weave, foley's CLI; e2e: P through
the ALSA file PCM).

Each sound is a sine of its own frequency, so a band-pass finds it in any mix: where it
starts and how loud it is. The narration is a low sine (mono), loud enough that foley's
master raises the programme a little and quiet enough that no limiter acts (so the
levels compare the mix, not two limiters). The words make two sentences with a gap, so
the bed is ducked under the words and recovers in the gap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soundfile as sf

from foley_tui.store import SessionService
from foley_tui.store.local import candidate_from_audio

Audio = npt.NDArray[np.float32]

NARRATION_S = 4.0
NARRATION_HZ = 150.0
WORDS = [
    {"word": "Night", "start": 0.3, "end": 0.7},
    {"word": "fell", "start": 0.75, "end": 1.2},
    {"word": "over", "start": 1.25, "end": 1.6},
    {"word": "town.", "start": 1.6, "end": 1.9},
    {"word": "A", "start": 2.6, "end": 2.7},
    {"word": "bell", "start": 2.75, "end": 3.0},
    {"word": "rang.", "start": 3.05, "end": 3.4},
]


@dataclass(frozen=True)
class WovenTone:
    name: str
    freq: float
    seconds: float
    amp: float
    layer: str | None
    onset: float | str | None
    event: dict[str, object] | None
    onset_s: float | None  # where foley places it (None: left out of the weave)


TONES = [
    WovenTone("hit", 1000.0, 0.6, 0.5, "sfx_fg", 0.5, None, 0.5),
    WovenTone("sting", 2500.0, 0.6, 0.3, "stinger", "at 'bell'", None, 2.6),
    WovenTone(
        "bed",
        700.0,
        2.0,
        0.2,
        None,
        None,
        {"query": "night ambience", "layer": "ambience", "onset": None, "loop": True},
        0.3,
    ),
    WovenTone("voice", 3100.0, 0.5, 0.3, "voice", 1.0, None, None),
    WovenTone("late", 1800.0, 0.6, 0.3, "sfx_fg", 3.7, None, 3.7),
    WovenTone("after", 3500.0, 0.3, 0.3, "sfx_fg", 4.5, None, None),
]
#: Where the bed is measured: under the words, and late in the gap (recovered).
BED_UNDER_WORDS = (0.8, 1.15)
BED_IN_GAP = (2.35, 2.55)


def sine(rate: int, seconds: float, freq: float, amp: float) -> Audio:
    t = np.arange(round(rate * seconds)) / rate
    wave = amp * np.sin(2 * np.pi * freq * t)
    return np.stack([wave, wave], axis=1).astype(np.float32)


@dataclass(frozen=True)
class WovenSession:
    session_id: str
    rate: int
    folder: Path
    narration_path: Path
    words_path: Path
    ids: dict[str, str]
    paths: dict[str, Path]


def make_woven_session(data_dir: Path, folder: Path, rate: int) -> WovenSession:
    """Write the audio, the candidates and the picks (raw, as foley's agent would), and
    attach the narration with its words."""
    from foley_tui.cli import main

    folder.mkdir(parents=True, exist_ok=True)
    service = SessionService(data_dir)
    session_id = service.create("woven")
    store = service.get(session_id)
    ids: dict[str, str] = {}
    paths: dict[str, Path] = {}
    for spec in TONES:
        path = folder / f"{spec.name}.wav"
        sf.write(str(path), sine(rate, spec.seconds, spec.freq, spec.amp), rate, subtype="FLOAT")
        candidate = candidate_from_audio(path)
        candidate["event"] = spec.event
        store.cache_candidates([candidate])
        sid = candidate["sound"]["id"]
        ids[spec.name], paths[spec.name] = sid, path
        store.picks_ns[sid] = {"sound_id": sid, "layer": spec.layer, "onset": spec.onset}
    narration = folder / "narration.wav"
    voice = sine(rate, NARRATION_S, NARRATION_HZ, 0.1)
    sf.write(str(narration), voice, rate, subtype="FLOAT")
    words = folder / "words.json"
    words.write_text(json.dumps(WORDS))
    status = main(["session", "narration", session_id, str(narration), "--words", str(words)])
    assert status == 0
    return WovenSession(session_id, rate, folder, narration, words, ids, paths)


def band(mix: Audio, rate: int, freq: float) -> npt.NDArray[np.float64]:
    """The left channel band-passed around ``freq`` (zero phase)."""
    from scipy.signal import butter, sosfiltfilt

    sos = butter(4, [freq * 0.93, freq * 1.07], btype="bandpass", fs=rate, output="sos")
    return np.asarray(sosfiltfilt(sos, mix[:, 0].astype(np.float64)))


def onset_of(mix: Audio, rate: int, freq: float, expected_s: float) -> float:
    """Where the tone at ``freq`` starts (seconds): the first sample within 100 ms of
    ``expected_s`` whose band envelope reaches half of its level 50 ms later."""
    x = np.abs(band(mix, rate, freq))
    lo = max(int((expected_s - 0.1) * rate), 0)
    steady = float(np.max(x[int((expected_s + 0.04) * rate) : int((expected_s + 0.06) * rate)]))
    above = np.nonzero(x[lo:] >= steady / 2)[0]
    return (lo + int(above[0])) / rate if len(above) else float("nan")


def level_db(mix: Audio, rate: int, freq: float, span: tuple[float, float]) -> float:
    """The RMS level (dB) of the tone at ``freq`` over ``span`` seconds."""
    x = band(mix, rate, freq)[int(span[0] * rate) : int(span[1] * rate)]
    rms = float(np.sqrt(np.mean(x**2)))
    return 20 * np.log10(rms) if rms > 0 else -np.inf
