"""Waveform: min/max peaks as bars, the played part highlighted, and a playhead column.

Peaks are computed by a worker (quick overview first, exact later) and handed in with
:meth:`Waveform.set_peaks`; the position comes from ``PlayheadMoved`` messages. Rendering
is a few short lines, so it is cheap to repaint at the playhead's rate.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

_EIGHTHS = " ▁▂▃▄▅▆▇█"


def amplitudes(peaks: Sequence[tuple[float, float]], width: int) -> list[float]:
    """Fold ``peaks`` into ``width`` columns of peak amplitude in [0, 1]."""
    if width <= 0 or not peaks:
        return [0.0] * max(width, 0)
    count = len(peaks)
    out: list[float] = []
    for column in range(width):
        start = column * count // width
        stop = max((column + 1) * count // width, start + 1)
        amp = 0.0
        for low, high in peaks[start:stop]:
            amp = max(amp, abs(low), abs(high))
        out.append(min(amp, 1.0))
    return out


class Waveform(Widget):
    """The highlighted candidate's waveform with a moving playhead."""

    COMPONENT_CLASSES = {"waveform--played", "waveform--rest", "waveform--playhead"}

    DEFAULT_CSS = """
    Waveform { height: 3; }
    Waveform > .waveform--played { color: $accent; }
    Waveform > .waveform--rest { color: $primary 60%; }
    Waveform > .waveform--playhead { background: $warning; color: $background; }
    """

    position_s: reactive[float] = reactive(0.0)
    duration_s: reactive[float] = reactive(0.0)
    playing: reactive[bool] = reactive(False)
    message: reactive[str] = reactive("")
    """Shown instead of bars (no audio, computing, unplayable...)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._peaks: Sequence[tuple[float, float]] = ()
        self._amps: list[float] = []
        self._amps_width = -1

    def set_peaks(self, peaks: Sequence[tuple[float, float]], duration_s: float) -> None:
        self._peaks = peaks
        self._amps_width = -1
        self.duration_s = duration_s
        self.message = ""
        self.refresh()

    def clear(self, message: str = "") -> None:
        self._peaks = ()
        self._amps_width = -1
        self.position_s = 0.0
        self.playing = False
        self.message = message
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        height = self.size.height
        base = self.rich_style
        if not self._peaks:
            text = self.message if y == height // 2 else ""
            return Strip([Segment(text[:width].center(width), base)], width)
        if self._amps_width != width:
            self._amps = amplitudes(self._peaks, width)
            self._amps_width = width
        levels = height * 8
        row_floor = (height - 1 - y) * 8  # levels below this line
        head = -1
        if self.duration_s > 0 and (self.playing or self.position_s > 0):
            head = min(int(self.position_s / self.duration_s * width), width - 1)
        played = base + self.get_component_rich_style("waveform--played")
        rest = base + self.get_component_rich_style("waveform--rest")
        playhead = base + self.get_component_rich_style("waveform--playhead")
        segments: list[Segment] = []
        for x, amp in enumerate(self._amps):
            level = max(round(amp * levels), 1)
            fill = min(max(level - row_floor, 0), 8)
            char = _EIGHTHS[fill]
            style = playhead if x == head else played if x < head else rest
            segments.append(Segment(char, style))
        return Strip(segments, width).simplify()
