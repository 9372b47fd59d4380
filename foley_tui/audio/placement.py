"""A sound's place on a scene clock, in frames: foley's rules, for the mixer.

The scene contract (:mod:`foley_tui.scene.contract`) is what every consumer of a scene
uses; the frame arithmetic lives here, below it, so the mixer places each voice by the
very same rules without importing the scene model:

* the placement sample is ``int(onset * rate)`` (foley's ``FullRender`` overlays at
  ``int(pl.onset * sample_rate)``);
* a span (a bed's sentence, a region) is ``int(seconds * rate)`` frames, and a source is
  fitted to it as foley's ``fit_duration`` does: trimmed when longer, looped to fill it
  only when it loops, else played once.

Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass


def placement_frame(onset_s: float, rate: int) -> int:
    """The sample a sound placed at ``onset_s`` starts on, at ``rate``: foley's rule."""
    return int(onset_s * rate)


def span_frames(seconds: float, rate: int) -> int:
    """A span (a bed's sentence, a region) in frames, as foley's ``fit_duration``."""
    return max(0, int(seconds * rate))


@dataclass(frozen=True, slots=True)
class ClipPlacement:
    """Where one pick's sound goes on the scene clock, independent of any sample rate.

    Attributes:
        onset_s: Scene time of its first sample (foley's resolved onset).
        in_point_s: Where in the source it starts (a region's in-point; else 0).
        span_s: The span it is fitted to: a bed's sentence, or a region's length; None
            plays the whole file.
        loop: Fill the span by looping when the sound is shorter (a looping event).
    """

    onset_s: float
    in_point_s: float = 0.0
    span_s: float | None = None
    loop: bool = False

    def frame(self, rate: int) -> int:
        """The placement sample at ``rate`` (:func:`placement_frame`)."""
        return placement_frame(self.onset_s, rate)

    def in_point_frame(self, rate: int) -> int:
        return span_frames(self.in_point_s, rate)

    def length_frames(self, rate: int, file_frames: int) -> int:
        """How many frames sound, at ``rate``, for a source of ``file_frames`` frames
        (at that rate): foley's ``fit_duration`` on what follows the in-point."""
        available = max(file_frames - self.in_point_frame(rate), 0)
        if self.span_s is None:
            return available
        target = span_frames(self.span_s, rate)
        if available >= target or self.loop:
            return target
        return available

    def length_s(self, file_s: float | None) -> float | None:
        """How long it sounds, for a source ``file_s`` seconds long (None: unknown)."""
        if self.span_s is None:
            return None if file_s is None else max(file_s - self.in_point_s, 0.0)
        if self.loop or file_s is None:
            return self.span_s
        return min(self.span_s, max(file_s - self.in_point_s, 0.0))
