"""A library folder as real ones are: nested, non-ASCII, linked, duplicated, moved,
broken and read-only; its cached index; its session's candidates, as foley reads them."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from foley_tui.library.cache import LibraryIndex, cache_root
from foley_tui.library.folder import candidate_for, folder_session
from foley_tui.library.registry import FolderRegistry
from foley_tui.library.scan import Found, Skipped, walk
from foley_tui.library.source import FolderSource
from foley_tui.store import SessionService, SessionStore
from foley_tui.store.local import candidate_from_audio
from tests.library_fixtures import bwf, flac, mp3, needs_ffmpeg, vorbis
from tests.unit.store.helpers import run_py

pytestmark = needs_ffmpeg


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "My Sounds"
    bwf(root / "doors" / "DOORWood_Slam_JD_Lib.wav", "Heavy oak door slams", freq=300)
    vorbis(root / "weather" / "wind" / "vent hurlant été.ogg", "Wind howling at night", freq=350)
    flac(root / "weather" / "rain.flac", "Rain on a tin roof", freq=400)
    mp3(root / "glass.mp3", "Glass breaking on tile", freq=450)
    return root


def cand(store: SessionStore, sound_id: str) -> dict[str, Any]:
    found = store.candidate(sound_id)
    assert found is not None
    return found


def scanned(root: Path) -> tuple[list[str], dict[str, str]]:
    found, skipped = [], {}
    for item in walk(root):
        if isinstance(item, Found):
            found.append(item.rel)
        else:
            assert isinstance(item, Skipped)
            skipped[item.rel] = item.reason
    return found, skipped


def test_nested_non_ascii_tree(library: Path) -> None:
    found, skipped = scanned(library)
    assert sorted(found) == [
        "doors/DOORWood_Slam_JD_Lib.wav",
        "glass.mp3",
        "weather/rain.flac",
        "weather/wind/vent hurlant été.ogg",
    ]
    assert skipped == {}


def test_symlinked_folder_followed_and_loop_reported(library: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    bwf(outside / "far.wav", "A far thunder", freq=500)
    (library / "linked").symlink_to(outside)
    (library / "weather" / "wind" / "up").symlink_to(library / "weather")  # a loop
    (library / "again").symlink_to(library / "doors")  # a second way into a walked folder
    (library / "dead.wav").symlink_to(tmp_path / "nothing.wav")
    found, skipped = scanned(library)
    assert "linked/far.wav" in found
    assert skipped["weather/wind/up"] == "link loop: it leads back to a folder above it"
    assert skipped["again"] == "already scanned as doors"
    assert skipped["dead.wav"] == "broken link: its target does not exist"
    assert not any(rel.startswith(("weather/wind/up/", "again/")) for rel in found)


def test_duplicates_are_one_sound_with_all_paths(library: Path) -> None:
    copy = library / "copies" / "same door.wav"
    copy.parent.mkdir()
    shutil.copy(library / "doors" / "DOORWood_Slam_JD_Lib.wav", copy)
    store = SessionService().get(SessionService().create("x"))
    source = FolderSource(library, store.session_id)
    result = source.refresh(store)
    assert result.refresh.files == 5
    ids = store.candidate_ids()
    assert len(ids) == 4  # five files, four sounds
    door = next(i for i in ids if cand(store, i)["sound"]["caption"] == "Heavy oak door slams")
    details = source.details(door)
    assert details is not None
    assert details.paths == ["copies/same door.wav", "doors/DOORWood_Slam_JD_Lib.wav"]
    columns = source.columns(door)
    assert columns is not None and columns.paths == 2
    assert "copies" in cand(store, door)["sound"]["tags"]  # `/copies` finds it too


def test_broken_files_listed_with_reasons(library: Path) -> None:
    (library / "empty.wav").write_bytes(b"")
    (library / "notes.flac").write_text("a text file named as a sound")
    wav = (library / "doors" / "DOORWood_Slam_JD_Lib.wav").read_bytes()
    (library / "cut.wav").write_bytes(wav[:100])
    store = SessionService().get(SessionService().create("x"))
    result = FolderSource(library, store.session_id).refresh(store)
    problems = dict(result.refresh.problems)
    assert problems["empty.wav"] == "empty file (0 bytes)"
    assert problems["notes.flac"].startswith("not audio")
    assert problems["cut.wav"].startswith("truncated")
    assert len(store.candidate_ids()) == 4  # the four good files, nothing for the broken


def test_rescan_reads_only_what_changed(library: Path) -> None:
    store = SessionService().get(SessionService().create("x"))
    sid = store.session_id
    first = FolderSource(library, sid).refresh(store)
    assert first.refresh.read == 4 and first.sync.added == 4
    again = FolderSource(library, sid)
    assert len(again.index.entries()) == 4  # the cache alone lists them
    second = again.refresh(store)
    assert second.refresh.read == 0
    assert (second.sync.added, second.sync.updated, second.sync.kept) == (0, 0, 0)
    flac(library / "weather" / "rain.flac", "Rain, now harder", freq=410)
    third = FolderSource(library, sid).refresh(store)
    assert third.refresh.read == 1 and third.sync.added == 1
    captions = {cand(store, i)["sound"]["caption"] for i in store.candidate_ids()}
    assert "Rain, now harder" in captions


def test_moved_file_found_again_by_content(library: Path) -> None:
    store = SessionService().get(SessionService().create("x"))
    FolderSource(library, store.session_id).refresh(store)
    rain = next(i for i in store.candidate_ids() if "rain" in cand(store, i)["sound"]["uri"])
    store.add_pick(rain, layer="ambience")
    new = library / "archive" / "renamed rain.flac"
    new.parent.mkdir()
    os.rename(library / "weather" / "rain.flac", new)
    result = FolderSource(library, store.session_id).refresh(store)
    assert result.sync.updated == 1
    assert result.refresh.moved == [("weather/rain.flac", "archive/renamed rain.flac")]
    assert cand(store, rain)["sound"]["uri"] == str(new)  # same sound id, new path
    assert rain in store.picked_ids()


def test_read_only_library_is_never_written(library: Path) -> None:
    def snapshot() -> dict[str, tuple[int, int]]:
        return {
            str(p): (p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(library.rglob("*"))
        }

    before = snapshot()
    modes: dict[Path, int] = {}
    for path in [library, *library.rglob("*")]:
        modes[path] = path.stat().st_mode
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    try:
        store = SessionService().get(SessionService().create("x"))
        FolderSource(library, store.session_id).refresh(store)
        assert len(store.candidate_ids()) == 4
    finally:
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))
    assert snapshot() == before
    assert any(cache_root().iterdir())  # the index went to the cache dir instead


def test_cache_keyed_by_real_path(library: Path, tmp_path: Path) -> None:
    link = tmp_path / "via link"
    link.symlink_to(library)
    assert LibraryIndex(link).path == LibraryIndex(library).path
    assert LibraryIndex(link).root == library.resolve()


def test_candidate_is_shaped_as_add_writes_it(library: Path) -> None:
    path = library / "weather" / "rain.flac"
    index = LibraryIndex(library)
    index.refresh()
    entry = next(e for e in index.entries() if e.rel == "weather/rain.flac")
    ours = candidate_for(library, entry)
    theirs = candidate_from_audio(path)
    assert ours is not None
    assert list(ours) == list(theirs) and list(ours["sound"]) == list(theirs["sound"])
    enriched = {"caption", "tags", "ucs_category", "ucs_subcategory"}
    for key, value in theirs["sound"].items():
        if key not in enriched:
            assert ours["sound"][key] == value, key
    assert ours["sound"]["caption"] == "Rain on a tin roof"
    assert {k: v for k, v in ours.items() if k != "sound"} == {
        k: v for k, v in theirs.items() if k != "sound"
    }


def test_folder_session_and_registry(library: Path, data_dir: Path) -> None:
    service = SessionService()
    first = folder_session(service, library)
    assert service.info(first).title == "My Sounds"
    assert folder_session(service, library / ".." / "My Sounds") == first  # the real path
    chosen = service.create("elsewhere")
    assert folder_session(service, library, chosen) == chosen
    opened = FolderRegistry(data_dir).list()
    assert [(f.path, f.session_id) for f in opened] == [(str(library.resolve()), chosen)]
    assert (data_dir / "foley-tui" / "folders.json").is_file()


def test_foley_lists_and_rehydrates_a_pick(library: Path, data_dir: Path) -> None:
    service = SessionService()
    sid = folder_session(service, library)
    store = service.get(sid)
    FolderSource(library, sid).refresh(store)
    glass = next(i for i in store.candidate_ids() if cand(store, i)["sound"]["format"] == "mp3")
    store.add_pick(glass, layer="sfx_fg", onset=1.5)
    got = run_py(
        "import json\nfrom foley.agent.session import SessionStore\n"
        f"s = SessionStore({sid!r})\n"
        "picks = s.list_picks()\n"
        "cands = s.rehydrate([p['sound_id'] for p in picks])\n"
        "print(json.dumps([picks, [c.to_dict() for c in cands]]))",
        data_dir,
    )
    picks, cands = got
    assert [(p["sound_id"], p["layer"], p["onset"]) for p in picks] == [(glass, "sfx_fg", 1.5)]
    assert cands[0]["sound"]["caption"] == "Glass breaking on tile"
    assert cands[0]["sound"]["uri"] == str(library.resolve() / "glass.mp3")


def test_a_new_copy_updates_the_sound_and_columns_read_from_the_cache(library: Path) -> None:
    store = SessionService().get(SessionService().create("x"))
    source = FolderSource(library, store.session_id)
    source.refresh(store)
    door = next(i for i in store.candidate_ids() if "DOORWood" in cand(store, i)["sound"]["uri"])
    columns = source.columns(door)
    assert columns is not None
    assert (columns.name, columns.folder, columns.description) == (
        "DOORWood_Slam_JD_Lib.wav",
        "doors",
        "Heavy oak door slams",
    )
    assert columns.category == "DOORWood"  # no iXML category: the CatID as written
    assert (columns.library, columns.bit_depth, columns.paths) == ("Lib", 24, 1)
    shutil.copy(library / "doors" / "DOORWood_Slam_JD_Lib.wav", library / "zz copy.wav")
    result = FolderSource(library, store.session_id).refresh(store)
    assert (result.sync.added, result.sync.updated) == (0, 1)
    assert "zz copy.wav" in cand(store, door)["sound"]["tags"]
    assert source.categories() == [("DOORWood", 1)]  # one sound, whatever its copies
    names = source.sort_values("name")
    assert names[door] == "doors/DOORWood_Slam_JD_Lib.wav"
    assert source.sort_values("folder")[door] == "doors"


def test_a_first_visit_caches_its_first_rows_before_the_tree_is_walked(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first visit has nothing to show until files are read: the first batch the walk
    finds is read and cached at once, before the rest of the tree is listed or read
    (the list's first rows are that batch); the rest follows, and a revisit has no such
    batch (its rows are the session's already)."""
    from foley_tui.library import cache

    monkeypatch.setattr(cache, "FIRST_BATCH", 2)
    walked: list[object] = []
    real_walk = cache.walk

    def counting_walk(root: Path) -> Any:
        for item in real_walk(root):
            walked.append(item)
            yield item

    monkeypatch.setattr(cache, "walk", counting_walk)
    store = SessionService().get(SessionService().create("x"))
    source = FolderSource(library, store.session_id)
    seen: list[tuple[int, int, int]] = []

    def synced() -> None:
        seen.append((len(walked), source.index.count(), len(store.candidate_ids())))

    result = source.refresh(store, synced=synced)
    assert seen[0] == (2, 2, 2)  # two files walked, read, cached: the first rows
    assert seen[-1] == (4, 4, 4) and result.refresh.read == 4
    assert result.sync.added == 4
    seen.clear()
    walked.clear()
    again = FolderSource(library, store.session_id).refresh(store, synced=synced)
    assert again.refresh.read == 0 and seen == []


