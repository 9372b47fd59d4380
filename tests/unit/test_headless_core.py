"""The headless core (store, audio, the models, the key table) must never import textual,
so it can be scripted and tested without a terminal (house style: harlequin's import
contract)."""

from __future__ import annotations

import importlib.util
import pkgutil
import subprocess
import sys

HEADLESS = [
    "foley_tui.domain",
    "foley_tui.paths",
    "foley_tui.audio",
    "foley_tui.store",
    "foley_tui.audition",
    "foley_tui.scene",
    "foley_tui.keys.keymap",
    "foley_tui.keys.table",
]


def _modules_under(name: str) -> list[str]:
    """``name`` and, for a package, every module below it, however deep."""
    spec = importlib.util.find_spec(name)
    assert spec is not None, f"no such module: {name}"  # renamed: update the list
    if spec.submodule_search_locations is None:
        return [name]
    below = pkgutil.walk_packages(spec.submodule_search_locations, prefix=f"{name}.")
    return [name, *sorted(info.name for info in below)]


def test_headless_core_does_not_import_textual() -> None:
    modules = [m for name in HEADLESS for m in _modules_under(name)]
    assert {"foley_tui.store.redis.session", "foley_tui.audio.player"} <= set(modules)
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
