"""resolve(): every candidate kind, in foley-format.md's order, with precise reasons."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from foley_tui.audio.base import AudioFormat, Source, Unplayable
from foley_tui.audio.resolve import meta_filename, resolve, sniff_bytes, sniff_file


def put_blob(data_dir: Path, content: bytes, folder: str = "audio") -> str:
    key = hashlib.sha256(content).hexdigest()
    target = data_dir / folder
    target.mkdir(parents=True, exist_ok=True)
    (target / key).write_bytes(content)
    return key


def cand(**kwargs: object) -> dict[str, object]:
    sound = kwargs.pop("sound", {})
    return {"sound": sound, "preview_uri": kwargs.pop("preview_uri", None), **kwargs}


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("wav", AudioFormat.WAV),
        ("flac", AudioFormat.FLAC),
        ("ogg", AudioFormat.OGG),
        ("opus", AudioFormat.OGG),
        ("mp3", AudioFormat.MP3),
        ("mono8k", AudioFormat.WAV),
        ("stereo96k", AudioFormat.FLAC),
        ("six", AudioFormat.WAV),
        ("truncated", AudioFormat.WAV),
        ("not_audio", AudioFormat.UNKNOWN),
        ("empty", AudioFormat.UNKNOWN),
    ],
)
def test_sniff_from_magic_bytes_not_names(
    audio_files: dict[str, Path], name: str, fmt: AudioFormat
) -> None:
    assert sniff_file(audio_files[name])[0] is fmt


def test_sniff_edge_cases() -> None:
    assert sniff_bytes(b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x00") is AudioFormat.MP3
    assert sniff_bytes(b"ID3\x04\x00\x00\x00\x00\x00\x00fLaC") is AudioFormat.FLAC
    assert sniff_bytes(b"\xff\xfb\x90\x44") is AudioFormat.MP3
    assert sniff_bytes(b"\xff\xff\xff\xff") is AudioFormat.UNKNOWN  # bad bitrate/rate bits
    assert sniff_bytes(b"FORM\x00\x00\x00\x00AIFF") is AudioFormat.AIFF
    assert sniff_bytes(b"RIFF\x00\x00\x00\x00AVI ") is AudioFormat.UNKNOWN


def test_preview_blob_wins_over_content_hash(data_dir: Path, audio_files: dict[str, Path]) -> None:
    preview = put_blob(data_dir, audio_files["mp3"].read_bytes())
    full = put_blob(data_dir, audio_files["flac"].read_bytes())
    found = resolve(
        cand(preview_uri=preview, sound={"content_sha256": full, "loudness_lufs": -18.5}),
        data_dir,
    )
    assert isinstance(found, Source)
    assert (found.how, found.format, found.path) == (
        "preview",
        AudioFormat.MP3,
        data_dir / "audio" / preview,
    )
    assert found.loudness_lufs == -18.5
    assert isinstance(found.path, Path)
    size = found.path.stat().st_size
    assert found.identity == f"{found.path}|{size}|{found.path.stat().st_mtime_ns}"


@pytest.mark.parametrize("form", ["path", "file_uri", "file_localhost"])
def test_preview_local_path_and_file_uri(
    data_dir: Path, audio_files: dict[str, Path], form: str
) -> None:
    path = audio_files["ogg"]
    ref = {
        "path": str(path),
        "file_uri": path.as_uri(),
        "file_localhost": "file://localhost" + str(path),
    }[form]
    found = resolve(cand(preview_uri=ref), data_dir)
    assert isinstance(found, Source)
    assert (found.how, found.path, found.format) == ("preview", path, AudioFormat.OGG)


def test_content_hash_blob(data_dir: Path, audio_files: dict[str, Path]) -> None:
    key = put_blob(data_dir, audio_files["flac"].read_bytes())
    found = resolve(cand(sound={"content_sha256": key.upper()}), data_dir)
    assert (
        isinstance(found, Source)
        and found.how == "content_sha256"
        and found.format is AudioFormat.FLAC
    )


def test_hex_uri_names_a_blob(data_dir: Path, audio_files: dict[str, Path]) -> None:
    key = put_blob(data_dir, audio_files["wav"].read_bytes())
    found = resolve(cand(sound={"uri": key, "storage_mode": "by_value"}), data_dir)
    assert isinstance(found, Source) and found.how == "content_sha256"


@pytest.mark.parametrize("as_uri", [False, True])
def test_sound_uri_local_path(data_dir: Path, audio_files: dict[str, Path], as_uri: bool) -> None:
    path = audio_files["mono8k"]
    found = resolve(cand(sound={"uri": path.as_uri() if as_uri else str(path)}), data_dir)
    assert isinstance(found, Source) and (found.how, found.path) == ("path", path)


def test_relative_paths_are_not_local_files(
    data_dir: Path, audio_files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(audio_files["wav"].parent)
    found = resolve(cand(sound={"uri": "wav"}, preview_uri="wav"), data_dir)
    assert isinstance(found, Unplayable) and found.kind == "none"


def write_generation(data_dir: Path, request_key: str, entry: dict[str, object]) -> None:
    folder = data_dir / "generations" / "requests"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / meta_filename(request_key)).write_bytes(json.dumps(entry, indent=4).encode())


def test_generations_cache(data_dir: Path, audio_files: dict[str, Path]) -> None:
    content = put_blob(data_dir, audio_files["opus"].read_bytes(), "generations/audio")
    write_generation(data_dir, "req:1/a", {"content_key": content, "backend": "x"})
    note = "paid generation kept in the generations cache: req:1/a"
    found = resolve(
        cand(notes=["something else", note], sound={"content_sha256": "0" * 64}), data_dir
    )
    assert isinstance(found, Source)
    assert (found.how, found.path) == ("generations", data_dir / "generations" / "audio" / content)
    assert (data_dir / "generations" / "requests" / "req%3A1%2Fa.json").exists()


def test_generations_fallback_pointer(data_dir: Path, audio_files: dict[str, Path]) -> None:
    content = put_blob(data_dir, audio_files["wav"].read_bytes(), "generations/audio")
    write_generation(data_dir, "asked", {"answered_by": "answered"})
    write_generation(data_dir, "answered", {"content_key": content})
    found = resolve(cand(notes=["paid generation kept in the generations cache: asked"]), data_dir)
    assert isinstance(found, Source) and found.how == "generations"


def test_generation_entry_missing_or_without_bytes(data_dir: Path) -> None:
    note = ["paid generation kept in the generations cache: gone"]
    found = resolve(cand(notes=note), data_dir)
    assert isinstance(found, Unplayable) and found.kind == "missing"
    assert "not in the generations cache" in found.reason
    write_generation(data_dir, "gone", {"content_key": "ab" * 32})
    found = resolve(cand(notes=note), data_dir)
    assert isinstance(found, Unplayable) and "missing blob generations/audio/abab" in found.reason


def test_missing_blob_reason(data_dir: Path) -> None:
    key = "a" * 64
    found = resolve(cand(sound={"content_sha256": key}), data_dir)
    assert isinstance(found, Unplayable)
    assert found.kind == "missing" and f"missing blob audio/{key[:12]}" in found.reason


def test_remote_with_network_off(data_dir: Path) -> None:
    found = resolve(
        cand(preview_uri="https://example.org/p.mp3", sound={"content_sha256": "b" * 64}), data_dir
    )
    assert isinstance(found, Unplayable)
    assert found.kind == "remote"
    assert found.reason.startswith(
        "remote audio (https://example.org/p.mp3); network access is off"
    )
    assert "missing blob" in found.reason  # the other attempt is mentioned too


def test_http_sound_uri_is_a_web_page_never_audio(data_dir: Path) -> None:
    found = resolve(cand(sound={"uri": "https://freesound.org/s/1/"}), data_dir, allow_network=True)
    assert isinstance(found, Unplayable) and found.kind == "none"


def test_zero_length_and_not_audio(data_dir: Path, audio_files: dict[str, Path]) -> None:
    empty = resolve(cand(preview_uri=str(audio_files["empty"])), data_dir)
    assert isinstance(empty, Unplayable) and empty.kind == "empty" and "zero-length" in empty.reason
    junk = resolve(cand(preview_uri=str(audio_files["not_audio"])), data_dir)
    assert isinstance(junk, Unplayable) and junk.kind == "unsupported"
    assert "unsupported or corrupt" in junk.reason
    folder = resolve(cand(preview_uri=str(audio_files["wav"].parent)), data_dir)
    assert isinstance(folder, Unplayable) and folder.kind == "unsupported"


def test_a_broken_preview_falls_through_to_a_good_blob(
    data_dir: Path, audio_files: dict[str, Path]
) -> None:
    bad = put_blob(data_dir, b"")
    good = put_blob(data_dir, audio_files["flac"].read_bytes())
    found = resolve(cand(preview_uri=bad, sound={"content_sha256": good}), data_dir)
    assert isinstance(found, Source) and found.how == "content_sha256"


def test_nothing_to_play_and_odd_values(data_dir: Path) -> None:
    for candidate in ({}, {"sound": None, "preview_uri": 3, "notes": "x"}, {"sound": {"uri": 7}}):
        found = resolve(candidate, data_dir)
        assert isinstance(found, Unplayable) and found.kind == "none"
    found = resolve(cand(sound={"content_sha256": "c" * 64}), None)
    assert isinstance(found, Unplayable) and "no data dir" in found.reason


def test_resolve_is_cheap_no_full_read(
    data_dir: Path, audio_files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a header read: reading more than a few hundred bytes is a bug."""
    import os

    sizes: list[int] = []
    real_pread = os.pread

    def counting_pread(fd: int, n: int, offset: int) -> bytes:
        data = real_pread(fd, n, offset)
        sizes.append(len(data))
        return data

    def no_read(fd: int, n: int) -> bytes:
        raise AssertionError("resolve must not read a file sequentially")

    key = put_blob(data_dir, audio_files["wav"].read_bytes())
    monkeypatch.setattr(os, "pread", counting_pread)
    monkeypatch.setattr(os, "read", no_read)
    try:
        found = resolve(cand(sound={"content_sha256": key}), data_dir)
    finally:
        monkeypatch.undo()
    assert isinstance(found, Source)
    assert sizes and sum(sizes) <= 256


