"""The audition screen's keys: every binding with an id and a tooltip, in help order.

Users remap keys by id (``[keymap]`` in the config); the help screen and the command
palette list :data:`BINDING_SECTIONS` in this order. :data:`BINDING_IDS` is what the config
loader checks keymap ids against.
"""

from __future__ import annotations

from textual.binding import Binding

from foley_tui.model import LAYERS


def _b(
    key: str,
    action: str,
    description: str,
    binding_id: str,
    tooltip: str,
    *,
    show: bool = False,
    key_display: str | None = None,
) -> Binding:
    return Binding(
        key,
        action,
        description,
        show=show,
        id=binding_id,
        tooltip=tooltip,
        key_display=key_display,
    )


# (section, bindings): the help screen and the palette list them in this order.
BINDING_SECTIONS: tuple[tuple[str, tuple[Binding, ...]], ...] = (
    (
        "Move",
        (
            _b("up,k", "move(-1)", "Up", "cursor-up", "Highlight the previous candidate"),
            _b("down,j", "move(1)", "Down", "cursor-down", "Highlight the next candidate"),
            _b("pageup", "page(-1)", "Page up", "page-up", "Move up one screen"),
            _b("pagedown", "page(1)", "Page down", "page-down", "Move down one screen"),
            _b("g,home", "first", "First", "first", "Go to the first candidate"),
            _b("G,end", "last", "Last", "last", "Go to the last candidate"),
            _b(
                "n",
                "next_undecided",
                "Next undecided",
                "next-undecided",
                "Go to the next candidate without a verdict",
            ),
        ),
    ),
    (
        "Preview",
        (
            _b(
                "space",
                "play_stop",
                "Play",
                "play-stop",
                "Play the highlighted candidate, or stop it",
                show=True,
                key_display="space",
            ),
            _b(
                "enter",
                "play_start",
                "Play from start",
                "play-start",
                "Play the highlighted candidate from its start",
            ),
            _b("escape", "stop", "Stop", "stop", "Stop playback"),
            _b("left", "seek(-1)", "Back 1 s", "seek-back", "Seek back one second"),
            _b("right", "seek(1)", "Forward 1 s", "seek-forward", "Seek forward one second"),
            _b("shift+left", "seek(-5)", "Back 5 s", "seek-back-long", "Seek back five seconds"),
            _b(
                "shift+right",
                "seek(5)",
                "Forward 5 s",
                "seek-forward-long",
                "Seek forward five seconds",
            ),
            _b(
                "a",
                "toggle_autoplay",
                "Autoplay",
                "autoplay",
                "Play each candidate as it is highlighted",
            ),
            _b("r", "toggle_loop", "Loop", "loop", "Loop the preview"),
            _b("+", "volume(1)", "Volume up", "volume-up", "Preview volume up 2 dB"),
            _b("-", "volume(-1)", "Volume down", "volume-down", "Preview volume down 2 dB"),
            _b(
                "L",
                "toggle_loudness",
                "Loudness match",
                "loudness-match",
                "Play every candidate at the same loudness (-23 LUFS)",
            ),
        ),
    ),
    (
        "Decide",
        (
            _b("p", "pick", "Pick", "pick", "Pick the candidate (again to unpick)", show=True),
            _b(
                "x", "reject", "Reject", "reject", "Reject the candidate (again to undo)", show=True
            ),
            _b(
                "X",
                "reject_reason",
                "Reject why…",
                "reject-reason",
                "Reject with a reason the agent can use",
            ),
            _b("c", "clear", "Clear", "clear", "Clear the verdict (undecided)"),
            _b(
                "u", "undo", "Undo", "undo", "Undo the last decision (survives restarts)", show=True
            ),
            _b("ctrl+r", "redo", "Redo", "redo", "Redo the last undone decision"),
        ),
    ),
    (
        "Place",
        (
            *(
                _b(
                    str(i + 1),
                    f"set_layer('{layer}')",
                    f"Layer {layer}",
                    f"layer-{layer.replace('_', '-')}",
                    f"Set the layer to {layer} (picks the candidate)",
                )
                for i, layer in enumerate(LAYERS)
            ),
            _b(
                "o",
                "edit_onset",
                "Onset",
                "onset",
                "Edit the onset (seconds or m:ss.s)",
                show=True,
            ),
            _b(
                "[",
                "nudge_onset(-0.1)",
                "Onset -0.1 s",
                "onset-earlier",
                "Move the onset 0.1 s earlier",
            ),
            _b(
                "]", "nudge_onset(0.1)", "Onset +0.1 s", "onset-later", "Move the onset 0.1 s later"
            ),
            _b(
                "{",
                "nudge_onset(-1.0)",
                "Onset -1 s",
                "onset-earlier-long",
                "Move the onset 1 s earlier",
            ),
            _b(
                "}",
                "nudge_onset(1.0)",
                "Onset +1 s",
                "onset-later-long",
                "Move the onset 1 s later",
            ),
        ),
    ),
    (
        "Scene",
        (
            _b("t", "timeline", "Timeline", "timeline", "The picks against time: play the scene"),
            _b(
                "C",
                "in_context",
                "In context",
                "in-context",
                "Play the candidate at its place in the scene, after a pre-roll",
            ),
        ),
    ),
    (
        "View",
        (
            _b(
                "/",
                "filter",
                "Filter",
                "filter",
                "Filter on caption, tags, id and source (Enter keeps, Esc clears)",
                show=True,
            ),
            _b(
                "f",
                "cycle_status",
                "Show",
                "status-filter",
                "Cycle: all, undecided, picked, rejected",
            ),
            _b(
                "s",
                "cycle_sort",
                "Sort",
                "sort",
                "Cycle the sort: rank, caption, duration, layer, onset, score",
            ),
            _b("S", "sessions", "Sessions", "sessions", "Open the sessions screen"),
            _b(
                "question_mark,f1",
                "help",
                "Help",
                "help",
                "Show every key",
                show=True,
                key_display="?",
            ),
            _b("q", "quit", "Quit", "quit", "Save the cursor and quit", show=True),
        ),
    ),
)

ALL_BINDINGS: tuple[Binding, ...] = tuple(b for _, group in BINDING_SECTIONS for b in group)
BINDING_IDS: frozenset[str] = frozenset(b.id for b in ALL_BINDINGS if b.id)

# Actions that need a highlighted candidate.
_NEEDS_ROW = {
    "in_context",
    "play_stop",
    "play_start",
    "pick",
    "reject",
    "reject_reason",
    "clear",
    "set_layer",
    "edit_onset",
    "nudge_onset",
}
