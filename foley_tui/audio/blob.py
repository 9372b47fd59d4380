"""Audio that is not a file on this machine: bytes another store holds, read on demand.

A session on Redis may carry the audio its candidates play (``session push
--with-audio``). On a machine where the file is missing the resolver returns a
:class:`~foley_tui.audio.base.Source` whose ``path`` is a :class:`RemoteBlob`; the decoder
opens it as a :class:`BlobReader`, a seekable file-like object soundfile decodes from
(its virtual IO), which fetches the bytes in blocks by range (``GETRANGE`` on Redis) as
the decoder asks for them. Nothing is written to disk, and a long file starts playing
after its first block, not after the whole file arrived.

The store supplies the fetch function; this module knows nothing of Redis. Headless:
never imports textual.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

#: Bytes fetched per range request: the first block of a long file is one request.
BLOCK_BYTES = 256 << 10
#: Blocks kept per open reader (a decoder reads forward; a seek or a loop re-fetches).
CACHED_BLOCKS = 8
#: A blob this small is fetched whole on the first read (one round trip).
WHOLE_BYTES = 1 << 20

Fetch = Callable[[int, int], bytes]
"""``fetch(start, end)``: bytes ``start..end`` inclusive (as ``GETRANGE``); raises
``OSError`` (a store error) when the bytes cannot be had."""


@dataclass(frozen=True, slots=True)
class RemoteBlob:
    """Audio bytes held by a store, read by range.

    Attributes:
        name: What messages call it (``Redis blob 3fa4c1…``).
        size: Its length in bytes.
        key: A stable identity (the content hash).
        fetch: Reads a byte range (see :data:`Fetch`).
        head: Its first bytes, already fetched (the resolver sniffed the format there).
    """

    name: str
    size: int
    key: str
    fetch: Fetch = field(compare=False, repr=False)
    head: bytes = field(default=b"", compare=False, repr=False)

    @classmethod
    def of(cls, stored: StoredRange) -> RemoteBlob:
        """The blob of bytes a store offers (any object of :class:`StoredRange`'s shape)."""
        if isinstance(stored, RemoteBlob):
            return stored
        return cls(
            name=stored.name, size=stored.size, key=stored.key, fetch=stored.fetch, head=stored.head
        )

    def open(self) -> BlobReader:
        return BlobReader(self)

    def __str__(self) -> str:
        return self.name


class StoredRange(Protocol):
    """Bytes a store offers by range (the session store's ``StoredBytes``)."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int: ...

    @property
    def key(self) -> str: ...

    @property
    def head(self) -> bytes: ...

    def fetch(self, start: int, end: int) -> bytes: ...


class RemoteAudio(Protocol):
    """Where a store keeps audio for its candidates (a Redis session's pushed blobs)."""

    @property
    def where(self) -> str:
        """What messages call the store (``Redis at redis://host:6379/0``)."""

    def find(self, sound_id: str) -> StoredRange | None:
        """The audio kept for ``sound_id``, or None when there is none. Raises
        ``OSError`` when the store cannot be reached."""


class BlobReader(io.RawIOBase):
    """A read-only, seekable view of a :class:`RemoteBlob`, fetched block by block.

    Never raises from ``readinto`` (soundfile calls it from C, where an exception would
    only be printed and read as the end of the file): a failed fetch ends the stream and
    :attr:`error` says why, which the decoder turns into its error.
    """

    def __init__(self, blob: RemoteBlob) -> None:
        super().__init__()
        self.blob = blob
        self.name = blob.name
        self.error: str | None = None
        self._pos = 0
        self._blocks: OrderedDict[int, bytes] = OrderedDict()
        self._whole: bytes | None = None
        self._lock = threading.Lock()
        if blob.head and len(blob.head) >= blob.size:
            self._whole = blob.head[: blob.size]

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self.blob.size + offset
        else:
            raise ValueError(f"bad whence {whence}")
        self._pos = max(pos, 0)
        return self._pos

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        wanted = min(len(view), max(self.blob.size - self._pos, 0))
        done = 0
        with self._lock:
            while done < wanted:
                chunk = self._bytes_at(self._pos + done, wanted - done)
                if not chunk:
                    break
                view[done : done + len(chunk)] = chunk
                done += len(chunk)
        self._pos += done
        return done

    def _bytes_at(self, pos: int, count: int) -> bytes:
        """Up to ``count`` bytes from ``pos`` (within one block); b"" after a failure."""
        if self.error is not None:
            return b""
        if self._whole is None and self.blob.size <= WHOLE_BYTES:
            self._whole = self._fetch(0, self.blob.size - 1)
        if self._whole is not None:
            return self._whole[pos : pos + count]
        index = pos // BLOCK_BYTES
        block = self._blocks.get(index)
        if block is None:
            start = index * BLOCK_BYTES
            block = self._fetch(start, min(start + BLOCK_BYTES, self.blob.size) - 1)
            if not block:
                return b""
            self._blocks[index] = block
            while len(self._blocks) > CACHED_BLOCKS:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(index)
        offset = pos - index * BLOCK_BYTES
        return block[offset : offset + count]

    def _fetch(self, start: int, end: int) -> bytes:
        try:
            data = self.blob.fetch(start, end)
        except OSError as exc:
            self.error = f"cannot read {self.blob.name}: {exc}"
            return b""
        if len(data) != end - start + 1:
            self.error = f"{self.blob.name} is shorter than announced (changed on the server?)"
            return b""
        return data


__all__ = ["BLOCK_BYTES", "BlobReader", "RemoteAudio", "RemoteBlob"]
