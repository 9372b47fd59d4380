"""The README and the pages of docs/ stay true: files they link exist, the quick start
commands are real Makefile targets, the README's first keys are the key table's, and
every `foley <verb>` they show is a verb of the installed foley and every `foley-tui
<verb>` one of ours."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from foley_tui.cli.reference import verbs
from foley_tui.keys.keymap import BY_ID
from foley_tui.keys.reference import key_label

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text()
PAGES = {path.relative_to(ROOT).as_posix(): path.read_text() for path in ROOT.glob("docs/*.md")}


def _code(text: str) -> str:
    """Commands shown as code: fenced blocks and inline spans (prose mentions don't count)."""
    fenced = re.findall(r"```\w*\n(.*?)```", text, flags=re.S)
    inline = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return "\n".join(fenced + inline)


def test_the_readme_is_an_introduction() -> None:
    assert README.count("\n") <= 250


def test_linked_files_exist_and_the_screenshot_is_the_apps_svg() -> None:
    links = re.findall(r"\]\(((?:assets|docs)/[^)#]+)\)", README)
    assert "assets/screenshot.svg" in links
    assert {f"docs/{name}" for name in ("keys.md", "cli.md")} <= set(links)
    for link in links:
        assert (ROOT / link).is_file(), link
    svg = (ROOT / "assets" / "screenshot.svg").read_text()
    assert svg.lstrip().startswith("<svg") and "stormy" in svg


@pytest.mark.parametrize("page", sorted(PAGES))
def test_links_between_docs_pages_resolve(page: str) -> None:
    for target in re.findall(r"\]\(([\w.-]+\.md)(?:#[\w-]+)?\)", PAGES[page]):
        assert f"docs/{target}" in PAGES, f"{page} links {target}"


def test_every_docs_page_is_linked_from_the_readme_or_another_page() -> None:
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)", README))
    for text in PAGES.values():
        linked |= set(re.findall(r"\]\(([\w.-]+\.md)", text))
    assert {page.removeprefix("docs/") for page in PAGES} <= linked


def test_quick_start_commands_are_makefile_targets() -> None:
    block = README.split("## Quick start", 1)[1].split("```", 2)[1]
    makefile = (ROOT / "Makefile").read_text()
    targets = re.findall(r"^make (\w+)", block, flags=re.M)
    assert targets == ["demo", "test"]
    for target in targets:
        assert re.search(rf"^{target}:", makefile, flags=re.M), target
    assert re.search(r"^demo:.*\n\t.*foley-tui demo", makefile, flags=re.M)
    assert re.search(r"^test:.*\n(\t.*\n)*\t.*pytest", makefile, flags=re.M)


def test_the_first_keys_in_the_readme_are_the_key_tables() -> None:
    section = README.split("## Your first session", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert len(rows) == 10
    for row in rows:
        keys_cell, _, ids_cell = row.strip("|").split("|")
        ids = re.findall(r"`([\w-]+)`", ids_cell)
        assert ids and all(binding_id in BY_ID for binding_id in ids), row
        defaults = {key_label(key) for i in ids for key in BY_ID[i].keys.split(",")}
        for shown in re.findall(r"`([^`]+)`", keys_cell):
            assert shown in defaults, (shown, row)


def test_the_demo_sounds_are_said_to_be_cc0() -> None:
    assert "CC0" in README


def test_foley_and_foley_tui_verbs_in_the_readme_and_docs_exist() -> None:
    foley = Path(sys.executable).parent / "foley"
    usage = subprocess.run(
        [str(foley), "--help"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    match = re.search(r"\{([\w,-]+)\}", usage)
    assert match is not None, usage
    foley_verbs = set(match.group(1).split(","))
    code = "\n".join(_code(text) for text in (README, *PAGES.values()))
    used = set(re.findall(r"^\s*foley ([a-z][\w-]*)", code, flags=re.M))
    assert {"plan", "weave"} <= used
    assert used <= foley_verbs, used - foley_verbs
    ours = {verb.words[0] for verb in verbs()}
    used_ours = set(re.findall(r"^\s*foley-tui ([a-z][\w-]*)", code, flags=re.M))
    assert {"demo", "open", "add", "play-scene"} <= used_ours
    assert used_ours <= ours, used_ours - ours


def test_the_files_the_docs_name_exist() -> None:
    named = set()
    for text in (README, *PAGES.values()):
        code = re.findall(r"`([^`\n]+)`", text)
        named |= {
            m for span in code for m in re.findall(r"(?:foley_tui|tests|assets)/[\w./]+", span)
        }
    assert "foley_tui/keys/keymap.py" in named
    written_by_benches = "tests/bench/results"
    missing = sorted(
        name
        for name in named
        if not (ROOT / name.rstrip("/.")).exists() and not name.startswith(written_by_benches)
    )
    assert not missing, missing
