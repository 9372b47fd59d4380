"""The ``foley-tui`` command line.

Each group of verbs lives in its own module exposing ``register(subparsers, common)``;
every verb gets the common options (``--data-dir``, ``--exact``) and sets
``func(args) -> int``. What verbs share (the one data-dir resolver, the one session
resolver, the error guard) is in :mod:`foley_tui.cli.common`. Bad input gets a one-line
error on stderr and a non-zero exit, never a traceback.

The app's own flags (``--device``, ``--no-audio``) work on ``foley-tui`` alone (which runs
``resume``) as well as on the verbs that open the app.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from foley_tui import __version__
from foley_tui.cli.common import (
    CliError,
    add_app_options,
    looks_like_folder,
    show_password_warning_on_one_line,
)
from foley_tui.startup import pause_gc, resume_gc
from foley_tui.terminal import escaping_streams

# Modules that add verbs; each has ``register(subparsers, common)``.
COMMAND_MODULES: tuple[str, ...] = (
    "foley_tui.cli.audio",
    "foley_tui.cli.store",
    "foley_tui.cli.candidates",
    "foley_tui.cli.similar",
    "foley_tui.cli.marks",
    "foley_tui.cli.scene",
    "foley_tui.cli.spot",
    "foley_tui.cli.app",
    "foley_tui.cli.demo",
    "foley_tui.cli.messages",
    "foley_tui.cli.redis",
)

# The verb run when none is given (``foley-tui`` alone), or None to print help.
DEFAULT_VERB: str | None = "resume"

# The verb each module registers alone, by that module (``session`` is shared by several
# and is read by the whole parser). A command line of one of these verbs is parsed by a
# parser of that module's verbs alone: building every verb imports every verb's
# dependencies, which is most of a one-shot command's start (``undo``, ``pick``) and of
# the app's. Anything that parser cannot take (another verb, an abbreviated option, an
# error, ``--help``) goes to the whole parser. A test keeps this table and the modules'
# ``register`` in step.
VERB_MODULES: dict[str, str] = {
    "open": "foley_tui.cli.app",
    "resume": "foley_tui.cli.demo",
    "demo": "foley_tui.cli.demo",
    "devices": "foley_tui.cli.audio",
    "play": "foley_tui.cli.audio",
    "candidates": "foley_tui.cli.candidates",
    "similar": "foley_tui.cli.similar",
    "rate": "foley_tui.cli.marks",
    "hide": "foley_tui.cli.marks",
    "scene": "foley_tui.cli.scene",
    "weave": "foley_tui.cli.scene",
    "play-scene": "foley_tui.cli.scene",
    "render-scene": "foley_tui.cli.scene",
    "spot": "foley_tui.cli.spot",
    "sessions": "foley_tui.cli.store",
    "add": "foley_tui.cli.store",
    "pick": "foley_tui.cli.store",
    "reject": "foley_tui.cli.store",
    "clear": "foley_tui.cli.store",
    "picks": "foley_tui.cli.store",
    "undo": "foley_tui.cli.store",
    "redo": "foley_tui.cli.store",
}
# Top-level options that take a value (skipped when looking for the verb).
_VALUED_OPTIONS = frozenset({"--data-dir", "--store", "--device"})


def common_parser(*, for_verbs: bool = False) -> argparse.ArgumentParser:
    """Options every verb takes.

    ``for_verbs``: the copy given to verbs leaves an option unset when it is not on the
    verb's own command line, so ``foley-tui --data-dir X VERB`` keeps X (a verb's ``None``
    default would override the top-level value).
    """
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        metavar="DIR",
        help="foley data dir (default: $FOLEY_DATA_DIR, else ~/.local/share/foley)",
        default=argparse.SUPPRESS if for_verbs else None,
    )
    common.add_argument(
        "--exact",
        action="store_true",
        help="SESSION must be an exact session id (no title or prefix match; for scripts)",
        default=argparse.SUPPRESS if for_verbs else False,
    )
    common.add_argument(
        "--store",
        metavar="URL",
        help="session store: redis://[user@]host:port/db, rediss://... or file "
        "(default: $FOLEY_TUI_STORE, else the file store under the data dir)",
        default=argparse.SUPPRESS if for_verbs else None,
    )
    return common


def build_parser(
    modules: Sequence[str] = COMMAND_MODULES,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    """The command line of the verbs of ``modules`` (all of them unless given)."""
    common = common_parser(for_verbs=True)
    parser = parser_class(
        prog="foley-tui",
        description="Audition, pick and place sound-effect candidates in foley sessions. "
        "Without a COMMAND: resume the most recent session (see `foley-tui resume -h`).",
        parents=[common_parser()],
    )
    add_app_options(parser, for_verbs=False)
    parser.add_argument("--version", action="version", version=f"foley-tui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(subparsers, common)
    return parser


class _NotForThisParser(Exception):
    """One module's parser could not take this command line."""


