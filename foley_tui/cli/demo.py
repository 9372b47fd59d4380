"""The ``demo`` and ``resume`` verbs: first run and coming back.

- ``foley-tui demo [--reset]`` builds the bundled demo session in the data dir if it is
  absent (``--reset`` rebuilds it; no other session is ever touched) and opens it.
- ``foley-tui resume`` (also what ``foley-tui`` alone runs) opens the most recently used
  session, or builds and opens the demo when the data dir has no session at all.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from foley_tui.cli.common import CliError, add_app_options, data_dir_of, service_of


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    demo = subparsers.add_parser(
        "demo",
        parents=[common],
        help="open the bundled demo session (built on first use)",
        description="Build the demo session 'Demo: a stormy night' in the data dir if it is "
        "not there yet, then open it. Its sounds are synthesised by the project (CC0).",
    )
    demo.add_argument(
        "--reset",
        action="store_true",
        help="delete the demo session and build it afresh (other sessions are untouched)",
    )
    demo.add_argument("--no-open", action="store_true", help="only build it; print the session id")
    add_app_options(demo)
    demo.set_defaults(func=run_demo)

    resume = subparsers.add_parser(
        "resume",
        parents=[common],
        help="open the most recently used session (the default command)",
        description="Open the session used last; with no session at all, build and open "
        "the demo session.",
    )
    add_app_options(resume)
    resume.set_defaults(func=run_resume)


def _launch(args: argparse.Namespace, session_id: str, data: Path) -> int:
    # Imported here: the app (textual) is only loaded when a screen is really opened.
    from foley_tui.cli.app import launch

    return launch(session_id, data=data, device=args.device, no_audio=args.no_audio)


def _build(data: Path, *, reset: bool) -> str:
    from foley_tui.demo.build import DemoError, build_demo
    from foley_tui.store import SessionServiceError

    try:
        return build_demo(data, reset=reset)
    except (DemoError, SessionServiceError, OSError) as exc:
        raise CliError(f"could not build the demo session: {exc}") from None


def run_demo(args: argparse.Namespace) -> int:
    data = data_dir_of(args)
    session_id = _build(data, reset=args.reset)
    if args.no_open:
        print(session_id)
        return 0
    return _launch(args, session_id, data)


def run_resume(args: argparse.Namespace) -> int:
    from foley_tui.store import SessionServiceError

    data = data_dir_of(args)
    try:
        service = service_of(args)
        session_id = service.most_recent()  # None only when there is no session at all
    except SessionServiceError as exc:
        raise CliError(str(exc)) from None
    if session_id is None:
        session_id = _build(data, reset=False)
    return _launch(args, session_id, data)
