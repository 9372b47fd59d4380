"""``foley-tui similar``: on a session of takes of pink noise, sines and click trains,
every query's nearest neighbour is a take of its own kind; bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foley_tui.cli import main
from tests.sound_kinds import write_takes

Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def takes(capsys: Capture, tmp_path: Path) -> dict[str, str]:
    """A session ``Takes`` of four takes of each kind: {sound id: kind}."""
    written = write_takes(tmp_path / "takes", 4)
    code, _, err = run(capsys, "add", "Takes", str(tmp_path / "takes"), "--create")
    assert code == 0, err
    code, out, _ = run(capsys, "candidates", "Takes", "--json")
    # ``add`` captions a file by its name: "pink 0003".
    found = {item["sound_id"]: item["caption"].split()[0] for item in json.loads(out)}
    assert len(found) == len(written) == 12 and set(found.values()) == set(written.values())
    return found


def test_similar_finds_the_same_kind_first_for_every_query(
    capsys: Capture, takes: dict[str, str]
) -> None:
    for sound_id, kind in takes.items():
        code, out, err = run(capsys, "similar", "Takes", sound_id, "-k", "3", "--json")
        assert code == 0, err
        answer = json.loads(out)
        assert answer["query"] == sound_id and answer["compared"] == 12
        neighbours = answer["neighbours"]
        assert [takes[n["sound_id"]] for n in neighbours] == [kind] * 3, (sound_id, neighbours)
        distances = [n["distance"] for n in neighbours]
        assert distances == sorted(distances)
    # The text form: distance, id, caption per line, nearest first.
    first = next(iter(takes))
    code, out, _ = run(capsys, "similar", "Takes", first, "-k", "2")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    distance, sound_id, _caption = lines[0].split("\t")
    assert float(distance) >= 0 and takes[sound_id] == takes[first]


def test_similar_analyses_each_sound_once(
    capsys: Capture, takes: dict[str, str], tmp_path: Path
) -> None:
    from foley_tui.audio.features import FeatureCache, default_cache_path

    first = next(iter(takes))
    code, out, _ = run(capsys, "similar", "Takes", first, "--json")
    assert code == 0 and json.loads(out)["analysed"] == 12
    cache = FeatureCache(default_cache_path())
    assert len(cache) == 12  # in the user's cache dir, keyed by content
    cache.close()
    for path in (tmp_path / "takes").iterdir():  # same bytes, new mtime: still cached
        path.write_bytes(path.read_bytes())
    code, out, _ = run(capsys, "similar", "Takes", first, "--json")
    assert code == 0 and json.loads(out)["analysed"] == 0


def test_bad_input_is_one_line(capsys: Capture, takes: dict[str, str]) -> None:
    code, out, err = run(capsys, "similar", "Takes", "nope:1")
    assert code == 2 and out == "" and err.count("\n") == 1 and "no candidate 'nope:1'" in err
    code, _, err = run(capsys, "similar", "Takes", next(iter(takes)), "-k", "0")
    assert code == 2 and "-k must be at least 1" in err
    code, _, err = run(capsys, "similar", "Nowhere", "x")
    assert code == 2 and err.count("\n") == 1
