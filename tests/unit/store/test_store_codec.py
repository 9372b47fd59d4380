"""The file-name codec and JSON bytes are exactly foley's (property tests against foley)."""

from __future__ import annotations

import json

import pytest
from foley.stores import _meta_filename, _meta_key
from hypothesis import given, settings
from hypothesis import strategies as st

from foley_tui.domain import ValidationError
from foley_tui.store import InvalidSessionIdError, decode_name, dumps, encode_key
from foley_tui.store.codec import (
    DecodeError,
    decode_names,
    loads_object,
    names_match_keys,
    validate_session_id,
)

from .helpers import ODD_IDS

# Text foley can encode: any non-empty string without lone surrogates.
ids = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=60)


@settings(max_examples=500, deadline=None)
@given(ids)
def test_codec_round_trips_and_equals_foley(sound_id: str) -> None:
    if len(_meta_filename(sound_id).encode()) > 255:
        # The OS would refuse foley's file; we refuse the id up front instead.
        with pytest.raises(ValidationError, match="too long"):
            encode_key(sound_id)
        return
    name = encode_key(sound_id)
    assert name == _meta_filename(sound_id)
    assert decode_name(name) == sound_id
    assert _meta_key(name) == sound_id
    assert not name.startswith(".")
    assert "/" not in name


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aZ09%.-_~:/ 2EF3Ae\u00e9", min_size=1, max_size=12))
def test_decode_accepts_exactly_foleys_canonical_names(stem: str) -> None:
    name = stem + ".json"
    ours = decode_name(name)
    try:
        canonical = not name.startswith(".") and _meta_filename(_meta_key(name)) == name
    except ValueError:
        canonical = False
    assert (ours is not None) == canonical
    if ours is not None:
        assert ours == _meta_key(name)


def _pairwise(names: list[str], keys: list[str]) -> bool:
    return len(names) == len(keys) and all(
        decode_name(n) == k for n, k in zip(names, keys, strict=True)
    )


# Any text, lone surrogates and NUL included (a crafted index may hold them).
any_keys = st.lists(st.text(alphabet="a.:%/ \x00\u00e9\ud800E2~", max_size=6), max_size=8)


@settings(max_examples=600, deadline=None)
@given(any_keys, st.data())
def test_bulk_name_check_answers_as_the_pairwise_one(keys: list[str], data: st.DataObject) -> None:
    """The index's (name, key) check in bulk: exactly the pair-by-pair answer, for
    foley's own names and for mismatched, swapped, foreign or hidden ones."""
    names = []
    for key in keys:
        try:
            names.append(encode_key(key))
        except ValidationError:
            names.append(key + ".json")  # a name foley would not write
    mutation = data.draw(st.sampled_from(["none", "swap", "replace", "drop", "raw"]))
    if mutation == "swap" and len(names) > 1:
        names[0], names[-1] = names[-1], names[0]
    elif mutation == "replace" and names:
        at = data.draw(st.integers(0, len(names) - 1))
        names[at] = data.draw(st.text(alphabet="a.:%3A\x00json", max_size=8))
    elif mutation == "drop" and names:
        names.pop()
    elif mutation == "raw":
        names = [key + ".json" for key in keys]
    assert names_match_keys(names, keys) == _pairwise(names, keys)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.text(alphabet="aZ09%.-_~:/ \n2EF3Ae\u00e9", max_size=10), max_size=8))
def test_bulk_decoding_answers_as_name_by_name(stems: list[str]) -> None:
    """A listing decoded in bulk (a first open's) is exactly decode_name of each name:
    foley's names, foreign ones, hidden ones, newlines and escapes of every kind."""
    names = []
    for stem in stems:
        try:
            names.append(encode_key(stem) if stem.startswith("~") else stem + ".json")
        except ValidationError:
            names.append(stem + ".json")
    assert decode_names(names) == [decode_name(name) for name in names]


