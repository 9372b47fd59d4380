"""The offline bounce of a scene's mix to a WAV or FLAC file (``render-scene``, and the spot
bundle's reference mix): the same :class:`~foley_tui.audio.mixer.SceneMix` the player runs,
written block by block to a hidden partial file renamed into place when complete.

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from foley_tui.audio.mixer import Scene


class BounceCancelled(Exception):
    """The caller cancelled the bounce; no file was left."""


@dataclass(frozen=True, slots=True)
class Bounce:
    """A written mix."""

    path: Path
    frames: int
    rate: int
    subtype: str
    peak: float
    problems: list[str] = field(default_factory=list)


def bounce(
    scene: Scene,
    out: Path,
    rate: int,
    *,
    subtype: str = "PCM_24",
    start_s: float = 0.0,
    end_s: float | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Bounce:
    """Mix ``scene`` at ``rate`` from ``start_s`` to ``end_s`` into ``out`` (``.wav`` or
    ``.flac`` by its suffix; ``subtype`` ``PCM_24`` or ``FLOAT``)."""
    import soundfile as sf

    from foley_tui.audio.mixer import SceneMix

    mix = SceneMix(scene, rate, start_s=start_s, end_s=end_s)
    tmp = out.with_name(f".{out.name}.partial")
    frames = 0
    try:
        with sf.SoundFile(
            str(tmp),
            "w",
            samplerate=rate,
            channels=2,
            subtype=subtype,
            format="FLAC" if out.suffix.lower() == ".flac" else "WAV",
        ) as fh:
            for block in mix.blocks():
                if cancelled():
                    raise BounceCancelled
                fh.write(block)
                frames += len(block)
        tmp.replace(out)
    finally:
        mix.close()
        tmp.unlink(missing_ok=True)
    return Bounce(out, frames, rate, subtype, mix.peak, list(mix.problems))
