from __future__ import annotations

import math

import pytest

from foley_tui.model import (
    LAYERS,
    Candidate,
    Pick,
    ValidationError,
    format_onset,
    parse_onset,
    validate_layer,
    validate_onset,
)


def test_layers_are_foleys_five() -> None:
    assert LAYERS == ("voice", "sfx_fg", "ambience", "stinger", "music")
    assert validate_layer("music") == "music"
    assert validate_layer(None) is None
    with pytest.raises(ValidationError):
        validate_layer("foreground")


@pytest.mark.parametrize("bad", [-1, math.nan, math.inf, "3", True])
def test_bad_onsets_are_refused(bad: object) -> None:
    with pytest.raises(ValidationError):
        validate_onset(bad)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("", None), ("12.5", 12.5), ("1:02.5", 62.5), ("0:00", 0.0), ("1:00:01", 3601.0)],
)
def test_parse_onset(text: str, seconds: float | None) -> None:
    assert parse_onset(text) == seconds


@pytest.mark.parametrize("text", ["abc", "1:75", "-2", "nan"])
def test_parse_onset_rejects(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_onset(text)


def test_format_onset() -> None:
    assert format_onset(None) == "-"
    assert format_onset(62.5) == "1:02.5"


def test_pick_from_foreign_dict_is_tolerant() -> None:
    pick = Pick.from_dict({"layer": "loud", "onset": "soon"}, sound_id="x")
    assert pick == Pick("x", None, None)


def test_candidate_view_tolerates_missing_and_odd_fields() -> None:
    cand = Candidate({"sound": {"id": "a", "tags": "notalist", "duration_s": "2"}})
    row = cand.to_row(rank=3)
    assert (row.sound_id, row.rank, row.tags, row.duration_s) == ("a", 3, (), None)
    full = Candidate(
        {
            "sound": {"id": "b", "caption": "rain", "license": {"source": "freesound"}},
            "rrf_score": 0.5,
            "cost_estimate_usd": 0.02,
        }
    )
    assert (full.caption, full.source, full.score, full.cost_usd) == (
        "rain",
        "freesound",
        0.5,
        0.02,
    )
