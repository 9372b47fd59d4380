"""docs/keys.md and docs/cli.md are generated from the key table and the argument parser
(`make docs`): a key, verb or option added, renamed or reworded without regenerating them
fails here."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from foley_tui.cli import build_parser
from foley_tui.cli import reference as cli_reference
from foley_tui.keys import reference as keys_reference
from foley_tui.keys.keymap import KEYS

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(
    ("page", "render"),
    [("keys.md", keys_reference.render), ("cli.md", cli_reference.render)],
)
def test_the_page_is_what_make_docs_writes(page: str, render: Callable[[], str]) -> None:
    assert (DOCS / page).read_text(encoding="utf-8") == render(), (
        f"docs/{page} is out of date: run `make docs`"
    )


def test_the_pages_are_the_same_bytes_in_a_fresh_process(tmp_path: Path) -> None:
    for module, page in (
        ("foley_tui.keys.reference", "keys.md"),
        ("foley_tui.cli.reference", "cli.md"),
    ):
        out = tmp_path / page
        subprocess.run(
            [sys.executable, "-m", module, str(out)],
            check=True,
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "COLUMNS": "40"},
        )
        assert out.read_bytes() == (DOCS / page).read_bytes(), page


def test_the_keys_page_names_every_binding_with_its_keys() -> None:
    page = keys_reference.render()
    for spec in KEYS:
        row = next(line for line in page.splitlines() if line.endswith(f"| `{spec.id}` |"))
        for key in spec.keys.split(","):
            assert f"`{keys_reference.key_label(key)}`" in row, (spec.id, key)


def test_a_changed_key_changes_the_page() -> None:
    moved = tuple(replace(s, keys="ctrl+k") if s.id == "pick" else s for s in KEYS)
    assert "| `Ctrl+K` | Pick |" in keys_reference.render(moved)
    assert "| `Ctrl+K` | Pick |" not in keys_reference.render()


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("space", "Space"),
        ("question_mark", "?"),
        ("shift+left", "Shift+←"),
        ("ctrl+r", "Ctrl+R"),
        ("f1", "F1"),
        ("+", "+"),
        ("ctrl++", "Ctrl++"),
        ("G", "G"),
        ("pagedown", "PgDn"),
        ("left_square_bracket", "["),
    ],
)
def test_key_labels(key: str, label: str) -> None:
    assert keys_reference.key_label(key) == label


def test_the_cli_page_has_every_verb_and_option() -> None:
    page = cli_reference.render()
    for verb in cli_reference.verbs():
        assert f"\n## foley-tui {verb.name}\n" in page
        usage = cli_reference.usage(verb.words, verb.parser)
        assert f"\n{usage}\n" in page
    assert "foley-tui undo [--force | --skip] SESSION" in page
    assert "| `--layer {voice,sfx_fg,ambience,stinger,music,none}` | mix layer |" in page


def test_a_new_option_changes_the_cli_page() -> None:
    parser = build_parser()
    (pick,) = (v for v in cli_reference.verbs(parser) if v.name == "pick")
    pick.parser.add_argument("--gain", metavar="DB", help="a gain for the pick")
    page = cli_reference.render(parser)
    assert "| `--gain DB` | a gain for the pick |" in page
    assert "[--gain DB]" in page
    assert page != cli_reference.render()


def test_verbs_lists_what_the_parser_takes(capsys: pytest.CaptureFixture[str]) -> None:
    verbs = cli_reference.verbs()
    names = {verb.name for verb in verbs}
    assert {"open", "pick", "session create", "session tell", "session push"} <= names
    assert "session" not in names  # a group is listed by its verbs
    for verb in verbs:
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args([*verb.words, "--help"])
        assert done.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: foley-tui {verb.name} ")
