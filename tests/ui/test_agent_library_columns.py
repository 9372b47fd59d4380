"""An agent's session keeps its own columns, with a librarian's in the details and by
``s``: the file and its folder, the UCS category, the library, rate, bit depth, channels
and format of each candidate."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from textual.containers import VerticalScroll

from foley_tui.app.foley_app import FoleyApp
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.store import SessionService
from foley_tui.widgets.details import Details
from tests.fakes import FakePlayer


def _candidate(i: int, name: str, category: str, library: str, bits: int, rate: int) -> Any:
    cat, _, sub = category.partition("/")
    return {
        "sound": {
            "id": f"{library}:{i}",
            "uri": f"/sfx/{library} pack/{name}",
            "caption": f"sound {i}",
            "license": {"source": library, "license_id": "CC0", "creator_name": f"maker {i}"},
            "ucs_category": cat,
            "ucs_subcategory": sub,
            "source_bit_depth": bits,
            "sample_rate": rate,
            "channels": 1 + i % 2,
            "format": "wav" if i % 2 else "flac",
            "duration_s": 1.0,
        },
        "origin": "retrieved",
    }


async def test_an_agents_session_sorts_by_a_librarians_columns(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("agent")
    store = service.get(sid)
    store.cache_candidates(
        [
            _candidate(0, "b door.wav", "DOORS/WOOD", "sonniss", 24, 96000),
            _candidate(1, "c rain.wav", "AMBIENCE/RAIN", "bbc", 16, 44100),
            _candidate(2, "a glass.wav", "GLASS/BREAK", "freesound", 32, 48000),
        ]
    )
    app = FoleyApp(service.get(sid), FakePlayer(), service=service)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, AuditionScreen)
        model = screen.model
        for _ in range(400):  # a bound for a stuck load, not a target
            await pilot.pause(0.05)
            if "category" in model.sorts:
                break
        assert model.sorts[: len(model.sorts) - 8] == (
            "rank",
            "caption",
            "duration",
            "layer",
            "onset",
            "score",
            "rating",
        )
        order: dict[str, list[str]] = {}
        for _ in model.sorts:
            await pilot.press("s")
            await pilot.pause()
            order[model.view.sort] = list(screen.listing.view)
        assert order["library"] == ["bbc:1", "freesound:2", "sonniss:0"]
        assert order["name"] == ["freesound:2", "sonniss:0", "bbc:1"]  # a…, b…, c…
        assert order["folder"] == ["bbc:1", "freesound:2", "sonniss:0"]
        assert order["category"] == ["bbc:1", "sonniss:0", "freesound:2"]  # AMB, DOORS, GLASS
        assert order["bits"] == ["bbc:1", "sonniss:0", "freesound:2"]  # 16, 24, 32
        assert order["rate"] == ["bbc:1", "freesound:2", "sonniss:0"]
        assert order["format"] == ["sonniss:0", "freesound:2", "bbc:1"]  # flac, then wav
        assert model.view.sort == "rank"  # round the whole cycle
        assert screen.listing.view[0] == "sonniss:0"


def _lines(renderable: RenderableType, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


async def test_a_user_library_sound_in_an_agents_session_shows_a_librarians_details(
    data_dir: Path,
) -> None:
    """At 120x30 a picked sound from the user's own library, with notes enough to make
    the pane scroll, shows its file, folder, UCS category and bit depth, and its id line
    whole (the longest id the demo has: beside a scrollbar it was cut)."""
    service = SessionService(data_dir)
    sid = service.create("agent")
    store = service.get(sid)
    long_id = "local:drips/cave_drip_03.flac"
    short = _candidate(1, "c rain.wav", "AMBIENCE/RAIN", "bbc", 16, 44100)
    short["sound"]["uri"] = "https://example.invalid/c%20rain.wav"  # found on the web
    mine = _candidate(0, "b door.wav", "DOORS/WOOD", "user", 24, 96000)
    mine["sound"]["id"] = long_id
    mine["notes"] = [f"note {n}: a take recorded on the stairs" for n in range(6)]
    store.cache_candidates([short, mine])
    store.add_pick(long_id, layer="sfx_fg", onset=12.5)
    app = FoleyApp(service.get(sid), FakePlayer(), service=service)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, AuditionScreen)
        details = screen.query_one(Details)
        pane = screen.query_one("#details-pane", VerticalScroll)

        async def showing(sound_id: str) -> list[str]:
            for _ in range(400):  # a bound for a stuck load, not a target
                await pilot.pause(0.05)
                lines = _lines(details.content, details.content_size.width)
                if any(line.startswith("id") and line.endswith(sound_id) for line in lines):
                    return lines
            raise AssertionError(f"the details never showed {sound_id}")

        web = "\n".join(await showing(short["sound"]["id"]))
        assert not re.search(r"^(file|folder) ", web, re.M), web  # no file of the user's
        assert re.search(r"^UCS category +AMBIENCE/RAIN$", web, re.M), web
        narrow = details.content_size.width
        await pilot.press("j")
        lines = await showing(long_id)
        await pilot.pause()
        assert pane.max_scroll_y > 0  # the pane scrolls
        assert details.content_size.width == narrow  # and is not narrowed by it
        text = "\n".join(lines)
        assert re.search(rf"^id +{re.escape(long_id)}$", text, re.M), text  # one line, whole
        assert re.search(r"^file +b door\.wav$", text, re.M), text
        assert re.search(r"^folder +user pack$", text, re.M), text
        assert re.search(r"^UCS category +DOORS/WOOD$", text, re.M), text
        assert "96000 Hz · 24-bit" in text
