"""The store's threading contract, and read-modify-write decisions across processes.

Threads: one store shared by deciding threads and reading threads (the UI thread and the
app's workers), nothing lost, no error, one journal in order. Processes: concurrent
``pick S ID --layer`` and ``pick S ID --onset`` keep both fields, round after round.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.domain import Layer, Pick, Status
from foley_tui.store import SessionService, SessionStore
from foley_tui.store.errors import UndoConflictError

from .foley_steps import foley_view
from .helpers import candidate

THREADS = 6
ROUNDS = 40


@pytest.fixture(params=["files", "memory"])
def store(request: pytest.FixtureRequest, data_dir: Path) -> SessionStore:
    service = SessionService(data_dir) if request.param == "files" else SessionService.in_memory()
    sid = service.create("threads")
    store = service.get(sid)
    store.cache_candidates([candidate(f"t{i}") for i in range(THREADS)] + [candidate("shared")])
    return store


def test_deciding_and_reading_threads_share_one_store(store: SessionStore) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS + 3)
    layers: list[Layer] = ["voice", "sfx_fg", "ambience", "stinger", "music"]

    def decide(n: int) -> None:
        try:
            start.wait()
            sid = f"t{n}"
            for r in range(ROUNDS):
                store.update_pick(sid, layer=layers[r % 5])
                store.update_pick(sid, onset=r)
                if r % 7 == 0:
                    store.set_reject(sid, f"r{r}")
                store.set_cursor(sid)
            store.update_pick(sid, layer="music", onset=-float(n))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def shared(field: str) -> None:
        try:
            start.wait()
            for r in range(ROUNDS):
                if field == "layer":
                    store.update_pick("shared", layer=layers[r % 5])
                else:
                    store.update_pick("shared", onset=f"on 'word{r}'")
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    def read() -> None:
        try:
            start.wait()
            for _ in range(ROUNDS):
                store.picks()
                store.rejects()
                store.problems()
                store.can_undo()
                store.journal()
                store.counts()
                store.meta()
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=decide, args=(n,)) for n in range(THREADS)]
    threads += [threading.Thread(target=shared, args=(f,)) for f in ("layer", "onset")]
    threads.append(threading.Thread(target=read))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
        assert not t.is_alive(), "a store call never returned (deadlock?)"
    assert errors == []
    picks = store.picks()
    for n in range(THREADS):
        assert picks[f"t{n}"] == Pick(f"t{n}", "music", -float(n))
        assert store.status(f"t{n}") is Status.PICKED
    # both racing fields of the shared pick hold their last value: none was lost
    assert picks["shared"] == Pick("shared", "music", f"on 'word{ROUNDS - 1}'")
    journal = store.journal()
    assert [e.seq for e in journal] == list(range(1, len(journal) + 1))
    # the journal replays to the files: every entry's before is the previous after
    last: dict[str, dict[str, object]] = {}
    for entry in journal:
        if entry.sound_id in last:
            assert entry.before == last[entry.sound_id], entry
        last[entry.sound_id] = entry.after
    # and undo walks it back while no one else writes
    assert store.undo() is not None


def test_undo_from_two_threads_never_undoes_one_entry_twice(store: SessionStore) -> None:
    for n in range(THREADS):
        store.update_pick(f"t{n}", layer="voice")
    done: list[str] = []
    errors: list[BaseException] = []

    def undo() -> None:
        try:
            entry = store.undo()
            if entry is not None:
                done.append(entry.sound_id)
        except UndoConflictError as exc:  # pragma: no cover - would be a bug here
            errors.append(exc)

    threads = [threading.Thread(target=undo) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == [] and sorted(done) == [f"t{n}" for n in range(THREADS)]
    assert store.picks() == {}


def _race_pair(argv_a: list[str], argv_b: list[str]) -> tuple[int, int]:
    """Fork two children that run the CLI at the same moment; return their exit codes."""
    gate_r, gate_w = os.pipe()
    pids = []
    for argv in (argv_a, argv_b):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                os.close(gate_w)
                os.read(gate_r, 1)  # both wait here, released together
                code = main(argv)
            finally:
                os._exit(code)
        pids.append(pid)
    os.close(gate_r)
    os.write(gate_w, b"xx")
    os.close(gate_w)
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
    return codes[0], codes[1]


def test_layer_and_onset_from_two_processes_keep_both_fields(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("race")
    store = service.get(sid)
    store.cache_candidates([candidate("door")])
    pick_file = data_dir / "sessions" / sid / "picks" / "door.json"
    lost = 0
    rounds = 30
    for r in range(rounds):
        store.update_pick("door", layer=None, onset=None)
        onset = str(r + 0.5)
        codes = _race_pair(
            ["pick", sid, "door", "--layer", "ambience"],
            ["pick", sid, "door", "--onset", onset],
        )
        assert codes == (0, 0)
        record = json.loads(pick_file.read_bytes())
        if (record["layer"], record["onset"]) != ("ambience", r + 0.5):
            lost += 1
    assert lost == 0
    assert foley_view(data_dir, sid)["picks"] == [
        {"sound_id": "door", "layer": "ambience", "onset": rounds - 0.5}
    ]
    journal = SessionService(data_dir).get(sid).journal()
    assert [e.seq for e in journal] == list(range(1, len(journal) + 1))
