"""The one keymap registry: every binding of every screen and widget, in one table.

Screens and widgets build their ``BINDINGS`` from here (:func:`bindings`), the help
screen and the command palette list :data:`KEYS`, and the config loader validates a
user's ``[keymap]`` with :func:`check_keymap`: unknown ids, misspelt key names and
conflicts are refused with one line each.

Scopes and contexts
    Every :class:`KeySpec` belongs to a *scope*: the app, a screen, or a widget that owns
    the behaviour (the candidate list owns cursor movement, the filter box owns "clear").
    A *context* is a set of scopes whose bindings are live at the same moment: the focused
    widget's, its screen's and the app's. Within a context one key may mean one action
    only; the exception is a text box (``Scope.text_entry``): while it has the focus its
    own keys shadow its screen's on purpose (Esc clears the filter box; on the list, Esc
    stops playback). App bindings with ``priority`` win everywhere, text boxes included.

Adding a screen (a timeline, a messages panel)
    1. add its scope to :data:`SCOPES` (and one for any widget that owns keys);
    2. add its keys to :data:`KEYS` with kebab-case ids unique across the app, its
       section being the help heading they appear under; an existing id the screen
       honours (the timeline's ``undo``) gets an :class:`Also` entry instead: same id and
       keys (remapped together), the screen's own action;
    3. add the contexts in which it is live to :data:`CONTEXTS` (the screen with its
       focusable widgets, plus ``"app"``; a modal screen stands alone with ``"app"``);
    4. in the screen, ``BINDINGS = keymap.bindings("<scope>")``.
    Config validation, help and the palette then know the new keys with no other change;
    ``tests/unit/test_keymap.py`` checks the table stays free of conflicts.

Headless: textual is imported only by :func:`bindings`.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from foley_tui.model import LAYERS

if TYPE_CHECKING:
    from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class Scope:
    """Where bindings live: the app, a screen or a widget."""

    name: str
    title: str
    """How help names it."""
    text_entry: bool = False
    """A text box: its keys shadow its screen's while it has the focus, by design."""


@dataclass(frozen=True, slots=True)
class Also:
    """The same binding id live in another scope: the same keys (remapped together), its
    own action there and, when the wording differs, its own description and tooltip."""

    scope: str
    action: str
    description: str = ""
    tooltip: str = ""
    show: bool = False


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One binding: its id (what users remap), default keys, action and texts."""

    id: str
    keys: str
    """Default key(s), comma-separated, Textual's key names."""
    action: str
    description: str
    tooltip: str
    scope: str
    section: str
    """The help heading it is listed under."""
    show: bool = False
    """Shown in the footer."""
    key_display: str | None = None
    priority: bool = False
    remappable: bool = True
    """False for Textual's own app keys (quit, palette), listed for help and conflicts."""
    also: tuple[Also, ...] = ()
    """Other scopes where this id is bound (the timeline's undo is the audition's undo)."""

    @property
    def scopes(self) -> tuple[str, ...]:
        return (self.scope, *(a.scope for a in self.also))


SCOPES: dict[str, Scope] = {
    s.name: s
    for s in (
        Scope("app", "Everywhere"),
        Scope("audition", "Audition screen"),
        Scope("candidate-list", "Candidate list"),
        Scope("filter", "Filter box", text_entry=True),
        Scope("sessions", "Sessions screen"),
        Scope("help", "Help"),
        Scope("dialog", "Dialogs"),
        Scope("confirm", "Confirmation"),
        Scope("messages", "Conversation panel"),
        Scope("timeline", "Timeline"),
        Scope("reason", "Reject reason dialog"),
    )
}

CONTEXTS: tuple[tuple[str, ...], ...] = (
    ("app", "audition", "candidate-list"),
    ("app", "audition", "filter"),
    ("app", "sessions"),
    ("app", "help"),
    ("app", "dialog"),
    ("app", "confirm"),
    ("app", "messages"),
    ("app", "timeline"),
    ("app", "dialog", "reason"),
)
"""Scopes live at the same time (focused widget + its screen + the app)."""


def _k(
    binding_id: str,
    keys: str,
    action: str,
    description: str,
    tooltip: str,
    scope: str,
    section: str,
    **options: object,
) -> KeySpec:
    return KeySpec(binding_id, keys, action, description, tooltip, scope, section, **options)  # type: ignore[arg-type]


_A, _L = "audition", "candidate-list"

