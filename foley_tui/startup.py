"""Start-up without the cyclic garbage collector.

Importing Textual and the app and building the first screen allocates a few hundred
thousand long-lived objects (modules, classes, styles, widgets). With the collector on,
those allocations trigger full collections that walk every one of them again and again, a
large share of the time to the first frame (docs/performance.md). So the command line
pauses the collector while it
starts, and the app resumes it once its first frame is on screen, after *freezing* what
start-up built (``gc.freeze``: those objects live as long as the app; later collections
skip them, so they stay short while the user works).

Only a pause this module made is ever resumed or frozen: a test or a library that builds
the app itself (no pause) keeps its collector exactly as it was.

Headless: never imports textual.
"""

from __future__ import annotations

import gc

_paused = False


def pause_gc() -> None:
    """Stop automatic collections until :func:`resume_gc` (no-op if already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_gc(*, freeze: bool = False) -> bool:
    """Turn the collector back on if :func:`pause_gc` turned it off; ``freeze``: first
    move every object alive now to the permanent generation (start-up's objects, kept for
    the whole run). Returns whether there was a pause to end."""
    global _paused
    if not _paused:
        return False
    _paused = False
    if freeze:
        gc.freeze()
    gc.enable()
    return True


def gc_paused() -> bool:
    """Whether a pause of this module is in effect."""
    return _paused
