"""Nothing that reads session data or audio runs on the UI thread.

The real app, driven with Pilot through opening, moving, previewing, picking,
rejecting, undoing, setting a layer, filtering, sorting and the status filter, while
every file-system entry point the store and the audio code read through (``os.open``,
``open``, ``os.scandir``, ``os.listdir``, ``sqlite3.connect``) records which thread
called it. No read of ``candidates/``, ``picks/``, ``rejects/``, the journal, the index
or an audio file may come from the main thread, except inside a decision's own write
(its read-modify-write under the session lock: decisions may be written from the UI
thread, in keystroke order).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import sqlite3
import threading
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from foley_tui.store.decisions import Commit, Current, Planned
from foley_tui.store.records import JournalEntry, Verdicts
from tests.ui.conftest import SIZE, Session, ready, settle, wait_workers

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@dataclass(frozen=True)
class Access:
    op: str
    path: str
    main: bool
    in_decision: bool
    where: str = ""
    """The app's innermost frames that made the call (for the failure message)."""


class Recorder:
    """Which thread touched which file, for the paths of one session and its audio."""

    def __init__(self, session: Path, audio: Path) -> None:
        self.watched = {
            "candidates": str(session / "candidates"),
            "picks": str(session / "picks"),
            "rejects": str(session / "rejects"),
            "journal": str(session / ".foley-tui" / "journal.jsonl"),
            "index": str(session / ".foley-tui" / "index.sqlite"),
            "audio": str(audio),
        }
        self.accesses: list[Access] = []
        self.local = threading.local()
        self.active = False

    def kind(self, path: str) -> str | None:
        for kind, root in self.watched.items():
            if path == root or path.startswith(root + os.sep):
                return kind
        return None

    def note(self, op: str, target: object, dir_fd: int | None = None) -> None:
        if not self.active:
            return
        path = _resolve(target, dir_fd)
        if path is None or self.kind(path) is None:
            return
        main = threading.current_thread() is threading.main_thread()
        deciding = getattr(self.local, "deciding", 0) > 0
        where = ""
        if main and not deciding:
            frames = [f for f in traceback.extract_stack() if "/foley_tui/" in f.filename]
            where = " <- ".join(
                f"{f.filename.rsplit('/foley_tui/', 1)[1]}:{f.lineno} {f.name}"
                for f in reversed(frames[-12:])
            )
        self.accesses.append(Access(op, path, main, deciding, where))

    def main_thread_reads(self) -> list[Access]:
        return [a for a in self.accesses if a.main and not a.in_decision and a.op != "write"]


def _resolve(target: object, dir_fd: int | None) -> str | None:
    """An absolute path for a path, a path relative to ``dir_fd``, or a descriptor."""
    try:
        if isinstance(target, int):
            return os.readlink(f"/proc/self/fd/{target}")
        path = os.fsdecode(target)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return None
    if path.startswith("file:"):  # a SQLite URI
        from urllib.parse import unquote

        path = unquote(path[5:].split("?", 1)[0])
    if dir_fd is not None and not os.path.isabs(path):
        try:
            path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
        except OSError:
            return None
    return os.path.abspath(path)