def _index_state(index: LibraryIndex) -> list[tuple[Any, ...]]:
    return [(e.rel, e.size, e.sha256, e.meta, index.fields(e.rel)) for e in index.entries()] + [
        ("problems", index.problems())
    ]


def test_worker_processes_read_what_the_scan_thread_reads(
    library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big folder is read by worker processes fed during the walk: the index they
    build is the one the scan's own thread builds, duplicates, broken files and all, and
    a file moved between two such scans is found again by its content."""
    from foley_tui.library import reading

    shutil.copy(library / "glass.mp3", library / "weather" / "glass again.mp3")
    (library / "empty.wav").write_bytes(b"")
    (library / "notes.flac").write_text("a text file named as a sound")
    wav = (library / "doors" / "DOORWood_Slam_JD_Lib.wav").read_bytes()
    (library / "cut.wav").write_bytes(wav[:100])
    alone = LibraryIndex(library, cache_dir=tmp_path / "alone")
    assert alone.refresh().read == 8
    monkeypatch.setattr(reading, "PROCESS_THRESHOLD", 1)
    monkeypatch.setattr(reading, "CHUNK", 2)
    with reading.Reader(str(library)) as reader:
        for e in alone.entries():
            reader.add((e.rel, e.size, e.mtime_ns))
        rows = list(reader.finish())
        assert reader.in_processes
    assert sorted(row[0] for row in rows) == [e.rel for e in alone.entries()]
    pooled = LibraryIndex(library, cache_dir=tmp_path / "pooled")
    assert pooled.refresh().read == 8
    assert _index_state(pooled) == _index_state(alone)
    os.rename(library / "weather" / "rain.flac", library / "rain moved.flac")
    again = pooled.refresh()
    assert again.moved == [("weather/rain.flac", "rain moved.flac")]
    assert again.read == 1


def test_big_and_grown_files_are_read_from_the_file(
    library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files above the whole-read bound are parsed from the file and hashed in blocks:
    the same index as reading them whole; a file that grew after the walk listed it is
    read as it is now."""
    from foley_tui.library import reading

    whole = LibraryIndex(library, cache_dir=tmp_path / "whole")
    whole.refresh()
    monkeypatch.setattr(reading, "WHOLE_READ", 64)
    streamed = LibraryIndex(library, cache_dir=tmp_path / "streamed")
    streamed.refresh()
    assert _index_state(streamed) == _index_state(whole)
    monkeypatch.undo()
    path = library / "weather" / "rain.flac"
    listed = path.stat().st_size
    with path.open("ab") as fh:
        fh.write(b"\0" * 10)
    sha, meta = reading.read_file(str(library), "weather/rain.flac", listed)
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()
    assert meta.problem is None and meta.format == "flac"
