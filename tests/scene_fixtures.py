"""A session of known tones at known onsets over a narration tone, for the scene tests
(unit: render-scene; e2e: play-scene through the ALSA file PCM).

Every sound is written at the rate the test mixes at, so no resampling blurs an onset,
and the narration is never exactly zero (underrun silence in a capture can be stripped).
``expected_mix`` builds the flat mix independently of the mixer: each tone at
``int(onset * rate)`` (the scene contract's rule) at unity gain over the narration (the
levels stay under the limiter's ceiling, so the limiter is transparent).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soundfile as sf

from foley_tui.scene.contract import placement_frame, span_frames
from foley_tui.store import SessionService
from foley_tui.store.local import candidate_from_audio

Audio = npt.NDArray[np.float32]

WORDS = [
    {"word": "The", "start": 0.2, "end": 0.4},
    {"word": "door", "start": 0.4, "end": 0.7},
    {"word": "slammed.", "start": 0.8, "end": 1.2},
    {"word": "Rain", "start": 1.8, "end": 2.1},
    {"word": "fell", "start": 2.1, "end": 2.6},
]
NARRATION_S = 3.0


@dataclass(frozen=True)
class Tone:
    name: str
    freq: float
    layer: str | None  # the pick's layer
    onset: float | str | None  # the pick's onset
    event: dict[str, object] | None
    expected_onset: float | None  # None: unplaced
    expected_length: float | None = None  # a bed's span (else the tone's length)
    seconds: float = 0.2


SLAM_EVENT: dict[str, object] = {"query": "a door slams", "layer": "sfx_fg", "onset": "on 'door'"}

TONES = [
    Tone("numeric", 1000.0, "sfx_fg", 0.5, None, 0.5),
    Tone(
        "slam",
        1500.0,
        None,
        "on 'slammed'",
        SLAM_EVENT,
        0.8,
    ),
    Tone(
        "rain",
        700.0,
        None,
        None,
        {"query": "rain on a roof", "layer": "ambience", "onset": "during 'rain'", "loop": True},
        1.8,
        expected_length=0.8,
        seconds=0.3,
    ),
    Tone("sting", 2500.0, "stinger", "at 'fell'", None, 1.8),
    Tone("zebra", 3000.0, "sfx_fg", "on 'zebra'", None, None),
]

#: A candidate for the same event as "slam", not picked: auditioned in context it sits at
#: the event's suggested onset ("on 'door'", 0.4 s) and "slam" is left out.
ALT = Tone("alt", 1200.0, None, None, SLAM_EVENT, 0.4)


def tone(rate: int, seconds: float, freq: float, amp: float = 0.25) -> Audio:
    """A cosine (full amplitude on its first sample), a different pitch on the right."""
    t = np.arange(round(rate * seconds)) / rate
    return np.stack(
        [amp * np.cos(2 * np.pi * freq * t), amp * np.cos(2 * np.pi * freq * 1.5 * t)], axis=1
    ).astype(np.float32)


def narration(rate: int) -> Audio:
    t = np.arange(round(rate * NARRATION_S)) / rate
    return np.stack(
        [0.1 + 0.05 * np.sin(2 * np.pi * 200 * t), -0.1 + 0.05 * np.sin(2 * np.pi * 300 * t)],
        axis=1,
    ).astype(np.float32)


@dataclass(frozen=True)
class ToneSession:
    session_id: str
    rate: int
    narration_path: Path
    words_path: Path
    ids: dict[str, str]  # tone name -> sound id


def make_tone_session(data_dir: Path, folder: Path, rate: int) -> ToneSession:
    """Write the audio, the candidates and the picks (raw, as foley's agent would)."""
    folder.mkdir(parents=True, exist_ok=True)
    service = SessionService(data_dir)
    session_id = service.create("tones")
    store = service.get(session_id)
    ids: dict[str, str] = {}
    for spec in TONES:
        path = folder / f"{spec.name}.wav"
        sf.write(str(path), tone(rate, spec.seconds, spec.freq), rate, subtype="FLOAT")
        candidate = candidate_from_audio(path)
        candidate["event"] = spec.event
        store.cache_candidates([candidate])
        sid = candidate["sound"]["id"]
        ids[spec.name] = sid
        store.picks_ns[sid] = {"sound_id": sid, "layer": spec.layer, "onset": spec.onset}
    alt = folder / "alt.wav"
    sf.write(str(alt), tone(rate, ALT.seconds, ALT.freq), rate, subtype="FLOAT")
    candidate = candidate_from_audio(alt)
    candidate["event"] = ALT.event
    store.cache_candidates([candidate])
    ids[ALT.name] = candidate["sound"]["id"]
    narration_path = folder / "narration.wav"
    sf.write(str(narration_path), narration(rate), rate, subtype="FLOAT")
    words_path = folder / "words.json"
    words_path.write_text(json.dumps(WORDS))
    return ToneSession(session_id, rate, narration_path, words_path, ids)


def attach_narration(tones: ToneSession) -> int:
    """``foley-tui session narration SESSION FILE --words W`` on the tone session: the
    CLI's exit status."""
    from foley_tui.cli import main

    return main(
        [
            "session",
            "narration",
            tones.session_id,
            str(tones.narration_path),
            "--words",
            str(tones.words_path),
        ]
    )


def placed_tone(spec: Tone, rate: int, frames: int) -> Audio:
    """``spec`` alone on the scene clock (zeros elsewhere); a looping bed fills its span."""
    out = np.zeros((frames, 2), np.float32)
    if spec.expected_onset is None:
        return out
    data = tone(rate, spec.seconds, spec.freq)
    if spec.expected_length is not None:
        length = span_frames(spec.expected_length, rate)
        data = np.concatenate([data] * (length // len(data) + 1))[:length]
    start = placement_frame(spec.expected_onset, rate)
    end = min(start + len(data), frames)
    out[start:end] = data[: end - start]
    return out


def in_context_tones() -> list[Tone]:
    """The tones heard when ALT is auditioned in context: ALT replaces its alternative."""
    return [t for t in TONES if t.name != "slam"] + [ALT]


def expected_mix(rate: int, tones: list[Tone] | None = None) -> Audio:
    base = narration(rate)
    frames = len(base)
    chosen = TONES if tones is None else tones
    return base + sum((placed_tone(spec, rate, frames) for spec in chosen), np.zeros_like(base))


def find_tones(
    mix: Audio, rate: int, tones: list[Tone] | None = None, start: int = 0
) -> dict[str, tuple[int, float]]:
    """For each placed tone: the scene frame where it starts in ``mix`` (which begins at
    scene frame ``start``) and its gain there, found from ``mix`` minus everything else
    (the narration and the other tones)."""
    chosen = TONES if tones is None else tones
    frames = start + len(mix)
    base = narration(rate)[:frames]
    full = np.zeros((frames, 2), np.float32)
    full[start:] = mix
    mix = full
    found: dict[str, tuple[int, float]] = {}
    for spec in chosen:
        if spec.expected_onset is None:
            continue
        others = base + sum(
            (placed_tone(o, rate, frames) for o in chosen if o is not spec), np.zeros_like(base)
        )
        residual = mix[start:, 0] - others[start:frames, 0]
        at = int(np.argmax(np.abs(residual) > 1e-3))
        found[spec.name] = (start + at, float(residual[at]) / 0.25)
    return found


#: A take with a region: noise (every sample tells where in the file it is), picked at
#: REGION_ONSET with its region REGION_IN..REGION_OUT seconds into the file.
REGION_ONSET = 1.05
REGION_IN = 0.25
REGION_OUT = 0.55
REGION_SECONDS = 0.8


def region_take(rate: int) -> Audio:
    """The take's samples: seeded noise, quiet enough to keep the limiter transparent."""
    rng = np.random.default_rng(24)
    return (0.1 * rng.uniform(-1.0, 1.0, (round(rate * REGION_SECONDS), 2))).astype(np.float32)


def add_region_pick(tones: ToneSession, folder: Path) -> str:
    """Cache the take in the tone session and pick it with its region through the CLI
    (``pick --onset --in --out``); returns its sound id."""
    from foley_tui.cli import main

    path = folder / "take.wav"
    sf.write(str(path), region_take(tones.rate), tones.rate, subtype="FLOAT")
    store = SessionService(Path(os.environ["FOLEY_DATA_DIR"])).get(tones.session_id)
    candidate = candidate_from_audio(path)
    store.cache_candidates([candidate])
    sid = str(candidate["sound"]["id"])
    argv = ["pick", tones.session_id, sid, "--layer", "sfx_fg", "--onset", str(REGION_ONSET)]
    assert main([*argv, "--in", str(REGION_IN), "--out", str(REGION_OUT)]) == 0
    return sid


def placed_region(rate: int, frames: int) -> Audio:
    """The take's region alone on the scene clock: its in-point's sample on the onset's
    (the contract's ``int(seconds * rate)`` for each of the three)."""
    out = np.zeros((frames, 2), np.float32)
    part = region_take(rate)[placement_frame(REGION_IN, rate) : placement_frame(REGION_OUT, rate)]
    start = placement_frame(REGION_ONSET, rate)
    out[start : start + len(part)] = part[: max(frames - start, 0)]
    return out
