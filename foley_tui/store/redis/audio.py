"""The audio a Redis session carries, streamed to the player when the file is not here.

``session push --with-audio`` stores each candidate's audio once, content-addressed
(``<prefix>audio:<sha256>``, shared by sessions), and maps sound id -> sha256 in the
session's ``audio`` HASH. :class:`RedisAudio` is a
:class:`~foley_tui.store.byte_store.ByteStore` over them: finding a sound's bytes costs two
round trips and a few KB (their head, to sniff the format); the player then reads them by
range (``GETRANGE``) as it decodes, into memory only.

Headless: never imports textual.
"""

from __future__ import annotations

import errno

from foley_tui.store.byte_store import StoredBytes
from foley_tui.store.redis.namespace import RedisBackend

#: Bytes fetched with the lookup: enough to sniff any format (an ID3 tag before FLAC too).
HEAD_BYTES = 4096


class RedisAudio:
    """The pushed audio of one session on Redis."""

    def __init__(self, backend: RedisBackend, session_id: str) -> None:
        self.backend = backend
        self.index_key = backend.keys.audio_index(session_id)

    @property
    def where(self) -> str:
        return f"Redis at {self.backend.target.url}"  # redacted: never the password

    def find(self, sound_id: str) -> StoredBytes | None:
        """The blob pushed for ``sound_id``, None if none was. Raises
        :class:`~foley_tui.store.redis.conn.RedisStoreError` (an ``OSError``) when the
        server cannot be reached, ``FileNotFoundError`` when the blob itself is gone."""
        client = self.backend.client
        with self.backend.errors("could not look up the audio"):
            sha_raw = client.hget(self.index_key, sound_id)
            if sha_raw is None:
                return None
            sha = sha_raw.decode("ascii", "replace")
            key = self.backend.keys.audio(sha)
            pipe = client.pipeline(transaction=False)
            pipe.exists(key)
            pipe.strlen(key)
            pipe.getrange(key, 0, HEAD_BYTES - 1)
            exists, size, head = pipe.execute()
        if not exists:
            raise FileNotFoundError(
                errno.ENOENT, f"its audio blob {sha[:12]}… is missing on {self.where}"
            )

        def fetch(start: int, end: int) -> bytes:
            with self.backend.errors(f"could not read audio blob {sha[:12]}…"):
                return bytes(client.getrange(key, start, end))

        return StoredBytes(
            name=f"Redis blob {sha[:12]}…",
            size=int(size),
            key=sha,
            fetch=fetch,
            head=bytes(head),
        )


__all__ = ["HEAD_BYTES", "RedisAudio"]
