"""``pick --in S --out S``: a region kept in our marks with the pick (one journal entry,
one undo), in the onset's time syntax; ``none`` clears a point; a region outside the
sound or with in >= out is refused in one line, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.cli import main
from foley_tui.marks import Marks
from foley_tui.store import SessionService

Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def two_second_sound(capsys: Capture, tmp_path: Path, data_dir: Path) -> str:
    path = tmp_path / "door.wav"
    sf.write(str(path), np.full(2 * 8000, 0.25, np.float32), 8000)
    assert run(capsys, "add", "Regions", str(path), "--create")[0] == 0
    _code, out, _ = run(capsys, "candidates", "Regions", "--json")
    return str(json.loads(out)[0]["sound_id"])


def marks(data_dir: Path) -> dict[str, Marks]:
    service = SessionService(data_dir)
    [info] = service.list()
    return service.get(info.session_id, touch=False).marks()


def test_a_region_is_set_with_the_pick_and_undone_with_it(
    capsys: Capture, data_dir: Path, two_second_sound: str
) -> None:
    sid = two_second_sound
    code, out, err = run(
        capsys, "pick", "Regions", sid, "--onset", "1", "--in", "0:00.500", "--out", "1.25"
    )
    assert code == 0, err
    assert "region 0.5-1.25 s" in out
    assert marks(data_dir) == {sid: Marks(region_in=0.5, region_out=1.25)}
    code, out, _ = run(capsys, "picks", "Regions", "--json")
    assert json.loads(out)[0]["onset"] == 1  # foley's pick file: its own fields only
    assert run(capsys, "pick", "Regions", sid, "--out", "none")[0] == 0
    assert marks(data_dir) == {sid: Marks(region_in=0.5)}
    assert run(capsys, "undo", "Regions")[0] == 0
    assert marks(data_dir) == {sid: Marks(region_in=0.5, region_out=1.25)}
    assert run(capsys, "undo", "Regions")[0] == 0  # the pick and its region, as one
    assert marks(data_dir) == {}
    code, out, _ = run(capsys, "picks", "Regions", "--json")
    assert json.loads(out) == []


def test_bad_regions_are_refused_and_nothing_is_written(
    capsys: Capture, data_dir: Path, two_second_sound: str
) -> None:
    sid = two_second_sound
    for argv, message in (
        (("--in", "1.5", "--out", "1.0"), "before its out point"),
        (("--in", "1.0", "--out", "1.0"), "before its out point"),
        (("--out", "2.5"), "past the sound's end"),
        (("--in", "-1"), "region point"),
        (("--in", "on 'door'"), "region point"),
    ):
        code, out, err = run(capsys, "pick", "Regions", sid, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, argv
    assert marks(data_dir) == {}
    code, out, _ = run(capsys, "picks", "Regions", "--json")
    assert json.loads(out) == []  # not even the pick