_OWN_KEYS: tuple[KeySpec, ...] = (
    # -- move (the list owns its cursor) ---------------------------------------------
    _k("cursor-up", "up,k", "move(-1)", "Up", "Highlight the previous candidate", _L, "Move"),
    _k("cursor-down", "down,j", "move(1)", "Down", "Highlight the next candidate", _L, "Move"),
    _k("page-up", "pageup", "page(-1)", "Page up", "Move up one screen", _L, "Move"),
    _k("page-down", "pagedown", "page(1)", "Page down", "Move down one screen", _L, "Move"),
    _k("first", "g,home", "first", "First", "Go to the first candidate", _L, "Move"),
    _k("last", "G,end", "last", "Last", "Go to the last candidate", _L, "Move"),
    _k(
        "next-undecided",
        "n",
        "next_undecided",
        "Next undecided",
        "Go to the next candidate without a verdict",
        _A,
        "Move",
    ),
    _k(
        "next-event",
        "e",
        "next_event(1)",
        "Next event",
        "Go to the next scene event (its first candidate)",
        _A,
        "Move",
    ),
    _k(
        "prev-event",
        "E",
        "next_event(-1)",
        "Previous event",
        "Go to the previous scene event",
        _A,
        "Move",
    ),
    # -- preview ---------------------------------------------------------------------
    _k(
        "play-stop",
        "space",
        "play_stop",
        "Play",
        "Play the highlighted candidate, or stop it",
        _A,
        "Preview",
        show=True,
        key_display="space",
    ),
    _k(
        "play-start",
        "enter",
        "play_start",
        "Play from start",
        "Play the highlighted candidate from its start",
        _A,
        "Preview",
    ),
    _k("stop", "escape", "stop", "Stop", "Stop playback", _A, "Preview"),
    _k("seek-back", "left", "seek(-1)", "Back 1 s", "Seek back one second", _A, "Preview"),
    _k("seek-forward", "right", "seek(1)", "Forward 1 s", "Seek forward one second", _A, "Preview"),
    _k(
        "seek-back-long",
        "shift+left",
        "seek(-5)",
        "Back 5 s",
        "Seek back five seconds",
        _A,
        "Preview",
    ),
    _k(
        "seek-forward-long",
        "shift+right",
        "seek(5)",
        "Forward 5 s",
        "Seek forward five seconds",
        _A,
        "Preview",
    ),
    _k(
        "autoplay",
        "a",
        "toggle_autoplay",
        "Autoplay",
        "Play each candidate as it is highlighted",
        _A,
        "Preview",
    ),
    _k("loop", "r", "toggle_loop", "Loop", "Loop the preview", _A, "Preview"),
    _k("volume-up", "+", "volume(1)", "Volume up", "Preview volume up 2 dB", _A, "Preview"),
    _k("volume-down", "-", "volume(-1)", "Volume down", "Preview volume down 2 dB", _A, "Preview"),
    _k(
        "loudness-match",
        "L",
        "toggle_loudness",
        "Loudness match",
        "Play every candidate at the same loudness (-23 LUFS)",
        _A,
        "Preview",
    ),
    _k(
        "stop-all",
        "ctrl+s",
        "stop_all",
        "Stop audio",
        "Stop all audio (works in dialogs too)",
        "app",
        "Preview",
        priority=True,
    ),
    # -- decide ----------------------------------------------------------------------
    _k(
        "pick", "p", "pick", "Pick", "Pick the candidate (again to unpick)", _A, "Decide", show=True
    ),
    _k(
        "reject",
        "x",
        "reject",
        "Reject",
        "Reject the candidate (again to undo)",
        _A,
        "Decide",
        show=True,
    ),
    _k(
        "reject-reason",
        "X",
        "reject_reason",
        "Reject why…",
        "Reject with a reason the agent can use",
        _A,
        "Decide",
    ),
    _k("clear", "c", "clear", "Clear", "Clear the verdict (undecided)", _A, "Decide"),
    _k(
        "undo",
        "u",
        "undo",
        "Undo",
        "Undo the last decision (survives restarts)",
        _A,
        "Decide",
        show=True,
    ),
    _k("redo", "ctrl+r", "redo", "Redo", "Redo the last undone decision", _A, "Decide"),
    # -- place -----------------------------------------------------------------------
    *(
        _k(
            f"layer-{layer.replace('_', '-')}",
            str(i + 1),
            f"set_layer('{layer}')",
            f"Layer {layer}",
            f"Set the layer to {layer} (picks the candidate)",
            _A,
            "Place",
        )
        for i, layer in enumerate(LAYERS)
    ),
    _k(
        "onset",
        "o",
        "edit_onset",
        "Onset",
        "Edit the onset (seconds or m:ss.s)",
        _A,
        "Place",
        show=True,
    ),
    _k(
        "onset-earlier",
        "[",
        "nudge_onset(-0.1)",
        "Onset -0.1 s",
        "Move the onset 0.1 s earlier",
        _A,
        "Place",
    ),
    _k(
        "onset-later",
        "]",
        "nudge_onset(0.1)",
        "Onset +0.1 s",
        "Move the onset 0.1 s later",
        _A,
        "Place",
    ),
    _k(
        "onset-earlier-long",
        "{",
        "nudge_onset(-1.0)",
        "Onset -1 s",
        "Move the onset 1 s earlier",
        _A,
        "Place",
    ),
    _k(
        "onset-later-long",
        "}",
        "nudge_onset(1.0)",
        "Onset +1 s",
        "Move the onset 1 s later",
        _A,
        "Place",
    ),
    # -- scene -----------------------------------------------------------------------
    _k(
        "timeline",
        "t",
        "timeline",
        "Timeline",
        "The timeline: the picks against time, play the scene",
        _A,
        "Scene",
    ),
    _k(
        "in-context",
        "C",
        "in_context",
        "In context",
        "Play the candidate at its place in the scene, after a pre-roll",
        _A,
        "Scene",
    ),
    # -- view ------------------------------------------------------------------------
    _k(
        "filter",
        "/",
        "filter",
        "Filter",
        "Filter on caption, tags, id and source (Enter keeps, Esc clears)",
        _A,
        "View",
        show=True,
    ),
    _k(
        "filter-clear",
        "escape",
        "clear_filter",
        "Clear filter",
        "In the filter box: clear the filter and return to the list",
        "filter",
        "View",
        show=True,
    ),
    _k(
        "status-filter",
        "f",
        "cycle_status",
        "Show",
        "Cycle: all, undecided, picked, rejected",
        _A,
        "View",
    ),
    _k(
        "sort",
        "s",
        "cycle_sort",
        "Sort",
        "Cycle the sort: rank, caption, duration, layer, onset, score",
        _A,
        "View",
    ),
    _k("sessions", "S", "sessions", "Sessions", "Open the sessions screen", _A, "View"),
    _k(
        "help",
        "question_mark,f1",
        "help",
        "Help",
        "Show every key",
        _A,
        "View",
        show=True,
        key_display="?",
    ),
    _k("quit", "q", "quit", "Quit", "Save the cursor and quit", _A, "View", show=True),
    _k(
        "app-quit",
        "ctrl+q",
        "quit",
        "Quit",
        "Quit from anywhere (Textual's own key)",
        "app",
        "View",
        priority=True,
        remappable=False,
    ),
    _k(
        "command-palette",
        "ctrl+p",
        "command_palette",
        "Commands",
        "Search every action by name (Textual's own key)",
        "app",
        "View",
        remappable=False,
    ),
    # -- sessions screen -------------------------------------------------------------
    _k(
        "sessions-open",
        "o",
        "open_session",
        "Open",
        "Open this session",
        "sessions",
        "Sessions",
        show=True,
    ),
    _k(
        "sessions-new",
        "n",
        "new_session",
        "New",
        "Create an empty session",
        "sessions",
        "Sessions",
        show=True,
    ),
    _k(
        "sessions-rename",
        "r",
        "rename_session",
        "Rename",
        "Rename this session",
        "sessions",
        "Sessions",
        show=True,
    ),
    _k(
        "sessions-delete",
        "d,delete",
        "delete_session",
        "Delete",
        "Delete this session (asks first; the open session cannot be deleted)",
        "sessions",
        "Sessions",
        show=True,
    ),
    _k(
        "sessions-export",
        "e",
        "export_session",
        "Export",
        "Export this session to a JSON file (never overwrites)",
        "sessions",
        "Sessions",
        show=True,
    ),
    _k(
        "sessions-import",
        "i",
        "import_session",
        "Import",
        "Import a session from an exported JSON file (never overwrites)",
        "sessions",
        "Sessions",
        show=True,
    ),
    _k(
        "sessions-reload",
        "f5,ctrl+r",
        "reload",
        "Reload",
        "Read the list again",
        "sessions",
        "Sessions",
    ),
    _k(
        "sessions-close",
        "escape",
        "close",
        "Back",
        "Back without opening",
        "sessions",
        "Sessions",
        show=True,
    ),
    # -- dialogs ---------------------------------------------------------------------
    _k(
        "help-close",
        "escape,q,question_mark,f1",
        "close",
        "Close",
        "Close the help",
        "help",
        "Dialogs",
        show=True,
    ),
    _k(
        "modal-cancel",
        "escape",
        "cancel",
        "Cancel",
        "Close without change",
        "dialog",
        "Dialogs",
        show=True,
    ),
    _k("confirm-no", "escape,n", "answer(False)", "No", "Keep it", "confirm", "Dialogs", show=True),
    _k("confirm-yes", "y", "answer(True)", "Yes", "Go ahead", "confirm", "Dialogs", show=True),
    _k(
        "reason-prev",
        "up",
        "preset(-1)",
        "Previous preset",
        "Highlight the previous preset reason",
        "reason",
        "Dialogs",
    ),
    _k(
        "reason-next",
        "down",
        "preset(1)",
        "Next preset",
        "Highlight the next preset reason",
        "reason",
        "Dialogs",
    ),
    # -- conversation panel ------------------------------------------------------------
    _k(
        "messages-close",
        "escape",
        "close",
        "Close",
        "Close the conversation panel",
        "messages",
        "Messages",
        show=True,
    ),
    _k(
        "messages-attach",
        "ctrl+t",
        "toggle_attach",
        "Attach",
        "Attach the message to the highlighted candidate, or not",
        "messages",
        "Messages",
        show=True,
    ),
)

