"""Terminal hygiene: data cannot drive the terminal; library stderr goes to a log."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from foley_tui.terminal import EscapingWriter, escape_controls, escaping_streams


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain", "plain"),
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
        ("\x1b[2J", "\\x1b[2J"),
        ("a\x9bb", "a\\x9bb"),
        ("abc\u202edef", "abc\\u202edef"),
        ("lone \ud800", "lone \\ud800"),
        ("tab\tline\n", "tab\\x09line\\x0a"),
        ("ünïcødé 音", "ünïcødé 音"),
    ],
)
def test_escape_controls(text: str, shown: str) -> None:
    assert escape_controls(text) == shown


def test_whole_lines_keep_newlines_and_tabs() -> None:
    sink = io.StringIO()
    writer = EscapingWriter(sink)
    writer.write("title:\t\x1b[31mred\x1b[0m\n")
    assert sink.getvalue() == "title:\t\\x1b[31mred\\x1b[0m\n"


def test_escaping_streams_wraps_and_restores(capsys: pytest.CaptureFixture[str]) -> None:
    before = sys.stdout
    with escaping_streams():
        print("\x1b[2J cleared?")
        print("\x07", file=sys.stderr)
    assert sys.stdout is before
    out, err = capsys.readouterr()
    assert out == "\\x1b[2J cleared?\n" and err == "\\x07\n"


CHILD = """
import os, sys
from pathlib import Path
from foley_tui.terminal import library_stderr_to_log
with library_stderr_to_log(Path(sys.argv[1])) as log:
    os.write(2, b"libmpg123: noise from C\\n")
    sys.stderr.write("drawn by the app\\n")
    sys.__stderr__.write("textual frame\\n")
    sys.stderr.flush(); sys.__stderr__.flush()
os.write(2, b"after the run\\n")
"""


def test_library_stderr_goes_to_the_log(tmp_path: Path) -> None:
    log = tmp_path / "state" / "stderr.log"
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(log)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    assert log.read_text() == "libmpg123: noise from C\n"
    assert proc.stderr == "drawn by the app\ntextual frame\nafter the run\n"


def test_cli_output_is_escaped(tmp_path: Path) -> None:
    from foley_tui.store import SessionService

    service = SessionService(tmp_path)
    sid = service.create("\x1b]0;pwned\x07 title")
    foley_tui = str(Path(sys.executable).with_name("foley-tui"))
    for args in (["sessions"], ["session", "show", sid]):
        proc = subprocess.run(
            [foley_tui, *args, "--data-dir", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert "\x1b" not in proc.stdout and "\\x1b]0;pwned\\x07 title" in proc.stdout
