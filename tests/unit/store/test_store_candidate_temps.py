"""Temp files an interrupted ``add`` of ours leaves in ``candidates/`` are swept by the
next run's list check (off the first paint) and reported; nothing else is touched."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.store import SessionService

from .helpers import candidate, tree

KILLED_ADD = """
import os, signal, sys
from pathlib import Path
from foley_tui.store import SessionService

real_replace = os.replace
def killed(src, dst, *a, **k):
    if os.path.basename(src).startswith(".late"):
        os.kill(os.getpid(), signal.SIGKILL)  # killed between the write and its rename
    return real_replace(src, dst, *a, **k)
os.replace = killed
store = SessionService(Path(sys.argv[1])).get(sys.argv[2])
store.cache_candidates([{"sound": {"id": "late:1", "caption": "never renamed"}}])
"""


def interrupted_add(data_dir: Path, sid: str) -> Path:
    """Run a real ``cache_candidates`` in a child that is SIGKILLed before its rename:
    the temp file it leaves is named exactly as our writes name them."""
    folder = data_dir / "sessions" / sid / "candidates"
    before = set(os.listdir(folder))
    done = subprocess.run(
        [sys.executable, "-c", KILLED_ADD, str(data_dir), sid], timeout=60, check=False
    )
    assert done.returncode == -9
    (left,) = set(os.listdir(folder)) - before
    assert left.startswith(".late%3A1.json.") and left.endswith(".tmp")
    return folder / left


def age(path: Path, seconds: float = 3600) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old), follow_symlinks=False)


@pytest.fixture
def session(data_dir: Path) -> tuple[SessionService, str, Path]:
    service = SessionService(data_dir)
    sid = service.create(title="temps")
    service.get(sid).cache_candidates([candidate("door"), candidate("rain")])
    return service, sid, data_dir / "sessions" / sid / "candidates"


def test_a_stale_temp_of_an_interrupted_add_is_swept_by_the_list_check(
    data_dir: Path, session: tuple[SessionService, str, Path]
) -> None:
    _service, sid, folder = session
    stale = interrupted_add(data_dir, sid)
    age(stale)
    young = interrupted_add(data_dir, sid)  # may be an add still running: kept
    # Hidden files that are not our temps, and things named like one that are not
    # regular files: never touched.
    (folder / ".notes").write_text("someone's")
    (folder / ".x.json.0123abcd.tmp").mkdir()
    (folder / ".y.json.0123abce.tmp").symlink_to(folder / "door.json")
    os.mkfifo(folder / ".z.json.0123abcf.tmp")
    for odd in (".notes", ".x.json.0123abcd.tmp", ".y.json.0123abce.tmp", ".z.json.0123abcf.tmp"):
        age(folder / odd)
    foley_files = tree(folder)

    store = SessionService(data_dir).get(sid)
    # The first paint (names, the stored index, a page) sweeps nothing.
    assert store.candidate_ids() == ["door", "rain"]
    assert store.quick_rows() is None or store.take_recovered() == []
    assert stale.exists()
    rows = store.rows()  # the list check: the same scan finds and sweeps it
    assert [r.sound_id for r in rows] == ["door", "rain"]
    assert store.take_recovered() == [f"removed a stale temp file {stale}"]
    assert store.take_recovered() == []  # reported once
    assert not stale.exists() and young.exists()
    for odd in (".notes", ".x.json.0123abcd.tmp", ".y.json.0123abce.tmp", ".z.json.0123abcf.tmp"):
        assert os.path.lexists(folder / odd)
    del foley_files[stale.name]
    assert tree(folder) == foley_files  # everything else, byte for byte

    # With a current index (the hot path of a reopen) the scan sweeps too.
    age(young)
    again = SessionService(data_dir).get(sid)
    assert again.rows() == rows
    assert again.take_recovered() == [f"removed a stale temp file {young}"]


def test_the_candidates_verb_reports_the_sweep(
    data_dir: Path, session: tuple[SessionService, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _service, sid, _folder = session
    stale = interrupted_add(data_dir, sid)
    age(stale)
    assert main(["candidates", sid]) == 0
    err = capsys.readouterr().err
    assert f"foley-tui: removed a stale temp file {stale}" in err
    assert not stale.exists()


def test_a_linked_candidates_folder_is_not_swept(
    data_dir: Path, session: tuple[SessionService, str, Path], tmp_path: Path
) -> None:
    _service, sid, folder = session
    outside = tmp_path / "outside"
    outside.mkdir()
    temp = outside / ".door.json.0123abcd.tmp"
    temp.write_text("not ours to remove")
    age(temp)
    folder.rename(folder.with_name("real-candidates"))
    folder.symlink_to(outside)
    store = SessionService(data_dir).get(sid)
    store.rows()
    assert temp.exists() and store.take_recovered() == []
