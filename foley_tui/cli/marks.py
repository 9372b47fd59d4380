"""``foley-tui rate SESSION SOUND_ID N`` and ``foley-tui hide SESSION SOUND_ID
[--unhide]``: our own marks on a candidate (a 0-5 rating, 0 clears; a hidden flag), kept
in our state beside the session, journaled (``undo`` reverts them like a decision) and
never in foley's files.
"""

from __future__ import annotations

import argparse
from typing import Any

from foley_tui.cli import CliError
from foley_tui.cli.common import SESSION_HELP, guard, open_session
from foley_tui.marks import parse_rating
from foley_tui.store import MarksEdit, SessionStore


def sound_duration(store: SessionStore, sound_id: str) -> float | None:
    """The sound's length: its audio's header when the audio is here, else what the
    candidate declares, else None (unknown: a region is then only checked for order)."""
    candidate = store.candidate(sound_id)
    if candidate is None:
        return None
    from foley_tui.audio.base import Source
    from foley_tui.audio.decode import DecodeError, probe
    from foley_tui.audio.resolve import resolve

    source = resolve(candidate, store.data_dir, allow_network=False, remote=store.remote_audio())
    if isinstance(source, Source):
        try:
            return probe(source.path).duration_s
        except (DecodeError, OSError):
            pass
    sound = candidate.get("sound")
    declared = sound.get("duration_s") if isinstance(sound, dict) else None
    if isinstance(declared, int | float) and not isinstance(declared, bool) and declared > 0:
        return float(declared)
    return None


def known(store: SessionStore, sound_id: str) -> None:
    """Marks are for cached candidates only: an unknown id is refused, nothing written."""
    if store.candidate(sound_id) is None:
        raise CliError(f"no candidate {sound_id!r} in session {store.session_id}")


@guard
def cmd_rate(args: argparse.Namespace) -> int:
    rating = parse_rating(args.rating)  # before anything is opened or written
    store = open_session(args)
    known(store, args.sound_id)
    store.update_marks(args.sound_id, MarksEdit(rating=rating))
    print(f"rated {args.sound_id} {rating}" if rating else f"cleared the rating of {args.sound_id}")
    return 0


@guard
def cmd_hide(args: argparse.Namespace) -> int:
    store = open_session(args)
    known(store, args.sound_id)
    hidden = not args.unhide
    store.update_marks(args.sound_id, MarksEdit(hidden=hidden))
    print(f"{'hid' if hidden else 'unhid'} {args.sound_id}")
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "rate", parents=[common], help="rate a candidate 1-5 (0 clears); undo reverts it"
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("sound_id", metavar="SOUND_ID", help="the candidate's sound id")
    p.add_argument("rating", metavar="N", help="0 to 5 (0 clears the rating)")
    p.set_defaults(func=cmd_rate)

    p = subparsers.add_parser(
        "hide", parents=[common], help="hide a candidate from the list (--unhide shows it)"
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("sound_id", metavar="SOUND_ID", help="the candidate's sound id")
    p.add_argument("--unhide", action="store_true", help="show it again")
    p.set_defaults(func=cmd_hide)
