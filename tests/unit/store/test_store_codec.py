"""The file-name codec and JSON bytes are exactly foley's (property tests against foley)."""

from __future__ import annotations

import json

import pytest
from foley.stores import _meta_filename, _meta_key
from hypothesis import given, settings
from hypothesis import strategies as st

from foley_tui.model import ValidationError
from foley_tui.store import InvalidSessionIdError, decode_name, dumps, encode_key
from foley_tui.store.codec import DecodeError, loads_object, validate_session_id

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
