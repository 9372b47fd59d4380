"""The headless core (store, audio, model) must never import textual, so it can be
scripted and tested without a terminal (house style: harlequin's import contract)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import foley_tui

PACKAGE = Path(foley_tui.__file__).parent
HEADLESS = ["foley_tui.domain", "foley_tui.paths", "foley_tui.audio", "foley_tui.store"]


def _modules_under(name: str) -> list[str]:
    path = PACKAGE / name.removeprefix("foley_tui.").replace(".", "/")
    if path.with_suffix(".py").exists():
        return [name]
    return sorted(f"{name}.{p.stem}" if p.stem != "__init__" else name for p in path.glob("*.py"))


def test_headless_core_does_not_import_textual() -> None:
    modules = [m for name in HEADLESS for m in _modules_under(name)]
    assert "foley_tui.store" in modules and "foley_tui.audio" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"headless modules pulled in textual: {out}"
