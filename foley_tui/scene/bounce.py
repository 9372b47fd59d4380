"""The offline bounce of a scene's mix to a WAV or FLAC file (``render-scene``, and the spot
bundle's reference mix): the same :class:`~foley_tui.audio.mixer.SceneMix` the player runs,
written block by block to a hidden partial file renamed into place when complete.

The partial file is ``.<output>.<pid>.foley-tui-partial``: the pid says whose it is, so a
bounce can tell a partial file left by a killed one (its process gone: SIGKILL, a crash)
from one another bounce is writing, and sweeps the first kind from its folder.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from foley_tui.audio.mixer import Scene


PARTIAL_SUFFIX = ".foley-tui-partial"


def partial_path(out: Path) -> Path:
    """Where the bounce to ``out`` is written until it is complete."""
    return out.with_name(f".{out.name}.{os.getpid()}{PARTIAL_SUFFIX}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def sweep_partials(folder: Path) -> list[Path]:
    """Remove the partial bounces of our own naming in ``folder`` whose process is gone:
    regular files only, never another name."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(PARTIAL_SUFFIX)):
            continue
        _, _, pid_text = name[: -len(PARTIAL_SUFFIX)].rpartition(".")
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


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
    sweep_partials(out.parent)
    tmp = partial_path(out)
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
