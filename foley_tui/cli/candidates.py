"""``foley-tui candidates SESSION [--json]``: a session's cached candidates with their
decision, for agents and scripts (what the app's list shows, without the TUI)."""

from __future__ import annotations

import argparse
from typing import Any

from foley_tui.cli.common import (
    SESSION_HELP,
    guard,
    open_session,
    print_json,
    print_rows,
    report_recovered,
)
from foley_tui.domain import Candidate, Status
from foley_tui.store.sound_problems import SoundProblem, sound_problems_of


def _problems(found: SoundProblem | None) -> list[dict[str, Any]]:
    """What the decoder found wrong in the sound's audio file, as it is now (our state,
    never foley's candidate file)."""
    if found is None:
        return []
    return [
        {
            "problem": found.problem,
            "note": found.note,
            "count": found.count,
            "file": found.stamp.path,
        }
    ]


def decision_of(sound_id: str, picked: set[str], rejected: set[str]) -> str:
    """``undecided``, ``picked``, ``rejected``, or ``conflict`` when foley left both (the
    model's Status names; foley's own ``verdict`` field is its verification, not this)."""
    if sound_id in picked:
        return (Status.CONFLICT if sound_id in rejected else Status.PICKED).value
    return Status.REJECTED.value if sound_id in rejected else Status.UNDECIDED.value


@guard
def cmd_candidates(args: argparse.Namespace) -> int:
    store = open_session(args, touch=False)
    picked, rejected = set(store.picked_ids()), set(store.rejected_ids())
    marks = store.marks()
    found = sound_problems_of(store).read()
    listed: list[dict[str, Any]] = []
    rows = store.rows()
    report_recovered(store.take_recovered())  # the scan sweeps an interrupted add's temps
    for row in rows:
        full = store.candidate(row.sound_id) if not row.unreadable else None
        query = Candidate(full or {}).event.get("query")
        listed.append(
            {
                "sound_id": row.sound_id,
                "caption": row.caption,
                "duration_s": row.duration_s,
                "event_query": query if isinstance(query, str) else None,
                "decision": decision_of(row.sound_id, picked, rejected),
                "rating": marks[row.sound_id].rating if row.sound_id in marks else 0,
                "hidden": row.sound_id in marks and marks[row.sound_id].hidden,
                "problems": _problems(found.get(row.sound_id)),
            }
        )
    if args.json:
        print_json(listed)
        return 0
    if not listed:
        print("no candidates")
        return 0
    lines = [
        [
            item["sound_id"],
            item["decision"],
            f"{item['duration_s']:.2f}s" if item["duration_s"] is not None else "-",
            item["event_query"] or "-",
            item["caption"],
        ]
        for item in listed
    ]
    print_rows(["SOUND_ID", "DECISION", "LENGTH", "EVENT", "CAPTION"], lines)
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "candidates",
        parents=[common],
        help="list a session's candidates: id, decision, duration, event query, caption",
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_candidates)
