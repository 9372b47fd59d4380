"""Bytes a store keeps for its candidates, read by range.

A Redis session may carry the audio its candidates play (``session push --with-audio``).
The store offers those bytes as :class:`StoredBytes` (a size, a stable key and a range
read); what to make of them (decoding, playback) is the audio package's business, which
consumes any object of this shape. The store never imports audio.

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

Fetch = Callable[[int, int], bytes]
"""``fetch(start, end)``: bytes ``start..end`` inclusive (as ``GETRANGE``); raises
``OSError`` (a store error) when the bytes cannot be had."""


@dataclass(frozen=True, slots=True)
class StoredBytes:
    """One run of bytes a store holds, read by range.

    Attributes:
        name: What messages call it (``Redis blob 3fa4c1…``).
        size: Its length in bytes.
        key: A stable identity (the content hash).
        fetch: Reads a byte range (see :data:`Fetch`).
        head: Its first bytes, already fetched with the lookup.
    """

    name: str
    size: int
    key: str
    fetch: Fetch = field(compare=False, repr=False)
    head: bytes = field(default=b"", compare=False, repr=False)

    def __str__(self) -> str:
        return self.name


class ByteStore(Protocol):
    """Where a store keeps bytes for its candidates, by sound id."""

    @property
    def where(self) -> str:
        """What messages call the store (``Redis at redis://host:6379/0``)."""

    def find(self, sound_id: str) -> StoredBytes | None:
        """The bytes kept for ``sound_id``, or None when there are none. Raises
        ``OSError`` when the store cannot be reached."""


__all__ = ["ByteStore", "Fetch", "StoredBytes"]
