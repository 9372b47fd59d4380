"""Read a spot bundle back with readers that are not its writers, and check every clip
against ``foley-tui scene --json``'s placements.

- BWF: ``ffprobe`` (ffmpeg) for the bext time reference, Description (tag ``comment``) and
  Originator (tag ``encoded_by``); ``wavinfo`` for the iXML.
- RPP: a plain-text parse (tracks, items, positions, files).
- OTIO: ``opentimelineio`` (tracks, clip positions, media references, metadata).
- AAF: ``pyaaf2`` walking the composition's slots to each clip's position and the file its
  MasterMob links.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


def scene_rows(session: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    """``foley-tui scene SESSION --json``'s pick rows."""
    from foley_tui.cli import main

    capsys.readouterr()
    assert main(["scene", session, "--json"]) == 0
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["picks"]
    return rows


def scene_samples(rows: list[dict[str, Any]], rate: int) -> dict[str, int]:
    """Each placed pick's sample at ``rate``, as ``scene`` places it."""
    out: dict[str, int] = {}
    for row in rows:
        if row["onset_s"] is None:
            continue
        sample = row.get("position_samples")
        out[row["sound_id"]] = (
            int(sample) if isinstance(sample, int) else int(row["onset_s"] * rate)
        )
    return out


# ------------------------------------------------------------------ BWF
def ffprobe(path: Path) -> dict[str, Any]:
    exe = shutil.which("ffprobe")
    assert exe is not None, "ffprobe (Debian ffmpeg) is needed to read BWF back"
    done = subprocess.run(
        [exe, "-v", "error", "-show_format", "-show_streams", "-of", "json", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def ixml_user(path: Path) -> dict[str, str]:
    import wavinfo

    info = wavinfo.WavInfoReader(str(path))
    assert info.ixml is not None, f"no iXML in {path}"
    parsed = info.ixml.parsed
    user = parsed.find("USER")
    fields = {el.tag: el.text or "" for el in user} if user is not None else {}
    fields["@PROJECT"] = info.ixml.project or ""
    fields["@SCENE"] = info.ixml.scene or ""
    return fields


# ------------------------------------------------------------------ RPP
@dataclass(frozen=True)
class RppItem:
    track: str
    position_s: float
    length_s: float
    offset_s: float
    volume: float
    name: str
    file: str


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def parse_rpp(text: str) -> tuple[list[RppItem], list[tuple[float, str]], int]:
    """(items, markers, sample rate) read line by line from the project's text."""
    items: list[RppItem] = []
    markers: list[tuple[float, str]] = []
    rate = 0
    track = ""
    item: dict[str, str] = {}
    depth: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("<"):
            depth.append(line[1:].split()[0])
            if depth[-1] == "ITEM":
                item = {}
            continue
        if line == ">":
            closed = depth.pop()
            if closed == "ITEM":
                items.append(
                    RppItem(
                        track,
                        float(item["POSITION"]),
                        float(item["LENGTH"]),
                        float(item.get("SOFFS", "0")),
                        float(item["VOLPAN"].split()[0]),
                        _unquote(item["NAME"]),
                        _unquote(item["FILE"]),
                    )
                )
            continue
        key, _, rest = line.partition(" ")
        if depth == ["REAPER_PROJECT"] and key == "SAMPLERATE":
            rate = int(rest.split()[0])
        elif depth == ["REAPER_PROJECT"] and key == "MARKER":
            m = re.match(r"\d+ (\S+) (\"[^\"]*\"|'[^']*'|`[^`]*`|\S+)", rest)
            assert m is not None, line
            markers.append((float(m.group(1)), _unquote(m.group(2))))
        elif depth and depth[-1] == "TRACK" and key == "NAME":
            track = _unquote(rest)
        elif depth and depth[-1] in ("ITEM", "SOURCE"):
            item[key] = rest
    return items, markers, rate


# ------------------------------------------------------------------ OTIO
@dataclass(frozen=True)
class OtioClip:
    track: str
    position: int
    start: int
    length: int
    url: str
    name: str
    metadata: Mapping[str, Any]


def read_otio(path: Path, rate: int) -> list[OtioClip]:
    import opentimelineio as otio

    timeline = otio.adapters.read_from_file(str(path))
    out = []
    for track in timeline.audio_tracks():
        for child in track:
            if not isinstance(child, otio.schema.Clip):
                continue
            where = child.range_in_parent()
            source = child.source_range
            assert source is not None
            ref = child.media_reference
            out.append(
                OtioClip(
                    str(track.name),
                    round(where.start_time.rescaled_to(rate).value),
                    round(source.start_time.rescaled_to(rate).value),
                    round(source.duration.rescaled_to(rate).value),
                    str(getattr(ref, "target_url", "")),
                    str(child.name),
                    dict(child.metadata.get("foley", {})),
                )
            )
    return out


# ------------------------------------------------------------------ AAF
@dataclass(frozen=True)
class AafClip:
    slot: str
    position: int
    start: int
    length: int
    name: str
    url: str
    gain: float


def read_aaf(path: Path) -> tuple[list[AafClip], dict[str, Any]]:
    """Every clip on the composition's sound slots, and its timecode slot's facts."""
    import aaf2

    clips: list[AafClip] = []
    timecode: dict[str, Any] = {}
    with aaf2.open(str(path), "r") as f:
        comp = next(iter(f.content.compositionmobs()))
        for slot in comp.slots:
            segment = slot.segment
            if isinstance(segment, aaf2.components.Timecode):
                timecode = {"start": segment.start, "fps": segment.fps, "drop": segment.drop}
                continue
            position = 0
            for component in segment.components:
                gain = 1.0
                clip = component
                if isinstance(component, aaf2.components.OperationGroup):
                    clip = component.segments[0]
                    gain = float(next(iter(component.parameters)).value)
                if isinstance(clip, aaf2.components.SourceClip):
                    master = clip.mob
                    source_clip = master.slot_at(clip.slot_id).segment.components[0]
                    file_mob = source_clip.mob
                    locator = next(iter(file_mob.descriptor["Locator"]))
                    clips.append(
                        AafClip(
                            str(slot.name),
                            position,
                            int(clip.start),
                            int(clip.length),
                            str(master.name),
                            str(locator["URLString"].value),
                            gain,
                        )
                    )
                position += int(component.length)
    return clips, timecode


def url_path(url: str) -> Path:
    parsed = urllib.parse.urlparse(url)
    return Path(urllib.parse.unquote(parsed.path))


def read_cues(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


# ------------------------------------------------------------------ the whole bundle
def check_bundle(
    bundle: Path,
    expected: dict[str, int],
    *,
    rate: int = 48000,
    start_samples: int = 0,
    formats: frozenset[str] = frozenset({"bwf", "rpp", "aaf", "otio", "csv"}),
) -> dict[str, Any]:
    """Every format's clip positions equal ``expected`` (sound id -> scene sample at
    ``rate``) within one sample; returns what was read, for further checks."""
    cues = [r for r in read_cues(bundle / "cues.csv") if r["status"] == "placed"]
    assert {r["sound_id"] for r in cues} == set(expected), "the cue sheet's picks"
    by_file = {r["file"]: r for r in cues}
    read: dict[str, Any] = {"cues": cues}
    stamps: dict[str, int] = {}
    if "bwf" in formats:
        for row in cues:
            wav = bundle / row["file"]
            probe = ffprobe(wav)
            tags = probe["format"]["tags"]
            assert tags["encoded_by"] == "foley-tui"
            assert tags["comment"]  # the caption (in ASCII)
            caption = row["caption"]
            if caption.isascii() and caption.isprintable() and len(caption) <= 256:
                assert tags["comment"] == caption, wav
            assert int(probe["streams"][0]["sample_rate"]) == rate
            stamps[row["sound_id"]] = int(tags["time_reference"])
            user = ixml_user(wav)
            assert user["SOUND_ID"] == row["sound_id"] and user["LAYER"] == row["layer"]
        read["stamps"] = stamps
    if "rpp" in formats:
        items, markers, rpp_rate = parse_rpp((bundle / "scene.RPP").read_text(encoding="utf-8"))
        assert rpp_rate == rate
        picked = [i for i in items if i.track != "narration"]
        assert len(picked) == len(expected)
        for item in picked:
            row = by_file[item.file]
            assert (bundle / item.file).is_file()
            assert abs(item.position_s * rate - expected[row["sound_id"]]) <= 1
            assert item.track == row["track"]
        read["rpp"] = items
        read["markers"] = markers
    if "otio" in formats:
        clips = [c for c in read_otio(bundle / "scene.otio", rate) if c.track != "narration"]
        assert len(clips) == len(expected)
        for clip in clips:
            assert (bundle / clip.url).is_file()
            assert abs(clip.position - expected[clip.metadata["sound_id"]]) <= 1
            assert clip.track == by_file[clip.url]["track"]
        read["otio"] = clips
    if "aaf" in formats:
        clips_aaf, timecode = read_aaf(bundle / "scene.aaf")
        seen: set[str] = set()
        for aclip in clips_aaf:
            linked = url_path(aclip.url)
            assert linked.is_file(), f"the AAF links {linked}, which is not there"
            if aclip.slot.startswith("narration"):
                assert aclip.position == 0
                continue
            row = by_file[linked.relative_to(bundle).as_posix()]
            assert abs(aclip.position - expected[row["sound_id"]]) <= 1
            assert aclip.slot.startswith(row["track"])
            seen.add(row["sound_id"])
        assert seen == set(expected)
        read["aaf"] = clips_aaf
        read["timecode"] = timecode
    if stamps:
        for row in cues:
            pre = 0  # the copy's pre-handle, as the projects start their source
            if "otio" in read:
                pre = next(
                    c.start for c in read["otio"] if c.metadata["sound_id"] == row["sound_id"]
                )
            elif "rpp" in read:
                pre = next(round(i.offset_s * rate) for i in read["rpp"] if i.file == row["file"])
            got = stamps[row["sound_id"]] - start_samples + pre
            assert abs(got - expected[row["sound_id"]]) <= 1, row["caption"]
    return read
