"""The keymap's table: every binding id of every screen, widget and the app, as data.

Read through :mod:`foley_tui.keys.keymap` (bindings, help, the palette, config validation);
its docstring says how a new screen adds its keys here: in the table of its screen
(:mod:`foley_tui.keys.audition`, :mod:`foley_tui.keys.screens`,
:mod:`foley_tui.keys.timeline`), its scope in :mod:`foley_tui.keys.spec`. Headless: never
imports textual.
"""

from __future__ import annotations

from dataclasses import replace

from foley_tui.keys.audition import AUDITION_KEYS
from foley_tui.keys.screens import SCREEN_KEYS
from foley_tui.keys.spec import KeySpec
from foley_tui.keys.timeline import SHARED_WITH_TIMELINE, TIMELINE_KEYS

KEYS: tuple[KeySpec, ...] = (
    *(
        replace(spec, also=(SHARED_WITH_TIMELINE[spec.id],))
        if spec.id in SHARED_WITH_TIMELINE
        else spec
        for spec in (*AUDITION_KEYS, *SCREEN_KEYS)
    ),
    *TIMELINE_KEYS,
)
"""Every binding: the audition's (with what it shares), the other screens', the timeline's."""
