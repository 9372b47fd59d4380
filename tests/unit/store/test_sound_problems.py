"""What the decoder found wrong in a sound's audio, remembered in our state: the file's
version it is about, concurrent noters, an unreadable document left alone, the cap."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from foley_tui.store import SessionService
from foley_tui.store.sound_problems import (
    MAX_SOUNDS,
    SOUND_PROBLEMS_FILE,
    FileStamp,
    SoundProblem,
    SoundProblems,
    sound_problems_of,
)
from tests.unit.store.helpers import ODD_IDS, candidate


def finding(path: Path, count: int = 10) -> SoundProblem:
    stamp = FileStamp.of(path)
    assert stamp is not None
    return SoundProblem("non-finite samples", f"non-finite samples in {path.name}", count, stamp)


def foleys_paths(folder: Path) -> list[str]:
    return sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if ".foley-tui" not in p.parts
    )


@pytest.fixture
def session(data_dir: Path) -> tuple[SessionService, str]:
    service = SessionService(data_dir)
    session_id = service.create("scene")
    service.get(session_id).cache_candidates([candidate(i) for i in ODD_IDS[:3]])
    return service, session_id


def test_a_finding_holds_while_its_file_is_unchanged(
    session: tuple[SessionService, str], tmp_path: Path
) -> None:
    service, session_id = session
    audio = tmp_path / "nan.wav"
    audio.write_bytes(b"RIFF....")
    problems = sound_problems_of(service.get(session_id))
    assert problems.note(ODD_IDS[0], finding(audio))
    assert not problems.note(ODD_IDS[0], finding(audio))  # known: nothing written
    # Another process (a fresh store) reads it back.
    again = SoundProblems(service.get(session_id, touch=False).state)
    assert set(again.read()) == {ODD_IDS[0]}
    assert again.read()[ODD_IDS[0]].count == 10
    audio.write_bytes(b"RIFF....longer")  # re-rendered: another file now
    assert again.read() == {}
    assert set(again.read(current_only=False)) == {ODD_IDS[0]}
    audio.unlink()
    assert again.read() == {}


def test_the_document_is_ours_and_foleys_folders_are_untouched(
    session: tuple[SessionService, str], tmp_path: Path, data_dir: Path
) -> None:
    service, session_id = session
    folder = data_dir / "sessions" / session_id
    before = foleys_paths(folder)
    audio = tmp_path / "nan.wav"
    audio.write_bytes(b"x")
    sound_problems_of(service.get(session_id)).note(ODD_IDS[1], finding(audio))
    after = foleys_paths(folder)
    assert after == before
    doc = json.loads((folder / ".foley-tui" / SOUND_PROBLEMS_FILE).read_bytes())
    assert doc["sounds"][ODD_IDS[1]]["problem"] == "non-finite samples"


def test_an_unreadable_document_is_reported_and_never_overwritten(
    session: tuple[SessionService, str], tmp_path: Path, data_dir: Path
) -> None:
    service, session_id = session
    path = data_dir / "sessions" / session_id / ".foley-tui" / SOUND_PROBLEMS_FILE
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"{not json")
    audio = tmp_path / "nan.wav"
    audio.write_bytes(b"x")
    problems = SoundProblems(service.get(session_id).state)
    assert problems.read() == {}
    assert [p.key for p in problems.problems] == [SOUND_PROBLEMS_FILE]
    with pytest.raises(ValueError):
        problems.note(ODD_IDS[0], finding(audio))
    assert path.read_bytes() == b"{not json"


def test_foreign_records_are_skipped_and_the_oldest_go_beyond_the_cap(
    session: tuple[SessionService, str], tmp_path: Path, data_dir: Path
) -> None:
    service, session_id = session
    audio = tmp_path / "nan.wav"
    audio.write_bytes(b"x")
    stamp = FileStamp.of(audio)
    assert stamp is not None
    record = SoundProblem("non-finite samples", "n", 1, stamp).to_record()
    sounds = {f"s:{i}": record for i in range(MAX_SOUNDS)}
    sounds["odd"] = {"problem": 3}  # not one of ours: skipped on read
    path = data_dir / "sessions" / session_id / ".foley-tui" / SOUND_PROBLEMS_FILE
    path.write_text(json.dumps({"version": 1, "sounds": sounds}))
    problems = SoundProblems(service.get(session_id).state)
    assert len(problems.read()) == MAX_SOUNDS and "odd" not in problems.read()
    assert problems.note("newest", finding(audio, 2))
    kept = problems.read(current_only=False)
    assert len(json.loads(path.read_text())["sounds"]) == MAX_SOUNDS
    assert "newest" in kept and "s:0" not in kept


def _note_many(data_dir: str, session_id: str, audio: str, start: int) -> None:
    os.environ["FOLEY_DATA_DIR"] = data_dir
    store = SessionService(Path(data_dir)).get(session_id, touch=False)
    problems = SoundProblems(store.state)
    for i in range(start, start + 25):
        problems.note(f"s:{i}", finding(Path(audio), i + 1))


def test_two_processes_noting_at_once_lose_nothing(
    session: tuple[SessionService, str], tmp_path: Path, data_dir: Path
) -> None:
    service, session_id = session
    audio = tmp_path / "nan.wav"
    audio.write_bytes(b"x")
    ctx = multiprocessing.get_context("spawn")
    workers = [
        ctx.Process(target=_note_many, args=(str(data_dir), session_id, str(audio), start))
        for start in (0, 100)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0
    found = SoundProblems(service.get(session_id, touch=False).state).read()
    assert set(found) == {f"s:{i}" for i in [*range(25), *range(100, 125)]}


def test_in_memory_state_keeps_findings_in_the_object(tmp_path: Path) -> None:
    from foley_tui.store.backend import MemoryState

    audio = tmp_path / "nan.wav"
    audio.write_bytes(b"x")
    problems = SoundProblems(MemoryState())
    assert problems.note("a", finding(audio))
    assert set(problems.read()) == {"a"}


def test_the_document_stays_under_its_size_cap(
    session: tuple[SessionService, str],
    tmp_path: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import foley_tui.store.sound_problems as module

    monkeypatch.setattr(module, "MAX_DOC_BYTES", 4000)
    service, session_id = session
    audio = tmp_path / "nan.wav"
    audio.write_bytes(b"x")
    problems = SoundProblems(service.get(session_id).state)
    for i in range(60):
        assert problems.note(f"s:{i}", finding(audio))
    path = data_dir / "sessions" / session_id / ".foley-tui" / SOUND_PROBLEMS_FILE
    assert path.stat().st_size <= 4000
    kept = problems.read()
    assert "s:59" in kept and "s:0" not in kept