_T = "timeline"

_TIMELINE_KEYS: tuple[KeySpec, ...] = (
    _k(
        "timeline-prev",
        "left,h",
        "move(-1)",
        "Earlier pick",
        "Highlight the previous pick",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-next",
        "right,l",
        "move(1)",
        "Later pick",
        "Highlight the next pick",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-lane-up",
        "up,k",
        "move_lane(-1)",
        "Lane up",
        "The nearest pick a lane up",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-lane-down",
        "down,j",
        "move_lane(1)",
        "Lane down",
        "The nearest pick a lane down",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-zoom-in",
        ">",
        "zoom(-1)",
        "Zoom in",
        "Fewer seconds per column",
        _T,
        "Timeline",
        show=True,
    ),
    _k(
        "timeline-zoom-out",
        "<",
        "zoom(1)",
        "Zoom out",
        "More seconds per column",
        _T,
        "Timeline",
        show=True,
    ),
    _k(
        "timeline-scroll-later",
        "shift+right",
        "scroll(1)",
        "Scroll later",
        "Scroll in time",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-scroll-earlier",
        "shift+left",
        "scroll(-1)",
        "Scroll earlier",
        "Scroll in time",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-play-scene",
        "P",
        "play_scene",
        "Play scene",
        "Play the scene from the view",
        _T,
        "Timeline",
        show=True,
    ),
    _k(
        "timeline-escape",
        "escape",
        "escape",
        "Stop/back",
        "Stop the scene, else go back",
        _T,
        "Timeline",
    ),
    _k("timeline-back", "t", "back", "Back", "Back to the list", _T, "Timeline", show=True),
    _k(
        "timeline-tap",
        "T",
        "tap",
        "Tap onset",
        "Set the pick's onset to the playhead",
        _T,
        "Timeline",
        show=True,
    ),
    _k(
        "timeline-mute",
        "m",
        "mute",
        "Mute lane",
        "Mute the highlighted pick's lane",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-solo",
        "M",
        "solo",
        "Solo lane",
        "Solo the highlighted pick's lane",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-loop-start",
        "(",
        "loop_edge('start')",
        "Loop from",
        "Start the loop region at the playhead (or the pick)",
        _T,
        "Timeline",
    ),
    _k(
        "timeline-loop-end",
        ")",
        "loop_edge('end')",
        "Loop to",
        "End the loop region at the playhead (or the pick's end)",
        _T,
        "Timeline",
    ),
)

