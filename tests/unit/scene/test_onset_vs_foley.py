"""Our onset grammar against foley 0.0.89's own ``foley.weave.anchor`` on the same inputs.

foley.weave.anchor is pure (no store, no data dir), so it is imported in-process.
"""

from __future__ import annotations

from typing import Any

from foley.base import Layer as FoleyLayer
from foley.weave.anchor import _segment_sentences, parse_symbolic_anchor, resolve_anchor
from hypothesis import given, settings
from hypothesis import strategies as st

from foley_tui.scene.onset import parse_anchor, resolve, sentences

LAYERS = ["voice", "sfx_fg", "ambience", "stinger", "music"]
PIECES = [
    "on",
    "at",
    "as",
    "when",
    "during",
    "over",
    "ON ",
    "On",
    "'",
    '"',
    " ",
    "  ",
    "slammed",
    "door",
    "the",
    "3",
    "3.5",
    "-2",
    "+1.25",
    ".5",
    "12",
    "s",
    "sec",
    "after:",
    "arrives",
    "scene_start",
    "+2s",
    "Rain",
    "doors",
    "slam",
    "x",
    "é",
    ":",
    "0:03",
    "1e-05",
    "!",
    ".",
]
WORDS = [
    "The",
    "door",
    "slammed.",
    "Rain",
    "fell",
    "on",
    "the",
    "roof!",
    "doors",
    "slam",
    "thunder?",
    "a",
    "3",
    "",
    "...",
    "Slammed",
    "rain,",
    "roofs",
    "éclair",
]

onset_text = st.lists(st.sampled_from(PIECES), max_size=6).map("".join) | st.text(max_size=12)


@st.composite
def word_timelines(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(min_value=0, max_value=10))
    t = draw(st.floats(min_value=0, max_value=2, allow_nan=False))
    out = []
    for _ in range(n):
        t += draw(st.sampled_from([0.0, 0.05, 0.2, 0.34, 0.36, 0.5, 1.0]))
        length = draw(st.sampled_from([0.0, 0.1, 0.3, 0.6]))
        out.append({"word": draw(st.sampled_from(WORDS)), "start": t, "end": t + length})
        t += length
    return out


def _foley_parse(onset: str | None, layer: str, loop: bool) -> tuple[str, Any, float]:
    p = parse_symbolic_anchor(onset, layer=FoleyLayer(layer), loop=loop)
    return (p.anchor.value, p.ref, p.onset)


@settings(max_examples=600, deadline=None)
@given(onset=onset_text | st.none(), layer=st.sampled_from(LAYERS), loop=st.booleans())
def test_parse_matches_foley(onset: str | None, layer: str, loop: bool) -> None:
    ours = parse_anchor(onset, layer=layer, loop=loop)
    assert (ours.kind, ours.ref, ours.seconds) == _foley_parse(onset, layer, loop)


@settings(max_examples=600, deadline=None)
@given(
    onset=onset_text | st.sampled_from(["on 'slammed'", 'when "the door"', "roof", "rain"]),
    layer=st.sampled_from(LAYERS),
    loop=st.booleans(),
    words=word_timelines(),
)
def test_resolve_matches_foley(onset: str, layer: str, loop: bool, words: list[dict]) -> None:
    placement = parse_symbolic_anchor(onset, layer=FoleyLayer(layer), loop=loop)
    theirs = resolve_anchor(placement, words)
    ours = resolve(parse_anchor(onset, layer=layer, loop=loop), words)
    assert ours == theirs


@settings(max_examples=300, deadline=None)
@given(words=word_timelines())
def test_sentences_match_foley(words: list[dict]) -> None:
    assert sentences(words) == _segment_sentences(words)


def test_known_cases() -> None:
    words = [
        {"word": "The", "start": 0.1, "end": 0.3},
        {"word": "door", "start": 0.3, "end": 0.6},
        {"word": "slammed.", "start": 0.6, "end": 1.1},
        {"word": "Rain", "start": 1.8, "end": 2.1},
        {"word": "fell", "start": 2.1, "end": 2.5},
    ]
    assert resolve(parse_anchor("on 'slammed'"), words) == (0.6, None)
    assert resolve(parse_anchor("3.35"), words) == (3.35, None)
    # Negative numbers are clamped to 0 by weave; "1e-05" has a letter, so it is a word.
    assert resolve(parse_anchor("-2"), words) == (0.0, None)
    assert parse_anchor("1e-05").kind == "word"
    # A bed spans its sentence; a stinger lands on the sentence's first word.
    assert resolve(parse_anchor("during 'rain'", layer="ambience"), words) == (1.8, 2.5 - 1.8)
    assert resolve(parse_anchor("'fell'", layer="stinger"), words) == (1.8, None)
    # The demo's old onsets are not foley's grammar: they are read as words.
    assert parse_anchor("after:arrives").ref == "after:arrives"
    assert parse_anchor("scene_start+2s").kind == "word"
