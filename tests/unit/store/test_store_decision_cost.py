"""What one decision costs in file operations, counted by wrapping ``os`` and ``open``.

A plain pick is one atomic write (one ``os.replace``) and one journal append, with no
journal read; a process's first decision reads only the journal's tail, however long
the journal is.
"""

from __future__ import annotations

import builtins
import os
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from foley_tui.store import SessionService, SessionStore

from .helpers import candidate


class Ops:
    """Counts file operations by (operation, file name) while active."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        self.fds: dict[int, str] = {}
        self.bytes_read: Counter[str] = Counter()

    def of(self, op: str, name: str | None = None) -> int:
        return sum(
            n for (o, f), n in self.counts.items() if o == op and (name is None or f == name)
        )

    def on(self, name: str) -> dict[str, int]:
        return {o: n for (o, f), n in self.counts.items() if f == name}


@contextmanager
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[Ops]:
    ops = Ops()
    real: dict[str, Callable[..., Any]] = {
        name: getattr(os, name) for name in ("open", "replace", "unlink", "read", "pread")
    }
    real_open = builtins.open

    def wrap_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real["open"](path, flags, *args, **kwargs)
        name = os.path.basename(os.fspath(path))
        ops.fds[fd] = name
        ops.counts[("open", name)] += 1
        return fd

    def wrap_replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        ops.counts[("replace", os.path.basename(os.fspath(dst)))] += 1
        real["replace"](src, dst, *args, **kwargs)

    def wrap_unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        ops.counts[("unlink", os.path.basename(os.fspath(path)))] += 1
        real["unlink"](path, *args, **kwargs)

    def wrap_read(fd: int, size: int) -> bytes:
        data: bytes = real["read"](fd, size)
        ops.counts[("read", ops.fds.get(fd, "?"))] += 1
        return data

    def wrap_pread(fd: int, size: int, offset: int) -> bytes:
        data: bytes = real["pread"](fd, size, offset)
        name = ops.fds.get(fd, "?")
        ops.counts[("read", name)] += 1
        ops.bytes_read[name] += len(data)
        return data

    def wrap_builtin_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | os.PathLike):
            ops.counts[("open", os.path.basename(os.fspath(file)))] += 1
            ops.counts[("read", os.path.basename(os.fspath(file)))] += 1
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", wrap_open)
    monkeypatch.setattr(os, "replace", wrap_replace)
    monkeypatch.setattr(os, "unlink", wrap_unlink)
    monkeypatch.setattr(os, "read", wrap_read)
    monkeypatch.setattr(os, "pread", wrap_pread)
    monkeypatch.setattr(builtins, "open", wrap_builtin_open)
    try:
        yield ops
    finally:
        monkeypatch.undo()


@pytest.fixture
def store(data_dir: Path) -> SessionStore:
    service = SessionService(data_dir)
    sid = service.create("cost")
    store = service.get(sid)
    store.cache_candidates([candidate(f"s{i}") for i in range(20)])
    return store


def test_a_plain_pick_is_one_write_and_one_append(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.update_pick("s0", layer="voice")  # the store now knows the journal's end
    with counting(monkeypatch) as ops:
        entry = store.update_pick("s1")
    assert entry is not None
    assert ops.of("replace") == 1 and ops.of("replace", "s1.json") == 1
    assert ops.of("unlink") == 0
    assert ops.on("journal.jsonl") == {"open": 1}  # one append, no read
    assert ops.of("read") == 0  # an undecided sound: nothing to read
    assert ops.of("open", "s1.json") == 0


def test_a_layer_change_reads_the_pick_once_and_writes_it_once(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.update_pick("s1", onset="on 'slammed'")
    with counting(monkeypatch) as ops:
        store.update_pick("s1", layer="stinger")
    assert ops.of("read", "s1.json") == 1
    assert ops.of("replace") == 1 and ops.of("unlink") == 0
    assert ops.on("journal.jsonl") == {"open": 1}
    with counting(monkeypatch) as ops:  # the app's path returns the pick it wrote
        pick = store.set_layer("s1", "music")
    assert (pick.layer, pick.onset) == ("music", "on 'slammed'")
    assert ops.of("read", "s1.json") == 1 and ops.of("replace") == 1


def test_rejecting_a_pick_is_one_write_one_unlink(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.update_pick("s2")
    with counting(monkeypatch) as ops:
        store.set_reject("s2", "hiss")
    assert ops.of("replace") == 1 and ops.of("unlink") == 1
    assert ops.on("journal.jsonl") == {"open": 1}


def test_undo_availability_reads_only_new_journal_lines(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.update_pick("s3")
    assert store.can_undo()  # the whole journal read once
    with counting(monkeypatch) as ops:
        store.update_pick("s4")
        assert store.can_undo() and store.undo_target() is not None
    assert ops.of("read", "journal.jsonl") == 0  # our own append is already known


def test_a_fresh_process_reads_only_the_tail_of_a_long_journal(
    store: SessionStore, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = Path(store.state.path) / "journal.jsonl"  # type: ignore[attr-defined]
    store.update_pick("s5")
    last = journal.read_bytes()
    # 100k entries (and 40k garbage lines) written by earlier runs
    record = last.rstrip(b"\n")
    lines = [record.replace(b'"seq":1,', f'"seq":{n},'.encode(), 1) for n in range(1, 100_001)]
    garbage = [b"\x00garbage line, not a record"] * 40_000
    journal.write_bytes(b"\n".join(lines + garbage) + b"\n")
    size = journal.stat().st_size
    fresh = SessionService(data_dir).get(store.session_id)
    with counting(monkeypatch) as ops:
        entry = fresh.update_pick("s6")
    assert entry is not None and entry.seq == 100_001
    assert ops.on("journal.jsonl")["open"] == 2  # the tail read, then the append
    assert ops.bytes_read["journal.jsonl"] < size // 2  # never the whole journal
    # and the next decision reads nothing of it
    with counting(monkeypatch) as ops:
        assert fresh.update_pick("s7") is not None
    assert ops.on("journal.jsonl") == {"open": 1}
    # the full history is still there for undo, garbage reported once, however often read
    target = fresh.undo_target()
    assert target is not None and target.sound_id == "s7"
    fresh.journal()
    [problem] = [p for p in fresh.problems() if p.key == "journal.jsonl"]
    assert problem.reason.startswith("40000 unreadable journal records")
    fresh.journal()
    [problem] = [p for p in fresh.problems() if p.key == "journal.jsonl"]
    assert problem.reason.startswith("40000 unreadable journal records")
