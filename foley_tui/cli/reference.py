"""The command-line reference page, ``docs/cli.md``, written from the parser itself.

The page is generated so it cannot fall behind the parser: ``make docs`` writes it
(``python -m foley_tui.cli.reference docs/cli.md``) and a test fails when the page and
:func:`foley_tui.cli.build_parser` disagree. Usage lines are built here rather than by
argparse's formatter, which wraps at the terminal's width: the same parser always gives
the same bytes.

:func:`verbs` is also how code and tests list the verbs. argparse offers no public way to
walk a parser's arguments, so this module is the one place that reads its private
``_actions`` and ``_mutually_exclusive_groups``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from foley_tui.cli import build_parser, common_parser

PROG = "foley-tui"

INTRO = """\
Every verb of `foley-tui`, with its arguments, as `foley-tui VERB --help` prints them.
How a SESSION argument is resolved, the exit statuses, what the listings print and
examples are in [scripting.md](scripting.md); the conversation and ledger verbs are
explained in [conversation.md](conversation.md)."""


@dataclass(frozen=True, slots=True)
class Verb:
    """One verb of the command line: ``("session", "create")`` and the parser that reads it."""

    words: tuple[str, ...]
    summary: str
    """The one line the verb's group lists it with."""
    parser: argparse.ArgumentParser

    @property
    def name(self) -> str:
        return " ".join(self.words)


def _subcommands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield choice.dest, choice.help or "", action.choices[choice.dest]


def verbs(parser: argparse.ArgumentParser | None = None) -> list[Verb]:
    """Every verb that runs something, in the order they are registered; a group such as
    ``session`` is listed by its verbs (``session create``, ...), not by itself."""
    found: list[Verb] = []

    def walk(current: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        for name, summary, sub in _subcommands(current):
            if any(True for _ in _subcommands(sub)):
                walk(sub, (*words, name))
            else:
                found.append(Verb((*words, name), summary, sub))

    walk(parser if parser is not None else build_parser(), ())
    return found


def _arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        action
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction | argparse._HelpAction)
        and action.help != argparse.SUPPRESS
    ]


_COMMON = frozenset(
    option for action in _arguments(common_parser()) for option in action.option_strings
)
"""The options every verb takes (documented once, at the top)."""


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(str(choice) for choice in action.choices) + "}"
    return action.dest.upper()


def _spelling(action: argparse.Action) -> str:
    """How one argument is written: ``SESSION``, ``[FILE]``, ``PATH [PATH ...]``,
    ``--layer {voice,...}``, ``-o FILE, --output FILE``."""
    metavar = _metavar(action)
    if not action.option_strings:
        return {
            "?": f"[{metavar}]",
            "*": f"[{metavar} ...]",
            "+": f"{metavar} [{metavar} ...]",
        }.get(str(action.nargs), metavar)
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    return ", ".join(f"{option} {metavar}" for option in action.option_strings)


def _usage_part(action: argparse.Action) -> str:
    if not action.option_strings:
        return _spelling(action)
    option = action.option_strings[-1]
    shown = option if action.nargs == 0 else f"{option} {_metavar(action)}"
    return shown if action.required else f"[{shown}]"


def usage(words: Sequence[str], parser: argparse.ArgumentParser) -> str:
    """One line: the verb, its options, then its positional arguments."""
    arguments = [a for a in _arguments(parser) if not set(a.option_strings) & _COMMON]
    exclusive = {
        id(action): group._group_actions
        for group in parser._mutually_exclusive_groups
        for action in group._group_actions
    }
    options: list[str] = []
    for action in (a for a in arguments if a.option_strings):
        group = exclusive.get(id(action))
        if group is None:
            options.append(_usage_part(action))
        elif action is group[0]:
            options.append("[" + " | ".join(_usage_part(a).strip("[]") for a in group) + "]")
    positionals = [_usage_part(a) for a in arguments if not a.option_strings]
    return " ".join([PROG, *words, *options, *positionals])


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _argument_table(arguments: Sequence[argparse.Action]) -> list[str]:
    lines = ["| argument | what it does |", "|---|---|"]
    for action in arguments:
        lines.append(f"| `{_cell(_spelling(action))}` | {_cell(action.help or '')} |")
    return lines


def _anchor(title: str) -> str:
    return title.lower().replace(" ", "-")


def _section(verb: Verb) -> list[str]:
    title = f"{PROG} {verb.name}"
    arguments = [a for a in _arguments(verb.parser) if not set(a.option_strings) & _COMMON]
    lines = ["", f"## {title}", "", _sentence(verb.summary)]
    if verb.parser.description:
        lines += ["", verb.parser.description]
    lines += ["", "```", usage(verb.words, verb.parser), "```"]
    if arguments:
        lines += ["", *_argument_table(arguments)]
    return lines


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "." if text else text


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """The whole page, from the parser."""
    parser = parser if parser is not None else build_parser()
    every = verbs(parser)
    own = [a for a in _arguments(parser) if not set(a.option_strings) & _COMMON]
    lines = [
        "<!-- Generated by `make docs` from the argument parser (foley_tui/cli/reference.py): "
        "edit the parser's help, not this page. -->",
        "",
        "# Command-line reference",
        "",
        INTRO,
        "",
        "| verb | what it does |",
        "|---|---|",
        *(
            f"| [`{verb.name}`](#{_anchor(f'{PROG} {verb.name}')}) | {_cell(verb.summary)} |"
            for verb in every
        ),
        "",
        f"## {PROG}",
        "",
        parser.description or "",
        "",
        "```",
        f"{usage((), parser)} [VERB]",
        "```",
        "",
        *_argument_table(own),
        "",
        "## Options every verb takes",
        "",
        "Before or after the verb:",
        "",
        *_argument_table(_arguments(common_parser())),
    ]
    for verb in every:
        lines += _section(verb)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the page to the path given (``docs/cli.md``), or print it."""
    from foley_tui.keys.reference import write_page

    return write_page(render(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
