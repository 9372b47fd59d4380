"""What one decision and the next poll cost in file operations (counted, not timed)."""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from foley_tui.audition.model import AuditionModel
from foley_tui.store import dumps, encode_key

from .helpers import IDS, make_session, open_model

COUNTED = ("open", "replace", "unlink", "stat", "scandir", "listdir", "fsync", "fdatasync")


class Ops:
    """Every counted call as (operation, path relative to the session folder)."""

    def __init__(self, session: Path) -> None:
        self.session = str(session)
        self.calls: list[tuple[str, str]] = []

    def record(self, op: str, target: object) -> None:
        path = os.fsdecode(target) if isinstance(target, str | bytes | os.PathLike) else ""
        self.calls.append((op, path.replace(self.session + os.sep, "")))

    def of(self, op: str, where: str = "") -> list[str]:
        return [p for o, p in self.calls if o == op and p.startswith(where)]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], Ops]]:
    def start(session: Path) -> Ops:
        ops = Ops(session)
        for name in COUNTED:
            real = getattr(os, name)

            def wrapper(*args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
                ops.record(_name, args[0] if args else "")
                return _real(*args, **kw)

            monkeypatch.setattr(os, name, wrapper)
        real_open = builtins.open

        def opened(file: Any, *args: Any, **kw: Any) -> Any:
            ops.record("read", file)
            return real_open(file, *args, **kw)

        monkeypatch.setattr(builtins, "open", opened)
        return ops

    yield start
    monkeypatch.undo()


def _ready(data_dir: Path) -> tuple[AuditionModel, Path]:
    service, session_id = make_session(data_dir)
    return open_model(service.get(session_id)), data_dir / "sessions" / session_id


def test_one_pick_is_one_durable_write_and_one_journal_append(
    data_dir: Path, counted: Callable[[Path], Ops]
) -> None:
    model, folder = _ready(data_dir)
    ops = counted(folder)
    model.pick()
    name = encode_key(IDS[0])
    assert len(ops.of("replace")) == 1 and ops.of("replace", "picks/.")  # atomic write
    assert ops.of("fdatasync") and len(ops.of("open", ".foley-tui/journal")) == 1
    # The journal is appended, never re-read; no folder is listed for a count.
    assert ops.of("read", ".foley-tui/journal") == [] and ops.of("listdir") == []
    # No candidate, pick or reject file is read to make the decision.
    assert not [p for p in ops.of("read") + ops.of("open") if p.startswith("candidates/")]
    assert not [p for p in ops.of("read") if p.startswith(("picks/", "rejects/"))]
    # Recording what our write changed costs one stat per decision folder.
    assert ops.of("stat", f"picks/{name}") and ops.of("stat", f"rejects/{name}")
    assert len(ops.of("stat", f"picks/{name}")) <= 2


def test_the_poll_after_our_pick_reads_nothing_and_applies_nothing(
    data_dir: Path, counted: Callable[[Path], Ops]
) -> None:
    model, folder = _ready(data_dir)
    model.pick()
    ops = counted(folder)
    assert model.check_outside() is None
    assert ops.of("read") == []  # no file opened for reading, the journal included
    opened = ops.of("open")
    assert sorted(opened) == ["candidates", "picks", "rejects"]  # folder fds for scans only
    assert len(ops.of("scandir")) == 3


def test_a_poll_after_foley_writes_reads_only_the_file_it_wrote(
    data_dir: Path, counted: Callable[[Path], Ops]
) -> None:
    model, folder = _ready(data_dir)
    model.pick()
    model.reject()
    (folder / "picks" / encode_key(IDS[3])).write_bytes(
        dumps({"sound_id": IDS[3], "layer": None, "onset": 1.0})
    )
    ops = counted(folder)
    outside = model.check_outside()
    assert outside is not None and outside.diff.picks == {encode_key(IDS[3])}
    reads = [p for p in ops.of("read") + ops.of("open") if p.endswith(".json")]
    assert reads == [f"picks/{encode_key(IDS[3])}"]
    assert model.apply_outside(outside).rows == {IDS[3]}
