"""play-scene and a candidate in context through the real output: PortAudio -> the ALSA
``file`` PCM -> the frames we compare (see test_audio_output.py for the capture).

The session holds tones at known onsets (numeric, word, sentence-span bed, scene
boundary) over a narration tone that is never zero, so the silence a capture may hold
(idle, an underrun of the unpaced sink) can be stripped without losing a frame. Each tone
must start within 1 ms of its onset (it is exact: the files are at the device rate) at
unity gain, and ``render-scene`` at the device rate must be the same mix, bit for bit.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import soundfile as sf

from tests.alsa_capture import AlsaCapture, strip_silence
from tests.e2e.test_audio_output import require_portaudio
from tests.scene_fixtures import (
    REGION_IN,
    REGION_ONSET,
    REGION_OUT,
    TONES,
    ToneSession,
    add_region_pick,
    attach_narration,
    expected_mix,
    find_tones,
    in_context_tones,
    make_tone_session,
    placed_region,
    region_take,
)


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "foley_tui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _tones_on_the_capture(
    tmp_path: Path,
) -> tuple[AlsaCapture, dict[str, str], int, ToneSession]:
    """The ALSA file capture, its environment, the device rate (what ``foley-tui
    devices`` reports for the default output) and a tone session at that rate with its
    narration attached."""
    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = capture.env()
    devices = _run(env, "devices")
    assert devices.returncode == 0, devices.stderr
    match = re.search(r"^\*.*, (\d+) Hz\)$", devices.stdout, re.MULTILINE)
    assert match, devices.stdout
    rate = int(match.group(1))
    data_dir = Path(os.environ["FOLEY_DATA_DIR"])
    tones = make_tone_session(data_dir, tmp_path / "audio", rate)
    assert attach_narration(tones) == 0
    return capture, env, rate, tones


def test_play_scene_and_in_context_reach_the_output_on_time(tmp_path: Path) -> None:
    capture, env, rate, tones = _tones_on_the_capture(tmp_path)

    played = _run(env, "play-scene", tones.session_id, "--mix", "flat")
    assert played.returncode == 0, played.stderr
    assert "left out: zebra" in played.stderr
    heard = strip_silence(capture.read_frames())
    expected = expected_mix(rate)
    assert len(heard) == len(expected)
    np.testing.assert_allclose(heard, expected, atol=1e-6)
    tolerance = rate // 1000  # 1 ms
    for name, (start, gain) in find_tones(heard, rate).items():
        spec = next(t for t in TONES if t.name == name)
        assert spec.expected_onset is not None
        assert abs(start - spec.expected_onset * rate) <= tolerance, name
        assert abs(gain - 1.0) < 1e-4, name

    bounce = tmp_path / "mix.wav"
    rendered = _run(
        env,
        "render-scene",
        tones.session_id,
        "-o",
        str(bounce),
        "--float",
        "--rate",
        str(rate),
        "--mix",
        "flat",
    )
    assert rendered.returncode == 0, rendered.stderr
    mix, _ = sf.read(str(bounce), dtype="float32")
    np.testing.assert_array_equal(mix, heard)  # the same mix, bit for bit

    # The candidate in context (the `C` key's path): ALT at its event's onset (0.4 s) with
    # a 0.3 s pre-roll, its picked alternative left out, from 0.1 s to the end.
    context = _run(
        env,
        "play-scene",
        tones.session_id,
        "--candidate",
        tones.ids["alt"],
        "--pre-roll",
        "0.3",
        "--mix",
        "flat",
    )
    assert context.returncode == 0, context.stderr
    heard = strip_silence(capture.read_frames())
    start = round(0.1 * rate)
    expected = expected_mix(rate, in_context_tones())[start:]
    assert len(heard) == len(expected)
    np.testing.assert_allclose(heard, expected, atol=1e-6)
    found = find_tones(heard, rate, in_context_tones(), start=start)
    assert abs(found["alt"][0] - 0.4 * rate) <= tolerance
    assert "slam" not in found


def test_a_regions_in_point_reaches_the_output_on_its_onset(tmp_path: Path) -> None:
    """A pick with a region, through PortAudio: the take's in-point sample is heard on
    the onset's sample and nothing of it outside the region, as render-scene bounces."""
    capture, env, rate, tones = _tones_on_the_capture(tmp_path)
    add_region_pick(tones, tmp_path / "audio")
    played = _run(env, "play-scene", tones.session_id, "--mix", "flat")
    assert played.returncode == 0, played.stderr
    heard = strip_silence(capture.read_frames())
    others = expected_mix(rate)
    assert len(heard) == len(others)
    np.testing.assert_allclose(heard, others + placed_region(rate, len(others)), atol=1e-6)
    take = heard - others
    onset, first, last = (int(s * rate) for s in (REGION_ONSET, REGION_IN, REGION_OUT))
    assert np.max(np.abs(take[:onset])) < 1e-6
    np.testing.assert_allclose(take[onset], region_take(rate)[first], atol=1e-6)
    assert np.max(np.abs(take[onset + last - first :])) < 1e-6
    bounce = tmp_path / "mix.wav"
    argv = ["render-scene", tones.session_id, "-o", str(bounce), "--float", "--mix", "flat"]
    rendered = _run(env, *argv, "--rate", str(rate))
    assert rendered.returncode == 0, rendered.stderr
    mix, _ = sf.read(str(bounce), dtype="float32")
    np.testing.assert_array_equal(mix, heard)  # the same mix, bit for bit


