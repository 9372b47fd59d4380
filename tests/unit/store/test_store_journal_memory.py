"""A journal as big as the cap admits costs undo and ``session show`` what its tail
costs: the store never holds the whole journal (a child process's max RSS says so), an
undo reads a few MB of it, and a ``session show`` after the first reads only what was
appended since (the bytes its reads returned say so; time is measured in
``tests/bench/bench_journal.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_rss import cli_rss
from tests.journal_fixture import CANDIDATES, write_journal

#: Max RSS allowed to a CLI process over the biggest journal the cap admits.
RSS_LIMIT_KB = 200 * 1024
#: Most bytes an undo (or a second ``session show``) may read, modules included: a tail
#: of the journal, never the 250 MB of it.
READ_LIMIT_KB = 40 * 1024


def test_undo_and_show_over_the_biggest_journal_stay_small(data_dir: Path) -> None:
    session_id, generated = write_journal(data_dir)
    journal = data_dir / "sessions" / session_id / ".foley-tui" / "journal.jsonl"
    assert journal.stat().st_size > 250 * 10**6 and generated > 1_000_000
    pick = data_dir / "sessions" / session_id / "picks" / "s0.json"
    assert json.loads(pick.read_text())["layer"] == "voice"

    shown = cli_rss(data_dir, "session", "show", session_id, "--json")
    assert shown["rc"] == 0
    report = json.loads(shown["out"])
    assert report["total"] == CANDIDATES and report["can_undo"] is True
    assert report["problems"] == []  # every generated entry read, and valid
    assert shown["rss_kb"] < RSS_LIMIT_KB
    assert shown["read_kb"] > 200 * 1024  # the first check reads it all, once

    undone = cli_rss(data_dir, "undo", session_id)
    assert undone["rc"] == 0 and "undo: s0 -> undecided" in undone["out"]
    assert not pick.exists()  # the pick our decision made is gone again
    assert undone["rss_kb"] < RSS_LIMIT_KB
    assert undone["read_kb"] < READ_LIMIT_KB
    # One decision's start-up: no dol for one file (its one id comes from python-ulid).
    assert "dol" not in undone["imported"]

    again = cli_rss(data_dir, "session", "show", session_id, "--json")
    assert again["rc"] == 0 and json.loads(again["out"])["problems"] == []
    assert again["read_kb"] < READ_LIMIT_KB  # only the undo's entry is new

    redone = cli_rss(data_dir, "redo", session_id)
    assert redone["rc"] == 0 and json.loads(pick.read_text())["layer"] == "voice"
    assert redone["rss_kb"] < RSS_LIMIT_KB
