"""Timecode at the editor's rates, bext text and safe file names."""

from __future__ import annotations

import pytest

from foley_tui.spot import names
from foley_tui.spot.timecode import (
    RATES,
    TimecodeError,
    format_frames,
    frame_rate,
    frames_to_samples,
    parse,
)


def test_drop_frame_skips_two_frame_numbers_each_minute_but_the_tenth() -> None:
    df = frame_rate("29.97df")
    assert parse("00:01:00;02", df) == 1800
    assert format_frames(1800, df) == "00:01:00;02"
    assert format_frames(1799, df) == "00:00:59;29"
    assert parse("00:10:00;00", df) == 17982
    assert parse("01:00:00;00", df) == 107892
    with pytest.raises(TimecodeError, match="does not exist"):
        parse("00:01:00;00", df)
    # Every frame of the first 11 minutes reads back to itself.
    for count in range(0, 17982 + 1900, 7):
        assert parse(format_frames(count, df), df) == count


@pytest.mark.parametrize("name", sorted(RATES))
def test_every_rate_round_trips_and_has_exact_samples(name: str) -> None:
    rate = RATES[name]
    for count in (0, 1, 59, 1439, 86399, 100000):
        assert parse(format_frames(count, rate), rate) == count
    hour = parse("01:00:00" + rate.separator + "00", rate)
    seconds = {"23.976": 3603.6, "29.97": 3603.6, "29.97df": 3599.9964}.get(name, 3600.0)
    assert frames_to_samples(hour, rate, 48000) == round(seconds * 48000)


def test_bad_timecodes_and_rates_are_refused() -> None:
    with pytest.raises(TimecodeError, match="not a timecode rate"):
        frame_rate("60")
    with pytest.raises(TimecodeError):
        parse("00:00:00:25", frame_rate("25"))
    with pytest.raises(TimecodeError, match="drop-frame"):
        parse("00:00:00;10", frame_rate("25"))
    with pytest.raises(TimecodeError):
        parse("1:2:3", frame_rate("25"))
    assert frame_rate("29.97ndf").name == "29.97" and frame_rate("23.98").name == "23.976"


def test_names_are_safe_and_fit() -> None:
    assert names.clean("a/b\\c:d") == "a b c d"
    assert names.clean("\x00\x1b[31mred") == "[31mred"
    assert names.clean("..") == "untitled"
    assert names.clean("nul.txt") == "_nul.txt"
    long = names.clip_name(3, "é" * 250, "id")
    assert len(long.encode()) <= names.MAX_NAME_BYTES and long.startswith("03 é")
    assert long.endswith(f" {names.short_id('id')}.wav")
    assert names.clip_name(1, "x", "a") != names.clip_name(1, "x", "b")


def test_bext_text_is_printable_ascii() -> None:
    assert names.ascii_text("Tür — “zu”…\tend", 256) == 'Tur - "zu"... end'
    assert names.ascii_text("日本", 256) == "??"
    assert len(names.ascii_text("x" * 300, 256)) == 256
