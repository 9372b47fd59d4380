"""Audio verbs: ``foley-tui devices`` and a headless ``foley-tui play``.

``play FILE`` or ``play SESSION SOUND_ID`` resolves the audio exactly as the app does and
plays it through the same player to the end (Ctrl-C stops it), for scripting and as the
"spawned Python player" baseline of the key-to-sound benchmark.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.cli.common import CliError, data_dir_of, open_session
from foley_tui.limits import VOLUME_RANGE_DB

if TYPE_CHECKING:
    from foley_tui.audio.base import Player, PlayerStatus
    from foley_tui.store import SessionStore


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    devices = subparsers.add_parser(
        "devices", parents=[common], help="list audio output devices (for --device)"
    )
    devices.set_defaults(func=run_devices)

    play = subparsers.add_parser(
        "play",
        parents=[common],
        help="play a sound file, or a session candidate, without the UI",
        description="Play FILE, or candidate SOUND_ID of SESSION, to the end.",
    )
    play.add_argument(
        "target", metavar="FILE|SESSION", help="an audio file, or a session (id, title or prefix)"
    )
    play.add_argument("sound_id", nargs="?", metavar="SOUND_ID", help="candidate id in SESSION")
    play.add_argument("--device", metavar="D", help="output device: index or name (see devices)")
    play.add_argument(
        "--start",
        metavar="S",
        type=_bounded("seconds", 0.0, MAX_START_S),
        default=0.0,
        help="start at S seconds",
    )
    play.add_argument(
        "--volume",
        metavar="DB",
        type=_bounded("dB", *VOLUME_RANGE_DB),
        default=0.0,
        help=f"volume in dB ({VOLUME_RANGE_DB[0]:g} to {VOLUME_RANGE_DB[1]:+g})",
    )
    play.add_argument(
        "--loudness",
        metavar="LUFS",
        type=_bounded("LUFS", -70.0, 0.0),
        help="match loudness to LUFS (declared loudness, else measured)",
    )
    play.add_argument(
        "--network", action="store_true", help="allow fetching a remote (http) preview"
    )
    play.set_defaults(func=run_play)


#: Latest start accepted by ``play --start`` (a day; beyond the end plays nothing).
MAX_START_S = 86400.0


def _bounded(unit: str, low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite number within [low, high], else a clear usage error."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{text[:40]!r} is out of range ({low:g} to {high:g} {unit})"
            )
        return value

    return parse


def run_devices(args: argparse.Namespace) -> int:
    from foley_tui.audio.player import AudioUnavailable, list_devices

    try:
        devices = list_devices()
    except AudioUnavailable as exc:
        raise CliError(f"no audio: {exc}", status=1) from None
    if not devices:
        raise CliError("no audio output devices found", status=1)
    for device in devices:
        mark = "*" if device.is_default else " "
        print(
            f"{mark} {device.index:>3}  {device.name}  ({device.hostapi}, "
            f"{device.channels} ch, {device.default_samplerate:g} Hz)"
        )
    return 0


def _candidate(args: argparse.Namespace, sound_id: str) -> tuple[dict[str, Any], SessionStore]:
    """Candidate ``sound_id`` of SESSION (``args.target``), found by the one resolver, and
    the session's store (whose shared audio a Redis session streams)."""
    from foley_tui.store import SessionServiceError

    store = open_session(args, args.target, touch=False)
    try:
        candidate = store.candidate(sound_id)
    except SessionServiceError as exc:
        raise CliError(str(exc)) from None
    if candidate is None:
        if sound_id in set(store.candidate_ids()):
            raise CliError(f"candidate {sound_id!r} is unreadable in session {store.session_id!r}")
        raise CliError(f"no candidate {sound_id!r} in session {store.session_id!r}")
    return candidate, store


def run_play(args: argparse.Namespace) -> int:
    from foley_tui.audio.base import Source
    from foley_tui.audio.resolve import resolve

    data = data_dir_of(args)
    if args.sound_id is None:
        path = Path(args.target).expanduser()
        if not path.is_file():
            raise CliError(f"no such file: {args.target} (or give SESSION SOUND_ID)")
        candidate: dict[str, Any] = {"preview_uri": str(path.resolve())}
        remote = None
    else:
        candidate, store = _candidate(args, args.sound_id)
        remote = store.remote_audio()
    source = resolve(candidate, data, allow_network=args.network, remote=remote)
    if not isinstance(source, Source):
        raise CliError(f"cannot play: {source.reason}", status=1)
    if not math.isfinite(args.start) or args.start < 0:
        raise CliError("--start must be a non-negative number of seconds")

    with quiet_libraries():
        player = open_output(args.device)
        player.set_volume_db(args.volume)
        if args.loudness is not None:
            player.set_loudness_match(True, args.loudness)
        return play_to_end(player, lambda: player.play(source, args.start))


def open_output(device: str | None) -> Player:
    """The real output for a headless verb (``play``, ``play-scene``), or a one-line
    error saying why there is none."""
    from foley_tui.audio.player import make_player

    player = make_player(device)
    if not player.available:
        player.close()
        raise CliError(player.device_name, status=1)
    return player


@contextlib.contextmanager
def quiet_libraries() -> Iterator[None]:
    """Around opening the output and playing: what the audio libraries write to file
    descriptor 2 (ALSA's "underrun occurred", PortAudio's probing) goes to the stderr
    log, not the terminal; what we print still reaches it, escaped."""
    from foley_tui.terminal import escaping_streams, library_stderr_to_log

    with library_stderr_to_log(), escaping_streams():
        yield


def play_to_end(player: Player, start: Callable[[], None], *, summary: str = "") -> int:
    """Start (a preview or a scene), wait until the player stops, let the device play out
    its buffer, close it. 0, or 130 on Ctrl+C; the player's error as a CLI error. The
    underruns the player counted are said after ``summary`` (``played the scene``)
    always, without one only when there were any."""
    return _play_to_end(player, start, summary)


def underrun_note(status: PlayerStatus) -> str:
    """``no underruns``, or how many and what the player did about them."""
    count = status.underruns
    if not count:
        return "no underruns"
    note = f"{count} underrun{'s' if count != 1 else ''} (the output fell behind"
    if status.output_note:
        note += f"; {status.output_note}"
    return note + ")"


def _play_to_end(player: Player, start: Callable[[], None], summary: str) -> int:
    from foley_tui.audio.base import PlayerState

    finished = threading.Event()
    outcome: list[PlayerStatus] = []

    def on_state(status: PlayerStatus) -> None:
        if status.state is PlayerState.STOPPED:
            outcome.append(status)
            finished.set()

    player.set_state_callback(on_state)
    try:
        start()
        while not finished.wait(0.1):
            pass
        # The last frame has reached PortAudio; let the device play out its buffer.
        latency = player.latency_s
        threading.Event().wait(latency + 0.02)
    except KeyboardInterrupt:
        player.stop()
        return 130
    finally:
        last = player.status()
        player.close()
    if summary or last.underruns:
        print(f"foley-tui: {summary or 'played'}: {underrun_note(last)}", file=sys.stderr)
    error = outcome[-1].error if outcome else None
    if error:
        raise CliError(error, status=1)
    warning = outcome[-1].warning if outcome else None
    if warning:
        print(f"foley-tui: warning: {warning}", file=sys.stderr)
    return 0
