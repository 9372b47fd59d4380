"""A sound's place on a scene clock, in frames: foley's rules, for the mixer.

The scene contract (:mod:`foley_tui.scene.contract`) is what every consumer of a scene
uses; the frame arithmetic lives here, below it, so the mixer places each voice by the
very same rules without importing the scene model:

* the placement sample is ``int(onset * rate)`` (foley's ``FullRender`` overlays at
  ``int(pl.onset * sample_rate)``);
* a span (a bed's sentence) is ``int(seconds * rate)`` frames, and a source is fitted to
  it as foley's ``fit_duration`` does: trimmed when longer, looped to fill it only when it
  loops, else played once;
* a region is the source from its in-point's sample to its out point's, each by the same
  ``int(seconds * rate)`` rule (never its length in seconds, which a float difference
  can shorten by a sample).

Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass


def placement_frame(onset_s: float, rate: int) -> int:
    """The sample a sound placed at ``onset_s`` starts on, at ``rate``: foley's rule."""
    return int(onset_s * rate)


def span_frames(seconds: float, rate: int) -> int:
    """A span (a bed's sentence) or a point in a source in frames, as foley's
    ``fit_duration``."""
    return max(0, int(seconds * rate))


@dataclass(frozen=True, slots=True)
class ClipPlacement:
    """Where one pick's sound goes on the scene clock, independent of any sample rate.

    Attributes:
        onset_s: Scene time of its first sample (foley's resolved onset).
        in_point_s: Where in the source it starts (a region's in-point; else 0).
        span_s: The span it is fitted to (a bed's sentence); None plays the source to its
            end (or to ``out_point_s``).
        loop: Fill the span by looping when the sound is shorter (a looping event).
        out_point_s: Where in the source it ends (a region's out point); None: its end.
    """

    onset_s: float
    in_point_s: float = 0.0
    span_s: float | None = None
    loop: bool = False
    out_point_s: float | None = None

    def frame(self, rate: int) -> int:
        """The placement sample at ``rate`` (:func:`placement_frame`)."""
        return placement_frame(self.onset_s, rate)

    def in_point_frame(self, rate: int) -> int:
        return span_frames(self.in_point_s, rate)

    def length_frames(self, rate: int, file_frames: int) -> int:
        """How many frames sound, at ``rate``, for a source of ``file_frames`` frames
        (at that rate): foley's ``fit_duration`` on what follows the in-point (up to the
        out point)."""
        end = file_frames
        if self.out_point_s is not None:
            end = min(end, span_frames(self.out_point_s, rate))
        available = max(end - self.in_point_frame(rate), 0)
        if self.span_s is None:
            return available
        target = span_frames(self.span_s, rate)
        if available >= target or self.loop:
            return target
        return available

    def length_s(self, file_s: float | None) -> float | None:
        """How long it sounds, for a source ``file_s`` seconds long (None: unknown)."""
        end = file_s
        if self.out_point_s is not None:
            end = self.out_point_s if file_s is None else min(file_s, self.out_point_s)
        available = None if end is None else max(end - self.in_point_s, 0.0)
        if self.span_s is None:
            return available
        if self.loop or available is None:
            return self.span_s
        return min(self.span_s, available)
