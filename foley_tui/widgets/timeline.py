"""TimelineView: the scene's picks in lanes by layer against time, with a ruler, a
cursor bar, the narration's words, an "unplaced" lane and a moving playhead.

It draws a :class:`~foley_tui.scene.timeline.TimelineModel` (state down); the screen owns
the model and calls :meth:`TimelineView.refresh_model` after changing it. Rendering is a
handful of short lines (one per lane), so repainting at the playhead's rate is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from foley_tui.scene.timeline import NARRATION, UNPLACED, TimelineModel

if TYPE_CHECKING:
    from foley_tui.scene.build import ScenePick

#: Width of the lane-name column (name, then M/S marks).
LABEL_CELLS = 12

_EIGHTHS = " ▁▂▃▄▅▆▇█"

_BAR = Style(color="black", bgcolor="rgb(110,150,200)")
_CURSOR_BAR = Style(color="black", bgcolor="rgb(240,190,80)", bold=True)
_WORD = Style(color="rgb(160,160,160)")
_LABEL = Style(color="rgb(200,200,200)", bold=True)
_LABEL_OFF = Style(color="rgb(110,110,110)", strike=True)
_RULER = Style(color="rgb(140,140,140)")
_PLAYHEAD = Style(color="rgb(255,90,90)", bold=True)
_LOOP = Style(bgcolor="rgb(45,60,45)")
_UNPLACED = Style(color="rgb(220,140,140)")
_UNPLACED_CURSOR = Style(color="black", bgcolor="rgb(220,140,140)", bold=True)
_WAVE = Style(color="rgb(120,170,120)")
_NAME = Style(color="rgb(150,180,220)")
_CURSOR_NAME = Style(color="rgb(240,190,80)", bold=True)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of lanes: its lane, which of the lane's rows it is, and its bars (pick,
    first cell, end cell), left to right, none overlapping."""

    lane: str
    index: int
    bars: tuple[tuple[ScenePick, int, int], ...]


