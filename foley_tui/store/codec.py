"""The exact file-name and JSON codecs of foley's session stores, and id validation.

foley (``foley/stores.py``) maps a key to ``quote(key, safe="") + ".json"``, with a
leading ``.`` spelled ``%2E`` (dol skips dotfiles), and writes values as
``json.dumps(value, indent=4)`` with no trailing newline. Any other spelling of a name
makes foley's ``list_picks`` raise ``KeyError``, so both directions must be exact.

Headless: never imports textual.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, unquote, unquote_to_bytes

from foley_tui.domain import ValidationError
from foley_tui.store.errors import InvalidSessionIdError

SUFFIX = ".json"
# Names made only of characters quote() leaves alone, not starting with a dot.
_PLAIN = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9_.~-]*\.json\Z")
# Names made of unreserved characters and uppercase %XX escapes.
_ENCODED = re.compile(r"(?:[A-Za-z0-9_.~-]|%[0-9A-F]{2})+\.json\Z")
# %XX escapes of unreserved characters (A-Z a-z 0-9 - . _ ~), which quote() never makes.
_ESCAPED_UNRESERVED = re.compile(r"%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2[DE]|5F|7E)")
#: The folders foley keeps inside a session (no nested session may be named like them).
SESSION_FOLDERS = frozenset({"candidates", "picks", "rejects"})
#: Longest file name most file systems accept (bytes).
MAX_NAME_BYTES = 255


class InvalidKeyError(ValidationError):
    """A sound id that cannot become a foley file name (empty, not a str, too long)."""


#: key -> file name, for keys already encoded: a decision encodes its key about five
#: times (validate, status, write, discards) and quote() is most of that cost.
_NAMES: dict[str, str] = {}
_NAMES_MAX = 1 << 16


def encode_key(key: str) -> str:
    """``key`` -> its file name, exactly as foley's ``_meta_filename`` spells it."""
    if type(key) is str:  # exact str only: a subclass could hash or compare differently
        known = _NAMES.get(key)
        if known is not None:
            return known
    if not isinstance(key, str) or not key:
        raise InvalidKeyError(f"sound id must be a non-empty string (got {key!r})")
    try:
        encoded = quote(key, safe="")
    except UnicodeEncodeError:
        raise InvalidKeyError(f"sound id is not valid Unicode text: {key!r}") from None
    if encoded.startswith("."):
        encoded = "%2E" + encoded[1:]
    name = encoded + SUFFIX
    if len(name.encode()) > MAX_NAME_BYTES:
        raise InvalidKeyError(
            f"sound id too long for a file name ({len(name.encode())} bytes encoded, "
            f"max {MAX_NAME_BYTES}): {key[:40]!r}..."
        )
    if type(key) is str:
        if len(_NAMES) >= _NAMES_MAX:
            _NAMES.clear()
        _NAMES[key] = name
    return name


def decode_name(name: str) -> str | None:
    """A file name -> its key, or ``None`` if foley would not have written that name.

    Hidden names, names without ``.json`` and non-canonical spellings (``a:b.json``,
    lowercase hex, an escaped unreserved character) are foreign: foley's own reads would
    fail on them, so we report them instead of guessing. Equivalent to checking
    ``encode_key(key) == name`` but several times faster (it runs once per file).
    """
    if name.startswith(".") or not name.endswith(SUFFIX) or len(name) == len(SUFFIX):
        return None
    if _PLAIN.match(name):  # fast path: nothing encoded, so the name is the key
        return name[: -len(SUFFIX)]
    if not _ENCODED.match(name):
        return None  # a character quote() would have escaped, or lowercase/short hex
    stem = name[: -len(SUFFIX)]
    # quote() never escapes an unreserved character; the one exception is a leading dot.
    if _ESCAPED_UNRESERVED.search(stem, 3 if stem.startswith("%2E") else 0):
        return None
    try:
        return unquote_to_bytes(stem).decode("utf-8")  # strict: invalid UTF-8 is foreign
    except UnicodeDecodeError:
        return None


# The bytes a listing of canonical names holds (joined by newlines), and a ``%`` that
# starts no uppercase escape.
_NAME_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.~%\n-"
_BAD_PERCENT = re.compile(r"%(?![0-9A-F]{2})")
#: Past this many escape passes, unquoting the joined names at once is cheaper.
_MAX_UNQUOTE_PASSES = 16


