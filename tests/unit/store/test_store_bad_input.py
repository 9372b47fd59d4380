"""Bad files in every namespace never stop a session from opening and are never deleted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.domain import Status
from foley_tui.store import SessionService

from .helpers import candidate, tree

BAD_FILES = {
    "corrupt": ("corrupt.json", b'{"sound_id": "corrupt", "lay'),
    "empty": ("empty.json", b""),
    "bom": ("bom.json", b'\xef\xbb\xbf{"sound_id": "bom", "layer": null, "onset": null}'),
    "array": ("array.json", b"[1, 2, 3]"),
    "binary": ("binary.json", b"\xff\xfe\x00garbage"),
}
FOREIGN = ["notes.txt", "a:b.json", "lower%3ahex.json", "README"]


@pytest.fixture
def messy(data_dir: Path) -> tuple[SessionService, str, Path]:
    service = SessionService(data_dir)
    sid = service.create("messy")
    store = service.get(sid)
    store.cache_candidates([candidate("good"), candidate("other")])
    store.add_pick("good", layer="voice")
    store.add_reject("other", reason="meh")
    root = data_dir / "sessions" / sid
    for ns in ("candidates", "picks", "rejects"):
        for name, data in BAD_FILES.values():
            (root / ns / name).write_bytes(data)
        for name in FOREIGN:
            (root / ns / name).write_text("foreign")
        (root / ns / "subfolder.json").mkdir()
        (root / ns / "subfolder.json" / "inner.json").write_text("{}")
        (root / ns / ".hidden.json.tmp").write_text("half")
    (root / ".foley-tui" / "index.sqlite").write_bytes(b"\x00not an index")
    return service, sid, data_dir


def test_session_opens_and_reports_everything(messy: tuple[SessionService, str, Path]) -> None:
    service, sid, data_dir = messy
    before = tree(data_dir)
    store = SessionService(data_dir).get(sid)
    rows = {r.sound_id: r for r in store.rows()}
    assert rows["good"].unreadable is None and rows["good"].caption == "caption of good"
    for key in BAD_FILES:
        assert rows[key].unreadable, key
    assert "empty file" in str(rows["empty"].unreadable)
    assert "byte-order mark" in str(rows["bom"].unreadable)
    assert "not a JSON object" in str(rows["array"].unreadable)
    assert store.list_picks() == [{"sound_id": "good", "layer": "voice", "onset": None}]
    assert store.list_rejects() == [{"sound_id": "other", "reason": "meh"}]
    assert set(store.picks()) == {"good"}
    problems = {(p.namespace, p.key) for p in store.problems()}
    for ns in ("candidates", "picks", "rejects"):
        for key in BAD_FILES:
            assert (ns, key) in problems, (ns, key)
        for name in FOREIGN:
            assert (ns, name) in problems, (ns, name)
        assert (ns, "subfolder") in problems
    assert store.candidate("corrupt") is None
    assert store.rehydrate(["good", "corrupt", "empty"]) == [store.candidate("good")]
    # listing, counting and the sessions list all still work
    info = {i.session_id: i for i in service.list()}[sid]
    assert info.picked >= 1
    assert store.change_token() is not None
    assert tree(data_dir) == before  # nothing deleted or rewritten


def test_decisions_still_work_next_to_bad_files(messy: tuple[SessionService, str, Path]) -> None:
    _, sid, data_dir = messy
    store = SessionService(data_dir).get(sid)
    store.add_pick("other", layer="music", onset=2.0)
    assert store.status("other") is Status.PICKED
    # an unreadable pick (and reject) counts as such; undoing our decision never deletes it
    assert store.status("corrupt") is Status.CONFLICT
    store.add_reject("corrupt", reason="replaced")
    assert store.status("corrupt") is Status.REJECTED
    store.undo()
    root = data_dir / "sessions" / sid
    assert json.loads((root / "picks" / "corrupt.json").read_text()) == {
        "sound_id": "corrupt",
        "layer": None,
        "onset": None,
    }
    for ns in ("candidates", "picks", "rejects"):
        for name in FOREIGN:
            assert (root / ns / name).read_text() == "foreign"
        assert (root / ns / "subfolder.json" / "inner.json").exists()


def test_corrupt_meta_and_journal_do_not_stop_opening(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("t")
    store = service.get(sid)
    store.add_pick("a")
    state = data_dir / "sessions" / sid / ".foley-tui"
    (state / "meta.json").write_bytes(b"\xef\xbb\xbf{broken")
    with (state / "journal.jsonl").open("ab") as fh:
        fh.write(b'garbage line\n{"torn": ')
    again = SessionService(data_dir).get(sid)
    assert again.meta().title is None
    assert [e.sound_id for e in again.journal()] == ["a"]
    assert any(p.namespace == "foley-tui" for p in again.problems())
    again.add_pick("b")  # appends after the torn tail on a fresh line
    third = SessionService(data_dir).get(sid)
    assert [e.sound_id for e in third.journal()] == ["a", "b"]
    assert third.undo() is not None and third.picked_ids() == ["a"]


def test_half_written_file_is_retried(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file caught empty or torn (foley writes in place) is re-read before it is
    reported: here the first two reads see a half-written file, the third the whole."""
    from foley_tui.store import files
    from foley_tui.store.codec import loads_object

    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    store.add_pick("x", layer="voice")
    store.add_reject("y", reason="r")
    seen = {"x.json": 0, "y.json": 0}
    real_read_bytes = files.read_bytes

    def flaky_read_bytes(path: str, limit: int = files.MAX_RECORD_BYTES) -> bytes:
        data = real_read_bytes(path, limit)
        name = Path(path).name
        if name in seen and seen[name] < 2:
            seen[name] += 1
            return b"" if name == "x.json" else data[:7]
        return data

    monkeypatch.setattr(files, "read_bytes", flaky_read_bytes)
    fresh = SessionService(data_dir).get(sid)
    assert fresh.list_picks() == [{"sound_id": "x", "layer": "voice", "onset": None}]
    assert fresh.list_rejects() == [{"sound_id": "y", "reason": "r"}]
    assert seen == {"x.json": 2, "y.json": 2}
    assert fresh.problems() == []
    # the single-entry path retries too
    seen["x.json"] = 0
    assert fresh.state_of("x") == {
        "status": "picked",
        "pick": {"sound_id": "x", "layer": "voice", "onset": None},
    }
    assert loads_object(real_read_bytes(str(data_dir / "sessions" / sid / "picks" / "x.json")))
    assert files.RETRY_DELAYS  # the window exists and is finite


