"""``C`` (a candidate in context) never reads or measures audio on the UI thread: the
scene build runs in a worker while the UI keeps answering keys, a second ``C`` supersedes
the first, and a failure becomes a notice. The flat mix with loudness matching measures
each sound's loudness; the woven mix measures each sound's woven gain and the whole scene
for the master: both in the worker."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

import foley_tui.audio.loudness as loudness
import foley_tui.audio.resolve as resolve
from foley_tui.app.foley_app import FoleyApp
from foley_tui.audio.base import Scene
from foley_tui.config import Config, Settings
from foley_tui.scene.narration import make_narration, write_narration
from foley_tui.store import SessionService
from tests.fakes import FakePlayer, NoticeLog
from tests.scene_fixtures import ToneSession, make_tone_session
from tests.ui.conftest import settle, wait_workers

SIZE = (120, 30)
#: How long a gated measure waits for the test to open the gate (a safety net only: the
#: test opens it as soon as it has checked the UI).
GATE_S = 60.0


class Recorder:
    """Wraps the real loudness measure and header sniff: records the thread of every call;
    measures wait at a gate the test opens."""

    def __init__(self) -> None:
        self.threads: list[tuple[str, threading.Thread]] = []
        self.gate = threading.Event()
        self.entered = threading.Event()
        self._lock = threading.Lock()

    def record(self, what: str) -> None:
        with self._lock:
            self.threads.append((what, threading.current_thread()))

    def on_main(self) -> list[str]:
        main = threading.main_thread()
        return [what for what, thread in self.threads if thread is main]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    rec = Recorder()
    real_measure = loudness.measure_file
    real_sniff = resolve.sniff_file

    def measure(path: Path, *args: Any, **kwargs: Any) -> float:
        rec.record(f"measure {path.name}")
        rec.entered.set()
        rec.gate.wait(GATE_S)
        return real_measure(path, *args, **kwargs)

    def sniff(path: Path) -> Any:
        rec.record(f"sniff {path.name}")
        return real_sniff(path)

    monkeypatch.setattr(loudness, "measure_file", measure)
    monkeypatch.setattr(resolve, "sniff_file", sniff)
    yield rec
    rec.gate.set()


def _app(
    data_dir: Path, tmp_path: Path, player: FakePlayer, mix: str = "flat"
) -> tuple[FoleyApp, ToneSession]:
    tones = make_tone_session(data_dir, tmp_path / "audio", 48000)
    service = SessionService(data_dir)
    store = service.get(tones.session_id)
    write_narration(store, make_narration(tones.narration_path, tones.words_path))
    settings = Settings(loudness_match=True, context_pre_roll_s=0.25, scene_mix=mix)
    return FoleyApp(store, player, Config(settings=settings), service), tones


async def _until(pilot: Pilot[Any], condition: Callable[[], bool], what: str) -> None:
    for _ in range(400):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never happened: {what}")


def _scenes(player: FakePlayer) -> list[Scene]:
    return [args[0] for name, args in player.calls if name == "play_scene"]


async def _on_row(pilot: Pilot[Any], app: FoleyApp, sound_id: str) -> None:
    screen = app.audition
    assert screen is not None
    screen.candidate_list.move_to(screen.listing.view.index(sound_id))
    await pilot.pause()
    assert screen.current_id == sound_id


async def test_c_builds_off_the_ui_thread_and_the_ui_answers_meanwhile(
    data_dir: Path, tmp_path: Path, recorder: Recorder
) -> None:
    player = FakePlayer()
    app, tones = _app(data_dir, tmp_path, player)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.audition
        assert screen is not None
        await _on_row(pilot, app, tones.ids["alt"])
        recorder.threads.clear()
        await pilot.press("C")  # returns at once: the build waits at the measure's gate
        await _until(pilot, recorder.entered.is_set, "the loudness measure started")
        assert not _scenes(player)  # nothing plays before the build is done
        # C's audio lookups (every pick's and the candidate's) come before its measures.
        assert [w for w, _ in recorder.threads if w.startswith("sniff")]
        assert recorder.on_main() == []
        before = screen.current_id
        await pilot.press("down")  # the UI answers while the measure is held
        await pilot.pause()
        assert screen.current_id != before
        recorder.gate.set()
        await _until(pilot, lambda: bool(_scenes(player)), "the scene started")
        await wait_workers(app)
        scene = _scenes(player)[-1]
        keys = {v.key for v in scene.voices}
        assert tones.ids["alt"] in keys and tones.ids["slam"] not in keys  # the C row's
        measured = [what for what, _ in recorder.threads if what.startswith("measure")]
        assert measured  # loudness match on, no declared loudness: sounds were measured
        # ... never on the UI thread (the list's own work for the moved cursor aside).
        assert [w for w in recorder.on_main() if w.startswith("measure")] == []


async def test_a_second_c_supersedes_the_first(
    data_dir: Path, tmp_path: Path, recorder: Recorder
) -> None:
    player = FakePlayer()
    app, tones = _app(data_dir, tmp_path, player)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _on_row(pilot, app, tones.ids["alt"])
        await pilot.press("C")
        await _until(pilot, recorder.entered.is_set, "the first build is measuring")
        await _on_row(pilot, app, tones.ids["numeric"])
        await pilot.press("C")  # replaces the first, still held at the gate
        recorder.gate.set()
        await _until(pilot, lambda: bool(_scenes(player)), "a scene started")
        await wait_workers(app)
        await pilot.pause(0.1)
        scenes = _scenes(player)
        assert len(scenes) == 1  # the superseded build never played
        keys = {v.key for v in scenes[0].voices}
        assert tones.ids["alt"] not in keys and tones.ids["numeric"] in keys


class BrokenScenePlayer(FakePlayer):
    def play_scene(self, scene: Scene, start_s: float = 0.0, end_s: float | None = None) -> None:
        raise RuntimeError("the output device went away")


async def test_a_failed_build_is_a_notice(
    data_dir: Path, tmp_path: Path, notifications: Callable[[FoleyApp], list[str]]
) -> None:
    app, tones = _app(data_dir, tmp_path, BrokenScenePlayer())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _on_row(pilot, app, tones.ids["alt"])
        await pilot.press("C")
        await _until(
            pilot,
            lambda: any("output device went away" in n for n in notifications(app)),
            "the failure shown",
        )
        assert app.is_running


async def test_the_timeline_reads_no_audio_on_the_ui_thread(
    data_dir: Path, tmp_path: Path, recorder: Recorder
) -> None:
    """Open, P before the prefetch is ready, mute while it plays, play a pick alone: every
    audio lookup and loudness measure runs in a worker, and the screen answers while the
    measure is held."""
    from foley_tui.screens.timeline.screen import TimelineScreen

    player = FakePlayer()
    app, _tones = _app(data_dir, tmp_path, player)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        recorder.threads.clear()
        await pilot.press("t")
        await _until(pilot, lambda: isinstance(app.screen, TimelineScreen), "the timeline")
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        await _until(pilot, recorder.entered.is_set, "the prefetch is measuring")
        await pilot.press("P")  # before the prefetch is ready: built in a worker
        cursor = screen.model.cursor
        await pilot.press("right")  # the screen answers meanwhile
        assert screen.model.cursor != cursor
        assert not _scenes(player)
        recorder.gate.set()
        await _until(pilot, lambda: bool(_scenes(player)), "the scene started")
        scene = _scenes(player)[-1]
        assert {v.lane for v in scene.voices} >= {"narration", "sfx_fg"}
        await pilot.press("m")  # on the playing scene itself: its bus reads it live
        assert scene.muted
        await pilot.press("escape")
        await pilot.press("space")  # the highlighted pick alone
        await _until(pilot, lambda: "play" in player.names(), "the pick played")
        await wait_workers(app)
        assert [w for w, _ in recorder.threads if w.startswith("measure")]
        assert [w for w, _ in recorder.threads if w.startswith("sniff")]
        assert recorder.on_main() == []


def _prefetched(player: FakePlayer) -> list[Scene]:
    return [args[0] for name, args in player.calls if name == "prefetch_scene"]


async def test_after_a_first_c_the_resting_rows_scene_is_built_ahead(
    data_dir: Path, tmp_path: Path
) -> None:
    """Comparing takes in context: once C was pressed, the row the cursor rests on gets
    its scene built and premixed ahead, and its C plays exactly that scene; a decision
    (the picks changed) makes it stale, and C builds afresh."""
    player = FakePlayer()
    app, tones = _app(data_dir, tmp_path, player)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.audition
        assert screen is not None
        await _on_row(pilot, app, tones.ids["alt"])
        await pilot.pause(0.5)
        assert not _prefetched(player)  # no C yet: nothing is built ahead
        await pilot.press("C")
        await _until(pilot, lambda: bool(_scenes(player)), "the first scene")
        first = _scenes(player)[-1]
        assert first not in _prefetched(player)  # built on the key: the cold path

        await _on_row(pilot, app, tones.ids["slam"])
        await _until(pilot, lambda: bool(_prefetched(player)), "the scene built ahead")
        ahead = _prefetched(player)[-1]
        assert tones.ids["slam"] in {v.key for v in ahead.voices}
        await _until(pilot, lambda: screen.in_context.ready is not None, "ready")
        await pilot.press("C")
        await _until(pilot, lambda: len(_scenes(player)) == 2, "the second scene")
        assert _scenes(player)[-1] is ahead  # the prefetched scene, swapped in

        await pilot.press("x")  # a decision: the picks changed, the scene is stale
        await wait_workers(app)
        await _on_row(pilot, app, tones.ids["slam"])
        # Whether the resting row's scene was built ahead again by now or not (that
        # depends on how busy the machine is), C never plays the one built before.
        await pilot.press("C")
        await _until(pilot, lambda: len(_scenes(player)) == 3, "the third scene")
        assert _scenes(player)[-1] is not ahead


async def test_the_woven_mix_is_measured_off_the_ui_thread(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """C in the woven mix: every sound read whole for its woven gain, and the scene
    mixed once for foley's master gain, in the worker; the first C says it is analysing."""
    import foley_tui.scene.contract as contract
    import foley_tui.scene.woven as woven

    threads: list[tuple[str, threading.Thread]] = []
    real_read, real_master = contract.read_mono, woven.master_gain

    def read(ref: Any) -> Any:
        threads.append(("read", threading.current_thread()))
        return real_read(ref)

    def master(scene: Scene, **kwargs: Any) -> Any:
        threads.append(("master", threading.current_thread()))
        return real_master(scene, **kwargs)

    monkeypatch.setattr(contract, "read_mono", read)
    monkeypatch.setattr(woven, "master_gain", master)
    player = FakePlayer()
    app, tones = _app(data_dir, tmp_path, player, mix="woven")
    log = NoticeLog(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _on_row(pilot, app, tones.ids["alt"])
        await pilot.press("C")
        assert any("Analysing the scene" in message for message in log.messages)
        await _until(pilot, lambda: bool(_scenes(player)), "the scene started")
        await wait_workers(app)
        scene = _scenes(player)[-1]
        assert scene.mix == "woven" and scene.master_gain_db != 0.0
        assert {what for what, _ in threads} == {"read", "master"}
        assert all(t is not threading.main_thread() for _, t in threads)