class _Handler(http.server.BaseHTTPRequestHandler):
    payload = b""
    hits = 0

    def do_GET(self) -> None:
        type(self).hits += 1
        if self.path != "/clip":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.payload)))
        self.end_headers()
        self.wfile.write(self.payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(audio_files: dict[str, Path]) -> Iterator[str]:
    _Handler.payload = audio_files["flac"].read_bytes()
    _Handler.hits = 0
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_remote_fetch_kept_only_when_license_allows(
    data_dir: Path, tmp_path: Path, server: str
) -> None:
    cache = tmp_path / "cache"
    ok = cand(preview_uri=f"{server}/clip", sound={"license": {"cache_bytes_ok": True}})
    found = resolve(ok, data_dir, allow_network=True, cache_dir=cache)
    assert isinstance(found, Source) and found.how == "remote" and found.format is AudioFormat.FLAC
    assert isinstance(found.path, Path)
    assert found.path.parent == cache and found.path.read_bytes() == _Handler.payload
    again = resolve(ok, data_dir, allow_network=True, cache_dir=cache)
    assert isinstance(again, Source) and _Handler.hits == 1  # served from our cache

    no = cand(preview_uri=f"{server}/clip", sound={"license": {"cache_bytes_ok": False}})
    temp = resolve(no, data_dir, allow_network=True, cache_dir=cache)
    assert isinstance(temp, Source) and isinstance(temp.path, Path)
    assert temp.path.parent != cache and not str(temp.path).startswith(str(data_dir))
    assert [p.name for p in cache.iterdir()] == [found.path.name]  # nothing new persisted
    shutil.rmtree(temp.path.parent, ignore_errors=True)


def test_remote_fetch_failure_reason(data_dir: Path, tmp_path: Path, server: str) -> None:
    cache = tmp_path / "cache"
    remote = cand(preview_uri=f"{server}/nope", sound={"license": {"cache_bytes_ok": True}})
    found = resolve(remote, data_dir, allow_network=True, cache_dir=cache)
    assert isinstance(found, Unplayable) and found.kind == "network" and "404" in found.reason
    assert list(cache.iterdir()) == []  # no partial download left behind


def test_interop_with_foleys_own_stores(data_dir: Path, audio_files: dict[str, Path]) -> None:
    """Blobs and paid generations written by the real foley package resolve."""
    from foley.stores import content_key, make_byte_store, make_generations_store

    blob = audio_files["flac"].read_bytes()
    make_byte_store(data_dir / "audio")[content_key(blob)] = blob
    found = resolve(cand(sound={"content_sha256": content_key(blob)}), data_dir)
    assert isinstance(found, Source) and found.how == "content_sha256"

    generated = audio_files["mp3"].read_bytes()
    cache = make_generations_store(data_dir / "generations")
    cache.audio[content_key(generated)] = generated
    cache.requests["elevenlabs:3f/ab"] = {"content_key": content_key(generated)}
    assert cache.get("elevenlabs:3f/ab") == generated  # foley itself finds it
    note = "paid generation kept in the generations cache: elevenlabs:3f/ab"
    found = resolve(cand(notes=[note]), data_dir)
    assert isinstance(found, Source) and found.how == "generations"
    assert found.format is AudioFormat.MP3


def test_a_moved_file_names_the_file_not_a_blob(data_dir: Path, tmp_path: Path) -> None:
    # What add and a library folder write: a content hash and the file's path. The file
    # moved: the reason is the path looked for, not a blob the sound never had.
    gone = tmp_path / "library" / "rain.flac"
    found = resolve(cand(sound={"content_sha256": "c" * 64, "uri": str(gone)}), data_dir)
    assert isinstance(found, Unplayable) and found.kind == "missing"
    assert found.reason == f"missing {gone}"
