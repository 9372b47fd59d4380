"""Audio read by range from a store (the reader soundfile decodes from), and the
resolver's last local step: a session's shared audio."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from foley_tui.audio.base import AudioFormat, Source, Unplayable
from foley_tui.audio.blob import BLOCK_BYTES, RemoteBlob
from foley_tui.audio.decode import BlockDecoder, DecodeError, probe
from foley_tui.audio.peaks import exact_peaks
from foley_tui.audio.resolve import resolve


class Bytes:
    """A store holding one blob: counts the ranges asked for; can go away."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.ranges: list[tuple[int, int]] = []
        self.down = False

    def fetch(self, start: int, end: int) -> bytes:
        if self.down:
            raise ConnectionError("Redis at redis://h:1/0 is unreachable")
        self.ranges.append((start, end))
        return self.data[start : end + 1]

    def blob(self) -> RemoteBlob:
        return RemoteBlob("Redis blob 0123…", len(self.data), "0123", self.fetch, self.data[:64])


def wav(seconds: float, rate: int = 48000) -> tuple[bytes, np.ndarray]:
    t = np.arange(int(rate * seconds)) / rate
    data = np.stack([0.4 * np.sin(2 * np.pi * 220 * t), 0.3 + 0 * t], axis=1).astype(np.float32)
    out = io.BytesIO()
    sf.write(out, data, rate, format="WAV", subtype="FLOAT")
    return out.getvalue(), data


def test_a_long_blob_decodes_exactly_fetching_block_by_block() -> None:
    raw, signal = wav(4.0)  # 1.5 MB: read by range, not whole
    store = Bytes(raw)
    decoder = BlockDecoder(store.blob(), 48000)
    first = decoder.read(4096)
    # The first block sounded after one range request of one block.
    assert len(store.ranges) == 1 and store.ranges[0] == (0, BLOCK_BYTES - 1)
    blocks = [first]
    while not decoder.done:
        blocks.append(decoder.read(8192))
    np.testing.assert_array_equal(np.concatenate(blocks), signal)
    starts = [s for s, _ in store.ranges]
    assert starts == sorted(set(starts)) and all(s % BLOCK_BYTES == 0 for s in starts)
    assert probe(store.blob()).frames == len(signal)
    assert exact_peaks(store.blob(), 10).duration_s == pytest.approx(4.0)


def test_a_seek_reads_only_the_blocks_it_needs() -> None:
    raw, signal = wav(4.0)
    store = Bytes(raw)
    decoder = BlockDecoder(store.blob(), 48000, start_s=3.5)
    block = decoder.read(4800)
    np.testing.assert_array_equal(block, signal[168000 : 168000 + 4800])
    assert len(store.ranges) <= 3  # the header's block and the one (or two) at 3.5 s


def test_a_small_blob_is_one_request() -> None:
    raw, signal = wav(0.2)
    store = Bytes(raw)
    decoder = BlockDecoder(store.blob(), 48000)
    out = [decoder.read(100000)]
    while not decoder.done:
        out.append(decoder.read(100000))
    np.testing.assert_array_equal(np.concatenate(out), signal)
    assert store.ranges == [(0, len(raw) - 1)]


def test_a_store_going_away_mid_sound_is_a_decode_error_saying_why() -> None:
    raw, _ = wav(4.0)
    store = Bytes(raw)
    decoder = BlockDecoder(store.blob(), 48000)
    decoder.read(4096)
    store.down = True
    with pytest.raises(DecodeError, match=r"cannot read Redis blob 0123…: .*unreachable"):
        while not decoder.done:
            decoder.read(8192)
    with pytest.raises(DecodeError, match="unreachable"):
        BlockDecoder(store.blob(), 48000)


def test_a_blob_that_is_not_audio_is_unsupported() -> None:
    store = Bytes(b"RIFF\x00\x00\x00\x00WAVEjunk" * 10)
    with pytest.raises(DecodeError, match=r"unsupported or corrupt audio in Redis blob 0123…"):
        probe(store.blob())


class Shared:
    """A session's shared audio (the resolver's ``remote``)."""

    where = "Redis at redis://h:1/0"

    def __init__(self, blobs: dict[str, RemoteBlob], *, down: bool = False) -> None:
        self.blobs = blobs
        self.down = down
        self.asked: list[str] = []

    def find(self, sound_id: str) -> RemoteBlob | None:
        self.asked.append(sound_id)
        if self.down:
            raise ConnectionError("Redis at redis://h:1/0 is unreachable")
        return self.blobs.get(sound_id)


def cand(sound_id: str, cache_ok: bool | None, **sound: Any) -> dict[str, Any]:
    lic = {} if cache_ok is None else {"cache_bytes_ok": cache_ok}
    return {"sound": {"id": sound_id, "license": lic, **sound}, "preview_uri": None}


def test_resolve_streams_from_the_shared_store_only_when_nothing_local_plays(
    tmp_path: Path,
) -> None:
    raw, _ = wav(0.1)
    blob = Bytes(raw).blob()
    shared = Shared({"a": blob})
    local = tmp_path / "a.wav"
    local.write_bytes(raw)
    here = resolve(cand("a", True, uri=str(local)), tmp_path, remote=shared)
    assert isinstance(here, Source) and here.path == local and shared.asked == []
    local.unlink()
    found = resolve(cand("a", True, uri=str(local)), tmp_path, remote=shared)
    assert isinstance(found, Source)
    assert (found.path, found.how, found.format) == (blob, "redis", AudioFormat.WAV)
    assert found.identity == f"blob:0123|{len(raw)}"


def test_resolve_says_why_shared_audio_cannot_play(tmp_path: Path) -> None:
    shared = Shared({})
    gone = tmp_path / "gone.wav"
    licence = resolve(cand("a", False, uri=str(gone)), tmp_path, remote=shared)
    assert isinstance(licence, Unplayable) and licence.kind == "licence"
    assert licence.reason.startswith("its licence forbids caching its bytes (cache_bytes_ok")
    assert f"missing {gone}" in licence.reason and shared.asked == []  # never asked
    unknown = resolve(cand("b", None), tmp_path, remote=shared)  # no licence: not cacheable
    assert isinstance(unknown, Unplayable) and unknown.kind == "licence"
    none = resolve(cand("c", True, uri=str(gone)), tmp_path, remote=shared)
    assert isinstance(none, Unplayable) and none.kind == "missing"
    assert "no audio on Redis at redis://h:1/0 (push the session with --with-audio" in none.reason
    down = resolve(cand("c", True), tmp_path, remote=Shared({}, down=True))
    assert isinstance(down, Unplayable) and down.kind == "network"
    assert "cannot reach the audio on Redis at redis://h:1/0" in down.reason
    junk = Shared({"d": Bytes(b"not audio at all").blob()})
    bad = resolve(cand("d", True), tmp_path, remote=junk)
    assert isinstance(bad, Unplayable) and bad.kind == "unsupported"
