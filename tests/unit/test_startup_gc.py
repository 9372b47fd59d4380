"""The collector paused for start-up (foley_tui.startup): resumed by whoever paused it,
never by anyone else, and always resumed by the command line."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from foley_tui import startup
from foley_tui.cli import main


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    startup.resume_gc()
    gc.unfreeze()
    if was:
        gc.enable()


def test_resume_ends_only_a_pause_of_ours() -> None:
    assert gc.isenabled()
    assert startup.resume_gc() is False  # nothing paused: nothing done
    assert gc.isenabled() and not startup.gc_paused()
    startup.pause_gc()
    assert not gc.isenabled() and startup.gc_paused()
    assert startup.resume_gc() is True
    assert gc.isenabled() and not startup.gc_paused()


def test_a_collector_someone_else_turned_off_stays_off() -> None:
    gc.disable()
    startup.pause_gc()
    assert not startup.gc_paused()
    assert startup.resume_gc(freeze=True) is False
    assert not gc.isenabled() and gc.get_freeze_count() == 0


def test_resume_with_freeze_moves_start_up_objects_out_of_collections() -> None:
    startup.pause_gc()
    kept = [[i] for i in range(1000)]  # start-up's long-lived objects
    assert startup.resume_gc(freeze=True)
    assert gc.isenabled() and gc.get_freeze_count() >= len(kept)


def test_the_command_line_runs_its_verb_with_the_collector_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    seen: list[bool] = []
    import foley_tui.cli.store as verbs

    real = verbs.cmd_sessions

    def spy(args: object) -> int:
        seen.append(gc.isenabled())
        return real(args)  # type: ignore[arg-type]

    monkeypatch.setattr(verbs, "cmd_sessions", spy)
    monkeypatch.setenv("FOLEY_DATA_DIR", str(tmp_path))
    assert main(["sessions"]) == 0
    assert seen == [True] and gc.isenabled()
    with pytest.raises(SystemExit):
        main(["--no-such-flag"])
    assert gc.isenabled()  # a parse error resumes it too
    capsys.readouterr()
