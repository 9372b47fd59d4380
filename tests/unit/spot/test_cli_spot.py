"""``foley-tui spot``: the demo session's bundle read back, and bad input refused cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.demo.build import DEMO_TITLE
from tests.spot_check import check_bundle, read_cues, scene_rows, scene_samples


@pytest.fixture
def demo(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["demo", "--no-open"]) == 0
    session = capsys.readouterr().out.strip().splitlines()[-1]
    return session


def test_the_demo_spots_and_every_format_reads_back(
    demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "storm"
    code = main(["spot", DEMO_TITLE, "-o", str(out), "--start-tc", "01:00:00:00", "--fps", "25"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert f"to {out}" in printed
    rows = scene_rows(demo, capsys)
    expected = scene_samples(rows, 48000)
    anchored = [r for r in rows if r["onset_s"] is not None and "anchor" in r["reading"]]
    assert anchored, "the demo has anchored picks"
    playable = {r["sound_id"] for r in rows if r["playable"]}
    expected = {sid: at for sid, at in expected.items() if sid in playable}
    read = check_bundle(out, expected, start_samples=3600 * 48000)
    assert read["timecode"]["start"] == 90000
    for name in ("README.txt", "mix.wav", "scene.RPP", "scene.aaf", "scene.otio"):
        assert (out / name).is_file()
    readme = (out / "README.txt").read_text()
    for editor in ("Pro Tools", "REAPER", "Resolve", "Ardour"):
        assert editor in readme


def test_bad_input_gets_a_clear_message_and_loses_nothing(
    demo: str, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    assert main(["spot", demo, "-o", str(taken)]) == 2
    assert "not empty (use --force" in capsys.readouterr().err
    assert (taken / "notes.txt").read_text() == "mine"
    for flags, message in [
        (["--fps", "60"], "not a timecode rate"),
        (["--start-tc", "25:61:00:00"], "not a timecode"),
        (["--format", "wav"], "--format takes"),
        (["--rate", "1000"], "--rate must be"),
        (["--mute", "drums"], "no lane 'drums'"),
        (["--bits", "16", "--float"], "--bits or --float"),
    ]:
        assert main(["spot", demo, "-o", str(tmp_path / "x"), *flags]) == 2, flags
        assert message in capsys.readouterr().err, flags
        assert not (tmp_path / "x").exists()
    assert main(["session", "create", "--title", "nothing"]) == 0
    capsys.readouterr()
    assert main(["spot", "nothing", "-o", str(tmp_path / "y")]) == 1
    assert "no placed pick" in capsys.readouterr().err
    assert main(["spot", demo, "-o", str(taken), "--force", "--format", "csv"]) == 0
    assert not (taken / "notes.txt").exists()
    assert read_cues(taken / "cues.csv")


def test_reference_names_each_originals_own_format(
    demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ref"
    assert main(["spot", demo, "-o", str(out), "--reference", "--format", "rpp,otio,csv"]) == 0
    text = (out / "scene.RPP").read_text()
    assert "<SOURCE FLAC" in text  # the demo's sounds are FLAC files in its data dir
    assert not list(out.rglob("*.wav"))
