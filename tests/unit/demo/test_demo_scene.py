"""The demo's scene: events in foley's grammar that land on its narration's words, picks
with numeric and symbolic onsets, and a mix a first run can hear."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from foley.base import Layer as FoleyLayer
from foley.weave.anchor import _nearest_word, parse_symbolic_anchor, resolve_anchor

from foley_tui.audio.mixer import SceneMix
from foley_tui.demo import build as demo
from foley_tui.scene.build import build_scene
from foley_tui.scene.narration import read_narration
from foley_tui.store import SessionService

ASSETS = Path(demo.__file__).resolve().parents[2] / "assets" / "demo"


def _words() -> list[dict[str, object]]:
    words = json.loads((ASSETS / "narration_words.json").read_text())
    assert isinstance(words, list)
    return words


def test_every_event_onset_is_foley_grammar_and_lands_on_a_word() -> None:
    words = _words()
    events = {json.dumps(s.event, sort_keys=True): s.event for s in demo.SOUNDS}
    assert len(events) == 9
    for event in events.values():
        onset = event["onset"]
        placement = parse_symbolic_anchor(
            onset, layer=FoleyLayer(event["layer"]), loop=bool(event["loop"])
        )
        if onset is None:  # a bed with no cue spans the whole scene
            assert event["layer"] == "ambience" and placement.anchor.value == "sentence"
            continue
        # foley finds the word the anchor names (not a fuzzy fallback to nothing).
        hit = _nearest_word(placement.ref, words)
        assert hit is not None, onset
        assert str(hit["word"]).lower().strip(".,") == placement.ref, onset
        seconds, _ = resolve_anchor(placement, words)
        assert 0.0 < seconds < float(words[-1]["end"])  # type: ignore[arg-type]
    # None of the old non-grammar spellings survive.
    assert not any(
        isinstance(e["onset"], str) and (":" in e["onset"] or "+" in e["onset"])
        for e in events.values()
    )


def test_word_timeline_is_measured_and_ordered() -> None:
    import soundfile as sf

    words = _words()
    info = sf.info(str(ASSETS / "narration.flac"))
    audio, rate = sf.read(str(ASSETS / "narration.flac"), dtype="float32")
    assert info.duration < 60 and len(words) > 40
    previous_end = 0.0
    for w in words:
        start, end = float(w["start"]), float(w["end"])  # type: ignore[arg-type]
        assert previous_end <= start < end <= info.duration
        # Speech inside each word, near-silence in the gap before it.
        inside = audio[int(start * rate) : int(end * rate)]
        assert np.abs(inside).max() > 0.05
        gap = audio[int(previous_end * rate) + 2 : int(start * rate) - 2]
        if len(gap):
            assert np.abs(gap).max() < 0.01
        previous_end = end


def test_demo_session_plays_a_scene(data_dir: Path) -> None:
    session_id = demo.build_demo(data_dir)
    store = SessionService(data_dir).get(session_id)
    narration = read_narration(store)
    assert narration is not None and narration.problem() is None
    assert narration.path.is_relative_to(data_dir)
    model = build_scene(store)
    assert not model.unplaced
    onsets = {p.sound_id: p for p in model.picks}
    numeric = [
        p for p in model.picks if p.placement.onset_chosen and p.reading.anchor.kind == "absolute"
    ]
    symbolic = [
        p for p in model.picks if p.placement.onset_chosen and p.reading.anchor.kind != "absolute"
    ]
    suggested = [p for p in model.picks if not p.placement.onset_chosen]
    assert numeric and symbolic and suggested
    assert onsets["freesound:590114"].reading.matched == "crunched"
    assert onsets["freesound:622519"].reading.anchor.kind == "scene"  # the bell: a stinger
    wind = onsets["elevenlabs:gen-5d1f0c2a9e"]
    assert wind.reading.anchor.kind == "sentence" and wind.length_s is not None
    scene = model.to_scene()
    assert {v.lane for v in scene.voices} >= {"narration", "ambience", "sfx_fg", "stinger"}
    mix = SceneMix(scene, 48000, start_s=13.0, end_s=14.5)
    out = np.concatenate(list(mix.blocks()))
    assert len(out) == round(1.5 * 48000)
    assert np.abs(out).max() > 0.05 and not mix.problems
