"""Scene verbs: ``session narration``, ``scene``, ``play-scene`` and ``render-scene``.

- ``foley-tui session narration SESSION [FILE] [--words WORDS.json] [--clear]`` sets (or
  shows, or clears) the session's narration: a reference to the file and its sha256 in
  our own state, never a copy.
- ``foley-tui scene SESSION [--json]`` lists every pick where foley's plan and weave put
  it (placed on the narration's words, or unplaced and why).
- ``foley-tui play-scene SESSION [--from S] [--to S]`` plays every placed pick over the
  narration through the real output (the same stream as a preview).
- ``foley-tui render-scene SESSION -o mix.wav|flac [--rate R]`` bounces the same mix
  offline (24-bit, or 32-bit float WAV with ``--float``), through the same limiter.

Headless: never imports textual.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foley_tui.cli.common import (
    SESSION_HELP,
    CliError,
    guard,
    open_session,
    print_json,
    session_verbs,
    time_arg,
)
from foley_tui.scene.contract import CUT_NOTE, DEFAULT_MIX, FLAT, MIXES, VOICE_NOTE
from foley_tui.scene.narration import NarrationError, make_narration, write_narration
from foley_tui.scene.reading import clock

if TYPE_CHECKING:
    from foley_tui.scene.build import SceneModel, ScenePick
    from foley_tui.scene.narration import Narration
    from foley_tui.store import SessionStore

Handler = Callable[[argparse.Namespace], int]

#: Output rate of a bounce unless --rate says otherwise.
DEFAULT_RENDER_RATE = 48000


def _guard(func: Handler) -> Handler:
    """The CLI's error guard, plus narration errors as one-line messages."""
    guarded = guard(func)

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return guarded(args)
        except NarrationError as exc:
            raise CliError(str(exc)) from None

    return wrapper


def _store(args: argparse.Namespace) -> SessionStore:
    return open_session(args, touch=False)


def _override(args: argparse.Namespace) -> Narration | None:
    """``--narration FILE [--words W]`` for this run only."""
    if getattr(args, "narration", None) is None:
        if getattr(args, "words", None) is not None:
            raise CliError("--words needs --narration")
        return None
    return make_narration(Path(args.narration), Path(args.words) if args.words else None)


# ------------------------------------------------------------------ session narration
@_guard
def cmd_narration(args: argparse.Namespace) -> int:
    from foley_tui.scene.build import load_narration

    store = _store(args)
    if args.clear:
        if args.file is not None:
            raise CliError("give FILE or --clear, not both")
        write_narration(store, None)
        print(f"narration cleared for {store.session_id}")
        return 0
    if args.file is None:
        if args.words is not None:
            raise CliError("--words needs FILE (the narration it belongs to)")
        narration, problem = load_narration(store)
        if narration is None and problem is None:
            print(f"{store.session_id}: no narration")
            return 0
        if args.json:
            record = narration.to_record() if narration is not None else None
            print_json({"narration": record, "problem": problem})
        elif narration is not None:
            print(
                f"{narration.path}  sha256 {narration.sha256[:16]}…  {len(narration.words)} words"
            )
        if problem is not None:
            print(f"problem: {problem}", file=sys.stderr)
            return 1
        return 0
    narration = make_narration(Path(args.file), Path(args.words) if args.words else None)
    write_narration(store, narration)
    words = f", {len(narration.words)} words" if narration.words else ", no word timeline"
    print(f"narration set for {store.session_id}: {narration.path}{words}")
    return 0


# ------------------------------------------------------------------ scene
def _model(args: argparse.Namespace, store: SessionStore | None = None) -> SceneModel:
    from foley_tui.scene.build import build_scene

    store = store if store is not None else _store(args)
    return build_scene(store, narration=_override(args))


