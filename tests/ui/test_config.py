"""The config file: keymap by binding id and settings, with errors that say where."""

from __future__ import annotations

from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.config import ConfigError, Settings, load_config
from foley_tui.keys.keymap import KEYS
from foley_tui.paths import config_file


def write(text: str) -> Path:
    path = config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_missing_file_means_defaults() -> None:
    config = load_config()
    assert config.keymap == {}
    assert config.settings == Settings()


def test_keymap_and_settings_are_read() -> None:
    write(
        '[keymap]\npick = "P"\ncursor-down = "j, ctrl+n"\n'
        "[settings]\nauto_advance = false\nvolume_db = -6\ndetails_min_width = 90\n"
    )
    config = load_config()
    assert config.keymap == {"pick": "P", "cursor-down": "j,ctrl+n"}
    assert config.settings.auto_advance is False
    assert config.settings.volume_db == -6.0
    assert config.settings.details_min_width == 90


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[keymap]\npikc = "p"\n', "[keymap] pikc: no such binding id"),
        ("[keymap]\npick = 3\n", "[keymap] pick: expected a key string"),
        ('[keymap]\npick = "ctrl+"\n', "is not a key name"),
        ('[keymap]\npick = "notakey"\n', "[keymap] pick: 'notakey' is not a key name"),
        ('[keymap]\nreject = "Ctrl+X"\n', "reject: 'Ctrl+X' is not a key name; write it 'ctrl+x'"),
        ('[keymap]\npick = "j"\n', "key 'j' is bound to both 'cursor-down' and 'pick'"),
        ("[settings]\nautoplay = 1\n", "[settings] autoplay: expected true or false"),
        ("[settings]\nvolume_db = true\n", "[settings] volume_db: expected a number"),
        ("[settings]\nspeed = 2\n", "[settings] speed: unknown setting"),
        ("[settings]\npoll_interval_s = 0\n", "must be between"),
        ("[colours]\n", "unknown section(s) colours"),
        ("[keymap\n", "invalid TOML"),
    ],
)
def test_bad_config_names_file_and_entry(text: str, message: str) -> None:
    path = write(text)
    with pytest.raises(ConfigError) as info:
        load_config()
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_every_problem_of_the_file_is_reported_in_one_run(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt key, an unknown id, a conflict, a bad value and an unknown setting: all
    named at once, one line each, so one edit fixes the file."""
    from tests.ui.seed import seed_session

    _, session_id = seed_session(data_dir, 2)
    path = write(
        "[colours]\n"
        '[keymap]\nreject = "Ctrl+X"\npikc = "p"\nclear = "j"\n'
        "[settings]\nspeed = 2\nautoplay = 1\n"
    )
    assert main(["open", session_id, "--no-audio"]) == 2
    lines = capsys.readouterr().err.splitlines()
    expected = [
        "unknown section(s) colours",
        "reject: 'Ctrl+X' is not a key name; write it 'ctrl+x'",
        "pikc: no such binding id",
        "key 'j' is bound to both",
        "[settings] speed: unknown setting",
        "[settings] autoplay: expected true or false",
    ]
    assert len(lines) == len(expected), lines
    for line, words in zip(lines, expected, strict=True):
        assert str(path) in line and words in line, (line, words)


def test_open_with_a_bad_config_is_a_one_line_error(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.ui.seed import seed_session

    _, session_id = seed_session(data_dir, 2)
    write('[keymap]\nnope = "p"\n')
    assert main(["open", session_id, "--no-audio"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope: no such binding id" in err


def test_open_unknown_session_is_a_one_line_error(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["open", "no-such-session", "--no-audio"]) == 2
    assert "no-such-session" in capsys.readouterr().err


def test_every_binding_has_an_id_and_a_tooltip() -> None:
    ids = [b.id for b in KEYS]
    assert all(ids) and len(set(ids)) == len(ids)
    assert all(b.tooltip for b in KEYS)
    assert all(i == i.lower() and " " not in i for i in ids if i)  # kebab-case


def test_the_keys_page_lists_every_binding() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "keys.md").read_text()
    missing = [b.id for b in KEYS if f"`{b.id}`" not in page]
    assert not missing, f"docs/keys.md lacks {missing}"
