"""Spectrogram: the highlighted candidate's spectrum over time, in coloured half blocks.

Each cell is an upper half block (``▀``) whose foreground is one frequency band and whose
background the band below it, so a pane of ``h`` rows shows ``2h`` bands with no image
protocol: it works in every terminal with colour. Low frequencies are at the bottom; the
played part and the playhead are drawn as in the waveform. The levels are computed by a
worker (:mod:`foley_tui.audio.spectrogram`) for the pane's size and handed in with
:meth:`set_levels`; when the pane changes size it posts :class:`Spectrogram.Resized`, so
its owner computes the grid for the new size (the old one is stretched to the pane only
until that answer comes).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from foley_tui.widgets.waveform import SeekRequested, column_of, position_at

#: A dark-to-bright ramp (black, purple, red, orange, pale yellow) legible on dark and
#: light themes; levels are quantised to :data:`STEPS` colours.
RAMP: tuple[tuple[float, tuple[int, int, int]], ...] = (
    (0.0, (0, 0, 4)),
    (0.25, (87, 16, 110)),
    (0.5, (188, 55, 84)),
    (0.75, (249, 142, 9)),
    (1.0, (252, 255, 164)),
)
STEPS = 32
HALF = "▀"


@lru_cache(maxsize=STEPS + 1)
def colour(step: int) -> Color:
    """The ramp's colour at ``step`` of :data:`STEPS`."""
    level = min(max(step, 0), STEPS) / STEPS
    for (low, a), (high, b) in pairwise(RAMP):
        if level <= high:
            t = (level - low) / (high - low) if high > low else 0.0
            return Color.from_rgb(*(round(x + (y - x) * t) for x, y in zip(a, b, strict=True)))
    return Color.from_rgb(*RAMP[-1][1])


def step_of(level: float) -> int:
    return round(min(max(level, 0.0), 1.0) * STEPS)


#: The smallest grid a worker computes (a pane not laid out yet has no size).
MIN_COLUMNS = 40
MIN_BANDS = 8


def stretch(levels: Sequence[Sequence[float]], bands: int, columns: int) -> list[list[int]]:
    """``levels[band][column]`` (band 0 lowest) resampled (nearest) to ``bands`` x
    ``columns`` colour steps, top band first."""
    if not levels or not levels[0] or bands <= 0 or columns <= 0:
        return [[0] * max(columns, 0) for _ in range(max(bands, 0))]
    have_bands, have_columns = len(levels), len(levels[0])
    out: list[list[int]] = []
    for row in range(bands):
        band = levels[(bands - 1 - row) * have_bands // bands]
        out.append([step_of(band[x * have_columns // columns]) for x in range(columns)])
    return out


class Spectrogram(Widget):
    """The highlighted candidate's spectrogram with a moving playhead."""

    COMPONENT_CLASSES = {"spectrogram--playhead", "spectrogram--message"}

    DEFAULT_CSS = """
    Spectrogram { height: 8; }
    Spectrogram > .spectrogram--playhead { color: $warning; text-style: bold; }
    Spectrogram > .spectrogram--message { color: $text-muted; }
    """

    position_s: reactive[float] = reactive(0.0)
    duration_s: reactive[float] = reactive(0.0)
    playing: reactive[bool] = reactive(False)
    message: reactive[str] = reactive("")
    """Shown instead of the picture (computing, unplayable...)."""

    class Resized(Message):
        """The pane's size changed and its levels were computed for another grid."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._levels: Sequence[Sequence[float]] = ()
        self._grid: list[list[int]] = []
        self._grid_size = (-1, -1)

    @property
    def has_levels(self) -> bool:
        return bool(self._levels)

    def grid_wanted(self) -> tuple[int, int]:
        """(columns, bands) a worker should compute for the pane's current size."""
        return max(self.size.width, MIN_COLUMNS), max(self.size.height * 2, MIN_BANDS)

    @property
    def grid_shown(self) -> tuple[int, int]:
        """(columns, bands) of the levels it holds ((0, 0): none)."""
        levels = self._levels
        return (len(levels[0]) if levels else 0), len(levels)

    def on_resize(self, event: events.Resize) -> None:
        if self._levels and self.grid_shown != self.grid_wanted():
            self.post_message(self.Resized())

    def set_levels(self, levels: Sequence[Sequence[float]], duration_s: float) -> None:
        self._levels = levels
        self._grid_size = (-1, -1)
        self.duration_s = duration_s
        self.message = ""
        self.refresh()

    def clear(self, message: str = "") -> None:
        self._levels = ()
        self._grid_size = (-1, -1)
        self.position_s = 0.0
        self.playing = False
        self.message = message
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        if self._levels and self.duration_s > 0:
            event.stop()
            at = position_at(event.x, self.size.width, self.duration_s)
            self.post_message(SeekRequested(at))

    def render_line(self, y: int) -> Strip:
        width, height = self.size.width, max(self.size.height, 1)
        base = self.rich_style
        if not self._levels:
            text = self.message if y == (height - 1) // 2 else ""
            style = base + self.get_component_rich_style("spectrogram--message")
            return Strip([Segment(text[:width].center(width), style)], width)
        if self._grid_size != (width, height):
            self._grid = stretch(self._levels, height * 2, width)
            self._grid_size = (width, height)
        upper, lower = self._grid[2 * y], self._grid[2 * y + 1]
        head = column_of(self.position_s, self.duration_s, width, self.playing)
        playhead = self.get_component_rich_style("spectrogram--playhead")
        segments: list[Segment] = []
        for x in range(width):
            if x == head:
                segments.append(Segment("┃", playhead + Style(bgcolor=colour(lower[x]))))
            else:
                style = Style(color=colour(upper[x]), bgcolor=colour(lower[x]))
                segments.append(Segment(HALF, style))
        return Strip(segments, width).simplify()