def _contract_row(model: SceneModel, p: ScenePick, rate: int) -> dict[str, Any]:
    """A pick's placement and gains by the scene contract, at ``rate``."""
    from foley_tui.audio.base import Source
    from foley_tui.audio.decode import DecodeError, probe
    from foley_tui.scene.contract import placement_frame, woven_gain

    clip = p.clip
    woven_note = model.woven_note(p)
    row: dict[str, Any] = {
        "rate": rate,
        "frame": None,
        "region": None if p.region is None else {"in_s": p.region[0], "out_s": p.region[1]},
        "in_point_s": 0.0,
        "in_point_frame": 0,
        "length_frames": None,
        "gain_db": {"flat": 0.0, "woven": None},
        "woven": None,
        "woven_note": woven_note,
    }
    if clip is None:
        return row
    row["frame"] = placement_frame(clip.onset_s, rate)
    row["in_point_s"] = clip.in_point_s
    row["in_point_frame"] = clip.in_point_frame(rate)
    if not isinstance(p.source, Source):
        return row
    try:
        info = probe(p.source.path)
        row["length_frames"] = clip.length_frames(rate, round(info.duration_s * rate))
        gain = woven_gain(p.source.path, p.layer, p.woven_clip or clip)
    except (DecodeError, OSError) as exc:
        row["woven_note"] = woven_note or f"unreadable: {exc}"
        return row
    row["woven"] = {
        "reference_db": gain.reference_db,
        "layer_db": gain.layer_db,
        "clip_db": gain.clip_db,
        "channel_db": gain.channel_db,
    }
    if woven_note not in (VOICE_NOTE, CUT_NOTE):
        row["gain_db"]["woven"] = gain.clip_db
    return row


@_guard
def cmd_scene(args: argparse.Namespace) -> int:
    from foley_tui.audio.base import Source

    model = _model(args)
    if args.foley_timeline:
        return _write_foley_timeline(args, model)
    if args.output is not None:
        raise CliError("-o goes with --foley-timeline")
    rate = args.rate or DEFAULT_RENDER_RATE
    rows = []
    if args.json:
        for p in [*model.placed, *model.unplaced]:
            rows.append(
                {
                    "sound_id": p.sound_id,
                    "caption": p.caption,
                    "layer": p.layer,
                    "onset": p.placement.onset,
                    "chosen": {
                        "layer": p.placement.layer_chosen,
                        "onset": p.placement.onset_chosen,
                    },
                    "reading": p.reading.summary,
                    "onset_s": p.onset_s,
                    "length_s": p.length_s,
                    "note": p.note or None,
                    "playable": isinstance(p.source, Source),
                    **_contract_row(model, p, rate),
                }
            )
        narration = model.narration.to_record() if model.narration is not None else None
        print_json(
            {
                "narration": narration,
                "narration_problem": model.narration_problem,
                "narration_s": model.narration_s,
                "end_s": model.end_s,
                "picks": rows,
            }
        )
        return 0
    if model.narration is not None:
        print(f"narration: {model.narration.path} ({len(model.words)} words)")
    if model.narration_problem:
        print(f"narration problem: {model.narration_problem}")
    if not model.picks:
        print("no picks: nothing to place (pick sounds in the app, or with foley-tui pick)")
    for p in [*model.placed, *model.unplaced]:
        at = "unplaced " if p.onset_s is None else clock(p.onset_s).rjust(9)
        notes = [n for n in (p.note, model.woven_note(p)) if n]
        note = f"  [{'; '.join(notes)}]" if notes else ""
        print(f"{at}  {p.layer:<8}  {p.caption[:40]:<40}  {p.reading.summary}{note}")
    return 0


# ------------------------------------------------------------------ play-scene
@_guard
def cmd_play_scene(args: argparse.Namespace) -> int:
    from foley_tui.cli.audio import open_output, play_to_end, quiet_libraries

    store = _store(args)
    model = _model(args, store)
    if model.narration_problem:
        print(f"foley-tui: warning: {model.narration_problem}", file=sys.stderr)
    scene, start = _scene_and_start(model, store, args)
    if not scene.voices:
        raise CliError("nothing to play: no placed, playable pick and no narration", status=1)
    if args.end is not None and args.end <= start:
        raise CliError("--to must be after --from")
    with quiet_libraries():
        player = open_output(args.device)
        player.set_volume_db(args.volume)
        _announce(model, scene, player.device_name)
        return play_to_end(
            player, lambda: player.play_scene(scene, start, args.end), summary="played the scene"
        )


