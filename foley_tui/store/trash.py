"""Moving a folder to the freedesktop.org trash (what foley's own deletes do).

``session delete`` and ``session import --overwrite`` move the session folder they
replace to the trash of *its* file system, so nothing is lost and the user can restore it
from a file manager: the home trash (``$XDG_DATA_HOME/Trash``, default
``~/.local/share/Trash``) when the folder is on the same file system as that, else the
trash at the top of the folder's mount point (``$topdir/.Trash/$uid`` when an admin made
a sticky ``.Trash``, else ``$topdir/.Trash-$uid``). Each move writes
``info/<name>.trashinfo`` first (created exclusively: it also reserves the name) and then
renames the folder into ``files/<name>``: a rename, never a copy, so a move is instant
and all or nothing. This is the one place foley-tui writes outside the data dir.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import urllib.parse
from datetime import datetime
from pathlib import Path

from foley_tui.store.files import fsync_dir


class TrashError(OSError):
    """The folder could not be moved to a trash on its own file system (it is untouched)."""


def _home_trash() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(base) / "Trash"


def mount_point(path: Path) -> Path:
    """The top directory of the file system holding ``path``."""
    path = path.resolve()
    dev = path.stat().st_dev
    while path != path.parent:
        parent = path.parent
        try:
            if parent.stat().st_dev != dev:
                return path
        except OSError:
            return path
        path = parent
    return path


def _ensure_dir(path: Path, mode: int = 0o700) -> None:
    """Make ``path`` (and parents) and check it is a real folder of ours, not a link."""
    path.mkdir(mode=mode, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise TrashError(errno.ENOTDIR, f"{path} is not a folder", str(path))


def _topdir_trash(topdir: Path) -> Path:
    uid = os.getuid()
    admin = topdir / ".Trash"
    with contextlib.suppress(OSError):
        st = os.lstat(admin)
        if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX:
            return admin / str(uid)
    own = topdir / f".Trash-{uid}"
    with contextlib.suppress(FileNotFoundError):
        st = os.lstat(own)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid:
            raise TrashError(errno.EPERM, f"{own} is not a trash folder of ours", str(own))
    return own


def trash_for(path: Path) -> tuple[Path, Path | None]:
    """(trash folder, topdir) for ``path``: topdir None for the home trash (whose
    trashinfo holds absolute paths), else the mount point that relative paths start at."""
    dev = os.lstat(path).st_dev
    home = _home_trash()
    try:
        _ensure_dir(home)
        if os.stat(home).st_dev == dev:
            return home, None
    except OSError:
        pass  # no usable home trash: the file system's own trash will do
    topdir = mount_point(path.parent)
    return _topdir_trash(topdir), topdir


#: The most of an info file read when looking for orphans (ours are a few lines).
_INFO_CAP = 64 * 1024


def sweep_orphans(trash: Path, parent: Path, topdir: Path | None) -> list[Path]:
    """Remove the info files in ``trash`` that lost their entry (a move interrupted
    between writing the info and the rename: the folder never left) and that restore
    into ``parent`` (the folder our moves come from). Someone else's orphans, and info
    files whose entry exists, are left alone. Returns the files removed."""
    info, files = trash / "info", trash / "files"
    removed: list[Path] = []
    try:
        entries = list(os.scandir(info))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.endswith(".trashinfo"):
            continue
        name = entry.name[: -len(".trashinfo")]
        if os.path.lexists(files / name):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            with open(entry.path, "rb") as fh:
                text = fh.read(_INFO_CAP).decode("utf-8", "replace")
        except OSError:
            continue
        where = next(
            (line[len("Path=") :] for line in text.splitlines() if line.startswith("Path=")),
            None,
        )
        if where is None:
            continue
        restored = Path(urllib.parse.unquote(where))
        if topdir is not None and not restored.is_absolute():
            restored = topdir / restored
        if restored.parent != parent:
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def move_to_trash(path: Path | str, *, original: Path | str | None = None) -> Path:
    """Move ``path`` (a file, folder or symlink: never followed) to the trash of its file
    system; return where it went. Raises :class:`TrashError` (``path`` untouched).

    ``original``: where the entry lived before it was parked at ``path`` (an overwrite
    parks the replaced session under a hidden name first): the trash entry is named
    after it and restores to it."""
    path = Path(os.path.abspath(path))
    home = Path(os.path.abspath(original)) if original is not None else path
    trash, topdir = trash_for(path)
    files, info = trash / "files", trash / "info"
    for folder in (trash, files, info):
        _ensure_dir(folder)
    sweep_orphans(trash, home.parent, topdir)
    where = str(home.relative_to(topdir)) if topdir is not None else str(home)
    when = datetime.now().strftime("%Y-%m-%dT%H:%M:%S")
    body = f"[Trash Info]\nPath={urllib.parse.quote(where)}\nDeletionDate={when}\n".encode()
    name = home.name
    for n in range(1, 10_000):
        candidate = name if n == 1 else f"{name}.{n}"
        info_file = info / f"{candidate}.trashinfo"
        try:
            fd = os.open(info_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            continue
        try:
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        target = files / candidate
        if os.path.lexists(target):  # a stray entry without its info: keep looking
            os.unlink(info_file)
            continue
        try:
            os.rename(path, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(info_file)
            raise TrashError(
                exc.errno, f"could not move {path} to the trash: {exc.strerror or exc}", str(path)
            ) from exc
        fsync_dir(str(path.parent))
        fsync_dir(str(files))
        return target
    raise TrashError(errno.EEXIST, f"no free name for {name} in {trash}", str(path))