def decode_names(names: Sequence[str]) -> list[str | None]:
    """``[decode_name(n) for n in names]``, in a few passes over the joined names.

    A first open lists a big session's names before its first frame; name by name, that
    decoding is a visible part of it at 100k files. Whole, the listing is checked with a
    few searches and unescaped with one ``bytes.replace`` per distinct escape (``%25``,
    the escaped ``%``, last, so nothing is unescaped twice); a listing with any hidden,
    foreign or unusual name (a newline, an escaped unreserved character, bytes that are
    not UTF-8) is decoded name by name, exactly.
    """
    if not names:
        return []
    joined = "\n".join(names) + "\n"
    try:
        listing = joined.encode("ascii")
    except UnicodeEncodeError:  # a character no canonical name holds
        return [decode_name(name) for name in names]
    if (
        joined.count("\n") != len(names)
        or joined.count(SUFFIX + "\n") != len(names)  # every name ends in .json
        or joined[0] == "."
        or "\n." in joined  # a hidden name (".json" alone included)
        or listing.translate(None, _NAME_BYTES)  # a character no canonical name holds
        or _BAD_PERCENT.search(joined)
        or _ESCAPED_UNRESERVED.search(joined)
    ):
        return [decode_name(name) for name in names]
    raw = listing.replace(SUFFIX.encode() + b"\n", b"\n")
    try:
        raw = _unescape(raw)
        text = raw.decode("utf-8")  # strict: invalid UTF-8 is foreign
    except UnicodeDecodeError:
        return [decode_name(name) for name in names]
    keys: list[str | None] = list(text.split("\n"))
    if len(keys) != len(names) + 1:  # a key holding a newline (%0A)
        return [decode_name(name) for name in names]
    keys.pop()
    return keys


def _unescape(raw: bytes) -> bytes:
    """``unquote_to_bytes`` of checked, canonical names: one pass per distinct escape."""
    passes, at, percent = 0, 0, False
    while (at := raw.find(b"%", at)) >= 0:
        passes += 1
        if passes > _MAX_UNQUOTE_PASSES:
            # What is unescaped so far made no new escape (only %25 makes a "%").
            return unquote_to_bytes(raw)
        escape = raw[at : at + 3]
        if escape == b"%25":
            percent, at = True, at + 3
            continue
        raw = raw.replace(escape, bytes([int(escape[1:], 16)]))
    return raw.replace(b"%25", b"%") if percent else raw


#: The bytes ``quote()`` never escapes (``urllib.parse._ALWAYS_SAFE``).
_SAFE_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
#: Above this many distinct bytes to escape, one ``bytes.replace`` pass each costs more
#: than escaping key by key.
_MAX_REPLACE_PASSES = 24


def names_match_keys(names: Sequence[str], keys: Sequence[str]) -> bool:
    """True when every ``names[i]`` is exactly ``encode_key(keys[i])``.

    The same answer as checking each pair, in a few bulk passes over the joined bytes
    (a stored index is checked this way on every open, where pair by pair at 100k rows
    would be a visible part of the reopen). The keys are joined with NUL and escaped byte by byte as
    ``quote()`` does; a key holding NUL, a lone surrogate, a leading dot (spelled
    ``%2E``) or any mismatch is decided pair by pair, exactly.
    """
    if len(names) != len(keys):
        return False
    if not keys:
        return True
    try:
        joined = "\0".join(keys).encode("utf-8")
        wanted = "\0".join(names).encode("utf-8")
    except (UnicodeEncodeError, TypeError):  # a lone surrogate, a value not a str
        return _pairs_match(names, keys)
    if joined.count(b"\0") != len(keys) - 1:
        return _pairs_match(names, keys)  # a key holds NUL: the joins are ambiguous
    special = set(joined.translate(None, _SAFE_BYTES + b"\0"))
    if len(special) > _MAX_REPLACE_PASSES:
        return _pairs_match(names, keys)
    if 0x25 in special:  # "%" first: the escapes below bring their own "%"
        joined = joined.replace(b"%", b"%25")
        special.discard(0x25)
    for byte in special:
        joined = joined.replace(bytes((byte,)), b"%%%02X" % byte)
    # The keys' bytes hold no NUL of their own and no escape makes one, so equal joins
    # mean equal pairs (a name holding NUL would make the counts differ).
    if joined.replace(b"\0", b".json\0") + b".json" != wanted:
        return _pairs_match(names, keys)
    # Equal, but a name starting with a dot is hidden: its key starts with one (foley
    # spells it %2E) or is empty. No such name is foley's.
    return not (wanted.startswith(b".") or b"\0." in wanted)


