"""The user's config file: key remapping by binding id and a few settings.

``~/.config/foley-tui/config.toml`` (see :func:`foley_tui.paths.config_file`)::

    [keymap]
    pick = "p"            # binding id = key(s), comma-separated for several
    cursor-down = "j,down"

    [settings]
    auto_advance = true   # move to the next undecided candidate after a decision
    autoplay = false      # default for sessions that never set it
    loop = false
    volume_db = 0.0
    loudness_match = false
    skip_silence = true   # previews start at the first sound (placements never skip)
    details_min_width = 100
    allow_network = false
    poll_interval_s = 0.5
    one_pick_per_event = false  # a pick drops its scene event's other picks (asks first)

Headless (no textual import). The keymap is checked against the one registry
(:mod:`foley_tui.keys.keymap`): an unknown binding id, a key name Textual never reports
(``Ctrl+X`` for ``ctrl+x``) and a key bound to two actions live at the same time are each
refused with one line. Every problem of the file is reported at once, in one
:class:`ConfigError` of one line per problem naming the file and the offending entry, so
a typo never turns into a traceback or a silently ignored key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from foley_tui.keys.keymap import check_keymap
from foley_tui.paths import config_file


class ConfigError(Exception):
    """The config file is unreadable or holds a bad value; the message says where."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Behaviour settings from ``[settings]``; every field has a safe default."""

    auto_advance: bool = True
    """After a decision, move to the next undecided candidate."""
    autoplay: bool = False
    """Play the highlighted candidate on move (sessions remember their own choice)."""
    loop: bool = False
    volume_db: float = 0.0
    loudness_match: bool = False
    skip_silence: bool = True
    """A preview from the top starts at the first audible sample (default for sessions
    that never set it; ``Z`` toggles it). Placements, mixes and spots never skip."""
    details_min_width: int = 100
    """Below this terminal width the details pane hides."""
    allow_network: bool = False
    """Let the resolver fetch remote previews."""
    one_pick_per_event: bool = False
    """A pick also drops the other picks of its scene event (shown and confirmed first)."""
    poll_interval_s: float = 0.5
    """How often to check the store for changes made by another process."""
    context_pre_roll_s: float = 2.0
    """``C`` (a candidate in context) starts the scene this long before the candidate."""
    scene_mix: str = "woven"
    """The mix ``C`` and the timeline's ``P`` play first: ``woven`` (as foley's weave
    will mix it) or ``flat`` (every sound at unity); ``w`` on the timeline switches."""
    store_timeout_s: float = 2.0
    """How long one operation on a shared store (Redis) waits for the server before it
    gives up; ``?socket_timeout=`` in the store URL overrides it."""


@dataclass(frozen=True, slots=True)
class Config:
    """Everything read from the config file."""

    keymap: dict[str, str] = field(default_factory=dict)
    settings: Settings = field(default_factory=Settings)
    path: Path | None = None


class _BadSetting(Exception):
    """One setting's problem (gathered with the file's others into one ConfigError)."""


def _check_setting(name: str, value: object, default: object) -> object:
    expected: type | tuple[type, ...]
    if isinstance(default, bool):
        expected = bool
    elif isinstance(default, float):
        expected = (int, float)
    elif isinstance(default, int):
        expected = int
    else:  # pragma: no cover - every setting has a typed default
        expected = type(default)
    # bool is an int subclass: ``volume_db = true`` must not pass as a number.
    ok = not (isinstance(value, bool) and expected is not bool) and isinstance(value, expected)
    if not ok:
        kind = "true or false" if expected is bool else "text" if expected is str else "a number"
        raise _BadSetting(f"expected {kind}, got {value!r}")
    if isinstance(default, float):
        number = float(value)  # type: ignore[arg-type]
        if name == "poll_interval_s" and not 0.05 <= number <= 60:
            raise _BadSetting("must be between 0.05 and 60 s")
        if name == "context_pre_roll_s" and not 0 <= number <= 60:
            raise _BadSetting("must be between 0 and 60 s")
        if name == "store_timeout_s" and not 0.05 <= number <= 60:
            raise _BadSetting("must be between 0.05 and 60 s")
        return number
    if name == "scene_mix" and value not in ("woven", "flat"):
        raise _BadSetting('must be "woven" or "flat"')
    if name == "details_min_width" and not 0 <= int(value) <= 1000:  # type: ignore[call-overload]
        raise _BadSetting("must be between 0 and 1000")
    return value


def parse_config(data: Mapping[str, Any], path: Path) -> Config:
    """Validate a parsed TOML document: every problem of the file, one line each, in one
    :class:`ConfigError` (a user fixes them all in one go, not one per run)."""
    problems: list[str] = []
    unknown_tables = sorted(set(data) - {"keymap", "settings"})
    if unknown_tables:
        problems.append(
            f"unknown section(s) {', '.join(unknown_tables)} (expected [keymap] and [settings])"
        )
    raw_keymap = data.get("keymap", {})
    keymap: dict[str, str] = {}
    if not isinstance(raw_keymap, Mapping):
        problems.append('[keymap] must be a table of binding-id = "key"')
    else:
        keymap_problems = check_keymap(raw_keymap)
        problems.extend(f"[keymap] {problem}" for problem in keymap_problems)
        if not keymap_problems:
            keymap = {
                binding_id: ",".join(key.strip() for key in str(value).split(","))
                for binding_id, value in raw_keymap.items()
            }
    raw_settings = data.get("settings", {})
    defaults = {f.name: getattr(Settings(), f.name) for f in fields(Settings)}
    values: dict[str, Any] = {}
    if not isinstance(raw_settings, Mapping):
        problems.append("[settings] must be a table")
    else:
        for name, value in raw_settings.items():
            if name not in defaults:
                known = ", ".join(sorted(defaults))
                problems.append(f"[settings] {name}: unknown setting (known: {known})")
                continue
            try:
                values[name] = _check_setting(name, value, defaults[name])
            except _BadSetting as exc:
                problems.append(f"[settings] {name}: {exc}")
    if problems:
        raise ConfigError("\n".join(f"{path}: {problem}" for problem in problems))
    return Config(keymap=keymap, settings=Settings(**values), path=path)


def load_config(path: Path | None = None) -> Config:
    """Read the config file (default :func:`config_file`); a missing file means defaults."""
    path = path or config_file()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(path=path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    import tomllib  # only when there is a file to read

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    return parse_config(data, path)
