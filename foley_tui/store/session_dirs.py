"""Session folders under ``sessions/``: which folder is a session, and the walk that
lists foley's nested session ids (``proj/scene1``).

Headless: never imports textual.
"""

from __future__ import annotations

import os
from pathlib import Path

from foley_tui.store.backend import STATE_DIR
from foley_tui.store.codec import validate_session_id
from foley_tui.store.errors import InvalidSessionIdError

NAMESPACES = ("candidates", "picks", "rejects")
#: How deep nested session ids (``a/b/c``) are looked for under ``sessions/``.
MAX_NESTING = 8


def is_session_dir(path: Path) -> bool:
    """A session folder holds one of foley's namespaces or our state, or is an empty
    folder (a session with nothing in it yet); a folder that only holds other folders
    (``proj`` of ``proj/scene1``) is not a session."""
    try:
        if not path.is_dir():
            return False
        has_subfolder = False
        for entry in os.scandir(path):
            if entry.name in NAMESPACES or entry.name == STATE_DIR:
                return True
            if not entry.name.startswith(".") and entry.is_dir():
                has_subfolder = True
        return not has_subfolder
    except OSError:
        return False


def nested_session_dirs(folder: Path) -> list[str]:
    """The names of the folders inside a session's folder that are not its own (foley's
    namespaces, our state): the folders of sessions nested under it (``scene1`` of
    ``proj/scene1``), which deleting or replacing ``proj`` must leave where they are."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(
        e.name
        for e in entries
        if not e.name.startswith(".")
        and e.name not in NAMESPACES
        and e.name != STATE_DIR
        and e.is_dir(follow_symlinks=False)
    )


def linked_part(root: Path, session_id: str) -> Path | None:
    """The first folder of ``session_id``'s path under ``root`` that is a symbolic link
    (``proj`` of ``proj/scene1`` too), or None."""
    current = root
    for part in session_id.split("/"):
        current = current / part
        if current.is_symlink():
            return current
    return None


def walk_session_ids(folder: Path, prefix: str, ids: list[str], *, depth: int) -> None:
    """Collect the session folders under ``folder``: foley's nested ids
    (``proj/scene1``) are listed as such, and a folder that only holds sessions
    (``proj``) is not itself one. Symbolic links are not followed below the top."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        # A symbolic link is no session of ours (see SessionService._open): not listed.
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        session_id = prefix + entry.name
        try:
            validate_session_id(session_id)
        except InvalidSessionIdError:
            continue
        path = Path(entry.path)
        if is_session_dir(path):
            ids.append(session_id)
        if depth < MAX_NESTING and not entry.is_symlink():
            walk_session_ids(path, session_id + "/", ids, depth=depth + 1)
