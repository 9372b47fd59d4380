"""Crash safety: a process making decisions is killed with SIGKILL at random points.

After every kill: each pick/reject file parses, every decision acknowledged before the
kill (the call had returned) is on disk and in the journal, and only the one decision in
flight may or may not have happened. foley can still list the picks at the end.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

from foley_tui.store import SessionService
from foley_tui.store.errors import UndoConflictError
from foley_tui.store.records import Verdicts

from .helpers import run_py

SOUNDS = ["freesound:1", "a/b c", ".dot", "é:2", "plain", "x%y"]
LAYERS = [None, "voice", "sfx_fg", "ambience", "stinger", "music"]
KILLS = 30


def make_ops(seed: int, count: int) -> list[tuple[str, str, Any]]:
    rng = random.Random(seed)
    ops = []
    for _ in range(count):
        kind = rng.choice(["pick", "reject", "clear", "layer", "onset"])
        value: Any = None
        if kind == "pick":
            value = (rng.choice(LAYERS), rng.choice([None, round(rng.random() * 60, 3)]))
        elif kind == "reject":
            value = rng.choice([None, "too loud", "wrong take"])
        elif kind == "layer":
            value = rng.choice(LAYERS)
        elif kind == "onset":
            value = rng.choice([None, round(rng.random() * 60, 3)])
        ops.append((kind, rng.choice(SOUNDS), value))
    return ops


def apply_op(store: Any, op: tuple[str, str, Any]) -> None:
    kind, sound, value = op
    if kind == "pick":
        store.add_pick(sound, layer=value[0], onset=value[1])
    elif kind == "reject":
        store.add_reject(sound, reason=value)
    elif kind == "clear":
        store.clear(sound)
    elif kind == "layer":
        store.set_layer(sound, value)
    else:
        store.set_onset(sound, value)


#: A sound's decision as (pick part, reject part): each None when that file is absent,
#: else (layer, onset) / (reason,), as ``Verdicts.comparable`` reads the files.
State = tuple[Any, Any]
UNDECIDED: State = (None, None)


def model_after(state: State, op: tuple[str, str, Any]) -> State:
    kind, _, value = op
    pick = state[0]
    if kind == "pick":
        return ((value[0], value[1]), None)
    if kind == "reject":
        return (None, (value,))
    if kind == "clear":
        return UNDECIDED
    if kind == "layer":
        return ((value, pick[1] if pick else None), None)
    return ((pick[0] if pick else None, value), None)


def disk_state(root: Path, sound: str) -> State:
    from foley_tui.store import encode_key

    records = []
    for ns in ("picks", "rejects"):
        path = root / ns / encode_key(sound)
        records.append(json.loads(path.read_bytes()) if path.exists() else None)
    return Verdicts(records[0], records[1]).comparable()


def in_between(old: State, new: State) -> set[State]:
    """What a kill mid-decision can leave: each of the two files old or new (writes come
    before removals, so the pair is always readable and foley's own state)."""
    return {(p, r) for p in (old[0], new[0]) for r in (old[1], new[1])}


def run_until_killed(data_dir: Path, sid: str, ops: list, start: int, delay: float) -> list[int]:
    """Fork a child that applies ops[start:], acking each; SIGKILL it ``delay`` after its
    first acknowledged decision.

    The clock starts at that first ack, not at the fork: on a loaded machine opening the
    store can take longer than any fixed delay, and a kill before the first decision tests
    nothing. The kill still lands at a random point among the decisions that follow.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: decide until killed, ack each decision after it returned
        try:
            os.close(read_fd)
            store = SessionService(data_dir).get(sid)
            for index in range(start, len(ops)):
                apply_op(store, ops[index])
                os.write(write_fd, f"{index}\n".encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    first = b""
    while not first.endswith(b"\n"):  # the first ack (or EOF if the child died)
        byte = os.read(read_fd, 1)
        if not byte:
            break
        first += byte
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    chunks = [first]
    while chunk := os.read(read_fd, 65536):
        chunks.append(chunk)
    os.close(read_fd)
    data = b"".join(chunks).decode()
    return [int(line) for line in data.split("\n") if line]  # a torn last ack is not an ack


def test_sigkill_at_random_points_loses_no_acknowledged_decision(data_dir: Path) -> None:
    rng = random.Random(20261130)
    service = SessionService(data_dir)
    sid = service.create("crash")
    root = data_dir / "sessions" / sid
    ops = make_ops(7, 5000)
    model: dict[str, State] = {sound: UNDECIDED for sound in SOUNDS}
    acked_changes: list[tuple[str, State]] = []
    start = 0
    total_acked = 0
    for _ in range(KILLS):
        acked = run_until_killed(data_dir, sid, ops, start, rng.uniform(0.005, 0.06))
        assert acked == list(range(start, start + len(acked)))
        for index in acked:
            _, sound, _ = ops[index]
            after = model_after(model[sound], ops[index])
            if after != model[sound]:
                acked_changes.append((sound, after))
            model[sound] = after
        total_acked += len(acked)
        # every file parses (no torn or empty file), whatever the moment of the kill
        for ns in ("picks", "rejects"):
            for path in (root / ns).iterdir():
                if not path.name.startswith("."):
                    assert isinstance(json.loads(path.read_bytes()), dict), path
        in_flight = start + len(acked)
        for sound in SOUNDS:
            on_disk = disk_state(root, sound)
            if in_flight < len(ops) and ops[in_flight][1] == sound:
                maybe = model_after(model[sound], ops[in_flight])
                assert on_disk in in_between(model[sound], maybe), (sound, on_disk, model[sound])
                model[sound] = on_disk  # the in-flight decision happened, or not
            else:
                assert on_disk == model[sound], (sound, on_disk, model[sound])
        start = in_flight + 1  # skip the in-flight op: the model took the disk's word
        if start >= len(ops):
            break
    assert total_acked >= 10  # decisions were acknowledged between the kills
    # the journal holds every acknowledged change, in order (plus at most the in-flight ones)
    store = SessionService(data_dir).get(sid)
    journal = [
        (e.sound_id, Verdicts.from_state(e.sound_id, e.after).comparable())
        for e in store.journal()
        if e.kind == "do"
    ]
    pointer = 0
    for item in journal:
        if pointer < len(acked_changes) and item == acked_changes[pointer]:
            pointer += 1
    assert pointer == len(acked_changes)
    assert len(journal) - len(acked_changes) <= KILLS
    seqs = [e.seq for e in store.journal()]
    assert seqs == sorted(set(seqs))
    # undo still works on the crashed session (compare-and-swap: a decision written but
    # not journaled before the last kill makes it refuse, then force applies it), and
    # foley can read every pick
    try:
        undone = store.undo()
    except UndoConflictError:
        undone = store.undo(force=True)
    assert undone is not None
    read = run_py(
        "import json\nfrom foley.agent.session import SessionStore\n"
        f"print(json.dumps(sorted(SessionStore({sid!r}).picked_ids())))",
        data_dir,
    )
    assert read == sorted(store.picked_ids())
