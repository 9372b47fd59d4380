"""Clean recovery from a crash: what a killed import or writer of ours leaves behind.

* ``sessions/.import-<pid>-<hex>``: a staging folder of an import (only our copy of an
  export): removed once its process is gone.
* ``sessions/.replaced-<pid>-<hex>-<quoted id>``: the session an ``--overwrite`` import
  replaced, between its two renames. Once its process is gone it is *finished* (moved
  to the trash, when the new session is in place) or *rolled back* (renamed back, when
  the crash came before the new session got there): never unlinked.
* hidden ``.<name>.<hex>.tmp`` files of our atomic writes, in a session's namespace
  folders and our state folder, older than :data:`STALE_TEMP_S` (``candidates/`` is
  swept by the scan that checks the list, off the first paint: see ``store/rows.py``).

SQLite's own ``-wal``/``-journal`` files are never touched (not hidden, not ``.tmp``).
Every action is reported as one line (the CLI prints them).

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import time
import urllib.parse
from collections.abc import Iterable
from pathlib import Path

from foley_tui.store.files import fsync_dir
from foley_tui.store.trash import move_to_trash

#: A temp file this old cannot belong to a write still in progress.
STALE_TEMP_S = 600.0

_STAGING = re.compile(r"^\.import-(\d+)-[0-9a-f]+$")
_REPLACED = re.compile(r"^\.replaced-(\d+)-[0-9a-f]+-(.+)$")
_TEMP = re.compile(r"^\..+\.[0-9a-f]{8}\.tmp$")
# Earlier versions named them without the process or the session: only their age tells
# they are abandoned (no import takes this long).
_LEGACY_STAGING = re.compile(r"^\.import-[0-9a-f]{12}$")
_LEGACY_REPLACED = re.compile(r"^\.replaced-[0-9a-f]{12}$")
LEGACY_AGE_S = 3600.0


def staging_name() -> str:
    return f".import-{os.getpid()}-{os.urandom(6).hex()}"


def replaced_name(session_id: str) -> str:
    """Where an overwrite parks the session it replaces; the name says which session
    (so a crash can be rolled back) and which process (so a live import is left alone)."""
    return (
        f".replaced-{os.getpid()}-{os.urandom(4).hex()}-{urllib.parse.quote(session_id, safe='')}"
    )


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover(sessions_dir: Path) -> list[str]:
    """Finish or roll back what dead imports left in ``sessions_dir``; one line each."""
    report: list[str] = []
    try:
        entries = [e for e in os.scandir(sessions_dir) if e.name.startswith(".")]
    except OSError:
        return report
    for entry in entries:
        path = Path(entry.path)
        if _LEGACY_STAGING.match(entry.name) or _LEGACY_REPLACED.match(entry.name):
            report.extend(_legacy(path))
            continue
        staging = _STAGING.match(entry.name)
        if staging and not _alive(int(staging.group(1))):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
            report.append(f"removed the staging folder of an interrupted import ({entry.name})")
            continue
        replaced = _REPLACED.match(entry.name)
        if replaced and not _alive(int(replaced.group(1))):
            session_id = urllib.parse.unquote(replaced.group(2))
            target = sessions_dir / session_id
            try:
                if not os.path.lexists(target):
                    os.replace(path, target)
                    fsync_dir(str(target.parent))
                    report.append(
                        f"rolled back an interrupted import --overwrite of {session_id!r}: "
                        "the session is as it was before"
                    )
                else:
                    where = move_to_trash(path, original=target)
                    report.append(
                        f"finished an interrupted import --overwrite of {session_id!r}: "
                        f"the replaced session is in the trash ({where})"
                    )
            except OSError as exc:
                report.append(f"could not recover {entry.name}: {exc.strerror or exc}")
    return report


def _legacy(path: Path) -> list[str]:
    """A leftover of an earlier version's import: a stale staging copy is removed; a
    replaced session (which session is not in its name) goes to the trash, never away."""
    try:
        if time.time() - os.lstat(path).st_mtime < LEGACY_AGE_S:
            return []
        if path.name.startswith(".import-"):
            shutil.rmtree(path, ignore_errors=True)
            return [f"removed the staging folder of an interrupted import ({path.name})"]
        where = move_to_trash(path)
    except OSError as exc:
        return [f"could not recover {path.name}: {exc.strerror or exc}"]
    return [
        f"moved a session replaced by an interrupted import of an earlier foley-tui "
        f"version to the trash ({where}): restore it from there if it is missing"
    ]


def sweep_temps(folders: list[Path], *, older_than: float = STALE_TEMP_S) -> list[str]:
    """Remove our stale atomic-write temp files from ``folders``; one line each."""
    report: list[str] = []
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        report += sweep_temp_names(str(folder), names, older_than=older_than)
    return report


def sweep_temp_names(
    folder: str, names: Iterable[str], *, older_than: float = STALE_TEMP_S
) -> list[str]:
    """Remove those of ``names`` (entries of ``folder``) that are our stale atomic-write
    temp files: hidden, named as our writes name them, regular files, older than
    ``older_than`` seconds. Anything else, foley's files included, is left alone."""
    report: list[str] = []
    if os.path.islink(folder):  # a link out of the session: never unlink through it
        return report
    now = time.time()
    for name in names:
        if not _TEMP.match(name):
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > older_than:
                os.unlink(path)
                report.append(f"removed a stale temp file {path}")
    return report