_SHARED_WITH_TIMELINE: dict[str, Also] = {
    "play-stop": Also(_T, "play_pick", "Play pick", "Play the highlighted pick alone"),
    "loop": Also(_T, "toggle_loop", tooltip="Loop the region while the scene plays"),
    **{
        f"layer-{layer.replace('_', '-')}": Also(
            _T, f"set_layer('{layer}')", tooltip=f"Set the pick's layer to {layer}"
        )
        for layer in LAYERS
    },
    "onset": Also(_T, "edit_onset", "Onset…", "Type the pick's onset"),
    "onset-earlier": Also(_T, "nudge(-0.1)"),
    "onset-later": Also(_T, "nudge(0.1)"),
    "onset-earlier-long": Also(_T, "nudge(-1.0)"),
    "onset-later-long": Also(_T, "nudge(1.0)"),
    "undo": Also(_T, "undo", tooltip="Undo the last decision"),
    "redo": Also(_T, "redo"),
    "volume-up": Also(_T, "volume(1)"),
    "volume-down": Also(_T, "volume(-1)"),
}
"""Audition ids the timeline honours: same id and keys there, its own action."""

KEYS: tuple[KeySpec, ...] = (
    *(
        replace(spec, also=(_SHARED_WITH_TIMELINE[spec.id],))
        if spec.id in _SHARED_WITH_TIMELINE
        else spec
        for spec in _OWN_KEYS
    ),
    *_TIMELINE_KEYS,
)
"""Every binding: the audition's (with what it shares), the other screens', the timeline's."""

