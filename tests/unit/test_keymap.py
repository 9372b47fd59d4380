"""The one keymap registry and the validation of a user's [keymap]."""

from __future__ import annotations

import pytest

from foley_tui.keys import keymap
from foley_tui.keys.keymap import KEYS, SCOPES, check_keymap, conflicts, key_problem


def test_the_table_is_consistent_and_free_of_conflicts() -> None:
    ids = [spec.id for spec in KEYS]
    assert len(ids) == len(set(ids))
    assert all(spec.scope in SCOPES for spec in KEYS)
    assert all(spec.tooltip and spec.description for spec in KEYS)
    in_contexts = {scope for context in keymap.CONTEXTS for scope in context}
    assert set(SCOPES) <= in_contexts  # every scope is live somewhere
    assert conflicts({}) == []
    assert all(key_problem(k) is None for spec in KEYS for k in spec.keys.split(","))


def test_global_ids_are_remappable() -> None:
    assert {"stop-all", "filter-clear", "sessions-open", "help-close"} <= keymap.REMAPPABLE_IDS
    assert check_keymap({"stop-all": "ctrl+k", "filter-clear": "ctrl+u"}) == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Ctrl+X", "'Ctrl+X' is not a key name; write it 'ctrl+x'"),
        ("ctrl+X", "write it 'ctrl+x'"),
        ("Escape", "write it 'escape'"),
        ("esc", "write it 'escape'"),
        ("PgUp", "write it 'pageup'"),
        ("notakey", "'notakey' is not a key name"),
        ("ctrl+", "'ctrl+' is not a key name"),
        ("p,", "an empty key name"),
    ],
)
def test_a_misspelt_key_is_refused_with_the_accepted_spelling(value: str, message: str) -> None:
    problems = check_keymap({"reject": value})
    assert len(problems) == 1 and problems[0].startswith("reject: ")
    assert message in problems[0]
    assert "\n" not in problems[0]


@pytest.mark.parametrize(
    "good", ["p", "P", "ctrl+r", "shift+left", "f5", "question_mark", "[", "+", "ctrl++", "space"]
)
def test_good_keys_pass(good: str) -> None:
    assert key_problem(good) is None


def test_unknown_and_fixed_ids_are_refused() -> None:
    assert check_keymap({"pikc": "p"}) == ["pikc: no such binding id (did you mean 'pick'?)"]
    assert "not remappable" in check_keymap({"app-quit": "q"})[0]


def test_a_key_shadowing_another_live_action_is_a_conflict() -> None:
    # The list owns j (cursor-down) while it has the focus: pick = "j" would never pick.
    assert check_keymap({"pick": "j"}) == [
        "key 'j' is bound to both 'cursor-down' and 'pick' (Candidate list / Audition screen)"
    ]
    # Two screen actions on one key; an app priority key over a text box's key.
    assert "'reject'" in check_keymap({"pick": "x"})[0]
    assert "'stop-all'" in check_keymap({"filter-clear": "ctrl+s"})[0]
    # Textual's own quit key is live everywhere.
    assert "'app-quit'" in check_keymap({"sessions-open": "ctrl+q"})[0]


def test_escape_on_the_list_and_in_the_filter_box_is_not_a_conflict() -> None:
    assert check_keymap({"stop": "escape", "filter-clear": "escape"}) == []
    # Keys of screens never live together do not clash (sessions vs audition).
    assert check_keymap({"sessions-new": "p"}) == []


def test_characters_and_their_names_are_the_same_key() -> None:
    problems = check_keymap({"volume-up": "question_mark"})
    assert problems and "'help'" in problems[0]
