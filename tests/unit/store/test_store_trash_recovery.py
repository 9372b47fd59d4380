"""Deletes and overwrites go to the freedesktop trash; crashes are finished or rolled
back; leftovers are swept and reported; a deleted session stays deleted; `session show`
lists every problem file; conflicts and ghosts are counted alike everywhere; exports of
version 2 (and 1) round-trip foley's both verdicts."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from foley_tui.cli import main
from foley_tui.domain import Status
from foley_tui.store import SessionService, transfer_service
from foley_tui.store.errors import SessionDeletedError, StoreWriteError
from foley_tui.store.export_doc import checksum_of

from .foley_steps import files_of, foley_cache, foley_do, foley_view


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def dead_pid() -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def home_trash() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "Trash"


def foley_session(data_dir: Path, sid: str = "scene") -> Path:
    foley_cache(data_dir, sid, ["door", "rain"])
    foley_do(
        data_dir,
        sid,
        's.add_pick("door", layer="stinger", onset="on \'slammed\'")\n'
        's.add_reject("rain", reason="hiss")',
    )
    return data_dir / "sessions" / sid


def test_delete_moves_the_session_to_the_home_trash(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = foley_session(data_dir)
    (root / "agent-notes.txt").write_text("the agent's own file")
    inode = (root / "picks" / "door.json").stat().st_ino
    code, _, _ = cli(capsys, "session", "delete", "scene", "--yes")
    assert code == 0 and not root.exists()
    trashed = home_trash() / "files" / "scene"
    assert (trashed / "picks" / "door.json").stat().st_ino == inode  # a rename, not a copy
    assert (trashed / "agent-notes.txt").read_text() == "the agent's own file"
    info = (home_trash() / "info" / "scene.trashinfo").read_text()
    assert info.startswith("[Trash Info]\n")
    assert f"Path={urllib.parse.quote(str(root))}\n" in info and "DeletionDate=" in info
    # a second session of the same name gets its own trash entry
    foley_session(data_dir)
    SessionService(data_dir).delete("scene")
    assert (home_trash() / "files" / "scene.2" / "picks" / "door.json").exists()
    assert (home_trash() / "info" / "scene.2.trashinfo").exists()


@pytest.fixture
def other_fs_data_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == Path(os.environ["HOME"]).stat().st_dev:
        pytest.skip("needs /dev/shm on a file system other than the home folder's")
    data = shm / f"foley-tui-test-{uuid.uuid4().hex}"
    data.mkdir()
    monkeypatch.setenv("FOLEY_DATA_DIR", str(data))
    try:
        yield data
    finally:
        import shutil

        shutil.rmtree(data, ignore_errors=True)


def test_delete_on_another_file_system_uses_its_own_trash(other_fs_data_dir: Path) -> None:
    service = SessionService(other_fs_data_dir)
    sid = service.create("elsewhere")
    root = other_fs_data_dir / "sessions" / sid
    inode = root.stat().st_ino
    trash = Path("/dev/shm") / f".Trash-{os.getuid()}"
    try:
        service.delete(sid)
        moved = trash / "files" / sid
        assert moved.stat().st_ino == inode  # renamed within its file system
        info = (trash / "info" / f"{sid}.trashinfo").read_text()
        relative = str(root.relative_to("/dev/shm"))
        assert f"Path={urllib.parse.quote(relative)}\n" in info
        assert not (home_trash() / "files" / sid).exists()
    finally:
        import shutil

        shutil.rmtree(trash / "files" / sid, ignore_errors=True)
        (trash / "info" / f"{sid}.trashinfo").unlink(missing_ok=True)


def test_import_overwrite_trashes_the_replaced_session_with_its_foreign_files(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = foley_session(data_dir)
    export = tmp_path / "scene.json"
    assert cli(capsys, "session", "export", "scene", "-o", str(export))[0] == 0
    (root / "agent-notes.txt").write_text("not in any export")
    foley_do(data_dir, "scene", 's.add_pick("rain", layer="ambience")')
    code, _, _ = cli(capsys, "session", "import", str(export), "--overwrite")
    assert code == 0
    trashed = home_trash() / "files" / "scene"
    assert (trashed / "agent-notes.txt").read_text() == "not in any export"
    assert json.loads((trashed / "picks" / "rain.json").read_bytes())["layer"] == "ambience"
    view = foley_view(data_dir, "scene")
    assert view["picks"] == [{"sound_id": "door", "layer": "stinger", "onset": "on 'slammed'"}]
    assert [p.name for p in (data_dir / "sessions").iterdir()] == ["scene"]


def _import_killed_at(
    data_dir: Path, export: Path, crash: Callable[[str, str], bool], *, in_trash: bool = False
) -> int:
    """Run an ``--overwrite`` import in a child that SIGKILLs itself at a crash point."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        real_replace = os.replace

        def replace(src: Any, dst: Any) -> None:
            if crash(os.fspath(src), os.fspath(dst)):
                os.kill(os.getpid(), signal.SIGKILL)
            real_replace(src, dst)

        def trash(path: Any, **_kw: Any) -> Path:
            os.kill(os.getpid(), signal.SIGKILL)
            raise AssertionError("unreachable")

        os.replace = replace  # type: ignore[assignment]
        if in_trash:
            transfer_service.move_to_trash = trash
        try:
            SessionService(data_dir).import_from_file(export, overwrite=True)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


