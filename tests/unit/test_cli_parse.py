"""The command line's two parsers: the one of the verb's own module (fast start) and the
whole one. Whatever the first cannot take goes to the second, so both read every command
line the same way."""

from __future__ import annotations

import argparse

import pytest

from foley_tui.cli import (
    COMMAND_MODULES,
    VERB_MODULES,
    build_parser,
    main,
    parse_command_line,
    verb_of,
)
from foley_tui.cli.reference import verbs


def _whole(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def _verbs(parser: argparse.ArgumentParser) -> set[str]:
    return {verb.words[0] for verb in verbs(parser)}


def _plain(args: argparse.Namespace) -> dict[str, object]:
    return {k: v for k, v in vars(args).items() if k != "func"}


@pytest.mark.parametrize(
    "argv",
    [
        ["open", "S"],
        ["open", "S", "--no-audio", "--device", "2"],
        ["--data-dir", "/tmp/d", "open", "S"],
        ["--store", "file", "--exact", "open", "S", "--narration", "n.wav"],
        ["--device", "open", "resume"],  # "open" is --device's value: the verb is resume
        ["resume"],
        ["demo", "--no-audio"],
        ["--no-audio"],
        [],
    ],
)
def test_the_app_verbs_parser_reads_its_command_lines_as_the_whole_parser(
    argv: list[str],
) -> None:
    parser, args = parse_command_line(argv)
    assert _plain(args) == _plain(_whole(argv))
    # Only the app verbs were built: the other verbs are not in this parser.
    assert "sessions" not in _verbs(parser)


@pytest.mark.parametrize(
    "argv",
    [
        ["undo", "S"],
        ["--data-dir", "/tmp/d", "undo", "S", "--force"],
        ["pick", "S", "a:1", "--layer", "sfx_fg", "--onset", "2.5"],
        ["sessions", "--json"],
        ["candidates", "S", "--json"],
        ["play", "x.wav", "--volume", "-40"],
        ["render-scene", "S", "-o", "out.wav"],
    ],
)
def test_a_verb_is_read_by_its_own_modules_parser_as_by_the_whole_one(argv: list[str]) -> None:
    parser, args = parse_command_line(argv)
    assert _plain(args) == _plain(_whole(argv))
    verb = verb_of(argv)
    assert verb is not None
    # Only that module's verbs were built.
    assert _verbs(parser) == _verbs(build_parser((VERB_MODULES[verb],)))
    assert _verbs(parser) != _verbs(build_parser())


def test_the_verb_table_names_each_verb_of_one_module_by_its_module() -> None:
    """Every verb one module alone registers is in the table, by that module; a verb
    several modules add to (``session``) is not: the whole parser reads it."""
    owners: dict[str, set[str]] = {}
    for module in COMMAND_MODULES:
        for verb in _verbs(build_parser((module,))):
            owners.setdefault(verb, set()).add(module)
    single = {verb: next(iter(mods)) for verb, mods in owners.items() if len(mods) == 1}
    assert single == VERB_MODULES
    assert "session" in owners and "session" not in VERB_MODULES


@pytest.mark.parametrize(
    "argv",
    [
        ["--data", "/tmp/d", "sessions"],  # an abbreviated option: the whole parser
        ["--data", "open", "sessions"],  # "open" is the value of an abbreviated --data-dir
        ["session", "show", "S"],
    ],
)
def test_any_other_command_line_goes_to_the_whole_parser(argv: list[str]) -> None:
    parser, args = parse_command_line(argv)
    assert _plain(args) == _plain(_whole(argv))
    assert "sessions" in _verbs(parser)


def test_verb_of_skips_options_and_their_values() -> None:
    assert verb_of(["--data-dir", "open", "sessions"]) == "sessions"
    assert verb_of(["--no-audio", "open", "S"]) == "open"
    assert verb_of(["--no-audio"]) == "resume"  # none given: the default verb
    assert verb_of(["open", "--help"]) is None  # help and version: the whole parser
    assert verb_of(["--version"]) is None


def test_errors_and_help_are_the_whole_parsers(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["open", "S", "--bogus"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["undo", "S", "--bogus"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    assert "sessions" in shown and "open" in shown  # help lists every verb


def test_the_verbs_do_not_depend_on_the_order_their_modules_register_in() -> None:
    """Several modules add ``session`` verbs; whichever registers first makes the group."""

    def words(modules: tuple[str, ...]) -> set[tuple[str, ...]]:
        return {verb.words for verb in verbs(build_parser(modules))}

    forward = words(COMMAND_MODULES)
    assert ("session", "tell") in forward and ("session", "push") in forward
    assert ("session", "narration") in forward and ("session", "create") in forward
    assert words(tuple(reversed(COMMAND_MODULES))) == forward
