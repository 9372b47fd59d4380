"""Remote sounds in a spot bundle, through ``foley-tui spot`` against a local http server
(no internet): one whose licence forbids keeping its bytes is never copied, and is
referenced at its URL by every project where the URL is reached (``--network``); one
whose URL does not answer, or any of them without ``--network``, is left out with why;
one whose licence allows keeping the bytes is fetched and copied like a local file.
Read back with readers that are not the writers: a plain-text RPP parse,
opentimelineio, pyaaf2 and the CSV module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foley_tui.cli import main
from foley_tui.store import SessionService
from tests.http_files import Site, serve
from tests.scene_fixtures import ToneSession, attach_narration, make_tone_session, tone
from tests.spot_check import parse_rpp, read_aaf, read_cues, read_otio

RATE = 48000


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[Site, Path]]:
    folder = tmp_path / "web"
    folder.mkdir()
    with serve(folder) as site:
        yield site, folder


def _remote(sid: str, caption: str, url: str, keep: bool) -> dict[str, object]:
    return {
        "sound": {
            "id": sid,
            "caption": caption,
            "license": {
                "cache_bytes_ok": keep,
                "license_name": "CC BY 4.0",
                "requires_attribution": True,
                "attribution_text": f"{caption} by A. Recordist",
            },
        },
        "preview_uri": url,
        "event": None,
    }


@pytest.fixture
def session(data_dir: Path, tmp_path: Path, web: tuple[Site, Path]) -> dict[str, object]:
    site, folder = web
    base = site.url
    made: ToneSession = make_tone_session(data_dir, tmp_path / "audio", RATE)
    assert attach_narration(made) == 0
    # A 48 kHz WAV (an AAF links it at its URL) and a 44.1 kHz FLAC (an AAF cannot).
    sf.write(str(folder / "thunder.wav"), tone(RATE, 0.6, 90.0), RATE, subtype="PCM_16")
    sf.write(str(folder / "wind.flac"), tone(44100, 0.7, 400.0), 44100, format="FLAC")
    sf.write(str(folder / "kept.wav"), tone(RATE, 0.5, 800.0), RATE, subtype="PCM_16")
    remote = {
        "thunder": ("fs:thunder", "a distant thunder roll", f"{base}/thunder.wav", False),
        "wind": ("fs:wind", "wind through a gap", f"{base}/wind.flac", False),
        "gone": ("fs:gone", "a lost gust", f"{base}/gone.wav", False),
        "kept": ("fs:kept", "a kept chime", f"{base}/kept.wav", True),
    }
    store = SessionService(data_dir).get(made.session_id)
    store.cache_candidates(
        [_remote(sid, cap, url, keep) for sid, cap, url, keep in remote.values()]
    )
    places = {"thunder": ("ambience", 1.0), "wind": ("sfx_fg", 2.2), "gone": ("sfx_fg", 1.5)}
    places["kept"] = ("stinger", 0.3)
    for name, (layer, onset) in places.items():
        sid = remote[name][0]
        store.picks_ns[sid] = {"sound_id": sid, "layer": layer, "onset": onset}
    return {
        "id": made.session_id,
        "remote": remote,
        "folder": folder,
        "places": places,
        "site": site,
    }


def _woven_db(path: Path, layer: str) -> float:
    """foley's own static gain for the whole sound on ``layer`` (its reference gain with
    the peak ceiling less the layer gain, plus the layer gain), from foley's code."""
    from foley.base import Layer
    from foley.level import REFERENCE_PEAK_CEILING_DBFS, reference_gain_db
    from foley.weave.mix import LAYER_GAIN_DB

    data, rate = sf.read(str(path), dtype="float32", always_2d=True)
    layer_db = float(LAYER_GAIN_DB[Layer(layer)])
    mono = data.mean(axis=1, dtype=np.float32)
    ref = reference_gain_db(mono, rate, peak_ceiling_dbfs=REFERENCE_PEAK_CEILING_DBFS - layer_db)
    return float(ref) + layer_db


