"""The console script: the CLI, with Ctrl+C during start-up ending quietly.

The CLI turns Ctrl+C into exit status 130 once a verb runs; before that (importing the
CLI and its verbs, parsing) a KeyboardInterrupt would print a traceback. This module
imports nothing itself, so its handler is in place from the first moment.
"""

from __future__ import annotations


def run() -> int:
    """Run the CLI; 130 on Ctrl+C at any point, without a traceback."""
    try:
        from foley_tui.cli import main

        return main()
    except KeyboardInterrupt:
        return 130
