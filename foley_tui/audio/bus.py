"""The scene's master bus: lane gains (mute, solo, preview volume) and the limiter.

The mixer hands the bus *stems*: ``(frames, lanes, 2)`` blocks, each lane the sum of its
voices already placed sample-accurately at their own gains. The bus reads the scene's live
controls at every block it processes, so a mute, solo or volume change lands on the very
next block (in the real-time player the bus runs in the audio callback, after the
premixed stems), ramped linearly per lane over :data:`LANE_RAMP_S` (never a click, even
when a change arrives in the middle of a ramp). The sum then goes through the
:class:`~foley_tui.audio.limiter.TruePeakLimiter` (ceiling -1 dBTP), so however lanes are
unmuted or the volume raised, the master never exceeds the ceiling. The limiter's
look-ahead delays the output by :attr:`MasterBus.delay` frames; the bus drops that many
leading frames, so its output frame ``j`` is stem frame ``j`` (the caller feeds
:attr:`MasterBus.discard` extra frames at the start, and a tail of that many frames after
the end to flush it).

Headless: never imports textual.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from foley_tui.audio.limiter import TruePeakLimiter, db_to_gain

if TYPE_CHECKING:
    from foley_tui.audio.base import Scene

Frames = npt.NDArray[np.float32]
#: ``(frames, lanes, 2)`` float32: each lane's voices summed, before lane gains.
Stems = npt.NDArray[np.float32]

#: The master bus ceiling (dBTP): a single preview reaches the device clipped at 0 dBFS.
CEILING_DB = -1.0

#: A lane gain change (mute, solo, volume) ramps over this long.
LANE_RAMP_S = 0.005


class MasterBus:
    """Lane gains, sum and limiter for one playback of ``scene`` (see the module
    docstring). Not thread-safe: one thread processes; others only change the scene's
    controls (each an atomic replacement of an immutable value)."""

    def __init__(
        self, scene: Scene, lanes: list[str], rate: int, *, ceiling_db: float = CEILING_DB
    ) -> None:
        self.scene = scene
        self.lanes = list(lanes)
        self.rate = int(rate)
        self.limiter = TruePeakLimiter(self.rate, ceiling_db=ceiling_db)
        self.delay = self.limiter.delay
        self._ramp_frames = max(LANE_RAMP_S * self.rate, 1.0)
        self._controls: tuple[object, ...] = ()
        self._target = self.targets()
        self._value = self._target.copy()
        self._step = np.zeros(len(self.lanes))
        self.discard = self.delay  # leading look-ahead frames still to drop
        self.peak = 0.0  # the loudest output sample so far (diagnostics, tests)

    def targets(self) -> npt.NDArray[np.float64]:
        """Each lane's gain as the scene's controls ask now (volume x mute/solo)."""
        scene = self.scene
        controls = (scene.muted, scene.soloed, scene.volume_db, scene.master_gain_db)
        if controls == self._controls:
            return self._target
        self._controls = controls
        volume = db_to_gain(scene.volume_db + scene.master_gain_db)
        return np.array([volume if scene.audible(lane) else 0.0 for lane in self.lanes])

    @property
    def gains(self) -> npt.NDArray[np.float64]:
        """Each lane's gain at the last processed frame."""
        return self._value.copy()

    def snap(self) -> None:
        """Take the controls as they are now, without a ramp (before the first block:
        a prefetched voice starts with what the user has set since)."""
        self._target = self.targets()
        self._value = self._target.copy()
        self._step = np.zeros(len(self.lanes))

    def reset(self) -> None:
        """A jump (seek): empty look-ahead, gains at their targets at once."""
        self.limiter.reset()
        self.discard = self.delay
        self._target = self.targets()
        self._value = self._target.copy()
        self._step = np.zeros(len(self.lanes))

    # Huge (finite) stems overflow to inf here; the limiter silences it: no warning.
    @np.errstate(over="ignore", invalid="ignore")
    def process(self, stems: Stems) -> Frames:
        """Mix and limit ``stems``; returns its frames less any still-dropped look-ahead."""
        n = len(stems)
        if n == 0:
            return np.zeros((0, 2), dtype=np.float32)
        target = self.targets()
        if target is not self._target:
            changed = target != self._target
            self._step[changed] = np.abs(target - self._value)[changed] / self._ramp_frames
            self._target = target
        mixed = np.zeros((n, 2), dtype=np.float32)
        for lane in range(len(self.lanes)):
            value, goal = float(self._value[lane]), float(target[lane])
            if value == goal:
                if value == 1.0:
                    mixed += stems[:, lane]
                elif value != 0.0:
                    mixed += stems[:, lane] * np.float32(value)
                continue
            step = self._step[lane]
            curve = value + (step if goal > value else -step) * np.arange(1, n + 1)
            if goal > value:
                np.minimum(curve, goal, out=curve)
            else:
                np.maximum(curve, goal, out=curve)
            self._value[lane] = curve[-1]
            mixed += stems[:, lane] * curve.astype(np.float32)[:, None]
        out = self.limiter.process(mixed)
        if self.discard:
            drop = min(self.discard, n)
            self.discard -= drop
            out = out[drop:]
        if len(out):
            peak = float(np.abs(out).max())
            if peak > self.peak:
                self.peak = peak
        return out


class StreamClock:
    """Which scene frame each frame of a stem stream is (a loop region makes the stream
    jump back): markers ``(stream index, scene frame)`` added where a block starts."""

    def __init__(self) -> None:
        self._marks: deque[tuple[int, int]] = deque()

    def add(self, index: int, scene_frame: int) -> None:
        if self._marks:
            last_index, last_frame = self._marks[-1]
            if scene_frame - last_frame == index - last_index:
                return  # contiguous: the last marker already says where it is
        self._marks.append((index, scene_frame))

    def scene_frame(self, index: int) -> int:
        """The scene frame of stream frame ``index`` (markers before it are forgotten)."""
        marks = self._marks
        while len(marks) > 1 and marks[1][0] <= index:
            marks.popleft()
        if not marks:
            return index
        first_index, first_frame = marks[0]
        return first_frame + index - first_index

    def clear(self) -> None:
        self._marks.clear()