def test_unknown_keys_and_invalid_values_in_foley_records(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    root = data_dir / "sessions" / sid
    (root / "picks").mkdir(exist_ok=True)
    extra = {"sound_id": "x", "layer": "voice", "onset": 1, "added_by": "someone", "v": [1]}
    (root / "picks" / "x.json").write_text(json.dumps(extra))
    (root / "picks" / "y.json").write_text('{"sound_id": "y", "layer": "drums", "onset": true}')
    (root / "candidates" / "c.json").write_text('{"sound": {"id": "c", "weird": 1}, "new": 2}')
    before = tree(data_dir)
    store = service.get(sid)
    picks = store.picks()
    assert (picks["x"].layer, picks["x"].onset) == ("voice", 1.0)  # extra keys are fine
    # the onset as foley's plan passes it on (str(True): a word anchor to its weave)
    assert (picks["y"].layer, picks["y"].onset) == (None, "True")
    [problem] = [p for p in store.problems() if p.key == "y"]
    assert "layer 'drums' is invalid" in problem.reason
    assert "onset" not in problem.reason  # foley's plan reads it (as the word 'True')
    assert store.candidate("c") == {"sound": {"id": "c", "weird": 1}, "new": 2}
    assert [r.sound_id for r in store.rows()] == ["c"]
    assert tree(data_dir) == before
    store.set_layer("y", "voice")  # deciding again repairs it for foley
    assert json.loads((root / "picks" / "y.json").read_text())["layer"] == "voice"


def test_stale_temp_files_are_swept_only_from_our_folder(data_dir: Path) -> None:
    import os

    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    store.cache_candidates([candidate("a")])
    root = data_dir / "sessions" / sid
    ours_old = root / ".foley-tui" / ".index.json.dead1234.tmp"
    ours_young = root / ".foley-tui" / ".index.json.live5678.tmp"
    foleys = root / "picks" / ".a.json.dead1234.tmp"
    for path in (ours_old, ours_young, foleys):
        path.parent.mkdir(exist_ok=True)
        path.write_text("partial")
    for path in (ours_old, foleys):
        os.utime(path, (1, 1))
    store.rows()
    assert not ours_old.exists()
    assert ours_young.exists() and foleys.exists()


def test_a_repaired_file_is_read_again(data_dir: Path) -> None:
    import os

    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    store.add_pick("ok")
    path = data_dir / "sessions" / sid / "picks" / "bad.json"
    path.write_bytes(b"{broken")
    os.utime(path, (1, 1))  # old: remembered as unreadable, not retried every call
    assert set(store.picks()) == {"ok"}
    assert set(store.picks()) == {"ok"}
    assert [p.key for p in store.problems()] == ["bad"]
    path.write_bytes(b'{"sound_id": "bad", "layer": "music", "onset": null}')
    assert store.picks()["bad"].layer == "music"
    assert store.problems() == []
