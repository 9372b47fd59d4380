"""The folders opened before, kept in the data dir (``$FOLEY_DATA_DIR/foley-tui/
folders.json``; not the cache: losing it would lose which session holds a folder's
decisions). Each entry is a folder's real path, the session its decisions go to and when
it was last opened; the sessions screen lists them.

Small and import-light: the app reads it on start to know whether a session is a
folder's. Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

REGISTRY_NAME = "folders.json"
#: Most folders the list keeps (the oldest opened are dropped).
MAX_FOLDERS = 200


@dataclass(frozen=True, slots=True)
class OpenedFolder:
    """A folder opened before: its real path, its session and when it was last opened."""

    path: str
    session_id: str
    opened: str

    @property
    def name(self) -> str:
        return Path(self.path).name or self.path


class FolderRegistry:
    """The folders opened before, kept in the data dir (not the cache: losing it would
    lose which session holds a folder's decisions)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / "foley-tui" / REGISTRY_NAME

    def list(self) -> list[OpenedFolder]:
        """Most recently opened first; an unreadable list reads as empty."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        items = raw.get("folders") if isinstance(raw, dict) else None
        out = []
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            path, sid, opened = item.get("path"), item.get("session_id"), item.get("opened")
            if isinstance(path, str) and isinstance(sid, str) and isinstance(opened, str):
                out.append(OpenedFolder(path, sid, opened))
        out.sort(key=lambda f: f.opened, reverse=True)
        return out

    def session_of(self, real_path: Path) -> str | None:
        for folder in self.list():
            if folder.path == str(real_path):
                return folder.session_id
        return None

    def folder_of(self, session_id: str) -> OpenedFolder | None:
        for folder in self.list():
            if folder.session_id == session_id:
                return folder
        return None

    def record(self, real_path: Path, session_id: str) -> None:
        """Record ``real_path`` as opened now, its decisions in ``session_id``."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        kept = [f for f in self.list() if f.path != str(real_path)]
        folders = [OpenedFolder(str(real_path), session_id, now), *kept][:MAX_FOLDERS]
        doc = {
            "folders": [
                {"path": f.path, "session_id": f.session_id, "opened": f.opened} for f in folders
            ]
        }
        import tempfile  # writing only: the app's start reads the list

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".folders-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, ensure_ascii=False, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
