"""Embedded metadata read from files other tools wrote (ffmpeg, an appended iXML chunk)."""

from __future__ import annotations

import shutil
from pathlib import Path

from foley_tui.library import ucs
from foley_tui.library.metadata import read_metadata, sniff
from tests.library_fixtures import bwf, flac, ixml_user, mp3, needs_ffmpeg, vorbis, with_ixml

pytestmark = needs_ffmpeg


def test_bwf_description_is_read_as_utf8(tmp_path: Path) -> None:
    # ffmpeg writes UTF-8 into bext; wavinfo's own default (ASCII) would raise on it.
    wav = bwf(tmp_path / "door.wav", "Porte en bois claque, couloir élevé", originator="Ünï Labs")
    meta = read_metadata(wav)
    assert meta.problem is None
    assert meta.description == "Porte en bois claque, couloir élevé"
    assert meta.vendor == "Ünï Labs"
    assert (meta.format, meta.sample_rate, meta.bit_depth, meta.channels) == ("wav", 48000, 24, 1)
    assert meta.duration_s is not None and abs(meta.duration_s - 0.4) < 1e-3
    assert meta.fields["bext.description"] == "Porte en bois claque, couloir élevé"


def test_latin1_bext_falls_back(tmp_path: Path) -> None:
    wav = bwf(tmp_path / "a.wav", "PLACEHOLDER_DESCRIPTION")
    latin = "Caf\xe9 ambience, noise ok".encode("latin-1")  # as long as the placeholder
    wav.write_bytes(wav.read_bytes().replace(b"PLACEHOLDER_DESCRIPTION", latin))
    assert read_metadata(wav).description == "Café ambience, noise ok"


def test_ixml_user_block_and_ucs(tmp_path: Path) -> None:
    wav = bwf(tmp_path / "DOORWood_Slam Hard_JD_DoorLib.wav", "A wooden door slams")
    with_ixml(
        wav,
        ixml_user(
            CATID="DOORWood",
            CATEGORY="DOORS",
            SUBCATEGORY="WOOD",
            FXNAME="Slam Hard",
            KEYWORDS="door, slam; oak",
            LIBRARY="Door Library",
        ),
    )
    meta = read_metadata(wav)
    assert meta.fields["ixml.USER.CATEGORY"] == "DOORS"
    assert meta.ucs == ucs.UcsFields(
        "DOORWood", "DOORS", "WOOD", "Slam Hard", "JD", "Door Library", ("door", "slam", "oak")
    )
    assert meta.library == "Door Library"


def test_ixml_user_block_as_lines(tmp_path: Path) -> None:
    wav = bwf(tmp_path / "x.wav", "")
    doc = '<?xml version="1.0"?><BWFXML><USER>catid=WATRSurf\nCategory: WATER</USER></BWFXML>'
    with_ixml(wav, doc)
    meta = read_metadata(wav)
    assert (meta.ucs.catid, meta.ucs.category) == ("WATRSurf", "WATER")


def test_tagged_formats(tmp_path: Path) -> None:
    ogg = read_metadata(vorbis(tmp_path / "wind.ogg", "Wind howling", ARTIST="Vendor V"))
    assert (ogg.format, ogg.description, ogg.vendor) == ("ogg", "Wind howling", "Vendor V")
    fl = read_metadata(flac(tmp_path / "rain.flac", "Rain on tin", ALBUM="Weather"))
    assert (fl.format, fl.description, fl.library, fl.bit_depth) == (
        "flac",
        "Rain on tin",
        "Weather",
        16,
    )
    # ffmpeg writes an MP3's description as a TXXX frame (tinytag's .other)
    m = read_metadata(mp3(tmp_path / "glass.mp3", "Glass breaking on tile", album="Glass Pack"))
    assert (m.format, m.description, m.library) == ("mp3", "Glass breaking on tile", "Glass Pack")
    assert m.fields["tag.description"] == "Glass breaking on tile"


def test_broken_files_give_reasons(tmp_path: Path) -> None:
    good = bwf(tmp_path / "good.wav", "ok")
    (tmp_path / "zero.wav").write_bytes(b"")
    (tmp_path / "cut.wav").write_bytes(good.read_bytes()[:3000])  # inside the audio
    (tmp_path / "head.wav").write_bytes(good.read_bytes()[:200])  # inside the bext chunk
    (tmp_path / "text.flac").write_text("not a sound")
    assert read_metadata(tmp_path / "zero.wav").problem == "empty file (0 bytes)"
    cut = read_metadata(tmp_path / "cut.wav")
    assert cut.problem is None and (cut.warning or "").startswith("truncated: ")
    assert cut.duration_s is not None and cut.duration_s < 0.1
    assert "truncated" in (read_metadata(tmp_path / "head.wav").problem or "")
    assert "not audio" in (read_metadata(tmp_path / "text.flac").problem or "")


def test_misnamed_file_is_read_as_what_it_is(tmp_path: Path) -> None:
    real = flac(tmp_path / "rain.flac", "Rain")
    shutil.copy(real, tmp_path / "rain.wav")
    meta = read_metadata(tmp_path / "rain.wav")
    assert meta.problem is None and meta.format == "flac" and meta.description == "Rain"
    assert meta.warning == "named .wav but holds FLAC"


def test_sniff() -> None:
    assert sniff(b"fLaC....") == "flac"
    assert sniff(b"\xff\xfb\x90\x00") == "mp3"
    assert sniff(b"hello") is None


def test_ucs_file_names() -> None:
    fields = ucs.from_file_name("AMBForst_Birds Morning_TN_Nature Lib")
    assert (fields.catid, fields.fx_name, fields.creator, fields.source) == (
        "AMBForst",
        "Birds Morning",
        "TN",
        "Nature Lib",
    )
    assert ucs.from_file_name("kick_01") == ucs.UcsFields()
    assert ucs.from_file_name("DOORWood-Squeak_Creak").catid == "DOORWood-Squeak"
    assert ucs.from_fields({"ixml.ASWG.catId": "FOLYCloth"}).catid == "FOLYCloth"
