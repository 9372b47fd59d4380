"""The README's first-run and foley sections stay true: files it links exist, the quick
start commands are real Makefile targets, and every `foley <verb>` it shows is a verb of
the installed foley and every `foley-tui <verb>` one of ours."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from foley_tui.cli import build_parser

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text()
# Commands shown as code: fenced blocks and inline spans (prose mentions don't count).
_FENCED = re.findall(r"```\w*\n(.*?)```", README, flags=re.S)
_INLINE = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", README, flags=re.S))
CODE = "\n".join(_FENCED + _INLINE)


def test_linked_files_exist_and_the_screenshot_is_the_apps_svg() -> None:
    links = re.findall(r"\]\(((?:assets|docs)/[^)#]+)\)", README)
    assert "assets/screenshot.svg" in links
    for link in links:
        assert (ROOT / link).is_file(), link
    svg = (ROOT / "assets" / "screenshot.svg").read_text()
    assert svg.lstrip().startswith("<svg") and "stormy" in svg


def test_quick_start_commands_are_makefile_targets() -> None:
    block = README.split("## Quick start", 1)[1].split("```", 2)[1]
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"^make (\w+)", block, flags=re.M):
        assert re.search(rf"^{target}:", makefile, flags=re.M), target
    assert re.search(r"^demo:.*\n\t.*foley-tui demo", makefile, flags=re.M)


def test_the_demo_sounds_are_said_to_be_cc0() -> None:
    assert "CC0" in README


def test_foley_and_foley_tui_verbs_in_the_readme_exist() -> None:
    foley = Path(sys.executable).parent / "foley"
    usage = subprocess.run(
        [str(foley), "--help"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    match = re.search(r"\{([\w,-]+)\}", usage)
    assert match is not None, usage
    foley_verbs = set(match.group(1).split(","))
    used = set(re.findall(r"^\s*foley ([a-z][\w-]*)", CODE, flags=re.M))
    assert {"plan", "weave"} <= used
    assert used <= foley_verbs, used - foley_verbs
    ours = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr,arg-type]
    used_ours = set(re.findall(r"^\s*foley-tui ([a-z][\w-]*)", CODE, flags=re.M))
    assert used_ours <= ours, used_ours - ours
