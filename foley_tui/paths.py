"""Where things live on disk: the foley data dir and our config file.

Headless: never imports textual.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The foley data dir: ``--data-dir`` if given, else ``$FOLEY_DATA_DIR``, else
    ``~/.local/share/foley`` (foley's own default; not XDG-derived, to match foley)."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get("FOLEY_DATA_DIR")
    if env:
        return Path(env).expanduser().resolve()
    return (Path.home() / ".local" / "share" / "foley").resolve()


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/foley-tui``, else ``~/.config/foley-tui``."""
    base = os.environ.get("XDG_CONFIG_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".config"
    return root / "foley-tui"


def config_file() -> Path:
    """The user's config (``[keymap]`` and settings): ``~/.config/foley-tui/config.toml``."""
    return config_dir() / "config.toml"
