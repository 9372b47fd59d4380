"""``python -m foley_tui`` runs the CLI."""

from __future__ import annotations

from foley_tui.entry import run

if __name__ == "__main__":
    raise SystemExit(run())
