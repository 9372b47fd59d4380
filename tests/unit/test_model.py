from __future__ import annotations

import math

import pytest

from foley_tui.domain import (
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


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 10**400, "", "  ", True, [1]])
def test_bad_onsets_are_refused(bad: object) -> None:
    with pytest.raises(ValidationError):
        validate_onset(bad)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("", None), ("12.5", 12.5), ("1:02.5", 62.5), ("0:00", 0.0), ("1:00:01", 3601.0)],
)
def test_parse_onset(text: str, seconds: float | None) -> None:
    assert parse_onset(text) == seconds


@pytest.mark.parametrize("text", ["1:75", "nan", "-inf", "1e999", "9" * 310 + ":00"])
def test_parse_onset_rejects(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_onset(text)


def test_format_onset() -> None:
    assert format_onset(None) == "-"
    assert format_onset(62.5) == "1:02.500"
    assert format_onset(3.35) == "0:03.350"  # to the millisecond, not 0:03.4
    assert format_onset(0.1 + 0.2) == "0:00.300"  # no float noise
    assert parse_onset(format_onset(3.35)) == 3.35


def test_pick_from_foreign_dict_is_tolerant() -> None:
    pick = Pick.from_dict({"layer": "loud", "onset": [1]}, sound_id="x")
    # foley's plan passes the onset on as str(onset): '[1]', read as 1 s by its weave
    assert pick == Pick("x", None, "[1]")
    assert Pick.from_dict({"onset": float("nan")}, sound_id="x").onset == "nan"
    assert Pick.from_dict({"onset": 1e20}, sound_id="x").onset == "1e+20"
    assert Pick.from_dict({"onset": 10**30}, sound_id="x").onset == str(10**30)
    # an anchor string is foley's own onset: kept as written
    assert Pick.from_dict({"onset": "on 'slammed'"}, sound_id="x").onset == "on 'slammed'"


@pytest.mark.parametrize(
    ("value", "kept"),
    [(-1, -1), (-0.25, -0.25), (3, 3), ("on 'slammed'", "on 'slammed'"), (None, None)],
)
def test_valid_onsets_are_kept_as_they_are(value: object, kept: object) -> None:
    assert validate_onset(value) == kept
    assert type(validate_onset(value)) is type(kept)


@pytest.mark.parametrize(
    ("text", "onset"),
    [
        ("-2", -2.0),
        ("-0:01.5", -1.5),
        ("on 'slammed'", "on 'slammed'"),
        ('  when "the door"  ', 'when "the door"'),
        ("abc", "abc"),
        ("scene_start+2s", "scene_start+2s"),
    ],
)
def test_parse_onset_numbers_and_anchors(text: str, onset: object) -> None:
    assert parse_onset(text) == onset


def test_format_onset_anchor_and_negative() -> None:
    assert format_onset("on 'slammed'") == "on 'slammed'"
    assert format_onset(-1.5) == "-0:01.500"


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
