"""The hostile corpus: damaged and crafted sessions, one builder per case of the
trust model (docs/trust-model.md).

Each case starts from the same healthy session (made by :func:`healthy`) and breaks it
the way an attacker, another tool or bad luck would. :data:`CASES` maps a case name to
(builder, the words a problem or an error must mention). The probes in the tests open
every case through the store, the service, the audio resolver and the CLI in a child
process, and check: no traceback, no hang (a generous timeout), no signal, nothing
outside the data dir read into an export or changed, and a clear message.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

SID = "hostile"
#: A file outside the data dir a crafted session tries to read, delete or overwrite.
SECRET_TEXT = "TOP-SECRET-OUTSIDE-THE-DATA-DIR"


def candidate(sound_id: str, caption: str = "door slam", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "sound": {
            "id": sound_id,
            "uri": None,
            "license": {"source": "freesound", "license_id": "CC0-1.0"},
            "caption": caption,
            "tags": ["door"],
            "duration_s": 1.5,
            "sample_rate": 48000,
            "channels": 2,
            "format": "wav",
        },
        "origin": "retrieved",
        "event": {"query": "a door", "layer": "sfx_fg", "onset": None},
        "rrf_score": 0.5,
        "preview_uri": None,
        "notes": [],
    }
    data.update(extra)
    return data


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(json.dumps(value, indent=4).encode())


def healthy(data_dir: Path, outside: Path) -> Path:
    """A session as foley writes it: 4 candidates, a pick, a reject, our meta; plus an
    outside folder holding a secret file and a valid candidate that is not ours."""
    root = data_dir / "sessions" / SID
    for i in range(4):
        _write(root / "candidates" / f"c{i}.json", candidate(f"c{i}", caption=f"sound {i}"))
    _write(root / "picks" / "c0.json", {"sound_id": "c0", "layer": "voice", "onset": 1.5})
    _write(root / "rejects" / "c1.json", {"sound_id": "c1", "reason": "hiss"})
    _write(
        root / ".foley-tui" / "meta.json",
        {
            "schema_version": 1,
            "title": "hostile",
            "created": "2026-01-01T00:00:00+00:00",
            "updated": "2026-01-01T00:00:00+00:00",
            "cursor": "c2",
            "view": {"volume_db": -6.0},
            "origin": "foley-tui",
        },
    )
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text(SECRET_TEXT)
    _write(outside / "outside.json", candidate("c9", caption=SECRET_TEXT))
    _write(outside / "c1.json", {"sound_id": "c1", "reason": SECRET_TEXT})
    return root


Builder = Callable[[Path, Path], None]


def _fifo(rel: str) -> Builder:
    def build(root: Path, outside: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        os.mkfifo(path)

    return build


def _link(rel: str, target: str | None = None) -> Builder:
    def build(root: Path, outside: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():
            for child in path.iterdir():
                child.unlink()
            path.rmdir()
        else:
            path.unlink(missing_ok=True)
        if target is None:
            path.symlink_to(outside)
        else:
            path.symlink_to(target.replace("__outside__", str(outside)))

    return build


def _raw(rel: str, data: bytes) -> Builder:
    def build(root: Path, outside: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    return build


def _socket(rel: str) -> Builder:
    def build(root: Path, outside: Path) -> None:
        path = root / rel
        path.unlink(missing_ok=True)
        sock = socket.socket(socket.AF_UNIX)
        # AF_UNIX paths are short: bind from inside the folder with a relative name.
        cwd = os.getcwd()
        os.chdir(path.parent)
        try:
            sock.bind(path.name)
        finally:
            os.chdir(cwd)
            sock.close()

    return build


def _huge(rel: str, size: int) -> Builder:
    def build(root: Path, outside: Path) -> None:
        with (root / rel).open("wb") as fh:
            fh.write(b'{"sound": {"id": "c3"}, "pad": "')
            fh.truncate(size)  # sparse: no disk used

    return build


def _pick(onset_json: str, key: str = "c0") -> Builder:
    body = f'{{"sound_id": "{key}", "layer": "voice", "onset": {onset_json}}}'.encode()
    return _raw(f"picks/{key}.json", body)


def _meta(**changes: Any) -> Builder:
    def build(root: Path, outside: Path) -> None:
        path = root / ".foley-tui" / "meta.json"
        meta = json.loads(path.read_text())
        meta.update(changes)
        path.write_text(json.dumps(meta))

    return build


def _meta_raw(text: str) -> Builder:
    return _raw(".foley-tui/meta.json", text.encode())


def _session_link(root: Path, outside: Path) -> None:
    """The whole session folder is a link to a folder elsewhere."""
    real = outside / "real-session"
    root.rename(real)
    root.symlink_to(real)


def _index_garbage(root: Path, outside: Path) -> None:
    (root / ".foley-tui" / "index.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 8192)


def _index_bin(root: Path, outside: Path) -> None:
    # The marshal index of earlier versions, re-signed: never loaded any more.
    (root / ".foley-tui" / "index.bin").write_bytes(b"FOLEYTUI-INDEX\x00\x03" + b"\x00" * 53)


def _journal_garbage(root: Path, outside: Path) -> None:
    lines = [b"garbage line %d" % i for i in range(2000)]
    lines.append(b'{"seq": true, "sound_id": "c0"}')
    lines.append(b"[" * 100_000)
    (root / ".foley-tui" / "journal.jsonl").write_bytes(b"\n".join(lines) + b"\n")


DEEP = b'{"sound": {"id": "c3", "caption": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
GIANT = "9" * 401


def _audio(value: float, subtype: str) -> Builder:
    """c3's preview is a WAV (in the data dir) whose every sample is ``value``: NaN, inf,
    or a DOUBLE 1e300 that is inf as float32."""

    def build(root: Path, outside: Path) -> None:
        import numpy as np
        import soundfile as sf

        path = root.parent.parent / "audio-files" / "c3.wav"
        path.parent.mkdir(parents=True, exist_ok=True)
        sf.write(str(path), np.full((4800, 2), value), 48000, subtype=subtype)
        _write(root / "candidates" / "c3.json", candidate("c3", preview_uri=str(path)))

    return build


def _folder(rel: str) -> Builder:
    def build(root: Path, outside: Path) -> None:
        (root / rel).unlink()
        (root / rel).mkdir()

    return build


#: name -> (builder, words that must appear in a problem, an unplayable reason or an error)
CASES: dict[str, tuple[Builder, tuple[str, ...]]] = {
    "fifo-candidate": (_fifo("candidates/c3.json"), ("FIFO",)),
    "fifo-pick": (_fifo("picks/c3.json"), ("FIFO",)),
    "fifo-reject": (_fifo("rejects/c3.json"), ("FIFO",)),
    "fifo-journal": (_fifo(".foley-tui/journal.jsonl"), ("FIFO",)),
    "fifo-meta": (_fifo(".foley-tui/meta.json"), ("FIFO",)),
    "fifo-index": (_fifo(".foley-tui/index.sqlite"), ()),
    "socket-pick": (_socket("picks/c3.json"), ("socket",)),
    "dev-zero-candidate": (_link("candidates/c3.json", "/dev/zero"), ("symbolic link",)),
    "dev-zero-journal": (_link(".foley-tui/journal.jsonl", "/dev/zero"), ("symbolic link",)),
    "candidate-links-outside": (
        _link("candidates/c3.json", "__outside__/outside.json"),
        ("symbolic link",),
    ),
    "folder-candidate": (_folder("candidates/c3.json"), ("folder",)),
    "huge-candidate": (_huge("candidates/c3.json", 17 << 20), ("too large",)),
    "deep-nesting-candidate": (_raw("candidates/c3.json", DEEP), ("nested too deeply",)),
    "deep-nesting-pick": (
        _raw("picks/c0.json", b'{"sound_id": "c0", "x": ' + b"[" * 100_000 + b"}"),
        ("nested",),
    ),
    "giant-int-onset": (_pick(GIANT), ()),
    "giant-int-duration": (
        _raw(
            "candidates/c3.json",
            json.dumps(candidate("c3"))
            .replace('"duration_s": 1.5', f'"duration_s": {GIANT}')
            .encode(),
        ),
        (),
    ),
    "int-beyond-digit-limit": (_pick("9" * 5000), ("unreadable JSON value",)),
    "nan-onset": (_pick("NaN"), ()),
    "infinite-score": (
        _raw("candidates/c3.json", json.dumps(candidate("c3", rrf_score=1e999)).encode()),
        (),
    ),
    "lone-surrogate-caption": (
        _raw(
            "candidates/c3.json",
            json.dumps(candidate("c3", caption="x")).replace('"x"', '"\\ud800 bad"').encode(),
        ),
        (),
    ),
    "lone-surrogate-title": (
        _meta_raw('{"title": "\\udfff", "created": "2026-01-01T00:00:00"}'),
        (),
    ),
    "date-out-of-range": (
        _meta(created="9999-12-31T23:59:59-23:59", updated="0001-01-01T00:00:00+23:59"),
        (),
    ),
    "date-garbage": (_meta(created="not a date", updated=12), ()),
    "volume-too-loud": (_meta(view={"volume_db": 120}), ()),
    "volume-giant-int": (_meta_raw('{"view": {"volume_db": ' + GIANT + "}}"), ()),
    "volume-nan": (_meta_raw('{"view": {"volume_db": NaN, "loop": "yes"}}'), ()),
    "rejects-link-outside": (_link("rejects"), ("symbolic link",)),
    "picks-link-outside": (_link("picks"), ("symbolic link",)),
    "candidates-link-outside": (_link("candidates"), ("symbolic link",)),
    "state-link-outside": (_link(".foley-tui"), ()),
    "session-link-outside": (_session_link, ("symbolic link",)),
    "index-garbage": (_index_garbage, ()),
    "index-marshal-legacy": (_index_bin, ()),
    "journal-garbage": (_journal_garbage, ("journal",)),
    "bom-candidate": (_raw("candidates/c3.json", b"\xef\xbb\xbf{}"), ("byte-order mark",)),
    "empty-pick": (_raw("picks/c3.json", b""), ("empty",)),
    "truncated-candidate": (
        _raw("candidates/c3.json", b'{"sound": {"id": "c3", "cap'),
        ("invalid JSON",),
    ),
    "not-utf8-candidate": (_raw("candidates/c3.json", b'{"sound": "\xff\xfe"}'), ("not UTF-8",)),
    "foreign-name": (_raw("candidates/a:b.json", b"{}"), ("foreign",)),
    "nan-audio": (_audio(float("nan"), "FLOAT"), ("non-finite samples in c3.wav: 9600",)),
    "inf-audio": (_audio(float("-inf"), "FLOAT"), ("non-finite samples in c3.wav: 9600",)),
    "double-1e300-audio": (_audio(1e300, "DOUBLE"), ("non-finite samples in c3.wav: 9600",)),
    "title-escapes": (_meta(title="\x1b]0;pwned\x07\x1b[2J\x1b[31mred"), ()),
    "id-escapes": (
        _raw(
            "candidates/%1B%5B2J.json",
            json.dumps(candidate("\x1b[2J", caption="\x1b]0;pwned\x07")).encode(),
        ),
        (),
    ),
}


def build(case: str, data_dir: Path, outside: Path) -> Path:
    """Make the healthy session, then break it as ``case`` says; return its folder."""
    root = healthy(data_dir, outside)
    builder, _ = CASES[case]
    builder(root, outside)
    return root
