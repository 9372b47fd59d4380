"""Effective placement against foley 0.0.89's own ``foley_plan`` on the same session.

foley reads FOLEY_DATA_DIR at import, so foley writes the session and plans it in a fresh
interpreter (tests/unit/store/helpers.run_py), then we compute every pick's placement from
the same files and compare.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from foley_tui.scene.placement import effective_placement
from foley_tui.scene.reading import read_onset

from ..store.helpers import candidate, run_py

PLAN = """
import json, sys
from foley.agent.session import SessionStore
from foley.base import Candidate
from foley.agent.verbs import foley_plan
args = json.loads({payload!r})
s = SessionStore("scene")
s.cache_candidates([Candidate.from_dict(c) for c in args["candidates"]])
for sid, layer, onset in args["picks"]:
    s.add_pick(sid, layer=layer, onset=onset)
plan = foley_plan("scene")
print(json.dumps([[i["clip_ref"], i["layer"], i["onset"], i["loop"]] for i in plan["items"]]))
"""

EVENTS: list[dict[str, Any] | None] = [
    None,
    {"query": "a door slams", "layer": "sfx_fg", "onset": "on 'slammed'"},
    {"query": "rain", "layer": "ambience", "onset": None, "loop": True},
    {"query": "hit", "layer": "stinger", "onset": "at 'thunder'"},
    {"query": "score", "onset": "during 'rain'"},
]
PICK_LAYERS = [None, "voice", "music"]
PICK_ONSETS: list[Any] = [None, 3.35, 0, 12, "on 'roof'", "1.5", -2.0]


def test_effective_placement_matches_foley_plan(data_dir: Path) -> None:
    combos = list(itertools.product(EVENTS, PICK_LAYERS, PICK_ONSETS))
    candidates, picks = [], []
    for n, (event, layer, onset) in enumerate(combos):
        sid = f"s{n:03d}"
        cand = candidate(sid, caption=f"sound {n}")
        cand["event"] = event
        candidates.append(cand)
        picks.append([sid, layer, onset])
    payload = json.dumps({"candidates": candidates, "picks": picks})
    items = run_py(PLAN.format(payload=payload), data_dir)
    by_id = {clip: (layer, onset, loop) for clip, layer, onset, loop in items}
    assert len(by_id) == len(combos)
    for cand, (sid, layer, onset) in zip(candidates, picks, strict=True):
        pick = {"sound_id": sid, "layer": layer, "onset": onset}
        ours = effective_placement(cand, pick)
        assert ours.error is None
        assert (ours.layer, ours.onset, ours.loop) == tuple(by_id[sid]), (cand["event"], pick)
        assert ours.layer_chosen == (layer is not None)
        assert ours.onset_chosen == (onset is not None)


def test_numeric_onset_is_plan_string() -> None:
    placement = effective_placement(candidate("a"), {"sound_id": "a", "layer": None, "onset": 3})
    assert placement.onset == "3"
    assert placement.anchor().kind == "absolute"
    assert placement.anchor().seconds == 3.0


def test_errors_foley_would_raise_on() -> None:
    bad_layer = effective_placement(candidate("a"), {"sound_id": "a", "layer": "fx", "onset": None})
    assert bad_layer.error is not None and "fx" in bad_layer.error
    no_query = candidate("b")
    no_query["event"] = {"layer": "sfx_fg"}
    assert effective_placement(no_query, None).error is not None
    numeric_event = candidate("c")
    numeric_event["event"] = {"query": "q", "onset": 2.0}
    assert "not a string" in (effective_placement(numeric_event, None).error or "")
    # The pick's own onset replaces the unreadable one: plan and weave are fine.
    fixed = effective_placement(numeric_event, {"sound_id": "c", "layer": None, "onset": 1.0})
    assert fixed.error is None and fixed.onset == "1.0"


WORDS = [
    {"word": "The", "start": 0.1, "end": 0.3},
    {"word": "door", "start": 0.3, "end": 0.6},
    {"word": "slammed.", "start": 0.6, "end": 1.1},
    {"word": "Rain", "start": 1.8, "end": 2.1},
    {"word": "fell", "start": 2.1, "end": 2.5},
]


def test_read_onset_describes_each_kind() -> None:
    assert read_onset(3.35).summary == "absolute: 0:03.350"
    assert read_onset("3.35").onset_s == 3.35
    assert read_onset(-1.0).note.startswith("negative")
    word = read_onset("on 'slammed'", words=WORDS)
    assert word.summary == "word anchor on 'slammed' → 'slammed.' at 0:00.600"
    assert (word.onset_s, word.matched) == (0.6, "slammed.")
    unplaced = read_onset("on 'slammed'")
    assert unplaced.onset_s is None and "0:00" in unplaced.note
    nomatch = read_onset("on 'zebra'", words=WORDS)
    assert nomatch.onset_s is None and "no word matches" in nomatch.note
    bed = read_onset("during 'rain'", layer="ambience", words=WORDS)
    assert bed.anchor.kind == "sentence"
    assert (bed.onset_s, bed.duration_s) == (1.8, 2.5 - 1.8)
    sting = read_onset("'fell'", layer="stinger", words=WORDS)
    assert sting.anchor.kind == "scene" and sting.onset_s == 1.8
    whole = read_onset(None, layer="music", words=WORDS)
    assert whole.onset_s == 0.1 and whole.duration_s == 2.5 - 0.1
    assert read_onset(None).summary == "no cue: starts at 0:00"


def test_a_bed_without_cue_or_words_starts_at_zero() -> None:
    bed = read_onset(None, layer="ambience")
    assert (bed.onset_s, bed.duration_s) == (0.0, None)
