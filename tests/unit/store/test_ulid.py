"""Our ULIDs: 26 characters of Crockford base 32, a millisecond timestamp first (ids
sort by creation time), random after it."""

from __future__ import annotations

import re
import time

from foley_tui.store.records import new_ulid

CROCKFORD = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")


def _millis(ulid: str) -> int:
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    value = 0
    for char in ulid:
        value = value * 32 + alphabet.index(char)
    return value >> 80


def test_ulids_are_crockford_base32_and_carry_their_time() -> None:
    before = time.time_ns() // 1_000_000
    ids = [new_ulid() for _ in range(1000)]
    after = time.time_ns() // 1_000_000
    assert all(CROCKFORD.fullmatch(i) for i in ids)
    assert len(set(ids)) == len(ids)
    assert all(before <= _millis(i) <= after for i in ids)
    later = new_ulid()
    while _millis(later) == _millis(ids[-1]):
        later = new_ulid()
    assert later > max(i for i in ids if _millis(i) < _millis(later))
