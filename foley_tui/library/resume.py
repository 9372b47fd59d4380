"""The folder a session auditions, found again when the session is opened by id (resumed,
or chosen on the sessions screen).

Import-light on purpose: the app's start imports this for every session, and only a
folder's session pays for the library's modules (hashlib, the index).
Headless: never imports textual.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from foley_tui.library.registry import FolderRegistry

if TYPE_CHECKING:
    from foley_tui.library.source import FolderSource


def folder_source(data_dir: Path, session_id: str) -> FolderSource | None:
    """The folder whose decisions ``session_id`` holds, ready to scan (None when the
    session is no folder's, or the folder is gone)."""
    folder = FolderRegistry(data_dir).folder_of(session_id)
    if folder is None or not os.path.isdir(folder.path):
        return None
    from foley_tui.library.source import FolderSource

    return FolderSource(Path(folder.path), session_id)
