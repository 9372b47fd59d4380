"""Marks (rating, hidden, region): parsing, validation, the record form."""

from __future__ import annotations

import pytest

from foley_tui.domain import ValidationError
from foley_tui.marks import Marks, parse_point, parse_rating, validate_rating


def test_ratings_are_whole_numbers_from_0_to_5() -> None:
    assert [parse_rating(t) for t in ("0", " 5 ", "3")] == [0, 5, 3]
    for bad in ("6", "-1", "2.5", "x", ""):
        with pytest.raises(ValidationError, match="from 0 to 5"):
            parse_rating(bad)
    for value in (True, 6, 1.0, None):
        with pytest.raises(ValidationError):
            validate_rating(value)


def test_points_take_the_onset_time_syntax_without_anchors_or_signs() -> None:
    assert parse_point("1.25") == 1.25
    assert parse_point("0:01.500") == 1.5
    assert parse_point("1:02:03.5") == 3723.5
    assert parse_point("none") is None and parse_point("") is None
    for bad in ("-1", "on 'door'", "nan", "inf", "0:75"):
        with pytest.raises(ValidationError):
            parse_point(bad)


def test_the_record_keeps_only_what_is_set_and_other_keys() -> None:
    assert Marks().to_record("a") is None
    marks = Marks(rating=4, region_in=0.5)
    assert marks.to_record("a") == {"sound_id": "a", "rating": 4, "in": 0.5}
    assert Marks.from_record(marks.to_record("a")) == marks
    kept = Marks(hidden=True).to_record("a", {"sound_id": "a", "rating": 2, "note": "x"})
    assert kept == {"sound_id": "a", "note": "x", "hidden": True}
    # A cleared record with a foreign key stays, keeping the key.
    assert Marks().to_record("a", {"note": "x"}) == {"note": "x", "sound_id": "a"}
    # Tolerant reads: wrong kinds read as unset.
    odd = {"rating": 9, "hidden": "yes", "in": -1, "out": "2"}
    assert Marks.from_record(odd) == Marks()


def test_regions_must_be_inside_the_sound_and_in_before_out() -> None:
    Marks(region_in=0.5, region_out=1.0).check_region(2.0)
    Marks(region_in=0.5).check_region(None)
    with pytest.raises(ValidationError, match="before its out point"):
        Marks(region_in=1.0, region_out=1.0).check_region(2.0)
    with pytest.raises(ValidationError, match="past the sound's end"):
        Marks(region_out=2.5).check_region(2.0)
    with pytest.raises(ValidationError, match="before its out point"):
        Marks(region_in=2.0).check_region(2.0)
    assert Marks(region_in=0.5).region(2.0) == (0.5, 2.0)
    assert Marks(region_out=1.5).region(2.0) == (0.0, 1.5)
    assert Marks(rating=3, hidden=True, region_in=0.5).describe() == (
        "★★★, hidden, region 0.5-end s"
    )
