#!/usr/bin/env python3
"""Render the README screenshot: the app's own SVG export of the demo session.

Builds the demo session in a throwaway data dir, runs the real app headless at a fixed
size, moves to the "rain on a tin roof" pick so the details pane and waveform have
something to show, and saves ``App.export_screenshot()`` to assets/screenshot.svg::

    python assets/make_screenshot.py [OUT.svg]

The only stand-in is the player: a silent one that reports a device, so the status line
shows what it shows on a machine with a sound card (nothing is played for a still).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent / "screenshot.svg"
SIZE = (130, 34)


async def render(out: Path) -> None:
    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.audio.player import NullPlayer
    from foley_tui.demo.build import build_demo
    from foley_tui.screens.audition.screen import AuditionScreen
    from foley_tui.store import SessionService

    class SilentPlayer(NullPlayer):
        @property
        def available(self) -> bool:
            return True

        @property
        def device_name(self) -> str:
            return "default output"

        @property
        def unavailable_reason(self) -> str | None:
            return None

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "foley"
        service = SessionService(data)
        session_id = build_demo(data, service=service)
        app = FoleyApp(service.get(session_id), SilentPlayer("screenshot"), service=service)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(5):
                await pilot.pause()
                await app.workers.wait_for_complete()
            screen = app.screen
            assert isinstance(screen, AuditionScreen), screen
            target = "freesound:701245"  # the rain on a tin roof the demo starts picked
            for _ in range(len(screen.listing.rows)):
                if screen.current_id == target:
                    break
                await pilot.press("down")
            for _ in range(5):
                await pilot.pause(0.05)
                await app.workers.wait_for_complete()
            svg = app.export_screenshot(title="foley-tui: Demo: a stormy night")
    out.write_text(svg, encoding="utf-8")


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    os.environ.setdefault("TZ", "UTC")
    asyncio.run(render(out))
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
