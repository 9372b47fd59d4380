"""The keymap's table: every binding id of every screen, widget and the app, as data.

Read through :mod:`foley_tui.keymap` (bindings, help, the palette, config validation);
its docstring says how a new screen adds its keys here. Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from foley_tui.model import LAYERS


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
        "Cycle: all, undecided, picked, rejected, events without a pick",
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
        "messages",
        "m",
        "messages",
        "Messages",
        "Talk with the agent: the last messages and decisions, and a box to write",
        _A,
        "Messages",
    ),
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
