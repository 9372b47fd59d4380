"""Write a spot bundle: plan it, read every clip once, write the projects, then move the
finished folder into place.

Everything is written into a hidden temporary folder beside the target and renamed onto
it at the end, so a cancel, a crash or a full disk never leaves half a bundle; ``force``
replaces an existing bundle the same way (the old one is removed only once the new one is
in place).

Headless: never imports textual.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from foley_tui.audio.decode import DecodeError
from foley_tui.spot.aaf import AafWorker, aaf_job
from foley_tui.spot.bwf import Bext
from foley_tui.spot.copy import (
    CopyResult,
    MonoTap,
    SpotCancelled,
    bwf_metadata,
    clip_gain,
    known_gain,
    needs_gain,
    read_clip,
)
from foley_tui.spot.plan import SpotClip, SpotError, SpotOptions, SpotPlan, plan_spot

#: Decoded sounds (each folded to mono) waiting for the gain thread at most.
HELD = 4

if TYPE_CHECKING:
    from foley_tui.scene.build import SceneModel
    from foley_tui.store import SessionStore

__all__ = ["SpotCancelled", "SpotError", "SpotOptions", "SpotResult", "spot"]

#: progress(done, total, what): clips read so far, clips in all, what comes next.
Progress = Callable[[int, int, str], None]


@dataclass
class SpotResult:
    """A written bundle."""

    path: Path
    plan: SpotPlan
    clips: list[SpotClip]
    gains: dict[str, float]
    problems: dict[str, str]
    files: list[str]
    bytes_written: int = 0
    mix_problems: list[str] = field(default_factory=list)

    def summary(self) -> list[str]:
        """Lines for the command's output and the app's summary."""
        plan = self.plan
        picks = [c for c in self.clips if c.layer != "narration"]
        copies = sum(1 for c in picks if c.copied)
        remote = sum(1 for c in picks if c.url is not None)
        at_url = f" ({remote} at their URL)" if remote else ""
        lines = [
            f"spotted {len(picks)} pick(s) on {len(plan.tracks())} track(s) to {self.path}",
            f"  {copies} copied, {len(picks) - copies} referenced{at_url}; "
            f"files: {', '.join(self.files)}",
        ]
        for skipped in plan.skipped:
            lines.append(f"  left out: {skipped.caption} ({skipped.reason})")
        for sound_id, reason in self.problems.items():
            caption = next((c.caption for c in plan.clips if c.sound_id == sound_id), sound_id)
            lines.append(f"  skipped: {caption} ({reason})")
        lines += [f"  warning: {w}" for w in plan.warnings]
        lines += [f"  mix: {p}" for p in self.mix_problems]
        return lines


def check_target(out: Path, force: bool) -> None:
    """Refuse a target that is a file, or a non-empty folder without ``force``."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise SpotError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise SpotError(f"{out} exists and is not empty (use --force to replace it)")
    parent = next((p for p in out.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise SpotError(f"{parent} is not a folder")


def spot(
    store: SessionStore,
    model: SceneModel,
    out: Path,
    options: SpotOptions,
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> SpotResult:
    """Write the bundle of ``model`` (``build_scene(store)``) to ``out``.

    Raises:
        SpotError: Bad options, a target in the way, or no placed pick to spot.
        SpotCancelled: ``cancelled()`` turned true; nothing was left behind.
    """
    out = out.expanduser().absolute()
    check_target(out, options.force)
    plan = plan_spot(store, model, options)
    if not plan.clips:
        why = "; ".join(f"{s.caption}: {s.reason}" for s in plan.skipped[:5])
        raise SpotError(
            f"no placed pick to spot in {store.session_id}" + (f" ({why})" if why else "")
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.spot-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        result = _write(plan, tmp, out, progress, cancelled)
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    result.path = out
    return result


def _write(
    plan: SpotPlan,
    tmp: Path,
    final: Path,
    progress: Progress | None,
    cancelled: Callable[[], bool],
) -> SpotResult:
    options = plan.options
    todo = plan.all_clips
    total = len(todo) + 1
    done_clips: list[SpotClip] = []
    results: dict[str, CopyResult] = {}
    problems: dict[str, str] = {}
    written = 0
    metadata = {c.sound_id: bwf_metadata(c, plan, c.channels) for c in todo if c.copies}
    wanted = {c.sound_id for c in todo if needs_gain(c, plan)}
    known: dict[str, float] = {}
    for clip in todo:
        if clip.sound_id in wanted and (gain := known_gain(clip)) is not None:
            known[clip.sound_id] = gain
    # The AAF is written by a process of its own while this one copies: it needs no
    # written copy, and its gains as soon as they are known (now, when every one was
    # measured before; else once the copies are done).
    worker: AafWorker | None = None
    aaf_notes: list[str] = []
    try:
        if "aaf" in options.formats:
            job, aaf_notes = aaf_job(plan, todo, metadata, final)
            worker = AafWorker(job, tmp / "scene.aaf")
            if wanted <= known.keys():
                worker.finish(known)
        gains = _copy_all(plan, todo, tmp, known, metadata, results, problems, progress, cancelled)
        for clip in todo:
            if clip.sound_id in results and clip.sound_id in gains:
                done_clips.append(clip)
            elif clip.sound_id in results and clip.copy_file is not None:
                (tmp / clip.copy_file).unlink(missing_ok=True)  # no project names it
        written = sum(r.bytes_written for sid, r in results.items() if sid in gains)
        if worker is not None and len(done_clips) != len(todo):
            # Some clip failed: the AAF is described again without it.
            worker.close()
            job, aaf_notes = aaf_job(plan, done_clips, metadata, final)
            worker = AafWorker(job, tmp / "scene.aaf")
        if worker is not None and not worker.finished:
            worker.finish(gains)
        channels = {sid: r.channels for sid, r in results.items()}
        if progress is not None:
            progress(len(todo), total, "projects")
        files: list[str] = sorted(
            {c.copy_file.split("/")[0] + "/" for c in done_clips if c.copy_file is not None}
        )
        mix_problems: list[str] = []
        if "mix" in options.formats:
            if cancelled():
                raise SpotCancelled
            mix_problems = _mix(plan, tmp / "mix.wav", cancelled)
            files.append("mix.wav")
        texts: dict[str, str] = {}
        picks = [c for c in done_clips if c.layer != "narration"]
        if "csv" in options.formats:
            from foley_tui.spot.cues import write_cues

            texts["cues.csv"] = write_cues(plan, done_clips, gains, problems)
        if "rpp" in options.formats:
            from foley_tui.spot.rpp import write_rpp

            texts["scene.RPP"] = write_rpp(plan, done_clips, gains, final)
        if "otio" in options.formats:
            from foley_tui.spot.otio import write_otio

            texts["scene.otio"] = write_otio(plan, done_clips, gains, channels, final)
        if worker is not None:
            worker.result()
            plan.warnings.extend(aaf_notes)
            files.append("scene.aaf")
    finally:
        if worker is not None:
            worker.close()
    from foley_tui.spot.texts import credits, readme

    credit_text = credits(picks)
    if credit_text is not None:
        texts["CREDITS.txt"] = credit_text
    files += list(texts)
    texts["README.txt"] = readme(plan, [*files, "README.txt"])
    files.append("README.txt")
    for name, text in texts.items():
        (tmp / name).write_text(text, encoding="utf-8", newline="")
    return SpotResult(tmp, plan, done_clips, gains, problems, files, written, mix_problems)


def _copy_all(
    plan: SpotPlan,
    todo: list[SpotClip],
    tmp: Path,
    known: dict[str, float],
    metadata: dict[str, tuple[Bext, str]],
    results: dict[str, CopyResult],
    problems: dict[str, str],
    progress: Progress | None,
    cancelled: Callable[[], bool],
) -> dict[str, float]:
    """Read every clip once (writing its copy), and measure the gains not ``known``.
    Fills ``results`` and ``problems``; returns the gains of the clips that made it."""
    total = len(todo) + 1
    # The clip gains are measured on a second thread while this one copies: a gain is a
    # loudness measurement (mostly outside the GIL) of the whole sound, which the copy
    # has just decoded when it read the whole file (else the gain's thread decodes it).
    # At most HELD decoded sounds wait for it, so memory stays flat.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="spot-gain") as pool:
        pending: dict[str, Future[float]] = {}
        held: deque[Future[float]] = deque()
        try:
            for i, clip in enumerate(todo):
                if progress is not None:
                    progress(i, total, clip.caption)
                if cancelled():
                    raise SpotCancelled
                measure = needs_gain(clip, plan) and clip.sound_id not in known
                tap = MonoTap() if measure and clip.copies else None
                try:
                    got = read_clip(
                        clip, plan, tmp, cancelled, tap, metadata=metadata.get(clip.sound_id)
                    )
                except (DecodeError, OSError) as exc:
                    _failed(plan, problems, clip, exc)
                    continue
                results[clip.sound_id] = got
                if measure:
                    decoded = tap.decoded() if tap is not None else None
                    pending[clip.sound_id] = pool.submit(clip_gain, clip, decoded)
                    if decoded is not None:
                        held.append(pending[clip.sound_id])
                    while len(held) > HELD or (held and held[0].done()):
                        wait([held.popleft()])
            gains: dict[str, float] = {}
            for clip in todo:
                if clip.sound_id not in results:
                    continue
                future = pending.get(clip.sound_id)
                try:
                    if future is not None:
                        gains[clip.sound_id] = future.result()
                    else:
                        gains[clip.sound_id] = known.get(clip.sound_id, 0.0)
                except (DecodeError, OSError) as exc:
                    _failed(plan, problems, clip, exc)
            return gains
        finally:
            for future in pending.values():
                future.cancel()


def _failed(plan: SpotPlan, problems: dict[str, str], clip: SpotClip, exc: Exception) -> None:
    if clip.layer == "narration":
        plan.warnings.append(f"narration left out: {exc}")
    else:
        problems[clip.sound_id] = f"cannot read its audio: {exc}"


def _mix(plan: SpotPlan, path: Path, cancelled: Callable[[], bool]) -> list[str]:
    """The reference mix: the scene as ``render-scene`` bounces it, with the same lanes
    muted or soloed and the same --from/--to."""
    from foley_tui.scene.bounce import BounceCancelled, bounce

    scene = plan.scene
    if scene is None:
        return ["no scene to mix"]
    for lane in plan.options.mute:
        scene.set_muted(lane, True)
    for lane in plan.options.solo:
        scene.set_soloed(lane, True)
    subtype = "FLOAT" if plan.options.float_ else "PCM_24"
    try:
        done = bounce(
            scene,
            path,
            plan.options.rate,
            subtype=subtype,
            start_s=plan.options.start_s or 0.0,
            end_s=plan.options.end_s,
            cancelled=cancelled,
        )
    except BounceCancelled:
        raise SpotCancelled from None
    return done.problems


def _move_into_place(tmp: Path, out: Path) -> None:
    """Rename ``tmp`` onto ``out``; an existing ``out`` is moved aside first and removed
    once the new bundle is there (an empty one is simply removed)."""
    old: Path | None = None
    if out.is_dir():
        if any(out.iterdir()):
            old = out.parent / f".{out.name}.old-{secrets.token_hex(4)}"
            os.replace(out, old)
        else:
            out.rmdir()
    try:
        os.replace(tmp, out)
    except OSError:
        if old is not None:
            os.replace(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
