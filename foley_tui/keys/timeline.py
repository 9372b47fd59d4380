"""Key table: the timeline's own bindings, and the audition ids it honours with its own
action. Gathered in :mod:`foley_tui.keys.table`."""

from __future__ import annotations

from foley_tui.domain import LAYERS
from foley_tui.keys.spec import Also, KeySpec, binding

_T = "timeline"

TIMELINE_KEYS: tuple[KeySpec, ...] = (
    binding(
        "timeline-prev",
        "left,h",
        "move(-1)",
        "Earlier pick",
        "Highlight the previous pick",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-next",
        "right,l",
        "move(1)",
        "Later pick",
        "Highlight the next pick",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-lane-up",
        "up,k",
        "move_lane(-1)",
        "Lane up",
        "The nearest pick a lane up",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-lane-down",
        "down,j",
        "move_lane(1)",
        "Lane down",
        "The nearest pick a lane down",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-zoom-in",
        ">",
        "zoom(-1)",
        "Zoom in",
        "Fewer seconds per column",
        _T,
        "Timeline",
        show=True,
    ),
    binding(
        "timeline-zoom-out",
        "<",
        "zoom(1)",
        "Zoom out",
        "More seconds per column",
        _T,
        "Timeline",
        show=True,
    ),
    binding(
        "timeline-scroll-later",
        "shift+right",
        "scroll(1)",
        "Scroll later",
        "Scroll in time",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-scroll-earlier",
        "shift+left",
        "scroll(-1)",
        "Scroll earlier",
        "Scroll in time",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-play-scene",
        "P",
        "play_scene",
        "Play scene",
        "Play the scene from the view",
        _T,
        "Timeline",
        show=True,
    ),
    binding(
        "timeline-mix",
        "w",
        "toggle_mix",
        "Woven/flat",
        "Switch the scene between the woven mix (as foley weaves it) and the flat mix",
        _T,
        "Timeline",
        show=True,
    ),
    binding(
        "timeline-escape",
        "escape",
        "escape",
        "Stop/back",
        "Stop the scene, else go back",
        _T,
        "Timeline",
    ),
    binding("timeline-back", "t", "back", "Back", "Back to the list", _T, "Timeline", show=True),
    binding(
        "timeline-tap",
        "T",
        "tap",
        "Tap onset",
        "Set the pick's onset to the playhead",
        _T,
        "Timeline",
        show=True,
    ),
    binding(
        "timeline-mute",
        "m",
        "mute",
        "Mute lane",
        "Mute the highlighted pick's lane",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-solo",
        "M",
        "solo",
        "Solo lane",
        "Solo the highlighted pick's lane",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-spot",
        "S",
        "spot",
        "Spot…",
        "Spot the scene to a folder for an editor: timestamped BWFs, RPP, AAF, OTIO",
        _T,
        "Timeline",
        show=True,
    ),
    binding(
        "timeline-loop-start",
        "(",
        "loop_edge('start')",
        "Loop from",
        "Start the loop region at the playhead (or the pick)",
        _T,
        "Timeline",
    ),
    binding(
        "timeline-loop-end",
        ")",
        "loop_edge('end')",
        "Loop to",
        "End the loop region at the playhead (or the pick's end)",
        _T,
        "Timeline",
    ),
)

SHARED_WITH_TIMELINE: dict[str, Also] = {
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
