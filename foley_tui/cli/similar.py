"""``foley-tui similar SESSION SOUND_ID [-k N] [--json]``: the candidates that sound most
like one, nearest first, with their cosine distance (the app's ``=`` view, for scripts).

The first query of a session analyses every candidate's audio (once: the features are
cached by content hash in ``$XDG_CACHE_HOME/foley-tui``); later queries read no audio.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from foley_tui.cli import CliError
from foley_tui.cli.common import SESSION_HELP, guard, open_session, print_json


@guard
def cmd_similar(args: argparse.Namespace) -> int:
    from foley_tui.audition.similar import SimilarError, find_similar

    if args.k < 1:
        raise CliError(f"-k must be at least 1 (got {args.k})")
    store = open_session(args, touch=False)
    rows = {row.sound_id: row for row in store.rows()}
    try:
        result = find_similar(store, args.sound_id, k=args.k, ids=list(rows))
    except SimilarError as exc:
        raise CliError(str(exc)) from None
    listed: list[dict[str, Any]] = [
        {
            "sound_id": n.sound_id,
            "distance": round(n.distance, 6),
            "caption": rows[n.sound_id].caption if n.sound_id in rows else "",
            "duration_s": rows[n.sound_id].duration_s if n.sound_id in rows else None,
        }
        for n in result.neighbours
    ]
    if args.json:
        print_json(
            {
                "query": result.query,
                "neighbours": listed,
                "compared": result.compared,
                "analysed": result.analysed,
                "skipped": result.skipped,
            }
        )
        return 0
    if result.skipped:
        print(
            f"foley-tui: {len(result.skipped)} candidate(s) not compared (no audio here)",
            file=sys.stderr,
        )
    if not listed:
        print("no other candidate to compare")
        return 0
    for item in listed:
        print(f"{item['distance']:.4f}\t{item['sound_id']}\t{item['caption']}")
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "similar",
        parents=[common],
        help="the candidates that sound most like SOUND_ID, nearest first (distance, id, caption)",
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("sound_id", metavar="SOUND_ID", help="the candidate to compare with")
    p.add_argument("-k", type=int, default=10, metavar="N", help="how many (default 10)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_similar)