def test_bulk_decoding_known_cases() -> None:
    keys = [f"bbc:{i}" for i in range(50)] + ["a b/c", "100%", "%41", "\u00e9\u97f3", ".x"]
    names = [encode_key(k) for k in keys]
    assert decode_names(names) == keys
    many = [chr(0x100 + i) + "%" for i in range(40)]  # more escapes than replace passes
    assert decode_names([encode_key(k) for k in many]) == many
    for odd in ("%41.json", ".x.json", "x.txt", "%FF.json", "a%0Ab.json", "a%.json", ".json"):
        listing = [*names[:3], odd]
        assert decode_names(listing) == [decode_name(n) for n in listing]
    assert decode_names([]) == []


def test_bulk_name_check_known_cases() -> None:
    assert names_match_keys(["a%3Ab.json", "%2Ex.json", "%C3%A9.json"], ["a:b", ".x", "\u00e9"])
    assert not names_match_keys(["a:b.json"], ["a:b"])  # not foley's spelling
    assert not names_match_keys([".x.json"], [".x"])  # hidden
    assert not names_match_keys([".json"], [""])
    assert not names_match_keys(["a.json", "b.json"], ["b", "a"])
    assert not names_match_keys(["a%00b.json"], ["a\x00c"])
    assert names_match_keys(["a%00b.json"], ["a\x00b"])
    # A NUL in a key and one in a name line up in the joins: still not a match.
    assert not names_match_keys(["a.json\x00b.json"], ["a\x00b"])
    assert not names_match_keys(["a.json"], ["a", "b"])
    assert names_match_keys([], [])
    many = [f"s{i}:{i}" for i in range(40)] + [chr(0x100 + i) for i in range(40)]
    assert names_match_keys([encode_key(k) for k in many], many)  # many distinct escapes


@pytest.mark.parametrize("sound_id", ODD_IDS)
def test_odd_ids_match_foley(sound_id: str) -> None:
    assert encode_key(sound_id) == _meta_filename(sound_id)
    assert decode_name(encode_key(sound_id)) == sound_id


def test_known_spellings() -> None:
    assert encode_key("é") == "%C3%A9.json"
    assert encode_key("a:b") == "a%3Ab.json"
    assert encode_key(".x") == "%2Ex.json"
    assert encode_key("a b/c") == "a%20b%2Fc.json"


@pytest.mark.parametrize(
    "name",
    [
        "a:b.json",
        "a%3ab.json",
        "%41.json",
        ".x.json",
        "x.txt",
        "x",
        ".json",
        "a%2.json",
        "%FF.json",
    ],
)
def test_foreign_names_are_refused(name: str) -> None:
    assert decode_name(name) is None


@pytest.mark.parametrize("bad", ["", 3, None, "x" * 300])
def test_bad_keys_raise_validation_error(bad: object) -> None:
    with pytest.raises(ValidationError):
        encode_key(bad)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(), kids, max_size=4),
        max_leaves=12,
    )
)
def test_bytes_equal_foley_json(value: object) -> None:
    assert dumps(value) == json.dumps(value, indent=4).encode()


def test_dumps_refuses_nan() -> None:
    with pytest.raises(ValueError):
        dumps({"onset": float("nan")})
    with pytest.raises(ValueError):
        dumps({"x": [1, {"y": float("inf")}]})


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"\xef\xbb\xbf{}", "byte-order mark"),
        (b"{", "invalid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_loads_object_reasons(data: bytes, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason):
        loads_object(data)


@pytest.mark.parametrize(
    "bad",
    [
        *("", ".", "..", "../x", "a/../b", "a/./b", "/abs", "a/", "a//b", "a\\b", ".hidden"),
        *("a/.hidden", "x\x00y", "tab\there", "x" * 256, "a/" + "x" * 256, "proj/picks"),
    ],
)
def test_traversal_and_bad_session_ids(bad: str) -> None:
    with pytest.raises(InvalidSessionIdError):
        validate_session_id(bad)


@pytest.mark.parametrize(
    "good",
    ["default", "01J0000000000000000000000", "my scene", "é:1", " pad ", "proj/scene1", "a/b/c"],
)
def test_good_session_ids(good: str) -> None:
    assert validate_session_id(good) == good