class _OneModuleParser(argparse.ArgumentParser):
    """Raises instead of printing an error and exiting (see :func:`parse_command_line`)."""

    def error(self, message: str) -> NoReturn:
        raise _NotForThisParser(message)


def verb_of(argv: Sequence[str]) -> str | None:
    """The verb of a command line (the default verb when none is given), or None for a
    command line only the whole parser should read (help, version, ``--``)."""
    if any(token in ("-h", "--help", "--version", "--") for token in argv):
        return None
    tokens = iter(argv)
    for token in tokens:
        if token in _VALUED_OPTIONS:
            next(tokens, None)
        elif not token.startswith("-"):
            return token
    return DEFAULT_VERB


def folder_shorthand(argv: Sequence[str]) -> list[str]:
    """``foley-tui DIR ...`` is ``foley-tui open DIR ...`` when DIR is an existing folder
    written as a path; a verb name is never written so, so verb names always win."""
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _VALUED_OPTIONS:
            i += 2
        elif token.startswith("-"):
            if token in ("-h", "--help", "--version", "--"):
                return tokens
            i += 1
        else:
            if looks_like_folder(token) and os.path.isdir(os.path.expanduser(token)):
                return [*tokens[:i], "open", *tokens[i:]]
            return tokens
    return tokens


def parse_command_line(argv: Sequence[str]) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """(parser, args) for ``argv``: a verb's from the parser of its module alone (see
    :data:`VERB_MODULES`) when that parser takes it whole, else from the whole parser."""
    verb = verb_of(argv)
    module = VERB_MODULES.get(verb) if verb is not None else None
    if module is not None:
        parser = build_parser((module,), _OneModuleParser)
        try:
            args = parser.parse_args(argv)
        except _NotForThisParser:
            pass
        else:
            if args.command in (verb, None):
                return parser, args
    parser = build_parser()
    return parser, parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    # Building the parser imports verb modules and their dependencies: without the
    # collector (see foley_tui.startup); the verb itself runs with it (the app pauses it
    # again to start).
    pause_gc()
    show_password_warning_on_one_line()
    try:
        argv = folder_shorthand(argv if argv is not None else sys.argv[1:])
        parser, args = parse_command_line(argv)
        func = getattr(args, "func", None)
        if func is None:
            if DEFAULT_VERB is None:
                parser.print_help()
                return 0
            parser, args = parse_command_line([*argv, DEFAULT_VERB])
            func = args.func
    finally:
        resume_gc()
    # Everything a verb prints passes through escape_controls: an imported title or id
    # must not retitle or clear the user's terminal. (The TUI draws on sys.__stderr__.)
    try:
        with escaping_streams():
            try:
                return int(func(args) or 0)
            except CliError as exc:
                print(f"foley-tui: error: {exc}", file=sys.stderr)
                return exc.status
            except KeyboardInterrupt:
                return 130
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """The end of a pipe stopped reading (``foley-tui candidates S | head``): end quietly,
    as Unix tools do, with SIGPIPE's exit status. What is still buffered for stdout goes
    nowhere, so flushing it at exit raises nothing either."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 128 + signal.SIGPIPE


if __name__ == "__main__":
    raise SystemExit(main())