BY_ID: dict[str, KeySpec] = {spec.id: spec for spec in KEYS}
REMAPPABLE_IDS: frozenset[str] = frozenset(s.id for s in KEYS if s.remappable)
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(spec.section for spec in KEYS))


def specs(scope: str) -> tuple[KeySpec, ...]:
    """The keys of one scope, in table order."""
    return tuple(spec for spec in KEYS if spec.scope == scope)


def bindings(scope: str) -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """``BINDINGS = keymap.bindings(...)``: :func:`binding_objects`, typed as Textual
    types ``BINDINGS``."""
    return list(binding_objects(scope))


def binding_objects(scope: str) -> list[Binding]:
    """Textual ``Binding`` objects for a scope: its own keys and the ids it shares
    (:class:`Also`)."""
    from textual.binding import Binding

    built: list[Binding] = []
    for spec in KEYS:
        if not spec.remappable:
            continue
        if spec.scope == scope:
            action, description, tooltip, show = (
                spec.action,
                spec.description,
                spec.tooltip,
                spec.show,
            )
        else:
            found = next((a for a in spec.also if a.scope == scope), None)
            if found is None:
                continue
            action = found.action
            description = found.description or spec.description
            tooltip = found.tooltip or spec.tooltip
            show = found.show
        built.append(
            Binding(
                spec.keys,
                action,
                description,
                show=show,
                key_display=spec.key_display,
                priority=spec.priority,
                tooltip=tooltip,
                id=spec.id,
            )
        )
    return built


# ---------------------------------------------------------------------- key names
MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")

NAMED_KEYS: frozenset[str] = frozenset(
    {
        "escape",
        "enter",
        "tab",
        "space",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        *(f"f{n}" for n in range(1, 25)),
    }
)
"""Key names Textual reports for keys that are not printable characters."""

ALIASES: dict[str, str] = {
    "esc": "escape",
    "return": "enter",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "page_up": "pageup",
    "page_down": "pagedown",
    "del": "delete",
    "ins": "insert",
    "bs": "backspace",
    "control": "ctrl",
    "cmd": "meta",
    "option": "alt",
}


_NAME_REPLACEMENTS = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}
"""Textual's short names for some characters (textual.keys.KEY_NAME_REPLACEMENTS)."""


def char_key(char: str) -> str:
    """Textual's name of the key that types ``char`` (``[`` → ``left_square_bracket``)."""
    if char.isalnum():
        return char
    name = unicodedata.name(char, "").lower().replace("-", "_").replace(" ", "_")
    return _NAME_REPLACEMENTS.get(name, name or char)


_CHAR_NAMES: frozenset[str] = frozenset(
    char_key(chr(code)) for code in (*range(33, 127), *range(161, 256)) if chr(code).isprintable()
)
"""Key names of the printable ASCII and Latin-1 characters (other characters are
written as themselves in a keymap)."""


def _is_char_name(name: str) -> bool:
    """``question_mark``, ``left_square_bracket``, ``plus``…: a printable's key name."""
    return name in _CHAR_NAMES and len(name) > 1


def _split(key: str) -> tuple[list[str], str]:
    """(modifiers, base key) of ``ctrl+shift+x``; ``+`` and ``ctrl++`` name the plus key."""
    if key == "+":
        return [], "+"
    if key.endswith("++"):
        return key[:-2].split("+"), "+"
    *mods, base = key.split("+")
    return mods, base


def normalize(key: str) -> str:
    """A valid key as Textual matches it (characters as their names), to compare keys."""
    mods, base = _split(key)
    return "+".join([*mods, char_key(base) if len(base) == 1 else base])


