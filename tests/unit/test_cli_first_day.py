"""What a first day on the command line ran into: the answers say what happened."""

from __future__ import annotations

from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.store import SessionService
from tests.ui.seed import seed_session


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_second_session_of_the_same_title_is_refused(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    code, out, _ = run(capsys, "session", "create", "--title", "My Scene")
    assert code == 0
    first = out.strip()
    code, out, err = run(capsys, "session", "create", "--title", "my scene")
    assert code == 1
    assert out.strip() == first  # the session to use instead, as create would print it
    assert "already" in err and first in err and err.count("\n") == 1
    assert [i.session_id for i in SessionService(data_dir).list()] == [first]
    code, out, _ = run(capsys, "session", "create")  # untitled sessions are not names
    code2, out2, _ = run(capsys, "session", "create")
    assert code == code2 == 0 and out != out2


def test_an_unknown_session_suggests_the_one_meant(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    seed_session(data_dir, 2, title="Demo: a stormy night")
    code, _, err = run(capsys, "pick", "demo", "x")
    assert code == 2
    assert "no session 'demo'" in err
    assert "did you mean 'Demo: a stormy night'" in err
    code, _, err = run(capsys, "candidates", "Stromy night")
    assert "did you mean 'Demo: a stormy night'" in err
    code, _, err = run(capsys, "candidates", "nothing like it")
    assert code == 2 and "did you mean" not in err


def test_clear_on_an_undecided_sound_says_so(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    service, session_id = seed_session(data_dir, 2)
    (first, second) = [row.sound_id for row in service.get(session_id).rows()]
    code, out, _ = run(capsys, "clear", session_id, first)
    assert code == 0 and out == f"{first} was undecided: nothing to clear\n"
    run(capsys, "pick", session_id, second)
    code, out, _ = run(capsys, "clear", session_id, second)
    assert code == 0 and out == f"cleared {second} (was picked)\n"
