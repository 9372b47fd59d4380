"""``foley-tui spot SESSION -o DIR``: the hand-off bundle for an editor's DAW or NLE.

Every placed pick as a timestamped Broadcast WAV (bext + iXML), a REAPER project, an AAF,
an OpenTimelineIO timeline, a cue sheet, the reference mix, a README and the credits
(:mod:`foley_tui.spot`). Placements are ``foley-tui scene``'s.

Headless: never imports textual.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from foley_tui.cli.common import SESSION_HELP, CliError, guard, open_session, time_arg

#: How a bundle's parts are named on the command line.
FORMAT_HELP = "comma list of bwf,rpp,aaf,otio,csv,mix (default: all; rpp, aaf, otio imply bwf)"


def options_of(args: argparse.Namespace) -> Any:
    """The :class:`~foley_tui.spot.plan.SpotOptions` the flags say."""
    from foley_tui.spot.plan import DEFAULT_RATE, SpotOptions

    if args.float and args.bits is not None:
        raise CliError("give --bits or --float, not both")
    options = SpotOptions(
        rate=args.rate or DEFAULT_RATE,
        bits=args.bits or 24,
        float_=args.float,
        start_tc=args.start_tc,
        fps=args.fps,
        handles_s=args.handles,
        mute=frozenset(args.mute or ()),
        solo=frozenset(args.solo or ()),
        start_s=args.start,
        end_s=args.end,
        layout=args.layout,
        reference=args.reference,
        force=args.force,
        narration=not args.no_narration,
        network=args.network,
    )
    if args.format is not None:
        options = options.with_formats(args.format)
        if options.formats & {"rpp", "aaf", "otio"} and not args.reference:
            options = replace(options, formats=options.formats | {"bwf"})
    return options


@guard
def cmd_spot(args: argparse.Namespace) -> int:
    from foley_tui.scene.build import build_scene
    from foley_tui.spot.bundle import check_target, spot
    from foley_tui.spot.plan import SpotError

    out = Path(args.output).expanduser()
    options = options_of(args)
    try:
        options.check()
        check_target(out.absolute(), options.force)
    except SpotError as exc:
        raise CliError(str(exc)) from None
    store = open_session(args, touch=False)
    model = build_scene(store)
    if model.narration_problem:
        print(f"foley-tui: warning: {model.narration_problem}", file=sys.stderr)
    tty = sys.stderr.isatty()

    def progress(done: int, total: int, what: str) -> None:
        if tty:
            print(f"\r{done}/{total} {what[:50]:<50}", end="", file=sys.stderr, flush=True)

    try:
        result = spot(store, model, out, options, progress=progress)
    except SpotError as exc:
        status = 1 if str(exc).startswith("no placed pick") else 2
        raise CliError(str(exc), status=status) from None
    finally:
        if tty:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr, flush=True)
    for line in result.summary():
        print(line)
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "spot",
        parents=[common],
        help="write the scene as a bundle for an editor: timestamped BWFs, RPP, AAF, OTIO",
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the bundle's folder")
    p.add_argument("--rate", type=int, metavar="HZ", help="sample rate (default 48000)")
    p.add_argument(
        "--bits", type=int, choices=(16, 24), help="bit depth (default 24; 16 is dithered)"
    )
    p.add_argument("--float", action="store_true", help="32-bit float copies")
    p.add_argument(
        "--start-tc",
        default="00:00:00:00",
        metavar="TC",
        help="timecode of the scene's start (default 00:00:00:00)",
    )
    p.add_argument(
        "--fps",
        default="25",
        metavar="FPS",
        help="timecode rate: 23.976, 24, 25, 29.97, 29.97df (drop frame), 30 (default 25)",
    )
    p.add_argument("--format", metavar="LIST", help=FORMAT_HELP)
    p.add_argument(
        "--handles",
        type=time_arg,
        default=0.0,
        metavar="S",
        help="seconds of source kept before and after each clip where it has them",
    )
    p.add_argument("--mute", action="append", metavar="LANE", help="leave a lane out")
    p.add_argument("--solo", action="append", metavar="LANE", help="only these lanes")
    p.add_argument("--from", dest="start", type=time_arg, metavar="S", help="picks from S")
    p.add_argument("--to", dest="end", type=time_arg, metavar="S", help="picks before S")
    p.add_argument(
        "--layout",
        choices=("scene", "sequential"),
        default="scene",
        help="sequential: picks with no onset one after another (default: at 0:00)",
    )
    p.add_argument(
        "--reference", action="store_true", help="point the projects at the originals (no copies)"
    )
    p.add_argument("--no-narration", action="store_true", help="leave the narration out")
    p.add_argument(
        "--network",
        action="store_true",
        help="reach remote (http) sounds: fetched and copied where their licence allows "
        "keeping the bytes, else referenced at their URL",
    )
    p.add_argument("--force", action="store_true", help="replace an existing bundle")
    p.set_defaults(func=cmd_spot)
