"""Several real processes write one session's conversation and ledger at once:
the message ``seq`` stays gap-free and the usage counters add up exactly.

Each worker is a fresh interpreter (or the installed ``foley-tui`` script) that waits for
a go file before it starts, so the writers really overlap. No wall-clock assertions: the
only bound is a generous timeout that fails loudly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from foley_tui.store import SessionService

WORKERS = 4
PER_WORKER = 25
TIMEOUT_S = 300.0

WORKER = """
import os, sys, time
from foley_tui.store import SessionService
data_dir, sid, go = sys.argv[1], sys.argv[2], sys.argv[4]
worker, per = int(sys.argv[3]), int(sys.argv[5])
service = SessionService(data_dir)
service.get(sid, touch=False)
while not os.path.exists(go):
    time.sleep(0.005)
for i in range(per):
    service.append_message(sid, "agent", f"w{worker}:{i}", {"worker": worker, "i": i})
    # a different store object each time now and then: state re-read from the files
    service.update_token_usage(sid, 3, 1 + worker, 0.000001 * (worker + 1) + 0.1)
    if i % 5 == 0:
        service = SessionService(data_dir)
"""


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _finish(procs: list[subprocess.Popen[str]]) -> list[str]:
    outs = []
    deadline = time.monotonic() + TIMEOUT_S
    for proc in procs:
        out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        assert proc.returncode == 0, err
        outs.append(out)
    return outs


def test_four_processes_tell_and_count_at_once(data_dir: Path, tmp_path: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("busy")
    go = tmp_path / "go"
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir)}
    procs = [
        _start(
            [sys.executable, "-c", WORKER, str(data_dir), sid, str(w), str(go), str(PER_WORKER)],
            env,
        )
        for w in range(WORKERS)
    ]
    go.touch()
    _finish(procs)

    messages = SessionService(data_dir).messages(sid)
    total = WORKERS * PER_WORKER
    assert [m.seq for m in messages] == list(range(1, total + 1))  # no gap, no duplicate
    assert len({m.id for m in messages}) == total
    # every worker's messages are all there, each in its own order
    for w in range(WORKERS):
        mine = [m.metadata["i"] for m in messages if m.metadata["worker"] == w]
        assert mine == list(range(PER_WORKER))
    assert SessionService(data_dir).conversation(sid).problems == []

    usage = SessionService(data_dir).usage(sid)
    assert usage.input_tokens == 3 * total
    assert usage.output_tokens == sum((1 + w) * PER_WORKER for w in range(WORKERS))
    # exact to the micro-dollar: 100 x $0.1 plus (1+2+3+4) x 25 micro-dollars
    assert usage.cost_micro_usd == 10_000_000 + 10 * PER_WORKER
    state = data_dir / "sessions" / sid / ".foley-tui"
    assert not [p for p in state.iterdir() if p.name.endswith(".tmp")]


def test_four_cli_processes_tell_at_once(data_dir: Path, tmp_path: Path) -> None:
    script = shutil.which("foley-tui", path=str(Path(sys.executable).parent))
    assert script, "the foley-tui console script is not installed"
    sid = SessionService(data_dir).create("busy cli")
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir)}
    rounds = 3
    ids: list[str] = []
    for r in range(rounds):
        procs = [
            _start([script, "session", "tell", sid, f"r{r} w{w}", "--role", "agent"], env)
            for w in range(WORKERS)
        ]
        procs.append(
            _start([script, "session", "usage", sid, "--input-tokens", "10", "--cost", "0.01"], env)
        )
        outs = _finish(procs)
        ids += [out.strip() for out in outs[:WORKERS]]
    messages = SessionService(data_dir).messages(sid)
    assert [m.seq for m in messages] == list(range(1, WORKERS * rounds + 1))
    assert sorted(m.id for m in messages) == sorted(ids)
    usage = SessionService(data_dir).usage(sid)
    assert (usage.input_tokens, usage.cost_micro_usd) == (10 * rounds, 10_000 * rounds)
