"""The one keymap registry: every binding of every screen and widget, in one table.

Screens and widgets build their ``BINDINGS`` from here (:func:`bindings`), the help
screen and the command palette list :data:`KEYS`, and the config loader validates a
user's ``[keymap]`` with :func:`check_keymap`: unknown ids, misspelt key names and
conflicts are refused with one line each.

Scopes and contexts
    Every :class:`KeySpec` belongs to a *scope*: the app, a screen, or a widget that owns
    the behaviour (the candidate list owns cursor movement, the filter box owns "clear").
    A *context* is a set of scopes whose bindings are live at the same moment: the focused
    widget's, its screen's and the app's. Within a context one key may mean one action
    only; the exception is a text box (``Scope.text_entry``): while it has the focus its
    own keys shadow its screen's on purpose (Esc clears the filter box; on the list, Esc
    stops playback). App bindings with ``priority`` win everywhere, text boxes included.

Adding a screen (a timeline, a messages panel)
    (The table is :mod:`foley_tui.keys.table`, gathered from one file per screen family.)
    1. add its scope to ``SCOPES`` in :mod:`foley_tui.keys.spec` (and one for any widget
       that owns keys);
    2. add its keys to its screen's table (``foley_tui/keys_*.py``, gathered into
       :data:`KEYS`) with kebab-case ids unique across the app, its
       section being the help heading they appear under; an existing id the screen
       honours (the timeline's ``undo``) gets an :class:`Also` entry instead: same id and
       keys (remapped together), the screen's own action;
    3. add the contexts in which it is live to ``CONTEXTS`` (the screen with its
       focusable widgets, plus ``"app"``; a modal screen stands alone with ``"app"``);
    4. in the screen, ``BINDINGS = bindings("<scope>")`` (:mod:`foley_tui.keys.bindings`).
    Config validation, help and the palette then know the new keys with no other change;
    ``tests/unit/test_keymap.py`` checks the table stays free of conflicts.

Headless: never imports textual (the ``Binding`` objects are built by
:mod:`foley_tui.keys.bindings`).
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Mapping

from foley_tui.keys.spec import CONTEXTS, SCOPES, Also, KeySpec, Scope
from foley_tui.keys.table import KEYS

__all__ = [
    "CONTEXTS",
    "KEYS",
    "SCOPES",
    "Also",
    "KeySpec",
    "Scope",
    "bound_keys",
    "check_keymap",
    "conflicts",
    "key_problem",
]

BY_ID: dict[str, KeySpec] = {spec.id: spec for spec in KEYS}
REMAPPABLE_IDS: frozenset[str] = frozenset(s.id for s in KEYS if s.remappable)
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(spec.section for spec in KEYS))


def specs(scope: str) -> tuple[KeySpec, ...]:
    """The keys of one scope, in table order."""
    return tuple(spec for spec in KEYS if spec.scope == scope)


# ---------------------------------------------------------------------- key names
MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")

NAMED_KEYS: frozenset[str] = frozenset(
    {
        "escape",
        "enter",
        "tab",
        "space",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        *(f"f{n}" for n in range(1, 25)),
    }
)
"""Key names Textual reports for keys that are not printable characters."""

ALIASES: dict[str, str] = {
    "esc": "escape",
    "return": "enter",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "page_up": "pageup",
    "page_down": "pagedown",
    "del": "delete",
    "ins": "insert",
    "bs": "backspace",
    "control": "ctrl",
    "cmd": "meta",
    "option": "alt",
}


_NAME_REPLACEMENTS = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}
"""Textual's short names for some characters (textual.keys.KEY_NAME_REPLACEMENTS)."""


def char_key(char: str) -> str:
    """Textual's name of the key that types ``char`` (``[`` → ``left_square_bracket``)."""
    if char.isalnum():
        return char
    name = unicodedata.name(char, "").lower().replace("-", "_").replace(" ", "_")
    return _NAME_REPLACEMENTS.get(name, name or char)


_CHAR_NAMES: frozenset[str] = frozenset(
    char_key(chr(code)) for code in (*range(33, 127), *range(161, 256)) if chr(code).isprintable()
)
"""Key names of the printable ASCII and Latin-1 characters (other characters are
written as themselves in a keymap)."""


def _is_char_name(name: str) -> bool:
    """``question_mark``, ``left_square_bracket``, ``plus``…: a printable's key name."""
    return name in _CHAR_NAMES and len(name) > 1


def _split(key: str) -> tuple[list[str], str]:
    """(modifiers, base key) of ``ctrl+shift+x``; ``+`` and ``ctrl++`` name the plus key."""
    if key == "+":
        return [], "+"
    if key.endswith("++"):
        return key[:-2].split("+"), "+"
    *mods, base = key.split("+")
    return mods, base


def normalize(key: str) -> str:
    """A valid key as Textual matches it (characters as their names), to compare keys."""
    mods, base = _split(key)
    return "+".join([*mods, char_key(base) if len(base) == 1 else base])


