"""The ``open`` verb: launch the audition screen on a session or a library folder.

``foley-tui open SESSION [--device D] [--no-audio]``; SESSION is an id, a title or a
unique id prefix (the one resolver, :func:`foley_tui.cli.common.resolve_session`);
without it, the most recently used session. ``foley-tui open DIR [--session S]``
auditions a folder tree in place (``foley-tui DIR`` too): an argument is a folder when it
is an existing directory written as a path (with a ``/``, or starting with ``.`` or
``~``); one that names both a folder and a session is refused with how to choose. The
folder's decisions go to its own session (made on first open) or to ``--session S``.
The config file is read (and validated) before the terminal is taken over, so a bad key
or setting is a one-line error, not a broken screen.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import Player
from foley_tui.audio.deferred import DeferredPlayer
from foley_tui.cli.common import (
    CliError,
    add_app_options,
    looks_like_folder,
    resolve_session,
    service_of,
)
from foley_tui.config import Config, ConfigError, load_config
from foley_tui.startup import pause_gc, resume_gc

#: How long the app's exit waits for a device still opening (then it leaves without the
#: interpreter's teardown, which would crash on a thread inside PortAudio).
DEVICE_EXIT_WAIT_S = 5.0

if TYPE_CHECKING:
    from foley_tui.library.source import FolderSource
    from foley_tui.scene.narration import Narration


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser(
        "open",
        parents=[common],
        help="audition a session (id, id prefix or title)",
        description="Open a session in the audition screen.",
    )
    parser.add_argument(
        "session",
        nargs="?",
        metavar="SESSION|DIR",
        help="session id, title or unique id prefix (default: the most recent session), "
        "or a folder of sounds written as a path (./sfx, ~/sounds, /data/sfx)",
    )
    parser.add_argument(
        "--folder", metavar="DIR", help="audition this folder (however its name is written)"
    )
    parser.add_argument(
        "--session",
        dest="into",
        metavar="S",
        help="with a folder: put its decisions in session S (default: the folder's own)",
    )
    add_app_options(parser)
    parser.add_argument(
        "--narration", metavar="FILE", help="use this narration for this run (not stored)"
    )
    parser.add_argument("--words", metavar="WORDS.json", help="its word timeline (foley aligner)")
    parser.set_defaults(func=run_open)


def load_app_config() -> Config:
    """The user's config, with keymap ids checked against the app's bindings."""
    try:
        return load_config()
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def make_app_player(device: str | None, no_audio: bool) -> DeferredPlayer:
    """The real player on ``device``, a silent one with ``--no-audio`` (or no device);
    built in the background once the app has painted (see :class:`DeferredPlayer`)."""

    def build() -> Player:
        from foley_tui.audio.player import NullPlayer, make_player

        if no_audio:
            return NullPlayer("disabled with --no-audio")
        return make_player(device)

    return DeferredPlayer(build)


def launch(
    session_id: str,
    *,
    data: Any = None,
    device: str | None = None,
    no_audio: bool = False,
    narration: Narration | None = None,
    service: Any = None,
    library: FolderSource | None = None,
) -> int:
    """Run the app on ``session_id`` until the user quits (also used by other verbs).
    ``service``: the session service to use (a Redis one), else the file store on ``data``.
    ``library``: the folder the session auditions (else the one recorded for it, if any)."""
    # Until the first frame is on screen (the app resumes it then), or until the run ends.
    pause_gc()
    try:
        return _launch(session_id, data, device, no_audio, narration, service, library)
    finally:
        resume_gc()


def _launch(
    session_id: str,
    data: Any,
    device: str | None,
    no_audio: bool,
    narration: Narration | None,
    service: Any,
    library: FolderSource | None,
) -> int:
    from foley_tui.audition.opening import OpeningRead
    from foley_tui.library.resume import folder_source
    from foley_tui.store import SessionService, SessionServiceError

    config = load_app_config()
    if service is None:
        service = SessionService(data)
    try:
        # Not recorded as opened here: the opening thread does it (a session foley made
        # and we never opened has no state folder yet, and making one waits for the
        # disk), off the thread that starts the app.
        store = service.get(session_id, touch=False)
    except (SessionServiceError, OSError) as exc:  # OSError: a store server unreachable
        raise CliError(str(exc)) from None
    # The session's first screen is read in a thread from here, while Textual and the app
    # are imported (a tenth of a second of Python): it is in when the screen mounts.
    opening = OpeningRead(store)
    if library is None and service.data_dir is not None:
        library = folder_source(service.data_dir, session_id)  # a folder's, resumed
    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.terminal import library_stderr_to_log

    player = make_app_player(device, no_audio)
    # libmpg123/ALSA/PortAudio write to fd 2, the terminal the TUI paints: send fd 2 to
    # a log for the run (app.stderr_log), Textual keeps a private copy of the terminal.
    with library_stderr_to_log() as log:
        app = FoleyApp(
            store,
            player,
            config,
            service,
            audio_notice=not no_audio,
            opening=opening,
            library=library,
        )
        app.narration = narration
        app.stderr_log = log
        try:
            app.run()
        finally:
            app.cancel_forced_exit()  # the shutdown finished: no need to force it
    # The app may leave before the device is open (end of input, a signal at once): the
    # interpreter's exit terminates PortAudio (sounddevice's atexit hook), which crashes
    # it if the opening thread is still inside PortAudio. Wait for that thread, bounded;
    # past the bound, leave without the interpreter's teardown.
    stuck = not player.finish(DEVICE_EXIT_WAIT_S)
    for note in app.exit_notes:  # what could not be saved as the app quit
        with contextlib.suppress(OSError, ValueError):
            print(f"foley-tui: {note}", file=sys.stderr)
    if app.left_because is not None:
        # Usually nobody reads this (the terminal is gone), but stdin at its end (< file)
        # or a SIGTERM from a script deserves a word; a dead terminal refuses the write.
        with contextlib.suppress(OSError, ValueError):
            print(f"foley-tui: left: {app.left_because}", file=sys.stderr)
    code = app.return_code or 0
    if stuck:
        with contextlib.suppress(OSError, ValueError):
            print("foley-tui: the audio device did not finish opening", file=sys.stderr)
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
    return code


def run_open(args: argparse.Namespace) -> int:
    from foley_tui.store import SessionServiceError

    service = service_of(args)
    folder = _folder_of(args, service)
    if folder is not None:
        return _open_folder(args, service, folder)
    if args.into is not None:
        raise CliError("--session goes with a folder: foley-tui open DIR --session S")
    ref = args.session
    if ref is None:
        try:
            ref = service.most_recent()
        except (SessionServiceError, OSError) as exc:  # OSError: a store server unreachable
            raise CliError(str(exc)) from None
        if ref is None:
            raise CliError("no session yet: give SESSION, or run `foley-tui demo`")
    session_id = resolve_session(service, ref)
    return launch(
        session_id,
        data=service.data_dir,
        device=args.device,
        no_audio=args.no_audio,
        service=service,
        narration=_narration_for_run(args),
    )


def _folder_of(args: argparse.Namespace, service: Any) -> Path | None:
    """The folder ``open`` was given, or None for a session (see the module docstring)."""
    from foley_tui.store import SessionServiceError

    ref = args.session
    if args.folder is not None:
        if ref is not None:
            raise CliError("give a folder or a session, not both")
        path = Path(args.folder).expanduser()
        if not path.is_dir():
            raise CliError(f"no such folder: {args.folder}")
        return path
    if ref is None or not looks_like_folder(ref):
        return None
    path = Path(ref).expanduser()
    try:
        session_id: str | None = service.resolve(ref, exact=getattr(args, "exact", False))
    except (SessionServiceError, OSError):
        session_id = None
    if not path.is_dir():
        if session_id is None:
            raise CliError(f"no such folder or session: {ref}")
        return None
    if session_id is not None:
        raise CliError(
            f"{ref!r} names both a folder and session {session_id}: open the folder with "
            f"`foley-tui open --folder {ref}`, the session with "
            f"`foley-tui open --exact {session_id}`"
        )
    return path


def _open_folder(args: argparse.Namespace, service: Any, folder: Path) -> int:
    from foley_tui.library.folder import folder_session
    from foley_tui.library.source import FolderSource

    into = resolve_session(service, args.into) if args.into is not None else None
    try:
        session_id = folder_session(service, folder, into)
    except OSError as exc:
        raise CliError(f"cannot record the folder in the data dir: {exc.strerror or exc}") from None
    return launch(
        session_id,
        data=service.data_dir,
        device=args.device,
        no_audio=args.no_audio,
        service=service,
        narration=_narration_for_run(args),
        library=FolderSource(folder, session_id),
    )


def _narration_for_run(args: argparse.Namespace) -> Narration | None:
    """``--narration FILE [--words W]``: checked before the app starts, never stored."""
    from foley_tui.scene.narration import NarrationError, make_narration

    if args.narration is None:
        if args.words is not None:
            raise CliError("--words needs --narration")
        return None
    try:
        return make_narration(Path(args.narration), Path(args.words) if args.words else None)
    except NarrationError as exc:
        raise CliError(str(exc)) from None
