"""The console script: the CLI, with Ctrl+C during start-up ending quietly.

The CLI turns Ctrl+C into exit status 130 once a verb runs; before that (importing the
CLI and its verbs, parsing) a KeyboardInterrupt would print a traceback. This module
imports nothing of ours, so its handler is in place from the first moment.

Two places Python itself puts an interrupt where an ``except KeyboardInterrupt`` does
not see it: a callback it runs while importing (the import system's module-lock
weakref callbacks), where it prints "Exception ignored in ..." with a traceback and
carries on; and a class body's ``__set_name__`` (dataclass fields), where it is wrapped
in a RuntimeError. The first is kept quiet and ends the run with 130 at the next point
this module has; the second is recognised by its cause.
"""

from __future__ import annotations

import sys
from typing import Any

#: The exit status of a run ended by Ctrl+C (128 + SIGINT), as a Unix tool's.
INTERRUPTED = 130


def run() -> int:
    """Run the CLI; 130 on Ctrl+C at any point, without a traceback."""
    previous = sys.unraisablehook
    interrupted: list[bool] = []

    def keep_quiet(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            interrupted.append(True)
            return
        previous(unraisable)

    sys.unraisablehook = keep_quiet
    try:
        from foley_tui.cli import main

        if interrupted:
            return INTERRUPTED
        status = main()
        return INTERRUPTED if interrupted else status
    except BaseException as exc:
        if _from_interrupt(exc):
            return INTERRUPTED
        raise
    finally:
        sys.unraisablehook = previous


def _from_interrupt(exc: BaseException | None) -> bool:
    """Whether ``exc`` is a KeyboardInterrupt or was raised because of one."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
