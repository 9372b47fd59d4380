"""Spotting from the app: the timeline's ``S`` (and the palette) opens the dialog, the
bundle is written in a worker with a progress bar, the summary shows, Esc cancels cleanly.
The demo's bundle passes the same read-back checks as the command line's."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, ProgressBar, Static

from foley_tui.app.foley_app import FoleyApp
from foley_tui.demo.build import build_demo
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.screens.spot import SpotScreen
from foley_tui.screens.timeline.screen import TimelineScreen
from foley_tui.store import SessionService
from tests.fakes import FakePlayer
from tests.spot_check import check_bundle, scene_rows, scene_samples
from tests.ui.palette import palette_run

SIZE = (120, 36)


async def _wait(pilot: Pilot[Any], kind: type, tries: int = 500) -> Any:
    for _ in range(tries):
        await pilot.pause(0.01)
        if isinstance(pilot.app.screen, kind):
            return pilot.app.screen
    raise AssertionError(f"no {kind.__name__}; on {type(pilot.app.screen).__name__}")


async def _spot_dialog(pilot: Pilot[Any], out: Path) -> SpotScreen:
    await _wait(pilot, AuditionScreen)
    await pilot.press("t")
    await _wait(pilot, TimelineScreen)
    await pilot.press("S")
    dialog: SpotScreen = await _wait(pilot, SpotScreen)
    dialog.query_one(Input).value = str(out)
    return dialog


def _app(data_dir: Path) -> tuple[FoleyApp, str]:
    service = SessionService(data_dir)
    demo = build_demo(data_dir, service=service)
    return FoleyApp(service.get(demo), FakePlayer(), service=service), demo


async def test_the_timeline_key_spots_the_demo(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app, demo = _app(data_dir)
    out = tmp_path / "storm"
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _spot_dialog(pilot, out)
        assert dialog.query_one(Input).value == str(out)
        await pilot.press("enter")
        for _ in range(3000):
            await pilot.pause(0.01)
            if dialog.result is not None:
                break
        assert dialog.result is not None, "the bundle was written"
        summary = str(dialog.query_one("#spot-summary", Static).render())
        assert "spotted 5 pick(s)" in summary
        bar = dialog.query_one("#spot-progress", ProgressBar)
        assert bar.progress == bar.total
        await pilot.press("escape")
        await _wait(pilot, TimelineScreen)
    rows = scene_rows(demo, capsys)
    playable = {r["sound_id"] for r in rows if r["playable"]}
    expected = {k: v for k, v in scene_samples(rows, 48000).items() if k in playable}
    check_bundle(out, expected)


async def test_the_default_folder_is_beside_the_narration(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Named after the session's title, which the dialog reads in a worker (never on
    the UI thread)."""
    app, _ = _app(data_dir)
    readers: list[threading.Thread] = []
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, AuditionScreen)
        await pilot.press("t")
        timeline: TimelineScreen = await _wait(pilot, TimelineScreen)
        narration = timeline.model.scene.narration
        assert narration is not None
        store = timeline.store
        real_meta = store.meta

        def meta() -> Any:
            readers.append(threading.current_thread())
            return real_meta()

        monkeypatch.setattr(store, "meta", meta)
        await pilot.press("S")
        dialog = await _wait(pilot, SpotScreen)
        field = dialog.query_one(Input)
        for _ in range(1000):
            if field.value:
                break
            await pilot.pause(0.01)
        folder = Path(field.value)
        assert folder.parent == narration.path.parent and folder.name.endswith(" spot")
        assert folder.name.startswith("Demo")  # the session's title
        assert readers and threading.main_thread() not in readers
        await pilot.press("escape")
        await _wait(pilot, TimelineScreen)


async def test_escape_cancels_and_leaves_nothing(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from foley_tui.spot import bundle

    app, _ = _app(data_dir)
    out = tmp_path / "storm"
    started = threading.Event()
    release = threading.Event()
    real = bundle.read_clip

    def held(*args: Any, **kwargs: Any) -> Any:
        started.set()
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(bundle, "read_clip", held)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _spot_dialog(pilot, out)
        await pilot.press("enter")
        for _ in range(1000):
            await pilot.pause(0.01)
            if started.is_set():
                break
        assert dialog.running
        await pilot.press("escape")
        release.set()
        await _wait(pilot, TimelineScreen)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".storm")] == []


async def test_a_folder_in_the_way_is_refused_in_the_dialog(data_dir: Path, tmp_path: Path) -> None:
    app, _ = _app(data_dir)
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _spot_dialog(pilot, out)
        await pilot.press("enter")
        for _ in range(1000):
            await pilot.pause(0.01)
            if str(dialog.query_one("#spot-error", Static).render()):
                break
        assert "not empty" in str(dialog.query_one("#spot-error", Static).render())
        assert not dialog.running and dialog.result is None
    assert (out / "keep.txt").read_text() == "mine"


async def test_the_palette_offers_spot_over_the_timeline(data_dir: Path) -> None:
    from foley_tui.app.commands import AuditionCommands

    app, _ = _app(data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, AuditionScreen)
        await pilot.press("t")
        timeline = await _wait(pilot, TimelineScreen)
        offered = [hit.text async for hit in AuditionCommands(timeline).discover()]
        assert "Timeline: Spot…" in offered
        await palette_run(pilot, "Spot", "Timeline: Spot")
        await _wait(pilot, SpotScreen)


async def test_with_network_allowed_the_app_references_a_remote_sound_at_its_url(
    data_dir: Path, tmp_path: Path
) -> None:
    """The settings' allow_network reaches the spot: a picked remote sound whose licence
    forbids keeping its bytes is referenced at its URL (a local http server), not copied."""
    import soundfile as sf

    from foley_tui.config import Config, Settings
    from tests.http_files import serve
    from tests.scene_fixtures import tone
    from tests.spot_check import parse_rpp, read_cues

    web = tmp_path / "web"
    web.mkdir()
    sf.write(str(web / "thunder.wav"), tone(48000, 0.6, 90.0), 48000, subtype="PCM_16")
    service = SessionService(data_dir)
    demo = build_demo(data_dir, service=service)
    store = service.get(demo)
    out = tmp_path / "storm"
    with serve(web) as site:
        url = f"{site.url}/thunder.wav"
        sid = "fs:thunder"
        store.cache_candidates(
            [
                {
                    "sound": {
                        "id": sid,
                        "caption": "a distant thunder roll",
                        "license": {"cache_bytes_ok": False},
                    },
                    "preview_uri": url,
                    "event": None,
                }
            ]
        )
        store.picks_ns[sid] = {"sound_id": sid, "layer": "ambience", "onset": 1.0}
        config = Config(settings=Settings(allow_network=True))
        app = FoleyApp(store, FakePlayer(), config, service)
        async with app.run_test(size=SIZE) as pilot:
            dialog = await _spot_dialog(pilot, out)
            await pilot.press("enter")
            for _ in range(3000):
                await pilot.pause(0.01)
                if dialog.result is not None:
                    break
            assert dialog.result is not None, "the bundle was written"
            summary = str(dialog.query_one("#spot-summary", Static).render())
            assert "(1 at their URL)" in summary
        assert "/thunder.wav" in site.served
    row = next(r for r in read_cues(out / "cues.csv") if r["sound_id"] == sid)
    assert row["status"] == "placed" and row["file"] == url
    items, _, _ = parse_rpp((out / "scene.RPP").read_text(encoding="utf-8"))
    assert next(i for i in items if i.name == "a distant thunder roll").file == url
    assert not any("thunder" in p.name for p in out.rglob("*"))