#: The app, headless, with the real SoundDevicePlayer (on the ALSA file PCM): highlight a
#: candidate, press C, wait until the scene has started and played to its end.
APP_C_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.audio.base import SCENE_HOW, PlayerState
    from foley_tui.audio.player import SoundDevicePlayer
    from foley_tui.config import Config, Settings
    from foley_tui.store import SessionService
    from textual.notifications import Notify

    data, session, sound_id, pre_roll = sys.argv[1:5]

    async def main() -> None:
        service = SessionService(Path(data))
        player = SoundDevicePlayer()
        config = Config(settings=Settings(context_pre_roll_s=float(pre_roll), scene_mix="flat"))
        app = FoleyApp(service.get(session), player, config, service)
        notes: list[str] = []

        def hear(message: object) -> None:
            if isinstance(message, Notify):
                notes.append(message.notification.message)

        async with app.run_test(size=(120, 30), message_hook=hear) as pilot:
            screen = None
            for _ in range(1200):
                await pilot.pause(0.05)
                screen = app.audition
                if screen is not None and screen.model.loaded:
                    break
            assert screen is not None and screen.model.loaded, "never loaded"
            screen.candidate_list.move_to(screen.listing.view.index(sound_id))
            await pilot.pause()
            assert screen.current_id == sound_id, screen.current_id
            await pilot.press("C")  # the scene is built in a worker, then played
            status = player.status()
            for _ in range(2400):  # the unpaced sink plays it far faster than real time
                await pilot.pause(0.05)
                status = player.status()
                scene = status.source is not None and status.source.how == SCENE_HOW
                if scene and status.state is PlayerState.STOPPED:
                    break
            started = status.source is not None and status.source.how == SCENE_HOW
            print("played" if started else "never started", status.state.name, status.error)
            print(notes)
        player.close()

    asyncio.run(main())
    """
)


def test_the_apps_c_key_reaches_the_output_on_time(tmp_path: Path) -> None:
    """``C`` pressed in the app (not the CLI's --candidate): the highlighted candidate at
    its effective onset after the pre-roll, over the narration and the other picks (its
    picked alternative left out), each tone on its frame (within 1 ms) at its gain."""
    capture, env, rate, tones = _tones_on_the_capture(tmp_path)

    pre_roll = 0.3
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            APP_C_SCRIPT,
            os.environ["FOLEY_DATA_DIR"],  # the session the capture helper made
            tones.session_id,
            tones.ids["alt"],
            str(pre_roll),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("played"), (result.stdout, result.stderr[-3000:])
    heard = strip_silence(capture.read_frames())
    onset = 0.4  # ALT's event: "on 'door'"
    start = round((onset - pre_roll) * rate)  # the pre-roll's start on the scene clock
    expected = expected_mix(rate, in_context_tones())[start:]
    assert len(heard) == len(expected)
    np.testing.assert_allclose(heard, expected, atol=1e-6)  # narration and all, at unity
    tolerance = rate // 1000  # 1 ms
    found = find_tones(heard, rate, in_context_tones(), start=start)
    assert set(found) == {t.name for t in in_context_tones() if t.expected_onset is not None}
    for name, (at, gain) in found.items():
        spec = next(t for t in in_context_tones() if t.name == name)
        assert spec.expected_onset is not None
        assert abs(at - spec.expected_onset * rate) <= tolerance, name
        assert abs(gain - 1.0) < 1e-4, name
    assert abs(found["alt"][0] - onset * rate) <= tolerance


#: The app, headless, with the real SoundDevicePlayer (on the ALSA file PCM): open the
#: timeline, press P (the woven mix, the default), wait until the scene played to its end.
APP_P_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from foley_tui.app.foley_app import FoleyApp
    from foley_tui.audio.base import SCENE_HOW, PlayerState
    from foley_tui.audio.player import SoundDevicePlayer
    from foley_tui.config import Config, Settings
    from foley_tui.screens.timeline.screen import TimelineScreen
    from foley_tui.store import SessionService

    data, session = sys.argv[1:3]

    async def main() -> None:
        service = SessionService(Path(data))
        player = SoundDevicePlayer()
        app = FoleyApp(service.get(session), player, Config(settings=Settings()), service)
        async with app.run_test(size=(120, 30)) as pilot:
            for _ in range(1200):
                await pilot.pause(0.05)
                if app.audition is not None and app.audition.model.loaded:
                    break
            await pilot.press("t")
            for _ in range(1200):
                await pilot.pause(0.05)
                if isinstance(app.screen, TimelineScreen):
                    break
            assert isinstance(app.screen, TimelineScreen), "no timeline"
            await app.workers.wait_for_complete()
            await pilot.press("P")
            status = player.status()
            started = False
            for _ in range(2400):
                await pilot.pause(0.05)
                status = player.status()
                scene = status.source is not None and status.source.how == SCENE_HOW
                started = started or scene
                if scene and status.state is PlayerState.STOPPED:
                    break
            print("played" if started else "never started", status.state.name, status.error)
            print(app.screen.playback.playing.mix if app.screen.playback.playing else None)
        player.close()

    asyncio.run(main())
    """
)