class TimelineView(Widget):
    """Lanes of bars; height = ruler + the narration's words + one line per lane."""

    DEFAULT_CSS = """
    TimelineView { height: auto; min-height: 3; }
    """

    playhead_s: reactive[float | None] = reactive(None, layout=False)
    """The scene clock while the scene plays (None: no playhead)."""

    def __init__(self, model: TimelineModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self._generation = 0
        self._peaks: tuple[tuple[float, float], ...] = ()
        self._peaks_duration = 0.0
        self._rows: tuple[tuple[object, ...], list[Row]] | None = None
        self.looping = False
        """The loop is on (the screen sets it): the ruler's head says so."""

    def set_narration_peaks(
        self, peaks: tuple[tuple[float, float], ...], duration_s: float
    ) -> None:
        """The narration's waveform (min/max per bucket over ``duration_s``)."""
        self._peaks = peaks
        self._peaks_duration = duration_s
        self.refresh()

    def refresh_model(self) -> None:
        self._generation += 1
        self.refresh(layout=True)

    @property
    def lane_cells(self) -> int:
        """Cells of time (the widget's width after the lane names)."""
        return max(self.size.width - LABEL_CELLS, 1)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 2 + len(self.rows(max(width - LABEL_CELLS, 1)))

    def rows(self, cells: int | None = None) -> list[Row]:
        """The lines under the ruler and the words, top to bottom: one per lane, and more
        for a lane whose picks overlap (editors stack overlapping clips: each bar keeps
        its own name). Packed greedily by onset, first row that is free."""
        cells = self.lane_cells if cells is None else cells
        key = (self._generation, cells, self.model.offset_s, self.model.zoom)
        if self._rows is not None and self._rows[0] == key:
            return self._rows[1]
        rows: list[Row] = []
        for lane in self.model.lanes():
            if lane in (NARRATION, UNPLACED):
                rows.append(Row(lane, 0, ()))
                continue
            packed: list[list[tuple[ScenePick, int, int]]] = []
            for pick in self.model.in_lane(lane):
                span = self.model.span_of(pick, cells)
                if span is None:
                    continue
                row = next((r for r in packed if r[-1][2] <= span[0]), None)
                if row is None:
                    packed.append([(pick, *span)])
                else:
                    row.append((pick, *span))
            for index, bars in enumerate(packed or [[]]):
                rows.append(Row(lane, index, tuple(bars)))
        self._rows = (key, rows)
        return rows

    def line_of(self, lane: str) -> int:
        """The widget line of ``lane``'s first row."""
        return 2 + next(i for i, row in enumerate(self.rows()) if row.lane == lane)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            return self._ruler(width)
        if y == 1:
            return self._words(width)
        rows = self.rows()
        if y - 2 >= len(rows):
            return Strip.blank(width)
        return self._lane(rows[y - 2], width)

    # -- lines -----------------------------------------------------------------------
    def _label(self, lane: str, first: bool = True) -> list[Segment]:
        """The lane's name and its M/S marks; blank on a lane's further rows."""
        if not first:
            return [Segment(" " * LABEL_CELLS, _RULER)]
        model = self.model
        marks = ("M" if lane in model.muted else " ") + ("S" if lane in model.soloed else " ")
        name = set_cell_size(lane, LABEL_CELLS - 3)
        audible = lane == UNPLACED or model.audible(lane)
        return [Segment(name, _LABEL if audible else _LABEL_OFF), Segment(f"{marks} ", _RULER)]

    def _ruler(self, width: int) -> Strip:
        cells = self.lane_cells
        text = self.model.ruler(cells)
        # The region's times are in the screen's title while it loops (they do not fit
        # here); a region kept while the loop is off is only shaded.
        head = set_cell_size("loop" if self.looping else "time", LABEL_CELLS)
        segments = [Segment(head, _RULER), Segment(text, _RULER)]
        return self._with_playhead(Strip(segments), width)

    def _lane(self, row: Row, width: int) -> Strip:
        lane = row.lane
        cells = self.lane_cells
        chars = [" "] * cells
        styles: list[Style | None] = [None] * cells
        model = self.model
        region = model.loop_region
        if region is not None:
            a, b = model.column_of(region[0]), model.column_of(region[1])
            for c in range(max(a, 0), min(b, cells)):
                styles[c] = _LOOP
        if lane == NARRATION:
            self._draw_wave(chars, styles, cells)
        elif lane == UNPLACED:
            return Strip([*self._label(lane), *self._unplaced(cells)]).adjust_cell_length(width)
        else:
            bars = row.bars
            for n, (pick, c0, c1) in enumerate(bars):
                cursor = pick.sound_id == model.cursor
                style = _CURSOR_BAR if cursor else _BAR
                for c in range(c0, c1):
                    chars[c], styles[c] = " ", style
                # The caption on the bar, and past its end in the free cells before the
                # next bar (one cell kept between), as editors name their clips.
                room = max((bars[n + 1][1] - 1 if n + 1 < len(bars) else cells) - c0, c1 - c0)
                text = "▌" + pick.caption
                name = _CURSOR_NAME if cursor else _NAME
                for i, ch in enumerate(_cells(set_cell_size(text, min(cell_len(text), room)))):
                    chars[c0 + i] = ch
                    if c0 + i >= c1:
                        styles[c0 + i] = (styles[c0 + i] or Style()) + name
        segments = [*self._label(lane, row.index == 0), *_segments(chars, styles)]
        return self._with_playhead(Strip(segments), width)

    def _words(self, width: int) -> Strip:
        """The narration's words at their start, each drawn only where it fits whole
        (with a space after it); a word that does not fit shows as a dot."""
        cells = self.lane_cells
        chars = [" "] * cells
        styles: list[Style | None] = [None] * cells
        free = 0  # the first cell a word may use
        for word in self.model.scene.words:
            col = self.model.column_of(float(word.get("start", 0.0)))
            if col < free or col >= cells:
                continue
            text = _cells(str(word.get("word", "")))
            if col + len(text) < cells and (not text or col + len(text) + 1 <= cells):
                for i, ch in enumerate(text):
                    chars[col + i] = ch
                    styles[col + i] = _WORD
                free = col + len(text) + 1
            else:
                chars[col] = "·"
                styles[col] = _WORD
                free = col + 1
        head = set_cell_size("words" if self.model.scene.words else "", LABEL_CELLS)
        return self._with_playhead(Strip([Segment(head, _RULER), *_segments(chars, styles)]), width)

    def _draw_wave(self, chars: list[str], styles: list[Style | None], cells: int) -> None:
        peaks, duration = self._peaks, self._peaks_duration
        if not peaks or duration <= 0:
            return
        per_bucket = duration / len(peaks)
        for col in range(cells):
            t0 = self.model.offset_s + col * self.model.zoom
            if t0 >= duration:
                break
            b0 = int(t0 / per_bucket)
            b1 = max(int((t0 + self.model.zoom) / per_bucket), b0 + 1)
            amp = max((max(abs(lo), abs(hi)) for lo, hi in peaks[b0:b1]), default=0.0)
            level = min(round(min(amp, 1.0) ** 0.5 * 8), 8)
            if level:
                chars[col] = _EIGHTHS[level]
                styles[col] = styles[col] or _WAVE

    def _unplaced(self, cells: int) -> list[Segment]:
        out: list[Segment] = []
        used = 0
        for pick in self.model.in_lane(UNPLACED):
            anchor = pick.placement.onset or "no onset"
            text = f" {pick.caption} [{anchor}] "
            style = _UNPLACED_CURSOR if pick.sound_id == self.model.cursor else _UNPLACED
            room = cells - used
            if room <= 0:
                break
            text = set_cell_size(text, min(cell_len(text), room))
            out.append(Segment(text, style))
            used += cell_len(text)
        note = " weave would put these at 0:00; not played"
        if used + cell_len(note) <= cells:
            out.append(Segment(note, _RULER))
        return out

    def _with_playhead(self, strip: Strip, width: int) -> Strip:
        strip = strip.adjust_cell_length(width)
        if self.playhead_s is None:
            return strip
        col = self.model.column_of(self.playhead_s)
        if not 0 <= col < self.lane_cells:
            return strip
        x = LABEL_CELLS + col
        left = strip.crop(0, x)
        right = strip.crop(x + 1, width)
        return Strip.join([left, Strip([Segment("│", _PLAYHEAD)]), right])

    def watch_playhead_s(self) -> None:
        self.refresh()


def _cells(text: str) -> list[str]:
    """One string per terminal cell (a wide character and a following empty cell)."""
    out: list[str] = []
    for ch in text:
        width = cell_len(ch)
        if width == 2:
            out.extend([ch, ""])
        elif width == 1:
            out.append(ch)
    return out


def _segments(chars: list[str], styles: list[Style | None]) -> list[Segment]:
    """Runs of equally styled cells as segments."""
    out: list[Segment] = []
    run: list[str] = []
    current: Style | None = None
    for ch, style in zip(chars, styles, strict=True):
        if style != current and run:
            out.append(Segment("".join(run), current))
            run = []
        current = style
        run.append(ch)
    if run:
        out.append(Segment("".join(run), current))
    return out
