"""What every verb of the command line shares: ONE data-dir resolver, ONE session
resolver, the error guard and JSON output.

- :func:`data_dir_of`: ``--data-dir``, else ``$FOLEY_DATA_DIR``, else foley's default
  (:func:`foley_tui.paths.data_dir`); every verb, ``play`` and the app included.
- :func:`service_of` / :func:`resolve_session` / :func:`open_session`: a SESSION argument is
  an exact id (always wins, spaces and nested ``proj/scene1`` ids included), else an exact
  title (case-insensitive), else a unique id prefix (``SessionService.resolve``); with
  ``--exact`` only an exact id.

Headless: never imports textual.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import math
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from foley_tui import paths
from foley_tui.domain import ValidationError
from foley_tui.store import (
    SessionNotFoundError,
    SessionService,
    SessionServiceError,
    SessionStore,
    StoreWriteError,
    open_service,
)

Handler = Callable[[argparse.Namespace], int]


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2 unless given."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def show_password_warning_on_one_line() -> None:
    """Show our :class:`PasswordInURLWarning` as one ``foley-tui: warning:`` line; every
    other warning keeps Python's own display. Installed by ``main`` for every verb (any
    verb may be given ``--store URL``). (By name: importing the Redis client here would
    slow the start of every command.)"""
    previous = warnings.showwarning
    if getattr(previous, "_foley_tui", False):
        return

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        if category.__name__ == "PasswordInURLWarning":
            print(f"foley-tui: warning: {message}", file=file or sys.stderr)
        else:
            previous(message, category, filename, lineno, file, line)

    show._foley_tui = True  # type: ignore[attr-defined]
    warnings.showwarning = show


def add_app_options(parser: argparse.ArgumentParser, *, for_verbs: bool = True) -> None:
    """``--device`` and ``--no-audio``: on ``foley-tui`` itself and on every verb that opens
    the app (a verb's copy leaves them unset unless given, like :func:`common_parser`)."""
    parser.add_argument(
        "--device",
        metavar="D",
        help="audio output device: index or name (see `foley-tui devices`)",
        default=argparse.SUPPRESS if for_verbs else None,
    )
    parser.add_argument(
        "--no-audio",
        action="store_true",
        help="do not open an audio device (silent player, no notice)",
        default=argparse.SUPPRESS if for_verbs else False,
    )


def data_dir_of(args: argparse.Namespace) -> Path:
    """The foley data dir this command works on."""
    return paths.data_dir(getattr(args, "data_dir", None))


def service_of(args: argparse.Namespace) -> SessionService:
    """The session service on :func:`data_dir_of`; with ``--exact`` its ``resolve`` takes
    exact ids only, whichever verb calls it."""
    store = getattr(args, "store", None)
    service = open_service(store, data_dir_of(args), timeout_s=store_timeout_s(store))
    service.exact_refs = bool(getattr(args, "exact", False))
    report_recovered(service.recovered)  # leftovers of an earlier crash, cleaned up now
    return service


def store_timeout_s(store: str | None) -> float | None:
    """The ``store_timeout_s`` setting when ``store`` (or ``$FOLEY_TUI_STORE``) is a shared
    store (the file store has no deadline to set: the config is not read for it)."""
    from foley_tui.store import store_url

    if store_url(store).split(":", 1)[0].lower() not in ("redis", "rediss"):
        return None
    from foley_tui.config import ConfigError, load_config

    try:
        return load_config().settings.store_timeout_s
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def report_recovered(lines: list[str]) -> None:
    """One stderr line per leftover of an earlier crash that was cleaned up."""
    for line in lines:
        print(f"foley-tui: {line}", file=sys.stderr)


def looks_like_folder(ref: str) -> bool:
    """Whether a command-line argument is written as a path (``./sfx``, ``~/sounds``,
    ``/data/sfx``, ``sounds/doors``) rather than as a verb or a session id."""
    return "/" in ref or ref.startswith((".", "~"))


def resolve_session(service: SessionService, ref: str) -> str:
    """A SESSION argument -> the session id (see the module docstring)."""
    try:
        return service.resolve(ref)
    except SessionNotFoundError as exc:
        raise CliError(f"{exc}{_did_you_mean(service, ref)}") from None
    except (SessionServiceError, OSError) as exc:  # OSError: a store server unreachable
        raise CliError(str(exc)) from None


def _did_you_mean(service: SessionService, ref: str) -> str:
    """`` (did you mean 'Demo: a stormy night'?)`` for a SESSION that names no session:
    the titles and ids that contain it, else the ones spelled closest."""
    try:
        infos = service.list()
    except (SessionServiceError, OSError):
        return ""
    names = [name for info in infos for name in (info.title, info.session_id) if name]
    wanted = ref.strip().casefold()
    if not wanted:
        return ""
    found = [name for name in names if wanted in name.casefold()]
    if not found:
        folded = {name.casefold(): name for name in names}
        close = difflib.get_close_matches(wanted, list(folded), n=3, cutoff=0.6)
        found = [folded[name] for name in close]
    if not found:
        return ""
    return f" (did you mean {' or '.join(repr(name) for name in dict.fromkeys(found[:3]))}?)"


def open_session(
    args: argparse.Namespace, ref: str | None = None, *, touch: bool = True
) -> SessionStore:
    """The store of SESSION (``ref``, else ``args.session``). ``touch=False`` for verbs
    that only look (they do not make it the most recent session)."""
    service = service_of(args)
    session_id = resolve_session(service, ref if ref is not None else args.session)
    try:
        return service.get(session_id, touch=touch)
    except SessionServiceError as exc:
        raise CliError(str(exc)) from None


def guard(func: Handler) -> Handler:
    """Turn store errors into one-line CLI errors (never a traceback)."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except (SessionServiceError, ValidationError, StoreWriteError) as exc:
            raise CliError(str(exc)) from None
        except BrokenPipeError:
            raise  # the reader went away (``| head``): not an error, see cli.main
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise CliError(f"{exc.strerror or exc}{where}") from None

    return wrapper


SESSION_HELP = "id, unique id prefix or title"
"""What every SESSION argument takes (docs/scripting.md says how it is resolved)."""


def session_verbs(subparsers: Any, common: argparse.ArgumentParser) -> Any:
    """The sub-verbs of the ``session`` group (``session create``, ``session tell``, ...),
    made by whichever verb module registers first: every module that adds session verbs
    asks for it here, so the order of registration does not matter."""
    group = subparsers.choices.get("session")
    if group is None:
        group = subparsers.add_parser("session", parents=[common], help="manage one session")
        return group.add_subparsers(dest="session_command", metavar="VERB", required=True)
    return next(a for a in group._actions if isinstance(a, argparse._SubParsersAction))


def time_arg(text: str) -> float:
    """A time given on the command line (an argparse ``type``): seconds or [h:]m:ss.sss."""
    try:
        parts = [float(p) for p in text.strip().split(":")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a time: {text!r} (seconds or m:ss.sss)") from None
    if not parts or len(parts) > 3 or any(not math.isfinite(p) or p < 0 for p in parts):
        raise argparse.ArgumentTypeError(f"not a time: {text!r} (seconds or m:ss.sss)")
    total = 0.0
    for part in parts:
        total = total * 60 + part
    return total


def print_rows(header: list[str], rows: list[list[str]]) -> None:
    """Tab-separated lines, as scripts read them; on a terminal (a person reading) the
    same cells in aligned columns under a header line, as ``sessions`` prints them.

    The last column is never padded (a caption runs to the end of the line)."""
    if not sys.stdout.isatty():
        for row in rows:
            print("\t".join(row))
        return
    from rich.cells import cell_len

    widths = [max(cell_len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    for row in [header, *rows]:
        cells = [
            cell + " " * (width - cell_len(cell)) for cell, width in zip(row, widths, strict=True)
        ]
        print("  ".join([*cells[:-1], row[-1]]))


def print_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


__all__ = [
    "SESSION_HELP",
    "CliError",
    "Handler",
    "add_app_options",
    "data_dir_of",
    "guard",
    "open_session",
    "print_json",
    "print_rows",
    "resolve_session",
    "service_of",
    "session_verbs",
]
