"""A big journal for the tests and benchmarks that hold the store to its caps: a session
of 40 candidates whose journal holds about a million valid entries, under the journal
cap (``MAX_JOURNAL_BYTES``), written in blocks without building them all in memory."""

from __future__ import annotations

import json
import os
from pathlib import Path

from foley_tui.safe_io import MAX_JOURNAL_BYTES
from foley_tui.store import SessionService

CANDIDATES = 40
#: Bytes of generated entries: the cap less a margin for the entries the caller adds.
TARGET_BYTES = MAX_JOURNAL_BYTES - (1 << 20)


def _candidate(i: int) -> dict[str, object]:
    return {
        "sound": {
            "id": f"s{i}",
            "license": {"source": "freesound", "license_id": "CC0-1.0"},
            "caption": f"sound {i}",
            "duration_s": 1.0,
        },
        "origin": "retrieved",
    }


def write_journal(data_dir: Path, *, target_bytes: int = TARGET_BYTES) -> tuple[str, int]:
    """A session with :data:`CANDIDATES` candidates and ``target_bytes`` of valid journal
    entries (picks and rejects back and forth, as a long night of auditioning leaves
    them), then one real decision of ours on top (a pick of ``s0`` as ``voice``), which
    an undo reverts. Returns (session id, entries written)."""
    service = SessionService(data_dir)
    session_id = service.create(title="big journal")
    store = service.get(session_id)
    store.cache_candidates(_candidate(i) for i in range(CANDIDATES))
    journal = data_dir / "sessions" / session_id / ".foley-tui" / "journal.jsonl"
    journal.parent.mkdir(parents=True, exist_ok=True)
    picked = json.dumps({"status": "undecided"}, separators=(",", ":"))
    seq = 0
    written = 0
    with open(journal, "wb") as out:
        while written < target_bytes:
            lines = []
            first = seq
            for _ in range(10_000):
                seq += 1
                sid = f"s{seq % CANDIDATES}"
                after = (
                    f'{{"status":"picked","pick":{{"sound_id":"{sid}","layer":null,"onset":null}}}}'
                    if seq % 2
                    else f'{{"status":"rejected","reject":{{"sound_id":"{sid}","reason":null}}}}'
                )
                lines.append(
                    f'{{"seq":{seq},"id":"01J{seq:023d}","at":"2026-12-01T10:00:00.000000Z",'
                    f'"kind":"do","target":null,"sound_id":"{sid}","before":{picked},'
                    f'"after":{after}}}\n'
                )
            block = "".join(lines).encode()
            if written + len(block) > target_bytes:
                seq = first
                break
            out.write(block)
            written += len(block)
        out.flush()
        os.fsync(out.fileno())
    # A fresh store: ours appends after the generated entries (their seq, from the tail).
    SessionService(data_dir).get(session_id).update_pick("s0", layer="voice")
    return session_id, seq


__all__ = ["CANDIDATES", "TARGET_BYTES", "write_journal"]
