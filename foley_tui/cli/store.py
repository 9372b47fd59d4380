"""Store verbs of the ``foley-tui`` command line: sessions, session, add, pick, reject,
clear, picks (and undo/redo). No TUI needed; every verb takes ``--data-dir``.

Headless: never imports textual.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from foley_tui.cli.common import (
    SESSION_HELP,
    CliError,
    guard,
    open_session,
    print_json,
    print_rows,
    report_recovered,
    resolve_session,
    service_of,
    session_verbs,
)
from foley_tui.cli.marks import sound_duration
from foley_tui.domain import LAYERS, Candidate, Pick, Status, format_onset, parse_onset
from foley_tui.marks import Marks, parse_point
from foley_tui.store import SessionService, SessionServiceError, SessionStore
from foley_tui.store.errors import SessionNotFoundError
from foley_tui.store.records import candidate_key

__all__ = ["register"]


def _open(service: SessionService, ref: str, *, touch: bool = True) -> SessionStore:
    return service.get(resolve_session(service, ref), touch=touch)


def _when(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


# ---------------------------------------------------------------------- sessions
@guard
def cmd_sessions(args: argparse.Namespace) -> int:
    infos = service_of(args).list()
    if args.json:
        print_json(
            [
                {
                    "session_id": i.session_id,
                    "title": i.title,
                    "picked": i.picked,
                    "rejected": i.rejected,
                    "total": i.total,
                    "conflicts": i.conflicts,
                    "ghosts": i.ghosts,
                    "created": i.created.isoformat(),
                    "updated": i.updated.isoformat(),
                    "made_by_foley": i.made_by_foley,
                }
                for i in infos
            ]
        )
        return 0
    if not infos:
        print("no sessions (create one with: foley-tui session create --title NAME)")
        return 0
    width = max(len(i.session_id) for i in infos)
    print(
        f"{'ID':<{width}}  {'PICKED':>6} {'REJECT':>6} {'TOTAL':>6}  {'CREATED':<16}  "
        f"{'UPDATED':<16}  TITLE"
    )
    for i in infos:
        title = i.title or ("(foley)" if i.made_by_foley else "")
        notes = [
            f"{n} {what}" for n, what in ((i.conflicts, "conflicts"), (i.ghosts, "ghosts")) if n
        ]
        if notes:
            title = f"{title} ({', '.join(notes)})" if title else f"({', '.join(notes)})"
        print(
            f"{i.session_id:<{width}}  {i.picked:>6} {i.rejected:>6} {i.total:>6}  "
            f"{_when(i.created):<16}  {_when(i.updated):<16}  {title}"
        )
    return 0


@guard
def cmd_create(args: argparse.Namespace) -> int:
    service = service_of(args)
    if args.title:
        # A title is also a SESSION argument: two sessions of one title would make it
        # name neither. The id printed is the session to use instead.
        wanted = args.title.strip().casefold()
        same = [i.session_id for i in service.list() if (i.title or "").casefold() == wanted]
        if same:
            print(same[0])
            raise CliError(f"a session titled {args.title!r} already exists: {same[0]}", 1)
    print(service.create(args.title))
    return 0


@guard
def cmd_show(args: argparse.Namespace) -> int:
    service = service_of(args)
    session_id = resolve_session(service, args.session)
    info = service.info(session_id)
    store = service.get(session_id, touch=False)  # looking is not opening
    meta = store.meta()
    problems = store.inspect()  # reads every file, as the app does
    report_recovered(store.take_recovered())
    # The conversation's summary and the add walker are imported by their verbs alone:
    # the one-shot decisions (``pick``, ``undo``) start without them.
    from foley_tui.cli.messages import show_extras

    extras = [show_extras(service, session_id)]
    if args.json:
        print_json(
            {
                "session_id": session_id,
                "title": info.title,
                "created": info.created.isoformat(),
                "updated": info.updated.isoformat(),
                "picked": info.picked,
                "rejected": info.rejected,
                "total": info.total,
                "made_by_foley": info.made_by_foley,
                "conflicts": info.conflicts,
                "ghosts": info.ghosts,
                "cursor": meta.cursor,
                "path": str(service.sessions_dir / session_id) if service.data_dir else None,
                "can_undo": store.can_undo(),
                "problems": [
                    {"namespace": p.namespace, "key": p.key, "reason": p.reason} for p in problems
                ],
                **{k: v for keys, _ in extras for k, v in keys.items()},
            }
        )
        return 0
    print(f"id:        {session_id}")
    print(f"title:     {info.title or ''}")
    print(f"made by:   {'foley' if info.made_by_foley else 'foley-tui'}")
    print(f"created:   {_when(info.created)}")
    print(f"updated:   {_when(info.updated)}")
    print(f"sounds:    {info.total} ({info.picked} picked, {info.rejected} rejected)")
    if info.conflicts:
        print(f"conflicts: {info.conflicts} picked and rejected at once (foley allows both)")
    if info.ghosts:
        print(f"ghosts:    {info.ghosts} picks with no cached candidate (foley plan drops them)")
    if service.data_dir:
        print(f"folder:    {service.sessions_dir / session_id}")
    for line in (line for _, lines in extras for line in lines):
        print(line)
    for problem in problems:
        print(f"problem:   {problem}")
    return 0


@guard
def cmd_rename(args: argparse.Namespace) -> int:
    service = service_of(args)
    service.rename(resolve_session(service, args.session), args.title)
    return 0


@guard
def cmd_delete(args: argparse.Namespace) -> int:
    service = service_of(args)
    session_id = resolve_session(service, args.session)
    if not args.yes:
        raise CliError(f"refusing to delete session {session_id!r} without --yes")
    service.delete(session_id)
    print(f"deleted {session_id}")
    return 0


@guard
def cmd_export(args: argparse.Namespace) -> int:
    service = service_of(args)
    session_id = resolve_session(service, args.session)
    if args.output in (None, "-"):
        print_json(service.export_session(session_id))
        return 0
    if Path(args.output).expanduser().exists() and not args.force:
        raise CliError(f"{args.output} exists (use --force to replace it)")
    target = service.export_to_file(session_id, args.output, overwrite=args.force)
    print(f"exported {session_id} to {target}")
    return 0


@guard
def cmd_import(args: argparse.Namespace) -> int:
    service = service_of(args)
    if args.file == "-":
        source, raw = "stdin", sys.stdin.buffer.read()
    else:
        source = args.file
        try:
            raw = Path(args.file).expanduser().read_bytes()
        except OSError as exc:
            raise CliError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CliError(f"{source} is not a JSON export: {exc}") from None
    if args.overwrite and args.as_copy:
        raise CliError("give --overwrite or --as-copy, not both")
    session_id = doc.get("session_id") if isinstance(doc, dict) else None
    if not args.overwrite and not args.as_copy and isinstance(session_id, str):
        try:
            exists = service.resolve(session_id, exact=True) == session_id
        except SessionServiceError:  # absent or invalid: import_session says what is wrong
            exists = False
        if exists:
            raise CliError(
                f"session {session_id!r} already exists (use --overwrite to replace it, or "
                "--as-copy to import it beside it under a new id)"
            )
    print(service.import_session(doc, overwrite=args.overwrite, as_copy=args.as_copy))
    return 0


# ---------------------------------------------------------------------- add / decisions
@guard
def cmd_add(args: argparse.Namespace) -> int:
    service = service_of(args)
    try:
        session_id = service.resolve(args.session)
    except SessionNotFoundError as exc:
        if not args.create:
            raise CliError(f"{exc} (use --create to make a session titled so)") from None
        session_id = service.create(args.session)
        print(f"created session {session_id} ({args.session})", file=sys.stderr)
    store = service.get(session_id)
    report = _add(store, [Path(p) for p in args.paths], update=args.update)
    print(f"{report.summary()} to {session_id}")
    if report.skipped and not (report.added or report.updated or report.present):
        raise CliError(f"nothing added ({report.skipped} path(s) could not be read)")
    return 1 if report.skipped else 0


class AddReport:
    """What ``add`` did, counted truthfully: each input is exactly one of these."""

    def __init__(self) -> None:
        self.added = 0  # new to the session
        self.updated = 0  # already there and rewritten (--update)
        self.present = 0  # already there, left as it was (or identical)
        self.duplicates = 0  # the same sound more than once in this input
        self.skipped = 0  # unreadable or not a candidate

    def summary(self) -> str:
        parts = [
            f"{n} {label}"
            for n, label in (
                (self.updated, "updated"),
                (self.present, "already present"),
                (self.duplicates, "duplicate" if self.duplicates == 1 else "duplicates"),
                (self.skipped, "skipped"),
            )
            if n
        ]
        noun = "candidate" if self.added == 1 else "candidates"
        return f"added {self.added} {noun}" + (f" ({', '.join(parts)})" if parts else "")


def _add(store: SessionStore, paths: list[Path], *, update: bool) -> AddReport:
    from foley_tui.store.local import AddNote, AddProblem, collect

    report = AddReport()
    fresh: dict[str, dict[str, Any]] = {}
    for item in collect(paths):
        if isinstance(item, AddNote):
            print(f"foley-tui: {item.path}: the decoder says: {item.text}", file=sys.stderr)
            continue
        if isinstance(item, AddProblem):
            report.skipped += 1
            print(f"foley-tui: skipped {item.path}: {item.reason}", file=sys.stderr)
            continue
        sound_id = candidate_key(item)
        if sound_id is None:
            report.skipped += 1
            print("foley-tui: skipped a candidate without sound.id", file=sys.stderr)
        elif sound_id in fresh:
            report.duplicates += 1
        else:
            fresh[sound_id] = item
    existing = set(store.candidate_ids())
    to_write = []
    for sound_id, candidate in fresh.items():
        if sound_id not in existing:
            report.added += 1
            to_write.append(candidate)
        elif update and store.candidate(sound_id) != candidate:
            report.updated += 1
            to_write.append(candidate)
        else:
            report.present += 1  # what is there (maybe the agent's) is never rewritten
    store.cache_candidates(to_write)
    return report


def _check_known(store: SessionStore, sound_id: str, force: bool) -> None:
    if (
        not force
        and store.candidate(sound_id) is None
        and store.status(sound_id).value == "undecided"
    ):
        raise CliError(
            f"no candidate {sound_id!r} in session {store.session_id} "
            "(use --force to decide anyway)"
        )


@guard
def cmd_pick(args: argparse.Namespace) -> int:
    store = open_session(args)
    _check_known(store, args.sound_id, args.force)
    # Only the fields given change (read-modify-write under the session lock): an
    # onset foley wrote, symbolic or numeric, and any other key of the pick are kept.
    changes: dict[str, Any] = {}
    if args.layer is not None:
        changes["layer"] = None if args.layer == "none" else args.layer
    if args.onset is not None:
        changes["onset"] = parse_onset(args.onset)
    region = _region_change(store, args)  # checked before anything is written
    if region is None:
        store.update_pick(args.sound_id, **changes)
    else:
        store.pick_with_region(args.sound_id, region, **changes)
    pick = Pick.from_dict(store.verdicts(args.sound_id).pick or {}, args.sound_id)
    text = f"picked {args.sound_id} (layer {pick.layer or '-'}, onset {format_onset(pick.onset)}"
    marks = store.marks_of(args.sound_id)
    if marks.has_region:
        low = "start" if marks.region_in is None else f"{marks.region_in:g}"
        high = "end" if marks.region_out is None else f"{marks.region_out:g}"
        text += f", region {low}-{high} s"
    print(text + ")")
    if args.onset is not None and isinstance(pick.onset, str):
        _say_reading(store, args.sound_id)
    return 0


def _say_reading(store: SessionStore, sound_id: str) -> None:
    """How foley reads the pick's anchor, resolved against the session's narration, and a
    warning when weave would not find it (a typo in a word is otherwise silent)."""
    from foley_tui.scene.build import load_narration, scene_pick

    narration, _ = load_narration(store)
    words = list(narration.words) if narration is not None else []
    reading = scene_pick(
        sound_id,
        store.candidate(sound_id),
        store.verdicts(sound_id).pick,
        words,
        None,
        resolve_audio=False,
    ).reading
    print(f"foley reads the onset as: {reading.summary}")
    if reading.placed or not reading.note:
        return
    anchor = reading.anchor
    what = f"{anchor.kind} anchor {anchor.ref!r}" if anchor.ref is not None else reading.summary
    reason, _, outcome = reading.note.partition(": ")
    if reason == "no word timeline":
        reason = "the session has no narration" if narration is None else reason
    reason = _UNRESOLVED.get(reason, reason)
    print(f"foley-tui: warning: {what}: {reason}, {outcome}", file=sys.stderr)


#: Why an anchor does not resolve, in the words of ``pick``'s warning.
_UNRESOLVED = {
    "no word matches": "no such word",
    "no word timeline": "its narration has no word timeline",
    "no words to land on": "no such word",
}


def _region_change(store: SessionStore, args: argparse.Namespace) -> Marks | None:
    """The sound's marks with ``--in`` / ``--out`` applied (``none`` clears a point), or
    None when neither is given; refused (one line, nothing written) when the region is
    outside the sound or its in point is not before its out point."""
    if args.in_point is None and args.out_point is None:
        return None
    now = store.marks_of(args.sound_id)
    wanted = replace(
        now,
        region_in=parse_point(args.in_point) if args.in_point is not None else now.region_in,
        region_out=parse_point(args.out_point) if args.out_point is not None else now.region_out,
    )
    wanted.check_region(sound_duration(store, args.sound_id))
    return wanted


@guard
def cmd_reject(args: argparse.Namespace) -> int:
    store = open_session(args)
    _check_known(store, args.sound_id, args.force)
    store.add_reject(args.sound_id, reason=args.reason)
    print(f"rejected {args.sound_id}")
    return 0


@guard
def cmd_clear(args: argparse.Namespace) -> int:
    store = open_session(args)
    was = store.status(args.sound_id)
    if was is Status.UNDECIDED:
        print(f"{args.sound_id} was undecided: nothing to clear")
        return 0
    store.clear(args.sound_id)
    was_text = "picked and rejected" if was is Status.CONFLICT else was.value
    print(f"cleared {args.sound_id} (was {was_text})")
    return 0


@guard
def cmd_undo(args: argparse.Namespace) -> int:
    store = open_session(args)
    undo = args.command == "undo"
    if getattr(args, "skip", False):
        entry = store.skip_undo() if undo else store.skip_redo()
        if entry is None:
            raise CliError(f"nothing to {args.command}", status=1)
        print(f"skipped: {entry.sound_id} (no file changed)")
        return 0
    force = getattr(args, "force", False)
    # Compare-and-swap: UndoConflictError (a StoreWriteError) exits non-zero, no change.
    entry = store.undo(force=force) if undo else store.redo(force=force)
    if entry is None:
        raise CliError(f"nothing to {args.command}", status=1)
    state = entry.before if undo else entry.after
    print(f"{args.command}: {entry.sound_id} -> {state['status']}")
    return 0


@guard
def cmd_picks(args: argparse.Namespace) -> int:
    store = open_session(args, touch=False)
    picks = store.picks()
    joined = [(pick, store.candidate(sid)) for sid, pick in sorted(picks.items())]
    if args.json:
        print_json([{**pick.to_dict(), "candidate": cand} for pick, cand in joined])
        return 0
    if not joined:
        print("no picks")
        return 0
    rows = []
    for pick, cand in joined:
        view = Candidate(cand or {})
        duration = f"{view.duration_s:.2f}s" if view.duration_s is not None else "-"
        caption = view.caption or ("(no cached candidate)" if cand is None else "")
        rows.append([pick.sound_id, pick.layer or "-", format_onset(pick.onset), duration, caption])
    print_rows(["SOUND_ID", "LAYER", "ONSET", "LENGTH", "CAPTION"], rows)
    return 0


# ---------------------------------------------------------------------- registration
def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("sessions", parents=[common], help="list sessions")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_sessions)

    verbs = session_verbs(subparsers, common)
    p = verbs.add_parser(
        "create",
        parents=[common],
        help="create a new session; prints its id (exit 1 if the title is taken)",
    )
    p.add_argument("--title", help="a title (also usable as SESSION later)")
    p.set_defaults(func=cmd_create)
    p = verbs.add_parser("show", parents=[common], help="show a session's details")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_show)
    p = verbs.add_parser("rename", parents=[common], help="set a session's title")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("title", metavar="TITLE", help="the new title")
    p.set_defaults(func=cmd_rename)
    p = verbs.add_parser("delete", parents=[common], help="move a session folder to the trash")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("-y", "--yes", action="store_true", help="really delete")
    p.set_defaults(func=cmd_delete)
    p = verbs.add_parser("export", parents=[common], help="export a session to one JSON file")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    p.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    p.set_defaults(func=cmd_export)
    p = verbs.add_parser("import", parents=[common], help="import an exported session")
    p.add_argument("file", metavar="FILE", help="an export file, or - for stdin")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a session with that id (the replaced one goes to the trash)",
    )
    p.add_argument(
        "--as-copy",
        action="store_true",
        help="import under a new id, the title marked (copy), beside the session it came from",
    )
    p.set_defaults(func=cmd_import)

    p = subparsers.add_parser(
        "add", parents=[common], help="add audio files/folders or JSON(L) candidates"
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        help="an audio file, a folder of them (walked) or a .json/.jsonl file of candidates",
    )
    p.add_argument("--create", action="store_true", help="create SESSION (as a title) if missing")
    p.add_argument(
        "--update",
        action="store_true",
        help="rewrite candidates already in the session with what PATH gives now "
        "(default: leave them as they are)",
    )
    p.set_defaults(func=cmd_add)

    p = subparsers.add_parser("pick", parents=[common], help="pick a sound")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("sound_id", metavar="SOUND_ID", help="the candidate's sound id")
    p.add_argument("--layer", choices=[*LAYERS, "none"], help="mix layer")
    p.add_argument(
        "--onset",
        metavar="S",
        help="onset: seconds, m:ss.s or an anchor such as \"on 'slammed'\" ('none' to unset)",
    )
    p.add_argument(
        "--in",
        dest="in_point",
        metavar="S",
        help="region in point: seconds into the sound or m:ss.s ('none' clears); the pick "
        "places that part of the sound at its onset (the woven mix plays it whole)",
    )
    p.add_argument(
        "--out", dest="out_point", metavar="S", help="region out point (same syntax; 'none' clears)"
    )
    p.add_argument("--force", action="store_true", help="allow an id with no cached candidate")
    p.set_defaults(func=cmd_pick)

    p = subparsers.add_parser("reject", parents=[common], help="reject a sound")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("sound_id", metavar="SOUND_ID", help="the candidate's sound id")
    p.add_argument("--reason", help="why (fed to the agent's refine)")
    p.add_argument("--force", action="store_true", help="allow an id with no cached candidate")
    p.set_defaults(func=cmd_reject)

    p = subparsers.add_parser("clear", parents=[common], help="remove a pick or reject")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("sound_id", metavar="SOUND_ID", help="the candidate's sound id")
    p.set_defaults(func=cmd_clear)

    p = subparsers.add_parser("picks", parents=[common], help="list picks with their candidates")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_picks)

    for verb in ("undo", "redo"):
        p = subparsers.add_parser(verb, parents=[common], help=f"{verb} the last decision")
        p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
        how = p.add_mutually_exclusive_group()
        how.add_argument(
            "--force",
            action="store_true",
            help=f"{verb} even if the sound changed outside foley-tui since",
        )
        how.add_argument(
            "--skip",
            action="store_true",
            help=f"step past the decision {verb} would apply, changing no file",
        )
        p.set_defaults(func=cmd_undo)