def _scene_and_start(
    model: SceneModel, store: SessionStore, args: argparse.Namespace
) -> tuple[Any, float]:
    """The scene to mix and where to start: ``--candidate`` puts that candidate at its
    effective onset (its alternatives for the same event left out) and starts
    ``--pre-roll`` seconds before it, unless ``--from`` says otherwise."""
    from foley_tui.scene.build import in_context, same_event_picks

    extra = None
    leave_out: frozenset[str] = frozenset()
    start = args.start or 0.0
    if args.candidate is not None:
        if store.candidate(args.candidate) is None:
            raise CliError(f"no candidate {args.candidate!r} in {store.session_id}")
        found = in_context(model, store, args.candidate, pre_roll_s=args.pre_roll)
        if found is None:
            subject = model.pick(args.candidate)
            why = subject.reading.note if subject is not None else "its onset does not resolve"
            raise CliError(f"{args.candidate} has no place in the scene: {why}", status=1)
        extra, context_start = found
        leave_out = same_event_picks(model, store, args.candidate)
        if args.start is None:
            start = context_start
    if args.loudness is not None and args.mix != FLAT:
        raise CliError("--loudness matches the flat mix only: add --mix flat")
    scene = model.to_scene(
        mix=args.mix,
        loudness_match=args.loudness is not None,
        target_lufs=args.loudness if args.loudness is not None else -23.0,
        narration=not args.no_narration,
        extra=extra,
        leave_out=leave_out,
    )
    for lane in args.mute or ():
        scene.set_muted(lane, True)
    for lane in args.solo or ():
        scene.set_soloed(lane, True)
    return scene, start


def _announce(model: SceneModel, scene: Any, where: str) -> None:
    """One line on what is heard: the picks that sound (``--solo`` and ``--mute``
    silence the others, counted apart), the narration, the mix and where it goes."""
    picks = [v for v in scene.voices if v.key != "narration"]
    heard = sum(1 for v in picks if scene.audible(v.lane))
    noun = "pick" if heard == 1 else "picks"
    silent = f" ({len(picks) - heard} silenced by --solo/--mute)" if heard < len(picks) else ""
    narration = any(v.key == "narration" and scene.audible(v.lane) for v in scene.voices)
    with_words = " + narration" if narration else ""
    print(f"{heard} {noun}{silent}{with_words}, the {scene.mix} mix, on {where}", file=sys.stderr)
    for p in model.unplaced:
        why = p.note
        print(f"  left out: {p.caption} ({p.placement.onset!r}: {why})", file=sys.stderr)
    if scene.mix == FLAT:
        return
    for p in model.placed:
        note = model.woven_note(p)
        if note is not None:
            print(f"  {p.caption}: {note}", file=sys.stderr)