def test_the_timelines_p_plays_the_woven_mix_render_scene_bounces(tmp_path: Path) -> None:
    """``P`` on the timeline (the woven mix) through the real output is the mix
    ``render-scene --mix woven`` writes at the device rate."""
    from tests.woven_fixtures import make_woven_session

    require_portaudio()
    capture = AlsaCapture.create(tmp_path / "alsa")
    env = capture.env()
    devices = _run(env, "devices")
    match = re.search(r"^\*.*, (\d+) Hz\)$", devices.stdout, re.MULTILINE)
    assert match, devices.stdout
    rate = int(match.group(1))
    data_dir = Path(os.environ["FOLEY_DATA_DIR"])
    woven = make_woven_session(data_dir, tmp_path / "audio", rate)
    result = subprocess.run(
        [sys.executable, "-c", APP_P_SCRIPT, str(data_dir), woven.session_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[:2] == ["played STOPPED None", "woven"], result.stdout
    heard = strip_silence(capture.read_frames())
    bounce = tmp_path / "woven.wav"
    rendered = _run(
        env, "render-scene", woven.session_id, "-o", str(bounce), "--float", "--rate", str(rate)
    )
    assert rendered.returncode == 0, rendered.stderr
    # The capture holds idle and underrun silence: both lose their all-zero frames (the
    # narration, a sine, is zero only on its first frame).
    mix = strip_silence(sf.read(str(bounce), dtype="float32")[0])
    assert len(heard) == len(mix)
    np.testing.assert_array_equal(heard, mix)  # the same mix, bit for bit