@pytest.fixture
def recorder(session: Session, monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    rec = Recorder(session.folder.resolve(), (session.data_dir.parent / "audio-files").resolve())
    real_open, real_builtin_open = os.open, builtins.open
    real_scandir, real_listdir, real_connect = os.scandir, os.listdir, sqlite3.connect
    real_read, real_pread = os.read, os.pread

    def os_open(path: Any, flags: int, *args: Any, dir_fd: int | None = None, **kw: Any) -> int:
        rec.note("write" if flags & _WRITE_FLAGS else "open", path, dir_fd)
        return real_open(path, flags, *args, dir_fd=dir_fd, **kw)

    def builtin_open(file: Any, mode: str = "r", *args: Any, **kw: Any) -> Any:
        rec.note("write" if set(mode) & set("wax+") else "open", file)
        return real_builtin_open(file, mode, *args, **kw)

    def read(fd: int, count: int) -> bytes:
        rec.note("read", fd)  # through a descriptor kept open (the journal's)
        return real_read(fd, count)

    def pread(fd: int, count: int, offset: int) -> bytes:
        rec.note("read", fd)
        return real_pread(fd, count, offset)

    def scandir(path: Any = ".") -> Any:
        rec.note("scandir", path)
        return real_scandir(path)

    def listdir(path: Any = ".") -> list[Any]:
        rec.note("listdir", path)
        return real_listdir(path)

    def connect(database: Any, *args: Any, **kw: Any) -> sqlite3.Connection:
        rec.note("sqlite", database)
        return real_connect(database, *args, **kw)

    # The store the app opens (the service keeps it): its decisions go through a commit
    # that marks the thread as deciding while it reads and writes.
    decisions = session.service.get(session.session_id).decisions
    decisions.commit = _MarkingCommit(decisions.commit, rec)
    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", builtin_open)
    monkeypatch.setattr(os, "read", read)
    monkeypatch.setattr(os, "pread", pread)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(sqlite3, "connect", connect)
    yield rec


class _MarkingCommit:
    """A store's commit that marks the calling thread as inside a decision."""

    def __init__(self, inner: Commit, rec: Recorder) -> None:
        self.inner = inner
        self.rec = rec

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        local = self.rec.local
        local.deciding = getattr(local, "deciding", 0) + 1
        try:
            with self.inner.session():
                yield
        finally:
            local.deciding -= 1

    def read(self, sound_ids: list[str]) -> list[Current]:
        return self.inner.read(sound_ids)

    def unchanged(self, before: Verdicts, after: Verdicts) -> bool:
        return self.inner.unchanged(before, after)

    def apply(self, planned: list[Planned], kind: str, target: int | None) -> JournalEntry | None:
        return self.inner.apply(planned, kind, target)


def _describe(accesses: list[Access], kind: Callable[[str], str | None]) -> str:
    return "\n".join(f"{a.op} {kind(a.path)}: {a.path}\n    {a.where}" for a in accesses)


async def test_no_session_data_or_audio_is_read_on_the_ui_thread(
    session: Session, recorder: Recorder
) -> None:
    # A reopen (the index exists), the path a real session takes most days.
    service = session.service
    service.get(session.session_id).rows()
    app = session.app()
    recorder.active = True  # from here on, the app runs
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        steps: list[tuple[str, ...]] = [
            ("j", "j"),  # move: details and waveform of the new row
            ("space",),  # preview: resolve, decode, play
            ("p",),  # pick (a decision: written from the UI thread)
            ("j", "x"),  # reject
            ("u",),  # undo
            ("2",),  # set a layer (picks)
            ("slash", *"door", "enter"),  # filter
            ("escape",),
            ("s", "s", "s"),  # sort: caption, duration, layer
            ("f", "f"),  # status filter
            ("k", "space", "space"),
        ]
        for keys in steps:
            await pilot.press(*keys)
            await wait_workers(app)
            await pilot.pause()
        await settle(pilot)
        assert screen.model.view.status_filter != "all"  # the keys reached the app
    assert any(not a.main for a in recorder.accesses), "the recorder saw the workers read"
    assert any(a.in_decision for a in recorder.accesses), "decisions were written"
    bad = recorder.main_thread_reads()
    assert not bad, "read on the UI thread:\n" + _describe(bad, recorder.kind)


async def test_a_slow_candidate_read_never_holds_the_ui(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a worker is stuck reading the highlighted candidate (a slow disk, a network
    mount), the pane says so, keys still work, and the details come when the read does."""
    from foley_tui.store import SessionStore
    from foley_tui.widgets.details import Details
    from tests.ui.conftest import IDS

    armed, release = threading.Event(), threading.Event()
    real = SessionStore.candidate

    def slow(self: SessionStore, sound_id: str) -> dict[str, Any] | None:
        if sound_id == IDS[3] and armed.is_set():
            release.wait(10)
        return real(self, sound_id)

    monkeypatch.setattr(SessionStore, "candidate", slow)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)  # (the loader read every candidate's event)
        armed.set()
        await pilot.press("j", "j", "j")  # onto IDS[3]: its read blocks
        for _ in range(40):
            await pilot.pause(0.02)
            if "reading…" in str(screen.query_one(Details).content):
                break
        assert "reading…" in str(screen.query_one(Details).content)
        await pilot.press("k")  # the UI answers meanwhile
        assert screen.current_id == IDS[2]
        await pilot.press("j")
        release.set()
        await settle(pilot)
        shown = str(screen.query_one(Details).content)
        assert "reading…" not in shown and screen.current_id == IDS[3]