def _pairs_match(names: Sequence[str], keys: Sequence[str]) -> bool:
    for name, key in zip(names, keys, strict=True):
        if type(key) is not str or type(name) is not str:
            return False
        if decode_name(name) != key:
            return False
    return True


def foley_decode_name(name: str) -> str:
    """What foley's ``_meta_key`` makes of any name (used to explain foreign files)."""
    if name.endswith(SUFFIX):
        name = name[: -len(SUFFIX)]
    return unquote(name)


def dumps(value: Any) -> bytes:
    """foley's exact bytes for a JSON value: ``json.dumps(value, indent=4).encode()``.

    NaN/Infinity are refused (strict readers choke on them) before anything is written.
    """
    try:
        # allow_nan=False only adds the refusal: the bytes of finite values are the same.
        return json.dumps(value, indent=4, allow_nan=False).encode()
    except (TypeError, ValueError) as exc:  # NaN, a set, an object, a circular reference...
        if "compliant" in str(exc):
            raise ValidationError(f"refusing to write a non-finite number ({exc})") from None
        raise ValidationError(f"cannot store this value as JSON: {exc}") from None


class DecodeError(ValueError):
    """A file's bytes are not a JSON object foley could read."""


def loads_object(data: bytes) -> dict[str, Any]:
    """Parse a stored value as foley would (UTF-8 JSON, no BOM) and insist on an object."""
    if not data:
        raise DecodeError("empty file")
    if data.startswith(b"\xef\xbb\xbf"):
        raise DecodeError("starts with a UTF-8 byte-order mark (foley cannot read it)")
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DecodeError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise DecodeError(f"invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise DecodeError("JSON nested too deeply to read") from None
    except ValueError as exc:  # an integer beyond Python's digit limit
        raise DecodeError(f"unreadable JSON value ({exc})") from None
    if not isinstance(value, dict):
        raise DecodeError(f"not a JSON object (a {type(value).__name__})")
    return value


def validate_session_id(session_id: object) -> str:
    """Return ``session_id`` if it names a folder safely inside ``sessions/``.

    foley joins the id into the path unescaped: ``proj/scene1`` is the folder
    ``sessions/proj/scene1/`` and ``" my scene "`` (spaces included) is a valid id, so we
    accept both. What could escape ``sessions/`` or hide is refused: an empty part (a
    leading, trailing or doubled ``/``), ``.``/``..`` or any part starting with a dot
    (hidden names are ours and foley skips them), a nested part named like a session's
    own folders (``proj/picks`` would land inside session ``proj``'s picks and break
    foley's listing), backslash, NUL and control characters, and parts too long for a
    file system.
    """
    if not isinstance(session_id, str) or not session_id:
        raise InvalidSessionIdError(f"session id must be a non-empty string (got {session_id!r})")
    bad = [ch for ch in session_id if ch in "\\\0" or ord(ch) < 32 or ord(ch) == 127]
    if bad:
        raise InvalidSessionIdError(
            f"invalid session id {session_id!r}: contains {''.join(sorted(set(bad)))!r}"
        )
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidSessionIdError(f"invalid session id {session_id!r}: not UTF-8") from None
    parts = session_id.split("/")
    for index, part in enumerate(parts):
        if not part:
            raise InvalidSessionIdError(
                f"invalid session id {session_id!r}: an empty part (leading, trailing or '//')"
            )
        if part.startswith("."):
            raise InvalidSessionIdError(
                f"invalid session id {session_id!r}: a part must not start with '.'"
            )
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise InvalidSessionIdError(
                f"invalid session id: a part is longer than {MAX_NAME_BYTES} bytes"
            )
        if index and part in SESSION_FOLDERS:
            raise InvalidSessionIdError(
                f"invalid session id {session_id!r}: {part!r} is a session's own folder"
            )
    return session_id
