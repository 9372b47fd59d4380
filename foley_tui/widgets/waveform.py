"""Waveform: min/max peaks as bars, the played part highlighted, and a playhead column.

Peaks are computed by a worker (quick overview first, exact later) and handed in with
:meth:`Waveform.set_peaks`; the position comes from ``PlayheadMoved`` messages. Rendering
is a few short lines, so it is cheap to repaint at the playhead's rate.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
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
    Waveform { height: 2; }
    Waveform > .waveform--played { color: $accent; }
    Waveform > .waveform--rest { color: $primary 60%; }
    Waveform > .waveform--playhead { color: $warning; text-style: bold; }
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
        """Two halves mirrored around the middle: the upper rows grow up with lower-eighth
        blocks; the lower rows grow down with the same blocks drawn in reverse video."""
        width = self.size.width
        height = max(self.size.height, 1)
        base = self.rich_style
        if not self._peaks:
            text = self.message if y == (height - 1) // 2 else ""
            return Strip([Segment(text[:width].center(width), base)], width)
        if self._amps_width != width:
            self._amps = amplitudes(self._peaks, width)
            self._amps_width = width
        upper = height // 2 or 1
        lower = height - upper
        head = -1
        if self.duration_s > 0 and (self.playing or self.position_s > 0):
            head = min(int(self.position_s / self.duration_s * width), width - 1)
        played = base + self.get_component_rich_style("waveform--played")
        rest = base + self.get_component_rich_style("waveform--rest")
        playhead = base + self.get_component_rich_style("waveform--playhead")
        flip = Style(reverse=True)
        below = y >= upper
        rows_half = lower if below else upper
        # Eighths from the centre line to this row's near edge.
        offset = (y - upper) * 8 if below else (upper - 1 - y) * 8
        segments: list[Segment] = []
        for x, amp in enumerate(self._amps):
            level = max(round(amp * rows_half * 8), 1)
            fill = min(max(level - offset, 0), 8)
            style = played if x < head else rest
            if x == head:
                segments.append(Segment("┃", playhead))
            elif below:
                segments.append(Segment(_EIGHTHS[8 - fill], style + flip))
            else:
                segments.append(Segment(_EIGHTHS[fill], style))
        return Strip(segments, width).simplify()
