"""An agent's session keeps its own columns, with a librarian's by ``s``: the file and
its folder, the UCS category, the library, rate, bit depth, channels and format of each
candidate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foley_tui.app.foley_app import FoleyApp
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.store import SessionService
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
