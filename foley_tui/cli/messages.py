"""The conversation and ledger verbs: ``session tell``, ``session history``,
``session messages`` and ``session usage``, and the usage and generation cost
``session show`` reports.

The verbs join the ``session`` group (:func:`foley_tui.cli.common.session_verbs`);
:mod:`foley_tui.cli.store` calls :func:`show_extras` for ``session show``. Headless: never
imports textual.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from foley_tui.cli.common import (
    SESSION_HELP,
    CliError,
    guard,
    print_json,
    service_of,
    session_verbs,
)
from foley_tui.domain import ValidationError
from foley_tui.store import SessionService
from foley_tui.store.history import DEFAULT_WINDOW
from foley_tui.store.messages import ROLES, Message
from foley_tui.store.usage import format_usd
from foley_tui.terminal import escape_line


def _metadata(args: argparse.Namespace) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if args.meta is not None:
        try:
            value = json.loads(args.meta)
        except ValueError as exc:
            raise CliError(f"--meta is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise CliError('--meta must be a JSON object, like \'{"query": "door"}\'')
        metadata.update(value)
    if args.sound is not None:
        metadata["sound_id"] = args.sound
    return metadata


@guard
def cmd_tell(args: argparse.Namespace) -> int:
    service = service_of(args)
    session_id = service.resolve(args.session)
    text = sys.stdin.read() if args.text == "-" else args.text
    metadata = _metadata(args)
    sound_id = metadata.get("sound_id")
    if isinstance(sound_id, str) and sound_id and not args.force:
        store = service.get(session_id, touch=False)
        if store.candidate(sound_id) is None:
            raise CliError(
                f"no candidate {sound_id!r} in session {session_id} "
                "(use --force to attach the message anyway)"
            )
    message = service.append_message(session_id, args.role, text, metadata)
    print(message.id)
    return 0


def _message_line(message: Message) -> str:
    when = message.at.strftime("%Y-%m-%d %H:%M:%SZ")
    about = f" (on {escape_line(message.sound_id)})" if message.sound_id else ""
    return (
        f"#{message.seq:<4} {when}  {escape_line(message.author)} [{message.role}]{about} "
        f"{escape_line(message.content)}"
    )


@guard
def cmd_history(args: argparse.Namespace) -> int:
    if args.n < 0:
        raise CliError("-n must not be negative")
    service = service_of(args)
    items = service.history_window(service.resolve(args.session), args.n)
    if args.json:
        print_json([item.to_json() for item in items])
    elif not items:
        print("no messages or decisions yet")
    for item in items if not args.json else ():
        print(item.line())
    return 0


@guard
def cmd_messages(args: argparse.Namespace) -> int:
    service = service_of(args)
    messages = [
        m
        for m in service.messages(service.resolve(args.session))
        if m.seq > args.since
        and (args.role is None or m.role == args.role)
        and (args.sound is None or m.sound_id == args.sound)
    ]
    if args.json:
        print_json([m.to_record() for m in messages])
        return 0
    for message in messages:
        print(_message_line(message))
    return 0


def _usage_json(service: SessionService, session_id: str) -> dict[str, Any]:
    usage = service.usage(session_id)
    return {"session_id": session_id, **usage.to_json()}


def _usage_lines(service: SessionService, session_id: str) -> list[str]:
    usage = service.usage(session_id)
    return [
        f"input tokens:  {usage.input_tokens:,}",
        f"output tokens: {usage.output_tokens:,}",
        f"agent spend:   {format_usd(usage.cost_micro_usd)}",
    ]


@guard
def cmd_usage(args: argparse.Namespace) -> int:
    service = service_of(args)
    session_id = service.resolve(args.session)
    amounts = (args.input_tokens, args.output_tokens, args.cost)
    if any(a is not None for a in amounts):
        service.update_token_usage(
            session_id,
            args.input_tokens or 0,
            args.output_tokens or 0,
            args.cost if args.cost is not None else 0,
        )
    if args.json:
        print_json(_usage_json(service, session_id))
        return 0
    for line in _usage_lines(service, session_id):
        print(line)
    return 0


def show_extras(service: SessionService, session_id: str) -> tuple[dict[str, Any], list[str]]:
    """What ``session show`` adds: the agent's usage and the candidates' generation cost
    (actual and estimated kept apart), in total and per event (``event.query``)."""
    usage = service.usage(session_id)
    total, events = service.generation_cost(session_id)
    doc = {
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cost_usd": usage.cost_usd,
        },
        "generation_cost": {
            **total.to_json(),
            "events": [
                {"event": event, **cost.to_json()}
                for event, cost in sorted(events.items(), key=lambda kv: (kv[0] is None, kv[0]))
            ],
        },
    }
    lines = [
        f"tokens:    {usage.input_tokens:,} in, {usage.output_tokens:,} out",
        f"spend:     {format_usd(usage.cost_micro_usd)} agent, "
        f"{format_usd(total.actual_micro_usd)} generation "
        f"(+ {format_usd(total.estimate_micro_usd)} estimated)",
    ]
    return doc, lines


def _count(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text}")
    return value


def _usd(text: str) -> str:
    from foley_tui.store.usage import usd_to_micro

    try:
        usd_to_micro(text.removeprefix("$"))
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text.removeprefix("$")


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    verbs = session_verbs(subparsers, common)
    p = verbs.add_parser(
        "tell", parents=[common], help="add a message to the session's conversation"
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("text", metavar="TEXT", help="the message (- reads it from stdin)")
    p.add_argument("--role", choices=ROLES, default="user", help="who speaks (default: user)")
    p.add_argument("--sound", metavar="SOUND_ID", help="attach the message to a candidate")
    p.add_argument("--meta", metavar="JSON", help="metadata, a JSON object")
    p.add_argument("--force", action="store_true", help="allow a --sound with no candidate")
    p.set_defaults(func=cmd_tell)

    p = verbs.add_parser(
        "history", parents=[common], help="the last messages and decisions, newest last"
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("-n", type=int, default=DEFAULT_WINDOW, help="how many (default: 20)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_history)

    p = verbs.add_parser("messages", parents=[common], help="the session's messages")
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("--since", type=int, default=0, metavar="SEQ", help="only after this seq")
    p.add_argument("--role", choices=ROLES, help="only this role's messages")
    p.add_argument("--sound", metavar="SOUND_ID", help="only messages on this candidate")
    p.add_argument("--json", action="store_true", help="print JSON (one object per message)")
    p.set_defaults(func=cmd_messages)

    p = verbs.add_parser(
        "usage", parents=[common], help="add to or print the session's token usage and spend"
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("--input-tokens", type=_count, metavar="N", help="add N input tokens")
    p.add_argument("--output-tokens", type=_count, metavar="N", help="add N output tokens")
    p.add_argument("--cost", type=_usd, metavar="USD", help="add this spend, in dollars")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_usage)