def key_problem(key: str) -> str | None:
    """Why ``key`` is not a key name Textual reports, with the accepted spelling when
    one is near; None when it is fine."""
    if key in ("+", "-") or (len(key) == 1 and key.isprintable() and not key.isspace()):
        return None
    mods, base = _split(key)
    ok_mods = all(m in MODIFIERS for m in mods) and len(set(mods)) == len(mods)
    ok_base = (
        (len(base) == 1 and base.isprintable() and not base.isspace())
        or base in NAMED_KEYS
        or _is_char_name(base)
    )
    if mods and len(base) == 1 and base.isalpha() and base.isupper():
        ok_base = False  # a modifier with a capital: Textual reports ctrl+x, never ctrl+X
    if ok_mods and ok_base and base:
        return None
    suggestion = _suggest(mods, base)
    hint = f"; write it {suggestion!r}" if suggestion and suggestion != key else ""
    return f"{key!r} is not a key name{hint}"


def _suggest(mods: list[str], base: str) -> str | None:
    fixed_mods = [ALIASES.get(m.lower(), m.lower()) for m in mods]
    if not all(m in MODIFIERS for m in fixed_mods):
        return None
    low = base.lower()
    low = ALIASES.get(low, low)
    if len(base) == 1:
        fixed = low if fixed_mods else base
    elif low in NAMED_KEYS or _is_char_name(low):
        fixed = low
    else:
        close = difflib.get_close_matches(low, sorted(NAMED_KEYS), n=1, cutoff=0.75)
        if not close:
            return None
        fixed = close[0]
    return "+".join([*fixed_mods, fixed])


# ---------------------------------------------------------------------- validation
def effective(keymap: Mapping[str, str]) -> dict[str, list[str]]:
    """Every binding id with its keys after the user's ``keymap``."""
    return {
        spec.id: [k.strip() for k in keymap.get(spec.id, spec.keys).split(",") if k.strip()]
        for spec in KEYS
    }


def bound_keys(binding_id: str, keymap: Mapping[str, str]) -> frozenset[str]:
    """The keys ``binding_id`` answers to after the user's ``keymap``, as Textual names
    them in a key event (``space``, ``question_mark``)."""
    keys = keymap.get(binding_id, BY_ID[binding_id].keys)
    return frozenset(normalize(k.strip()) for k in keys.split(",") if k.strip())


def conflicts(keymap: Mapping[str, str]) -> list[str]:
    """One line per key bound to two actions that are live at the same time."""
    keys = effective(keymap)
    found: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for context in CONTEXTS:
        owners: dict[str, list[KeySpec]] = {}
        for spec in KEYS:
            if not set(spec.scopes) & set(context):
                continue
            for key in keys[spec.id]:
                owners.setdefault(normalize(key), []).append(spec)
        for key, holders in owners.items():
            for i, first in enumerate(holders):
                for second in holders[i + 1 :]:
                    if first.id == second.id or _by_design(first, second):
                        continue
                    pair = tuple(sorted((first.id, second.id)))
                    if (key, *pair) in seen:
                        continue
                    seen.add((key, pair[0], pair[1]))
                    shown = next(k for k in keys[first.id] if normalize(k) == key)
                    found.append(
                        f"key {shown!r} is bound to both {first.id!r} and {second.id!r} "
                        f"({SCOPES[first.scope].title} / {SCOPES[second.scope].title})"
                    )
    return found


def _by_design(a: KeySpec, b: KeySpec) -> bool:
    """A text box's own key over its screen's (not over an app priority key)."""
    for box, other in ((a, b), (b, a)):
        if SCOPES[box.scope].text_entry and not other.priority and other.scope != box.scope:
            return True
    return False


def check_keymap(keymap: Mapping[str, object]) -> list[str]:
    """Every problem of a user's ``[keymap]`` table, one line each (empty when fine)."""
    problems: list[str] = []
    clean: dict[str, str] = {}
    for binding_id, value in keymap.items():
        spec = BY_ID.get(binding_id)
        if spec is None or not spec.remappable:
            close = difflib.get_close_matches(binding_id, sorted(REMAPPABLE_IDS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            fixed = "" if spec is None else " (Textual's own key, not remappable)"
            problems.append(f"{binding_id}: no such binding id{fixed or hint}")
            continue
        if not isinstance(value, str) or not value.strip():
            problems.append(
                f'{binding_id}: expected a key string like "p" or "ctrl+r" '
                f"(several separated by commas), got {value!r}"
            )
            continue
        keys = [key.strip() for key in value.split(",")]
        bad = [p for p in (key_problem(k) if k else "an empty key name" for k in keys) if p]
        if bad:
            problems.extend(f"{binding_id}: {p}" for p in bad)
            continue
        clean[binding_id] = ",".join(keys)
    # Conflicts among the entries that are well formed: reported with the others, so one
    # run names every problem of the file.
    problems.extend(conflicts(clean))
    return problems