CRASH_POINTS: dict[str, tuple[Callable[[str, str], bool], bool]] = {
    "building the staging folder": (lambda s, d: "/.import-" in s and "/candidates/" in d, False),
    "before parking the old session": (
        lambda s, d: os.path.basename(d).startswith(".replaced-"),
        False,
    ),
    "between the two renames": (lambda s, d: os.path.basename(s).startswith(".import-"), False),
    "before the trash move": (lambda s, d: False, True),
}


@pytest.mark.parametrize("point", list(CRASH_POINTS))
def test_overwrite_is_recoverable_at_every_crash_point(
    data_dir: Path, tmp_path: Path, point: str
) -> None:
    root = foley_session(data_dir)
    export = tmp_path / "scene.json"
    SessionService(data_dir).export_to_file("scene", export)
    foley_do(data_dir, "scene", 's.add_pick("rain", layer="music")')  # the "old" state
    old = files_of(root)
    crash, in_trash = CRASH_POINTS[point]
    status = _import_killed_at(data_dir, export, crash, in_trash=in_trash)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    service = SessionService(data_dir)  # the next run recovers
    assert service.recovered, point
    leftovers = [p.name for p in (data_dir / "sessions").iterdir() if p.name.startswith(".")]
    assert leftovers == []
    now = files_of(root)
    if point == "before the trash move":
        assert now != old and "picks/door.json" in now  # the import had landed: finished
        assert files_of(home_trash() / "files" / "scene") == old
        assert any("finished" in line for line in service.recovered)
    else:
        assert now == old  # rolled back or never started: the old session, whole
    assert foley_view(data_dir, "scene")["picks"]  # foley reads it either way


