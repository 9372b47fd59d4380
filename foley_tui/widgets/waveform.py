"""Waveform: min/max peaks as bars, the played part highlighted, and a playhead column.

Peaks are computed by a worker (quick overview first, exact later) and handed in with
:meth:`Waveform.set_peaks`; the position comes from ``PlayheadMoved`` messages. Rendering
is a few short lines, so it is cheap to repaint at the playhead's rate. With skip-silence
the leading silence a preview skips (up to ``first_sound_s``) is drawn dimmed. A click
asks to seek there (:class:`SeekRequested`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.message import Message
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


@dataclass
class SeekRequested(Message):
    """The user clicked the waveform (or spectrogram): play the sound from ``position_s``."""

    position_s: float


def column_of(position_s: float, duration_s: float, width: int, playing: bool) -> int:
    """The playhead's column, or -1 when it is not shown (stopped at the start)."""
    if duration_s <= 0 or width <= 0 or not (playing or position_s > 0):
        return -1
    return min(int(position_s / duration_s * width), width - 1)


def position_at(x: int, width: int, duration_s: float) -> float:
    """The time a click on column ``x`` stands for: the start of that column."""
    if width <= 0 or duration_s <= 0:
        return 0.0
    return min(max(x, 0), width - 1) / width * duration_s


class Waveform(Widget):
    """The highlighted candidate's waveform with a moving playhead."""

    COMPONENT_CLASSES = {
        "waveform--played",
        "waveform--rest",
        "waveform--playhead",
        "waveform--skipped",
    }

    DEFAULT_CSS = """
    Waveform { height: 2; }
    Waveform > .waveform--played { color: $accent; }
    Waveform > .waveform--rest { color: $primary 60%; }
    Waveform > .waveform--playhead { color: $warning; text-style: bold; }
    Waveform > .waveform--skipped { color: $text-disabled; }
    """

    position_s: reactive[float] = reactive(0.0)
    duration_s: reactive[float] = reactive(0.0)
    playing: reactive[bool] = reactive(False)
    message: reactive[str] = reactive("")
    """Shown instead of bars (no audio, computing, unplayable...)."""
    first_sound_s: reactive[float] = reactive(0.0)
    """Where a skip-silence preview starts (0: from the top); the part before is dimmed."""

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
        self.first_sound_s = 0.0
        self.playing = False
        self.message = message
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        if self._peaks and self.duration_s > 0:
            event.stop()
            self.post_message(SeekRequested(position_at(event.x, self.size.width, self.duration_s)))

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
        head = column_of(self.position_s, self.duration_s, width, self.playing)
        # Columns wholly before the first sound are the skipped silence.
        skip = 0
        if self.duration_s > 0 and self.first_sound_s > 0:
            skip = int(self.first_sound_s / self.duration_s * width)
        played = base + self.get_component_rich_style("waveform--played")
        rest = base + self.get_component_rich_style("waveform--rest")
        skipped = base + self.get_component_rich_style("waveform--skipped")
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
            style = skipped if x < skip else played if x < head else rest
            if x == head:
                segments.append(Segment("┃", playhead))
            elif below:
                segments.append(Segment(_EIGHTHS[8 - fill], style + flip))
            else:
                segments.append(Segment(_EIGHTHS[fill], style))
        return Strip(segments, width).simplify()