def key_problem(key: str) -> str | None:
    """Why ``key`` is not a key name Textual reports, with the accepted spelling when
    one is near; None when it is fine."""
    if key in ("+", "-") or (len(key) == 1 and key.isprintable() and not key.isspace()):
        return None
    mods, base = _split(key)
    ok_mods = all(m in MODIFIERS for m in mods) and len(set(mods)) == len(mods)
    ok_base = (
        (len(base) == 1 and base.isprintable() and not base.isspace())
        or base in NAMED_KEYS
        or _is_char_name(base)
    )
    if mods and len(base) == 1 and base.isalpha() and base.isupper():
        ok_base = False  # a modifier with a capital: Textual reports ctrl+x, never ctrl+X
    if ok_mods and ok_base and base:
        return None
    suggestion = _suggest(mods, base)
    hint = f"; write it {suggestion!r}" if suggestion and suggestion != key else ""
    return f"{key!r} is not a key name{hint}"


def _suggest(mods: list[str], base: str) -> str | None:
    fixed_mods = [ALIASES.get(m.lower(), m.lower()) for m in mods]
    if not all(m in MODIFIERS for m in fixed_mods):
        return None
    low = base.lower()
    low = ALIASES.get(low, low)
    if len(base) == 1:
        fixed = low if fixed_mods else base
    elif low in NAMED_KEYS or _is_char_name(low):
        fixed = low
    else:
        close = difflib.get_close_matches(low, sorted(NAMED_KEYS), n=1, cutoff=0.75)
        if not close:
            return None
        fixed = close[0]
    return "+".join([*fixed_mods, fixed])


# ---------------------------------------------------------------------- validation
def effective(keymap: Mapping[str, str]) -> dict[str, list[str]]:
    """Every binding id with its keys after the user's ``keymap``."""
    return {
        spec.id: [k.strip() for k in keymap.get(spec.id, spec.keys).split(",") if k.strip()]
        for spec in KEYS
    }


def conflicts(keymap: Mapping[str, str]) -> list[str]:
    """One line per key bound to two actions that are live at the same time."""
    keys = effective(keymap)
    found: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for context in CONTEXTS:
        owners: dict[str, list[KeySpec]] = {}
        for spec in KEYS:
            if not set(spec.scopes) & set(context):
                continue
            for key in keys[spec.id]:
                owners.setdefault(normalize(key), []).append(spec)
        for key, holders in owners.items():
            for i, first in enumerate(holders):
                for second in holders[i + 1 :]:
                    if first.id == second.id or _by_design(first, second):
                        continue
                    pair = tuple(sorted((first.id, second.id)))
                    if (key, *pair) in seen:
                        continue
                    seen.add((key, pair[0], pair[1]))
                    shown = next(k for k in keys[first.id] if normalize(k) == key)
                    found.append(
                        f"key {shown!r} is bound to both {first.id!r} and {second.id!r} "
                        f"({SCOPES[first.scope].title} / {SCOPES[second.scope].title})"
                    )
    return found


def _by_design(a: KeySpec, b: KeySpec) -> bool:
    """A text box's own key over its screen's (not over an app priority key)."""
    for box, other in ((a, b), (b, a)):
        if SCOPES[box.scope].text_entry and not other.priority and other.scope != box.scope:
            return True
    return False


def check_keymap(keymap: Mapping[str, object]) -> list[str]:
    """Every problem of a user's ``[keymap]`` table, one line each (empty when fine)."""
    problems: list[str] = []
    clean: dict[str, str] = {}
    for binding_id, value in keymap.items():
        spec = BY_ID.get(binding_id)
        if spec is None or not spec.remappable:
            close = difflib.get_close_matches(binding_id, sorted(REMAPPABLE_IDS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            fixed = "" if spec is None else " (Textual's own key, not remappable)"
            problems.append(f"{binding_id}: no such binding id{fixed or hint}")
            continue
        if not isinstance(value, str) or not value.strip():
            problems.append(
                f'{binding_id}: expected a key string like "p" or "ctrl+r" '
                f"(several separated by commas), got {value!r}"
            )
            continue
        keys = [key.strip() for key in value.split(",")]
        bad = [p for p in (key_problem(k) if k else "an empty key name" for k in keys) if p]
        if bad:
            problems.extend(f"{binding_id}: {p}" for p in bad)
            continue
        clean[binding_id] = ",".join(keys)
    if not problems:
        problems.extend(conflicts(clean))
    return problems
