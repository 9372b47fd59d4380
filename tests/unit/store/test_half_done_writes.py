"""Writes that fail or are interrupted half-way leave nothing half-made behind.

- a ``session create`` refused by a full disk leaves no ``sessions/<ULID>/`` (with
  empty folders) that would be listed as a session;
- a journal append that fails mid-line (ENOSPC at a page boundary) is truncated back: no
  partial line for ``session show`` to report forever;
- a ``session delete`` interrupted between the trash's info file and the move leaves a
  ``.trashinfo`` without its folder only until the next delete, which removes it.

Failures are injected at the system call (``os.write``, ``os.mkdir``, ``os.rename``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from foley_tui.store import SessionService, SessionServiceError, StoreWriteError, file_state, trash


def _enospc() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device")


def test_a_create_refused_by_a_full_disk_leaves_no_session(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = SessionService(data_dir)
    real: Callable[..., int] = os.write

    def full(fd: int, data: Any) -> int:
        raise _enospc()

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(SessionServiceError, match="No space left"):
        service.create("never made")
    monkeypatch.setattr(os, "write", real)
    assert service.list() == []
    assert [p.name for p in (data_dir / "sessions").iterdir()] == []


@pytest.mark.parametrize("fails_at", [2, 3, 4, 5, 6])
def test_a_create_refused_at_a_folder_leaves_no_session(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, fails_at: int
) -> None:
    service = SessionService(data_dir)
    (data_dir / "sessions").mkdir(exist_ok=True)
    real: Callable[..., None] = os.mkdir
    calls = 0

    def mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == fails_at:  # 1: the session folder, then its namespaces
            raise _enospc()
        real(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    with pytest.raises(SessionServiceError, match="No space left"):
        service.create("never made")
    monkeypatch.setattr(os, "mkdir", real)
    assert service.list() == []
    assert [p.name for p in (data_dir / "sessions").iterdir()] == []


def test_a_journal_append_that_fails_mid_line_is_truncated_back(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = SessionService(data_dir)
    session_id = service.create("journal")
    store = service.get(session_id)
    store.add_pick("a:1")
    journal = data_dir / "sessions" / session_id / ".foley-tui" / "journal.jsonl"
    before = journal.read_bytes()
    real: Callable[..., int] = os.write

    def torn(fd: int, data: Any) -> int:
        if bytes(data[:1]) == b"{" and os.fstat(fd).st_size == len(before):
            real(fd, bytes(data[: len(data) // 2]))  # half the line reaches the disk
            raise _enospc()
        return real(fd, data)

    monkeypatch.setattr(file_state.os, "write", torn)
    with pytest.raises(StoreWriteError):
        store.add_pick("b:2")
    monkeypatch.setattr(file_state.os, "write", real)
    assert journal.read_bytes() == before  # nothing of the torn line is left
    fresh = SessionService(data_dir).get(session_id)
    assert [e.sound_id for e in fresh.journal()] == ["a:1"]
    assert not [p for p in fresh.problems() if "journal" in str(p)]
    fresh.add_pick("b:2")  # the next append starts on a clean line
    assert [e.sound_id for e in SessionService(data_dir).get(session_id).journal()] == [
        "a:1",
        "b:2",
    ]


class Killed(BaseException):
    """The process killed between two steps (nothing of ours catches it)."""


def test_an_interrupted_delete_leaves_no_trash_info_without_its_folder(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = SessionService(data_dir)
    first = service.create("first")
    second = service.create("second")
    real: Callable[..., None] = os.rename

    def killed(src: Any, dst: Any) -> None:
        raise Killed

    monkeypatch.setattr(trash.os, "rename", killed)
    with pytest.raises(Killed):
        service.delete(first)
    monkeypatch.setattr(trash.os, "rename", real)
    info = Path(os.environ["XDG_DATA_HOME"]) / "Trash" / "info"
    assert [p.name for p in info.iterdir()] == [f"{first}.trashinfo"]  # the orphan
    assert (data_dir / "sessions" / first).is_dir()  # never moved
    service.delete(second)  # the next delete sweeps the orphan of ours
    files = Path(os.environ["XDG_DATA_HOME"]) / "Trash" / "files"
    names = sorted(p.name for p in info.iterdir())
    assert names == [f"{second}.trashinfo"]
    assert sorted(p.name for p in files.iterdir()) == [second]
    # Someone else's orphan (not a session of this data dir) is not ours to remove.
    stray = info / "notes.txt.trashinfo"
    stray.write_text("[Trash Info]\nPath=/home/else/notes.txt\nDeletionDate=2026-01-01T00:00:00\n")
    service.delete(first)
    assert stray.exists()
    assert sorted(p.name for p in files.iterdir()) == sorted([first, second])
