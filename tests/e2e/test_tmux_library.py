"""End to end: a folder of real formats carrying metadata other tools wrote, auditioned
in place in a real terminal (tmux): found by embedded description and by folder with
``/``, its description and UCS category in the details, one sound picked; foley's own
``SessionStore`` then lists and rehydrates that pick."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from tests.e2e.test_tmux_e2e import Tmux, tmux  # noqa: F401  (the fixture)
from tests.library_fixtures import bwf, flac, ixml_user, mp3, needs_ffmpeg, vorbis, with_ixml
from tests.unit.store.helpers import run_py

FOLEY_TUI = Path(sys.executable).parent / "foley-tui"

pytestmark = needs_ffmpeg

DOOR = "Heavy oak door slams shut"
RAIN = "Rain drumming on a tin roof"
WIND = "Wind howling through pines"
GLASS = "Glass bottle shatters on tile"


def make_library(root: Path) -> None:
    door = bwf(root / "doors" / "interior" / "DOORWood_Slam Heavy_JD_DoorLib.wav", DOOR)
    with_ixml(
        door,
        ixml_user(
            CATID="DOORWood",
            CATEGORY="DOORS",
            SUBCATEGORY="WOOD",
            FXNAME="Slam Heavy",
            KEYWORDS="door, slam, oak",
            LIBRARY="Door Library",
        ),
    )
    flac(root / "weather" / "rain on tin.flac", RAIN, ALBUM="Weather Pack")
    vorbis(root / "weather" / "wind" / "wind howl.ogg", WIND, ARTIST="Field Rec Co")
    mp3(root / "glass" / "shatter.mp3", GLASS, album="Glass Pack")


def test_a_folder_auditioned_in_place_and_its_pick_read_by_foley(
    tmp_path: Path,
    data_dir: Path,
    tmux: Callable[[], Tmux],  # noqa: F811
) -> None:
    assert FOLEY_TUI.exists(), f"foley-tui is not installed next to {sys.executable}"
    root = tmp_path / "My Library"
    make_library(root)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8")
    app = tmux()
    # `foley-tui DIR`: a folder written as a path opens like `foley-tui open DIR`.
    app.start([str(FOLEY_TUI), str(root), "--no-audio"], env)
    every = (DOOR, RAIN, WIND, GLASS)

    def shows(*texts: str) -> Callable[[str], bool]:
        return lambda screen: all(text[:14] in screen for text in texts)

    def hides(*texts: str) -> Callable[[str], bool]:
        return lambda screen: not any(text[:14] in screen for text in texts)

    app.wait_for(shows(*every), "every sound of the folder", timeout=60)

    def search(query: str, found: tuple[str, ...]) -> None:
        app.keys("/")
        app.wait_for(lambda s: "filter: file, folder" in s, "the filter box")
        app.keys(query)
        others = tuple(t for t in every if t not in found)
        app.wait_for(
            lambda s: shows(*found)(_list_part(s)) and hides(*others)(_list_part(s)),
            f"the rows /{query} finds",
        )
        app.keys("Escape")
        app.wait_for(lambda s: shows(*every)(_list_part(s)), "the whole list again")

    # By embedded description: bext (BWF), FLAC comment, Vorbis comment, ID3 TXXX.
    search("oak", (DOOR,))
    search("drumming", (RAIN,))
    search("pines", (WIND,))
    search("shatters", (GLASS,))
    # By folder (relative to the root).
    search("weather", (RAIN, WIND))
    search("interior", (DOOR,))

    # The door's details: its embedded description and its UCS category.
    app.keys("/")
    app.wait_for(lambda s: "filter: file, folder" in s, "the filter box")
    app.keys("DOORWood", "Enter")
    app.wait_for(lambda s: hides(RAIN, WIND, GLASS)(_list_part(s)), "the door alone")
    app.wait_for(
        lambda s: "UCS category" in s and "DOORS / WOOD" in s and "description" in s,
        "the door's description and UCS category in the details",
    )
    app.keys("p")
    app.wait_for(lambda s: "✔ 1" in s, "the pick in the status line")
    app.keys("q")
    app.wait_exit()

    # foley's own SessionStore lists the pick and rehydrates its candidate.
    sessions = [p for p in (data_dir / "sessions").iterdir() if p.is_dir()]
    assert len(sessions) == 1
    sid = sessions[0].name
    picks, cands = run_py(
        "import json\nfrom foley.agent.session import SessionStore\n"
        f"s = SessionStore({sid!r})\n"
        "picks = s.list_picks()\n"
        "cands = s.rehydrate([p['sound_id'] for p in picks])\n"
        "print(json.dumps([picks, [c.to_dict() for c in cands]]))",
        data_dir,
    )
    assert len(picks) == 1 and len(cands) == 1
    sound = cands[0]["sound"]
    assert picks[0]["sound_id"] == sound["id"]
    assert sound["caption"] == DOOR
    door = root.resolve() / "doors" / "interior" / "DOORWood_Slam Heavy_JD_DoorLib.wav"
    assert sound["uri"] == str(door)
    assert sound["ucs_category"] == "DOORS" and sound["ucs_subcategory"] == "WOOD"


def _list_part(screen: str) -> str:
    """The list's side of the screen (left of the details pane's border)."""
    return "\n".join(line.split("▏")[0] for line in screen.splitlines())
