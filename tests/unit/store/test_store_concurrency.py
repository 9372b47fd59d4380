"""Several processes decide at once, on different keys and on the same key."""

from __future__ import annotations

import json
import os
from pathlib import Path

from foley_tui.domain import LAYERS
from foley_tui.store import SessionService, encode_key

WORKERS = 4
PER_WORKER = 20


def _worker(data_dir: Path, sid: str, worker: int, go_fd: int) -> None:
    os.read(go_fd, 1)  # start together
    store = SessionService(data_dir).get(sid)
    for i in range(PER_WORKER):
        store.add_pick(f"w{worker}:{i} é", layer=LAYERS[i % 5], onset=float(i))
        if i % 2:
            store.add_pick("shared key", layer=LAYERS[worker % 5], onset=float(worker))
        else:
            store.add_reject("shared key", reason=f"worker {worker}")
        store.set_cursor(f"w{worker}:{i} é")
    store.flush()


def test_processes_writing_different_and_same_keys(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("busy")
    service.get(sid).cache_candidates([{"sound": {"id": "shared key"}}, {"sound": {"id": "other"}}])
    go_read, go_write = os.pipe()
    pids = []
    for worker in range(WORKERS):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                _worker(data_dir, sid, worker, go_read)
                code = 0
            finally:
                os._exit(code)
        pids.append(pid)
    os.write(go_write, b"x" * WORKERS)
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    root = data_dir / "sessions" / sid
    store = SessionService(data_dir).get(sid)
    # no key lost
    expected = {f"w{w}:{i} é" for w in range(WORKERS) for i in range(PER_WORKER)}
    picked = set(store.picked_ids())
    assert expected <= picked
    # no corrupt file, no litter
    for ns in ("candidates", "picks", "rejects"):
        for path in (root / ns).iterdir():
            assert not path.name.startswith("."), path
            assert isinstance(json.loads(path.read_bytes()), dict), path
    # the shared key holds exactly one valid decision, never both
    shared = encode_key("shared key")
    assert (root / "picks" / shared).exists() != (root / "rejects" / shared).exists()
    assert store.problems() == []
    # decisions were serialised: one journal entry each, unique increasing seqs
    journal = store.journal()
    seqs = [e.seq for e in journal]
    assert seqs == list(range(1, len(seqs) + 1))
    assert sum(1 for e in journal if e.sound_id != "shared key") == len(expected)
    # each entry's `before` is what the previous entry on that key left
    last: dict[str, dict] = {}
    for entry in journal:
        assert entry.before == last.get(entry.sound_id, {"status": "undecided"}), entry
        last[entry.sound_id] = entry.after
    assert store.meta().cursor in expected