# ------------------------------------------------------------------ render-scene
class _Stopped(Exception):
    """SIGTERM or SIGHUP during a render: unwind, so the partial file is removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`_Stopped` meanwhile (their default ends the
    process at once, leaving the partial file behind)."""

    def stop(signum: int, _frame: object) -> None:
        raise _Stopped(signum)

    wanted = [signal.SIGTERM, signal.SIGHUP]
    previous = {sig: signal.signal(sig, stop) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _output(args: argparse.Namespace) -> tuple[Path, int, str]:
    """``-o FILE [--rate R] [--float] [--force]``: the path, the rate and the subtype."""
    from foley_tui.audio.decode import MAX_RATE, MIN_RATE

    out = Path(args.output).expanduser()
    kind = out.suffix.lower()
    if kind not in (".wav", ".flac"):
        raise CliError("-o must end in .wav or .flac")
    if args.float and kind != ".wav":
        raise CliError("--float needs a .wav output (FLAC holds integers)")
    rate = args.rate or DEFAULT_RENDER_RATE
    if not MIN_RATE <= rate <= MAX_RATE:
        raise CliError(f"--rate must be within {MIN_RATE}-{MAX_RATE} Hz")
    if out.exists() and not args.force:
        raise CliError(f"{out} exists (use --force to replace it)")
    return out, rate, "FLOAT" if args.float else "PCM_24"


@_guard
def cmd_render_scene(args: argparse.Namespace) -> int:
    from foley_tui.scene.bounce import bounce

    out, rate, subtype = _output(args)
    store = _store(args)
    model = _model(args, store)
    if model.narration_problem:
        print(f"foley-tui: warning: {model.narration_problem}", file=sys.stderr)
    scene, start = _scene_and_start(model, store, args)
    if not scene.voices:
        raise CliError("nothing to render: no placed, playable pick and no narration", status=1)
    scene.volume_db = args.volume
    _announce(model, scene, str(out))
    try:
        with _stop_on_signals():
            done = bounce(scene, out, rate, subtype=subtype, start_s=start, end_s=args.end)
    except _Stopped as stopped:
        raise CliError(
            f"stopped by {stopped}: nothing written to {out}", status=128 + stopped.signum
        ) from None
    for problem in done.problems:
        print(f"foley-tui: warning: {problem}", file=sys.stderr)
    peak_db = 20 * math.log10(done.peak) if done.peak > 0 else -math.inf
    length = clock(done.frames / rate)
    print(f"wrote {out} ({length}, {rate} Hz, {subtype}, peak {peak_db:.1f} dBFS)")
    return 0


def _write_array(out: Path, audio: Any, rate: int, subtype: str) -> int:
    """Write a whole mix (``(frames, 2)``) to ``out`` atomically; returns its frames.
    Through the same partial files as a bounce, so one killed mid-write is swept by
    the next write to that folder."""
    import soundfile as sf

    from foley_tui.scene.bounce import partial_path, sweep_partials

    sweep_partials(out.parent)
    tmp = partial_path(out)
    try:
        sf.write(
            str(tmp),
            audio,
            rate,
            subtype=subtype,
            format="FLAC" if out.suffix.lower() == ".flac" else "WAV",
        )
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return len(audio)


# ------------------------------------------------------------------ weave
@_guard
def cmd_weave(args: argparse.Namespace) -> int:
    """foley's own render of the session, in process, with the sounds we resolve."""
    from foley_tui.scene.weave import WeaveError, weave_session

    out, rate, subtype = _output(args)
    model = _model(args)
    try:
        result, plan = weave_session(model, rate=rate)
    except WeaveError as exc:
        raise CliError(str(exc), status=1) from None
    for pick, why in plan.left_out:
        print(f"  left out: {pick.caption} ({why})", file=sys.stderr)
    for pick in model.picks:
        note = model.woven_note(pick) if pick.placed else None
        if note is not None:
            print(f"  {pick.caption}: {note}", file=sys.stderr)
    frames = _write_array(out, result.audio, result.sr, subtype)
    report = result.master_report
    print(
        f"wrote {out} ({clock(frames / result.sr)}, {result.sr} Hz, {subtype}, "
        f"{len(plan.timeline.items)} items, {report['output_lufs']:.1f} LUFS, "
        f"true peak {report['true_peak_dbtp']:.1f} dBTP)"
    )
    return 0


def _write_foley_timeline(args: argparse.Namespace, model: SceneModel) -> int:
    """``scene --foley-timeline -o tl.json``: foley's timeline of the scene, words and
    all, for ``foley weave`` (or any foley code) to read."""
    from foley_tui.scene.weave import foley_timeline

    if args.output is None:
        raise CliError("--foley-timeline needs -o FILE (it can exceed a command line)")
    out = Path(args.output).expanduser()
    if out.exists() and not args.force:
        raise CliError(f"{out} exists (use --force to replace it)")
    plan = foley_timeline(model)
    from foley_tui.scene.bounce import partial_path, sweep_partials

    sweep_partials(out.parent)
    tmp = partial_path(out)
    try:
        tmp.write_text(json.dumps(plan.timeline.to_dict(), indent=1), encoding="utf-8")
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    for pick, why in plan.left_out:
        print(f"  left out: {pick.caption} ({why})", file=sys.stderr)
    words = len(plan.timeline.word_timeline)
    print(f"wrote {out} ({len(plan.timeline.items)} items, {words} words)")
    return 0


# ------------------------------------------------------------------ registration
def _scene_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("--narration", metavar="FILE", help="use this narration for this run only")
    p.add_argument("--words", metavar="WORDS.json", help="its word timeline (foley aligner)")


def _mix_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="start", type=time_arg, metavar="S", help="start at S")
    p.add_argument("--to", dest="end", type=time_arg, metavar="S", help="stop at S")
    p.add_argument("--mute", action="append", metavar="LANE", help="mute a lane (repeatable)")
    p.add_argument("--solo", action="append", metavar="LANE", help="solo a lane (repeatable)")
    p.add_argument("--no-narration", action="store_true", help="leave the narration out")
    p.add_argument("--volume", type=float, default=0.0, metavar="DB", help="volume in dB")
    p.add_argument(
        "--mix",
        choices=MIXES,
        default=DEFAULT_MIX,
        help="woven: as foley's weave will mix it (its levels, ducking and master; the "
        "default); flat: every sound at unity, for judging a sound on its own",
    )
    p.add_argument(
        "--loudness",
        type=float,
        metavar="LUFS",
        help="match each pick's loudness to LUFS (the flat mix only)",
    )
    p.add_argument(
        "--candidate",
        metavar="SOUND_ID",
        help="audition this candidate in context: at its effective onset, over the scene",
    )
    p.add_argument(
        "--pre-roll",
        type=time_arg,
        default=2.0,
        metavar="S",
        help="with --candidate, start S seconds before it (default 2)",
    )


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    verbs = session_verbs(subparsers, common)
    p = verbs.add_parser(
        "narration",
        parents=[common],
        help="set, show or clear the session's narration (a reference, never a copy)",
    )
    p.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    p.add_argument("file", nargs="?", metavar="FILE", help="the narration audio file")
    p.add_argument("--words", metavar="WORDS.json", help="its word timeline (foley aligner)")
    p.add_argument("--clear", action="store_true", help="forget the narration")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_narration)

    p = subparsers.add_parser(
        "scene", parents=[common], help="list the picks where foley's plan and weave put them"
    )
    _scene_options(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--rate",
        type=int,
        metavar="HZ",
        help=f"sample positions at this rate (default {DEFAULT_RENDER_RATE})",
    )
    p.add_argument(
        "--foley-timeline",
        action="store_true",
        help="write foley's timeline of the scene (its word timeline included) to -o",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="with --foley-timeline: tl.json")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.set_defaults(func=cmd_scene)

    p = subparsers.add_parser(
        "weave",
        parents=[common],
        help="foley's own weave of the session (its render, with the sounds we find)",
    )
    _scene_options(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="mix.wav or mix.flac")
    p.add_argument(
        "--rate", type=int, metavar="HZ", help=f"sample rate (default {DEFAULT_RENDER_RATE})"
    )
    p.add_argument("--float", action="store_true", help="32-bit float WAV (default 24-bit)")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.set_defaults(func=cmd_weave)

    p = subparsers.add_parser(
        "play-scene", parents=[common], help="play every placed pick over the narration"
    )
    _scene_options(p)
    _mix_options(p)
    p.add_argument("--device", metavar="D", help="output device: index or name (see devices)")
    p.set_defaults(func=cmd_play_scene)

    p = subparsers.add_parser(
        "render-scene", parents=[common], help="bounce the scene's mix to a WAV or FLAC file"
    )
    _scene_options(p)
    _mix_options(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="mix.wav or mix.flac")
    p.add_argument(
        "--rate", type=int, metavar="HZ", help=f"sample rate (default {DEFAULT_RENDER_RATE})"
    )
    p.add_argument("--float", action="store_true", help="32-bit float WAV (default 24-bit)")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.set_defaults(func=cmd_render_scene)