def test_a_remote_sound_the_licence_forbids_keeping_is_referenced_at_its_url(
    session: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = session["remote"]
    folder = session["folder"]
    places = session["places"]
    assert isinstance(remote, dict) and isinstance(folder, Path) and isinstance(places, dict)
    out = tmp_path / "bundle"
    capsys.readouterr()
    assert main(["spot", str(session["id"]), "-o", str(out), "--network"]) == 0
    printed = capsys.readouterr().out
    assert "(2 at their URL)" in printed
    thunder_id, _, thunder_url, _ = remote["thunder"]
    wind_id, _, wind_url, _ = remote["wind"]

    cues = {r["sound_id"]: r for r in read_cues(out / "cues.csv")}
    for sid, url in ((thunder_id, thunder_url), (wind_id, wind_url)):
        row = cues[sid]
        assert row["status"] == "placed" and row["file"] == url
        assert "referenced at its URL, never copied" in row["note"]
    gone = cues[remote["gone"][0]]
    assert gone["status"] == "left out"
    assert "cannot fetch" in gone["note"] and "404" in gone["note"]
    assert "never copied" in gone["note"]
    # The one whose licence allows keeping its bytes is fetched and copied.
    kept = cues[remote["kept"][0]]
    assert kept["status"] == "placed" and (out / kept["file"]).is_file()
    # Nothing of the forbidden sounds is in the bundle: no copy, no file of theirs.
    names = [p.name for p in out.rglob("*")]
    assert not any("thunder" in n or "wind" in n for n in names), names
    payloads = {(folder / n).read_bytes() for n in ("thunder.wav", "wind.flac")}
    assert not any(p.is_file() and p.read_bytes() in payloads for p in out.rglob("*"))

    # RPP (read as plain text): the item is at its onset, as long as the sound, its
    # FILE is the URL, its clip gain is foley's woven gain for it.
    items, _, _ = parse_rpp((out / "scene.RPP").read_text(encoding="utf-8"))
    by_name = {i.name: i for i in items}
    for key, url, seconds in (("thunder", thunder_url, 0.6), ("wind", wind_url, 0.7)):
        layer, onset = places[key]
        item = by_name[remote[key][1]]
        assert item.file == url
        assert abs(item.position_s * RATE - int(onset * RATE)) <= 1
        assert item.length_s == pytest.approx(seconds, abs=1 / RATE)
        served = folder / url.rsplit("/", 1)[1]
        assert 20 * np.log10(item.volume) == pytest.approx(_woven_db(served, layer), abs=1e-3)
        assert item.track.startswith(layer)
    assert "<SOURCE FLAC" in (out / "scene.RPP").read_text()  # the wind is read as FLAC

    # OTIO: an external reference to the URL, at the placement.
    clips = {c.metadata["sound_id"]: c for c in read_otio(out / "scene.otio", RATE)}
    for key, url in (("thunder", thunder_url), ("wind", wind_url)):
        clip = clips[remote[key][0]]
        assert clip.url == url
        assert abs(clip.position - int(places[key][1] * RATE)) <= 1

    # AAF: the 48 kHz WAV is linked at its URL (both channels); the FLAC cannot be.
    aaf_clips, _ = read_aaf(out / "scene.aaf")
    thunder = [c for c in aaf_clips if c.name == remote["thunder"][1]]
    assert len(thunder) == 2 and {c.url for c in thunder} == {thunder_url}
    assert all(abs(c.position - RATE) <= 1 and c.length == round(0.6 * RATE) for c in thunder)
    assert not [c for c in aaf_clips if c.name == remote["wind"][1]]
    readme = (out / "README.txt").read_text()
    assert "wind through a gap: not in the AAF" in readme and thunder_url in readme
    assert "a distant thunder roll" in (out / "CREDITS.txt").read_text()


def test_without_the_network_a_remote_sound_is_left_out_with_why(
    session: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = session["remote"]
    assert isinstance(remote, dict)
    out = tmp_path / "bundle"
    assert main(["spot", str(session["id"]), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    cues = {r["sound_id"]: r for r in read_cues(out / "cues.csv")}
    for key in ("thunder", "wind", "gone", "kept"):
        row = cues[remote[key][0]]
        assert row["status"] == "left out"
        assert "network access is off" in row["note"]
        assert remote[key][1] in printed
    note = cues[remote["thunder"][0]]["note"]
    assert "never copied" in note and "--network" in note
    assert "never copied" not in cues[remote["kept"][0]]["note"]
    site = session["site"]
    assert isinstance(site, Site) and site.served == []  # nothing was asked of the server
