"""Find-similar's features: each kind finds its kind, the cache spares re-analysis."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.audio.features import (
    SIZE,
    FeatureCache,
    FeatureError,
    Sound,
    analyse,
    content_key,
    describe_all,
    nearest,
    normalise,
)
from tests.sound_kinds import write_takes


def test_every_take_finds_its_own_kind_first(tmp_path: Path) -> None:
    takes = write_takes(tmp_path / "takes", per_kind=5)
    sounds = [Sound(path.stem, path) for path in takes]
    kinds = {path.stem: kind for path, kind in takes.items()}
    described = describe_all(sounds, FeatureCache())
    assert described.errors == {} and described.analysed == len(sounds)
    for sound in sounds:
        ranked = nearest(sound.sound_id, described.vectors, k=4)
        assert [kinds[n.sound_id] for n in ranked] == [kinds[sound.sound_id]] * 4, (
            sound.sound_id,
            ranked,
        )
        assert sound.sound_id not in {n.sound_id for n in ranked}
        distances = [n.distance for n in ranked]
        assert distances == sorted(distances) and all(0 <= d <= 2 for d in distances)


def test_the_cache_is_keyed_by_content_and_survives_reopening(tmp_path: Path) -> None:
    takes = list(write_takes(tmp_path / "takes", per_kind=2))
    copy = tmp_path / "renamed.wav"
    copy.write_bytes(takes[0].read_bytes())
    path = tmp_path / "cache" / "features.sqlite"
    cache = FeatureCache(path)
    first = describe_all([Sound(p.stem, p) for p in takes], cache)
    assert first.analysed == len(takes)
    cache.close()

    again = FeatureCache(path)
    second = describe_all([Sound(p.stem, p) for p in takes] + [Sound("copy", copy)], again)
    assert second.analysed == 0 and len(again) == len(takes)
    np.testing.assert_array_equal(second.vectors["copy"], first.vectors[takes[0].stem])
    # A declared hash is the key: a candidate's content_sha256 spares hashing the file.
    assert content_key(copy, "AB" * 32) == "ab" * 32


def test_a_corrupt_cache_file_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "features.sqlite"
    path.write_bytes(b"not a database" * 100)
    cache = FeatureCache(path)
    assert len(cache) == 0


def test_unreadable_and_silent_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF1234WAVEjunk")
    with pytest.raises(FeatureError):
        analyse(bad)
    silent = tmp_path / "silent.wav"
    sf.write(str(silent), np.zeros(4410, np.float32), 44100)
    tiny = tmp_path / "tiny.wav"
    sf.write(str(tiny), np.full(10, 0.5, np.float32), 44100)
    for path in (silent, tiny):
        vector = analyse(path)
        assert vector.shape == (SIZE,) and np.all(np.isfinite(vector))
    described = describe_all(
        [Sound("bad", bad), Sound("silent", silent), Sound("gone", tmp_path / "gone.wav")],
        FeatureCache(),
    )
    assert set(described.errors) == {"bad", "gone"} and set(described.vectors) == {"silent"}


def test_normalise_and_nearest_edges() -> None:
    same = np.ones((3, SIZE), np.float32)
    unit = normalise(same)  # no spread anywhere: zeros, not NaN
    assert np.all(np.isfinite(unit))
    with pytest.raises(ValueError):
        normalise(np.ones((2, 3)))
    with pytest.raises(KeyError):
        nearest("nope", {"a": same[0]})
    assert nearest("a", {"a": same[0]}) == []
    ranked = nearest("a", {"a": same[0], "b": same[1], "c": same[2]}, k=5)
    assert [n.sound_id for n in ranked] == ["b", "c"]
