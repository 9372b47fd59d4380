"""``foley-tui session push|pull SESSION URL``: copy a session between files and Redis.

``push`` copies a session of the file store (``--data-dir``) to the Redis store at URL;
``pull`` copies it back into the file store. Both are byte for byte and checksummed;
``--with-audio`` also copies the audio blobs the session plays (never audio whose licence
forbids caching it: those are listed). The password comes from
``$FOLEY_TUI_REDIS_PASSWORD`` or a password file, never from the command line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from foley_tui.cli.common import SESSION_HELP, CliError, session_verbs


def _run(args: argparse.Namespace, direction: str) -> int:
    from foley_tui.audio.resolve import local_file
    from foley_tui.store import SessionService, SessionServiceError, StoreWriteError
    from foley_tui.store.redis.conn import is_redis_url, redact
    from foley_tui.store.redis.service import RedisSessionService
    from foley_tui.store.redis.transfer import pull, push

    if not is_redis_url(args.url):
        raise CliError(f"not a Redis URL: {redact(args.url)} (redis://host:port/db or rediss://)")
    files = SessionService(args.data_dir) if args.data_dir else SessionService()
    try:
        remote = RedisSessionService(args.url, data_dir=files.data_dir)
        if direction == "push":
            session_id = files.resolve(args.session)
            report = push(
                files,
                remote,
                session_id,
                audio=local_file if args.with_audio else None,
                overwrite=args.overwrite,
            )
        else:
            session_id = remote.resolve(args.session)
            report = pull(
                remote, files, session_id, with_audio=args.with_audio, overwrite=args.overwrite
            )
    except (SessionServiceError, StoreWriteError) as exc:
        raise CliError(str(exc)) from None
    where = remote.url if direction == "push" else str(files.sessions_dir / session_id)
    counts = ", ".join(f"{n} {name}" for name, n in report.counts.items())
    print(f"{direction}ed {session_id} to {where}: {counts}")
    print(f"checksum {report.checksum} (verified)")
    if args.with_audio:
        print(f"audio: {len(report.audio_copied)} copied, {len(report.audio_skipped)} skipped")
        for sound_id, why in report.audio_skipped:
            print(f"  skipped {sound_id}: {why}", file=sys.stderr)
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    verbs = session_verbs(subparsers, common)
    for direction, help_text in (
        ("push", "copy a file-store session to a Redis store (byte for byte, verified)"),
        ("pull", "copy a session from a Redis store into the file store (verified)"),
    ):
        p = verbs.add_parser(direction, parents=[common], help=help_text)
        p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
        p.add_argument("url", metavar="URL", help="redis://[user@]host:port/db or rediss://...")
        p.add_argument(
            "--with-audio",
            action="store_true",
            help="also copy the audio blobs the session plays (licence permitting)",
        )
        p.add_argument(
            "--overwrite", action="store_true", help="replace the session at the destination"
        )
        p.set_defaults(func=lambda args, d=direction: _run(args, d))
