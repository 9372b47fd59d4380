"""Walk a library folder tree: every sound file with its size and mtime, and every entry
that could not be followed, with the reason.

Symlinked folders are followed, each real folder once: a link back to a folder being
walked (a loop) or to one already walked is reported, not entered again. Hidden entries
(a leading dot) are skipped, as a file manager hides them. Nothing is ever written.

Headless: never imports textual.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from foley_tui.library.metadata import AUDIO_EXTENSIONS


@dataclass(frozen=True, slots=True)
class Found:
    """A sound file: its path relative to the root (``/``-separated, through the links
    the walk followed), size and modification time."""

    rel: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class Skipped:
    """An entry the walk did not follow, and why."""

    rel: str
    reason: str


def is_sound_name(name: str) -> bool:
    """Whether a file name has a sound file's extension (any case)."""
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in AUDIO_EXTENSIONS


def walk(root: Path) -> Iterator[Found | Skipped]:
    """Every sound file under ``root`` (depth first, names in order), and every link or
    folder the walk could not or would not enter. Symlinked folders are entered after
    every real folder, so a folder reached both ways is listed under its real path."""
    try:
        top = os.stat(root)
    except OSError as exc:
        yield Skipped("", f"cannot be read ({exc.strerror or exc})")
        return
    walked: dict[tuple[int, int], str] = {(top.st_dev, top.st_ino): ""}
    # (folder path, its rel, its real folder, the real folders on the way to it): a link
    # to one of those is a loop; a link to a folder walked elsewhere is a second way in.
    Item = tuple[str, str, tuple[int, int], frozenset[tuple[int, int]]]
    key0 = (top.st_dev, top.st_ino)
    stack: list[Item] = [(str(root), "", key0, frozenset({key0}))]
    links: list[Item] = []
    while stack or links:
        if stack:
            folder, rel, key, ancestors = stack.pop()
        else:
            folder, rel, key, ancestors = links.pop(0)
            if key in ancestors:
                yield Skipped(rel, "link loop: it leads back to a folder above it")
                continue
            if key in walked:
                yield Skipped(rel, f"already scanned as {walked[key] or 'the root'}")
                continue
            walked[key] = rel
            ancestors = ancestors | {key}
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield Skipped(rel, f"folder cannot be listed ({exc.strerror or exc})")
            continue
        subfolders: list[Item] = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            entry_rel = f"{rel}/{name}" if rel else name
            try:
                is_link = entry.is_symlink()
                info = entry.stat(follow_symlinks=True)
            except FileNotFoundError:
                yield Skipped(entry_rel, "broken link: its target does not exist")
                continue
            except OSError as exc:
                yield Skipped(entry_rel, f"cannot be read ({exc.strerror or exc})")
                continue
            if stat.S_ISDIR(info.st_mode):
                sub = (info.st_dev, info.st_ino)
                if is_link:
                    links.append((entry.path, entry_rel, sub, ancestors))
                elif sub not in walked:  # a bind mount can show one folder twice
                    walked[sub] = entry_rel
                    subfolders.append((entry.path, entry_rel, sub, ancestors | {sub}))
            elif stat.S_ISREG(info.st_mode):
                if is_sound_name(name):
                    yield Found(entry_rel, info.st_size, info.st_mtime_ns)
            elif is_link or is_sound_name(name):
                yield Skipped(entry_rel, "not a regular file (a device, a pipe or a socket)")
        stack.extend(reversed(subfolders))