def test_stale_leftovers_are_swept_and_reported_sqlite_files_are_not(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = foley_session(data_dir)
    sessions = data_dir / "sessions"
    stale_import = sessions / f".import-{dead_pid()}-0123abcd"
    (stale_import / "candidates").mkdir(parents=True)
    (stale_import / "candidates" / "x.json").write_text("{}")
    live_import = sessions / f".import-{os.getpid()}-0123abce"  # a running import: kept
    live_import.mkdir()
    old = time.time() - 3600
    temp = root / "picks" / ".door.json.deadbeef.tmp"
    temp.write_text("half")
    os.utime(temp, (old, old))
    young = root / "picks" / ".rain.json.cafebabe.tmp"
    young.write_text("in progress")
    state = root / ".foley-tui"
    state.mkdir(exist_ok=True)
    sqlite = [state / "index.sqlite", state / "index.sqlite-wal", state / "index.sqlite-journal"]
    for path in sqlite:
        path.write_bytes(b"sqlite")
        os.utime(path, (old, old))
    code, _, err = cli(capsys, "sessions")
    assert code == 0
    assert "removed the staging folder of an interrupted import" in err
    assert not stale_import.exists() and live_import.exists()
    cli(capsys, "pick", "scene", "door", "--layer", "voice")
    assert not temp.exists() and young.exists()
    assert all(path.exists() for path in sqlite)
    live_import.rmdir()


def test_a_session_deleted_while_open_stays_deleted(data_dir: Path) -> None:
    root = foley_session(data_dir)
    store = SessionService(data_dir).get("scene")
    store.set_cursor("door")
    SessionService(data_dir).delete("scene")  # another window or process
    store.set_cursor("rain")
    with pytest.raises(SessionDeletedError, match="deleted elsewhere"):
        store.flush()
    with pytest.raises(StoreWriteError):
        store.update_pick("rain", layer="music")
    with pytest.raises(StoreWriteError):
        store.cache_candidates([{"sound": {"id": "new"}}])
    assert not root.exists()
    assert (home_trash() / "files" / "scene" / "picks" / "door.json").exists()


def test_session_show_lists_every_problem_file(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = foley_session(data_dir)
    (root / "picks" / "broken.json").write_text('{"sound_id": "broken", ')  # foley crashes
    (root / "candidates" / "stray.txt").write_text("foreign")
    (root / "candidates" / "bad.json").write_bytes(b"\xef\xbb\xbf{}")
    code, out, _ = cli(capsys, "session", "show", "scene", "--json")
    assert code == 0
    problems = {(p["namespace"], p["key"]) for p in json.loads(out)["problems"]}
    assert {("picks", "broken"), ("candidates", "stray.txt"), ("candidates", "bad")} <= problems
    code, out, _ = cli(capsys, "session", "show", "scene")
    assert out.count("problem:") == len(problems)


def test_conflicts_and_ghosts_are_counted_alike_everywhere(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foley_session(data_dir)
    foley_do(
        data_dir,
        "scene",
        's.add_reject("door", reason="too crunchy")\ns.add_pick("never-cached", layer="music")',
    )
    service = SessionService(data_dir)
    store = service.get("scene")
    counts = store.counts()
    assert (counts.picks, counts.rejects, counts.conflicts, counts.ghosts) == (2, 2, 1, 1)
    assert store.ghost_picks() == ["never-cached"] and store.conflicts() == ["door"]
    assert store.status("door") is Status.CONFLICT
    [info] = service.list()
    assert (info.picked, info.rejected, info.conflicts, info.ghosts) == (2, 2, 1, 1)
    code, out, _ = cli(capsys, "sessions", "--json")
    [listed] = json.loads(out)
    assert (listed["picked"], listed["conflicts"], listed["ghosts"]) == (2, 1, 1)
    code, out, _ = cli(capsys, "session", "show", "scene")
    assert code == 0 and "conflicts: 1" in out and "ghosts:    1" in out
    code, out, _ = cli(capsys, "picks", "scene")
    assert code == 0
    assert "never-cached" in out and "(no cached candidate)" in out
    # the ghost can be cleared like any pick
    store.clear("never-cached")
    assert store.counts().ghosts == 0


def test_export_round_trips_both_verdicts_and_version_1_still_imports(
    data_dir: Path, tmp_path: Path
) -> None:
    root = foley_session(data_dir)
    foley_do(data_dir, "scene", 's.add_pick("rain")')  # rain: picked and rejected
    service = SessionService(data_dir)
    store = service.get("scene")
    store.update_pick("door", layer="voice")  # a raw-record journal entry
    before = files_of(root)
    doc = service.export_session("scene")
    assert doc["schema_version"] == 2
    service.delete("scene")
    assert service.import_session(doc) == "scene"
    assert files_of(root) == before
    again = SessionService(data_dir).get("scene")
    assert again.status("rain") is Status.CONFLICT
    assert again.undo() is not None  # the journal's raw records came along
    assert json.loads((root / "picks" / "door.json").read_bytes())["layer"] == "stinger"
    # a version 1 export (older journal states, no messages/usage) still imports
    v1 = {k: v for k, v in doc.items() if k not in ("messages", "usage", "checksum")}
    v1["schema_version"] = 1
    v1["session_id"] = "old-scene"
    v1["journal"] = [
        {
            "seq": 1,
            "id": "x",
            "at": "2026-01-01T00:00:00Z",
            "kind": "do",
            "target": None,
            "sound_id": "door",
            "before": {"status": "picked", "layer": "stinger", "onset": "on 'slammed'"},
            "after": {"status": "picked", "layer": "voice", "onset": "on 'slammed'"},
        }
    ]
    v1["picks"] = {**v1["picks"], "door": {**v1["picks"]["door"], "layer": "voice"}}
    v1["checksum"] = checksum_of(v1)
    assert service.import_session(v1) == "old-scene"
    old = SessionService(data_dir).get("old-scene")
    assert old.status("rain") is Status.CONFLICT
    assert old.undo() is not None  # compared in normalised form: applies
    assert foley_view(data_dir, "old-scene")["picks"][0] == {
        "sound_id": "door",
        "layer": "stinger",
        "onset": "on 'slammed'",
    }


def test_an_open_store_follows_a_journal_replaced_by_an_import(data_dir: Path) -> None:
    foley_session(data_dir)
    service = SessionService(data_dir)
    store = service.get("scene")
    store.update_pick("door", layer="voice")
    doc = service.export_session("scene")  # one entry
    for layer in ("music", "ambience", "sfx_fg"):  # the open store's journal grows to 4
        store.update_pick("door", layer=layer)
    assert len(store.journal()) == 4
    SessionService(data_dir).import_session(doc, overwrite=True)  # another process
    assert [e.after["pick"]["layer"] for e in store.journal()] == ["voice"]
    entry = store.update_pick("rain", layer="music")
    assert entry is not None and entry.seq == 2
    assert [e.seq for e in SessionService(data_dir).get("scene").journal()] == [1, 2]
    target = store.undo_target()
    assert target is not None and target.sound_id == "rain"
    assert not [p for p in store.problems() if p.key == "journal.jsonl"]


def test_leftovers_of_earlier_versions_are_swept_or_trashed(data_dir: Path) -> None:
    foley_session(data_dir)
    sessions = data_dir / "sessions"
    old = time.time() - 7200
    staging = sessions / ".import-0123456789ab"  # earlier versions: no pid, no id
    (staging / "picks").mkdir(parents=True)
    replaced = sessions / ".replaced-ba9876543210"
    (replaced / "picks").mkdir(parents=True)
    (replaced / "picks" / "kept.json").write_text('{"sound_id": "kept"}')
    young = sessions / ".import-aaaaaaaaaaaa"  # may be an import still running
    young.mkdir()
    for path in (staging, replaced):
        os.utime(path, (old, old))
    service = SessionService(data_dir)
    assert len(service.recovered) == 2
    assert not staging.exists() and not replaced.exists() and young.exists()
    trashed = home_trash() / "files" / ".replaced-ba9876543210" / "picks" / "kept.json"
    assert trashed.read_text() == '{"sound_id": "kept"}'  # never unlinked
