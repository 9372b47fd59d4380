"""``session show`` reads only the part of the journal its last check did not.

The journal only grows: where a check ended, the bad lines it found and a digest of the
bytes just before its end are kept beside it (``journal.checked``); the next check reads
from there. A journal replaced or rewritten before that point is read whole again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from foley_tui.store import SessionService, file_state
from foley_tui.store.file_state import CHECKED_FILE


def _journal(data_dir: Path, session_id: str) -> Path:
    return data_dir / "sessions" / session_id / ".foley-tui" / "journal.jsonl"


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes each journal parse was handed, in order."""
    seen: list[int] = []
    real = file_state.parse_lines

    def counting(data: bytes, offset: int) -> Any:
        seen.append(len(data))
        return real(data, offset)

    monkeypatch.setattr(file_state, "parse_lines", counting)
    return seen


def test_a_second_check_reads_only_what_was_appended(data_dir: Path, parsed: list[int]) -> None:
    service = SessionService(data_dir)
    session_id = service.create("checked")
    store = service.get(session_id)
    for i in range(200):
        store.add_pick(f"s:{i}")
    journal = _journal(data_dir, session_id)
    with journal.open("ab") as fh:
        fh.write(b"not a record\n")  # a foreign line, reported by every check
    store.add_pick("s:last")
    first = SessionService(data_dir).get(session_id)
    problems = [str(p) for p in first.inspect()]
    assert any("journal" in p for p in problems)
    assert sum(parsed) >= journal.stat().st_size - 1
    assert (journal.parent / CHECKED_FILE).exists()
    store.add_pick("s:after")
    parsed.clear()
    again = SessionService(data_dir).get(session_id)
    assert [str(p) for p in again.inspect()] == problems  # the bad line still reported
    appended = len(journal.read_bytes().splitlines()[-1]) + 1
    assert sum(parsed) <= appended  # the new entry only


def test_a_journal_rewritten_before_the_mark_is_read_whole(
    data_dir: Path, parsed: list[int]
) -> None:
    service = SessionService(data_dir)
    session_id = service.create("rewritten")
    store = service.get(session_id)
    for i in range(50):
        store.add_pick(f"s:{i}")
    journal = _journal(data_dir, session_id)
    SessionService(data_dir).get(session_id).inspect()
    data = bytearray(journal.read_bytes())
    at = len(data) - 10
    data[at : at + 1] = b"#"  # the last entry damaged in place, same length, same inode
    with journal.open("r+b") as fh:
        fh.write(bytes(data))
    parsed.clear()
    problems = [str(p) for p in SessionService(data_dir).get(session_id).inspect()]
    assert sum(parsed) >= len(data) - 1  # read whole again
    assert any("journal" in p for p in problems)
