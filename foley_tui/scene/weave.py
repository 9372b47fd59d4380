"""foley's own weave of a session: its timeline from our scene, its render in process.

``foley weave`` refuses a ``clip_ref`` that is not in foley's own library, so a session
made with ``add``, the demo or a folder cannot be woven by foley's CLI, and a timeline
passed on its command line fails past the argument size limit. Here the timeline is
built from the scene model exactly as ``foley plan`` builds it (one sparse item per
picked, cached candidate: the effective onset string, layer and loop; ghosts dropped),
with the narration's word timeline cached on it (so foley aligns nothing), and
:func:`weave_session` calls ``foley.weave.weave`` in process with a library that serves
the sounds our resolver finds.

foley is imported inside the functions (never when the app starts).

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import AudioRef, Source, Unplayable

if TYPE_CHECKING:
    from foley_tui.scene.build import SceneModel, ScenePick


class WeaveError(ValueError):
    """A scene foley cannot weave (no narration, nothing foley's plan would place)."""


@dataclass(frozen=True, slots=True)
class TimelinePlan:
    """foley's timeline for a scene, and what it leaves out (with why)."""

    timeline: Any  # foley.base.SoundDesignTimeline
    left_out: list[tuple[ScenePick, str]]


def foley_timeline(model: SceneModel) -> TimelinePlan:
    """foley's sparse timeline for ``model``'s picks, as ``foley plan`` makes it, with
    the word timeline cached (``word_timeline``) so foley's weave aligns nothing."""
    from foley.base import Layer, SoundDesignTimeline, TimelineItem

    items = []
    left_out: list[tuple[ScenePick, str]] = []
    for pick in model.picks:
        if pick.ghost:
            left_out.append((pick, pick.note))
            continue
        if pick.placement.error is not None:
            left_out.append((pick, pick.placement.error))
            continue
        try:
            layer = Layer(pick.layer)
        except ValueError:
            left_out.append((pick, f"{pick.layer!r} is not one of foley's layers"))
            continue
        items.append(
            TimelineItem(
                clip_ref=pick.sound_id,
                onset=pick.placement.onset,
                layer=layer,
                loop=pick.placement.loop,
            )
        )
    timeline = SoundDesignTimeline(items=items, word_timeline=[dict(w) for w in model.words])
    return TimelinePlan(timeline, left_out)


class ResolvedLibrary:
    """The sounds our resolver finds, as foley's render reads a library: ``array(ref,
    sr=, mono=)`` decodes one (read when asked, never held) as ``SoundLibrary.array``
    does. It holds no sound records (foley's credits skip what it cannot find)."""

    def __init__(self, sources: Mapping[str, AudioRef]) -> None:
        self.sources = dict(sources)

    def array(self, ref: str, *, sr: int | None = None, mono: bool = True) -> Any:
        from foley.audio import WORKING_SAMPLE_RATE, to_working

        from foley_tui.audio.decode import open_sound

        with open_sound(self.sources[ref]) as handle:
            rate = int(handle.samplerate)
            samples = handle.read(dtype="float32", always_2d=True)
        target = WORKING_SAMPLE_RATE if sr is None else sr
        return to_working(samples, rate, mono=mono, target_sr=target)

    def __getitem__(self, ref: str) -> Any:
        raise KeyError(ref)  # no records: only audio

    def __contains__(self, ref: object) -> bool:
        return False


def weave_session(model: SceneModel, *, rate: int = 48000) -> tuple[Any, TimelinePlan]:
    """foley's ``weave`` of ``model``'s scene over its narration, in process: returns
    foley's ``WeaveResult`` and the timeline plan (with what was left out and why).

    Raises:
        WeaveError: No narration, or a pick's audio cannot be found.
    """
    from foley.weave import weave

    if model.narration is None or model.narration_problem is not None:
        raise WeaveError(
            model.narration_problem or "no narration: foley weaves the sounds under one"
        )
    plan = foley_timeline(model)
    sources: dict[str, AudioRef] = {}
    for item in plan.timeline.items:
        pick = model.pick(item.clip_ref)
        source = pick.source if pick is not None else None
        if not isinstance(source, Source):
            why = source.reason if isinstance(source, Unplayable) else "its audio was not looked up"
            raise WeaveError(f"{item.clip_ref}: {why}")
        sources[item.clip_ref] = source.path
    result = weave(
        str(model.narration.path),
        plan.timeline,
        library=ResolvedLibrary(sources),
        sr=rate,
        export_captions=False,
    )
    return result, plan
