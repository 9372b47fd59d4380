"""The timeline's headless model: lanes, a cursor between picks, zoom and scroll, the
ruler, mute/solo, a loop region, and what a nudge or a tap would write.

The timeline screen draws what this returns and writes what it decides through the
store (journaled like every decision); nothing here touches a widget or a file.

Headless: never imports textual.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from foley_tui.scene.build import LANES, SceneModel, ScenePick
from foley_tui.scene.contract import DEFAULT_MIX, FLAT, WOVEN, Mix
from foley_tui.scene.reading import clock

#: The lane of picks whose anchor does not resolve.
UNPLACED = "unplaced"
NARRATION = "narration"

#: Zoom levels: seconds per terminal cell.
ZOOMS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
DEFAULT_ZOOM = 0.25


@dataclass(frozen=True, slots=True)
class Edit:
    """An onset write the timeline decided (the screen applies it through the store).

    Attributes:
        sound_id: The pick.
        onset: The new numeric onset (seconds, rounded to the millisecond).
        replaces_anchor: The symbolic anchor it would replace (the screen asks first),
            else None.
    """

    sound_id: str
    onset: float
    replaces_anchor: str | None = None


@dataclass
class TimelineModel:
    """What the timeline shows and where its cursor and viewport are."""

    scene: SceneModel
    cursor: str | None = None
    zoom: float = DEFAULT_ZOOM
    offset_s: float = 0.0
    muted: set[str] = field(default_factory=set)
    soloed: set[str] = field(default_factory=set)
    loop_region: tuple[float, float] | None = None
    mix: Mix = DEFAULT_MIX
    """The mix ``P`` plays: ``woven`` (as foley's weave) or ``flat`` (unity)."""

    def __post_init__(self) -> None:
        if self.cursor is None or self.pick(self.cursor) is None:
            order = self.order()
            self.cursor = order[0].sound_id if order else None

    # -- content ---------------------------------------------------------------------
    def lanes(self) -> list[str]:
        """Lanes shown, top to bottom: the narration (if any), foley's layers, unplaced."""
        lanes = [NARRATION] if self.scene.narration is not None else []
        lanes += list(LANES)
        if self.scene.unplaced:
            lanes.append(UNPLACED)
        return lanes

    def lane_of(self, pick: ScenePick) -> str:
        return pick.layer if pick.placed and pick.layer in LANES else UNPLACED

    def in_lane(self, lane: str) -> list[ScenePick]:
        return [p for p in self.order() if self.lane_of(p) == lane]

    def order(self) -> list[ScenePick]:
        """Picks in cursor order: placed by onset, then the unplaced."""
        return [*self.scene.placed, *self.scene.unplaced]

    def pick(self, sound_id: str | None) -> ScenePick | None:
        return self.scene.pick(sound_id) if sound_id is not None else None

    @property
    def current(self) -> ScenePick | None:
        return self.pick(self.cursor)

    def rebuild(self, scene: SceneModel) -> None:
        """New picks (after a write or an outside change): keep the cursor if it exists."""
        self.scene = scene
        if self.pick(self.cursor) is None:
            order = self.order()
            self.cursor = order[0].sound_id if order else None

    @property
    def end_s(self) -> float:
        return max(self.scene.end_s, 1.0)

    # -- cursor ----------------------------------------------------------------------
    def move(self, step: int) -> ScenePick | None:
        """The cursor to the previous/next pick in time (clamped)."""
        order = self.order()
        if not order:
            return None
        ids = [p.sound_id for p in order]
        index = ids.index(self.cursor) if self.cursor in ids else 0
        index = min(max(index + step, 0), len(ids) - 1)
        self.cursor = ids[index]
        return order[index]

    def move_lane(self, step: int) -> ScenePick | None:
        """The cursor to the nearest pick (in time) of the next lane up/down that has one."""
        current = self.current
        lanes = [lane for lane in self.lanes() if lane != NARRATION and self.in_lane(lane)]
        if current is None or not lanes:
            return None
        here = self.lane_of(current)
        index = lanes.index(here) if here in lanes else 0
        index = min(max(index + step, 0), len(lanes) - 1)
        if lanes[index] == here:
            return current
        at = current.onset_s or 0.0
        target = min(self.in_lane(lanes[index]), key=lambda p: abs((p.onset_s or 0.0) - at))
        self.cursor = target.sound_id
        return target

    # -- viewport --------------------------------------------------------------------
    def zoom_step(self, step: int, width: int, *, around_s: float | None = None) -> None:
        """Zoom in (step < 0: fewer seconds per cell) or out, keeping ``around_s`` (the
        cursor's onset by default) at the same column."""
        index = min(range(len(ZOOMS)), key=lambda i: abs(ZOOMS[i] - self.zoom))
        index = min(max(index + step, 0), len(ZOOMS) - 1)
        anchor = around_s if around_s is not None else self._cursor_time()
        column = (anchor - self.offset_s) / self.zoom
        self.zoom = ZOOMS[index]
        self.offset_s = max(0.0, anchor - column * self.zoom)
        self.ensure_visible(width)

    def scroll(self, cells: int, width: int) -> None:
        self.offset_s = max(0.0, self.offset_s + cells * self.zoom)
        limit = max(self.end_s - width * self.zoom * 0.5, 0.0)
        self.offset_s = min(self.offset_s, limit)

    def ensure_visible(self, width: int, at_s: float | None = None) -> None:
        """Scroll so ``at_s`` (the cursor's onset by default) is on screen."""
        at = at_s if at_s is not None else self._cursor_time()
        span = width * self.zoom
        if at < self.offset_s:
            self.offset_s = max(0.0, at - span * 0.1)
        elif at >= self.offset_s + span:
            self.offset_s = max(0.0, at - span * 0.9)

    def _cursor_time(self) -> float:
        current = self.current
        return current.onset_s if current is not None and current.onset_s is not None else 0.0

    def column_of(self, seconds: float) -> int:
        return math.floor((seconds - self.offset_s) / self.zoom + 1e-9)

    def span_of(self, pick: ScenePick, width: int) -> tuple[int, int] | None:
        """The cells ``[c0, c1)`` of a placed pick's bar in a lane ``width`` cells wide
        (at least one cell), or None when it is off screen or unplaced."""
        if pick.onset_s is None:
            return None
        start = self.column_of(pick.onset_s)
        end = self.column_of(pick.onset_s + (pick.length_s or 0.0))
        end = max(end, start + 1)
        if end <= 0 or start >= width:
            return None
        return max(start, 0), min(end, width)

    def ruler(self, width: int) -> str:
        """A time ruler ``width`` cells wide: a tick label every few cells."""
        step = _ruler_step(self.zoom)
        cells = [" "] * width
        t = math.ceil(self.offset_s / step - 1e-9) * step
        while True:
            col = self.column_of(t)
            if col >= width:
                break
            label = _ruler_label(t, step)
            if (
                col >= 0
                and col + len(label) <= width
                and all(c == " " for c in cells[col : col + len(label) + 1])
            ):
                cells[col] = "|"
                for i, ch in enumerate(label[1:], start=1):
                    cells[col + i] = ch
            t += step
        return "".join(cells)

    # -- decisions -------------------------------------------------------------------
    def nudge(self, delta: float) -> Edit | None:
        """The cursor pick's onset moved by ``delta`` seconds (from where it sounds now)."""
        current = self.current
        if current is None:
            return None
        base = current.onset_s if current.onset_s is not None else 0.0
        return self._edit(current, max(0.0, round(base + delta, 3)))

    def tap(self, playhead_s: float, latency_s: float) -> Edit | None:
        """The cursor pick's onset at the playhead, less the output latency (what the user
        heard when they pressed the key)."""
        current = self.current
        if current is None:
            return None
        return self._edit(current, max(0.0, round(playhead_s - latency_s, 3)))

    @staticmethod
    def _edit(pick: ScenePick, onset: float) -> Edit:
        anchor = pick.placement.onset if pick.placement.onset_chosen else None
        symbolic = anchor is not None and pick.reading.anchor.kind != "absolute"
        return Edit(pick.sound_id, onset, anchor if symbolic else None)

    # -- mixing controls -------------------------------------------------------------
    def toggle_mute(self, lane: str) -> bool:
        if lane in self.muted:
            self.muted.discard(lane)
            return False
        self.muted.add(lane)
        return True

    def toggle_solo(self, lane: str) -> bool:
        if lane in self.soloed:
            self.soloed.discard(lane)
            return False
        self.soloed.add(lane)
        return True

    def audible(self, lane: str) -> bool:
        if lane in self.muted:
            return False
        return not self.soloed or lane in self.soloed

    def set_loop_edge(self, seconds: float, *, start: bool) -> tuple[float, float]:
        """Set the loop region's start or end at ``seconds``; a region needs start < end
        (the other edge moves to keep one second, or the end of the scene)."""
        seconds = max(0.0, round(seconds, 3))
        a, b = self.loop_region if self.loop_region is not None else (0.0, self.end_s)
        if start:
            a = seconds
            if b <= a:
                b = a + 1.0
        else:
            b = seconds
            if b <= a:
                a = max(0.0, b - 1.0)
                if b <= a:
                    b = a + 1.0
        self.loop_region = (a, b)
        return a, b

    def toggle_mix(self) -> Mix:
        """Switch between the woven and the flat mix; returns the one now chosen."""
        self.mix = FLAT if self.mix == WOVEN else WOVEN
        return self.mix

    def describe(self, pick: ScenePick) -> str:
        """One line for the status bar: the pick, where it sits, how foley reads it, and
        (in the woven mix) what weave does with it when it does not simply play it."""
        where = clock(pick.onset_s) if pick.onset_s is not None else "unplaced"
        chosen = "chosen" if pick.placement.onset_chosen else "suggested"
        notes = [pick.note] if pick.note else []
        woven = self.scene.woven_note(pick) if self.mix == WOVEN else None
        if woven and woven not in notes:
            notes.append(woven)
        tail = "".join(f" · {n}" for n in notes)
        return f"{pick.caption} · {pick.layer} · {where} ({chosen}: {pick.reading.summary}){tail}"


def _ruler_step(zoom: float) -> float:
    """Seconds between ruler labels: about every 10-16 cells."""
    for step in (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0):
        if step / zoom >= 10:
            return step
    return 1200.0


def _ruler_label(t: float, step: float) -> str:
    if step < 1:
        return f"|{t:.1f}s"
    minutes, seconds = divmod(round(t), 60)
    return f"|{minutes}:{seconds:02d}"
