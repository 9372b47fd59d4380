"""File names that are readable, unique and safe on every file system an editor uses.

Headless: never imports textual.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

#: A name's budget in bytes (UTF-8): most file systems allow 255; a margin leaves room for
#: an editor's own suffixes (``.reapeaks``, Pro Tools' ``_01``).
MAX_NAME_BYTES = 200
#: Characters Windows (NTFS, exFAT, SMB shares) refuses, and the path separators.
_FORBIDDEN = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')
_SPACES = re.compile(r"\s+")
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{i}" for i in range(1, 10)}
    | {f"LPT{i}" for i in range(1, 10)}
)


def short_id(sound_id: str) -> str:
    """Eight hex digits that tell sounds apart whatever characters their ids hold."""
    return hashlib.sha1(sound_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def clean(text: str, fallback: str = "untitled") -> str:
    """``text`` as one safe path component: no separators, control or reserved characters,
    Unicode composed (macOS and Linux then agree on the bytes), no leading or trailing dots
    or spaces, never a Windows device name."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text
    )
    text = _FORBIDDEN.sub(" ", text)
    text = _SPACES.sub(" ", text).strip(" .")
    if not text:
        text = fallback
    if text.split(".")[0].upper() in _RESERVED:
        text = f"_{text}"
    return text


def cut_bytes(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, never inside a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore").rstrip(" .")


def clip_name(index: int, caption: str, sound_id: str, suffix: str = ".wav") -> str:
    """``<nn> <caption> <short id><suffix>``, within :data:`MAX_NAME_BYTES`."""
    head = f"{index:02d} "
    tail = f" {short_id(sound_id)}{suffix}"
    room = MAX_NAME_BYTES - len(head.encode()) - len(tail.encode())
    return head + cut_bytes(clean(caption), room) + tail


#: Typographic punctuation a caption often holds, in ASCII.
_PUNCTUATION = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2026": "...",
        "\u00a0": " ",
    }
)


def ascii_text(text: str, limit: int) -> str:
    """``text`` in printable ASCII (accents dropped, other characters as ``?``), cut to
    ``limit`` characters: what a bext text field holds."""
    plain = unicodedata.normalize("NFKD", text.translate(_PUNCTUATION))
    out = []
    for ch in plain:
        if unicodedata.combining(ch):
            continue
        code = ord(ch)
        out.append(ch if 0x20 <= code < 0x7F else ("?" if code >= 0x7F else " "))
    return "".join(out)[:limit]
