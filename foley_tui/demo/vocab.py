"""The demo catalogue's vocabulary: a demo sound, licence presets, scene events, verdicts.

The catalogue itself (every candidate, the starting decisions, loudness and labels) is
:mod:`foley_tui.demo.catalog`. The licence records are illustrative (the sounds are all
CC0, see assets/demo/LICENSE): they show what real search results carry, so the licence
column and flags have something to show. Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from foley_tui.domain import Layer
from foley_tui.store.local import license_record


def licence(
    source: str,
    source_id: str,
    license_id: str,
    *,
    name: str,
    url: str | None,
    creator: str,
    commercial_ok: bool,
    attribution: bool,
    redistribute_ok: bool = False,
    cache_bytes_ok: bool = True,
    modification_ok: bool = True,
    ai_generated: bool = False,
    generator_model: str | None = None,
    prompt: str | None = None,
) -> dict[str, Any]:
    """A licence record with every key of foley's ``LicenseRecord.to_dict()``, in order."""
    return license_record(
        source=source,
        source_id=source_id,
        acquisition_method="api" if source != "local" else "user",
        retrieved_at="2026-11-28T21:14:03Z",
        license_id=license_id,
        license_name=name,
        license_url=url,
        rights_holder=creator,
        creator_name=creator,
        commercial_ok=commercial_ok,
        redistribute_standalone_ok=redistribute_ok,
        cache_bytes_ok=cache_bytes_ok,
        modification_ok=modification_ok,
        requires_attribution=attribution,
        attribution_text=f'"{source_id}" by {creator}, {license_id}' if attribution else None,
        is_ai_generated=ai_generated,
        generator_model=generator_model,
        generation_prompt=prompt,
        generation_prompt_used=prompt,
        disclosure_recommended=ai_generated,
    )


def preset(
    license_id: str,
    name: str,
    url: str | None,
    *,
    commercial_ok: bool,
    attribution: bool,
    redistribute_ok: bool,
) -> Callable[[str, str, str], dict[str, Any]]:
    """A licence kind: ``(source, source_id, creator) -> licence record``."""

    def record(source: str, source_id: str, creator: str) -> dict[str, Any]:
        return licence(
            source,
            source_id,
            license_id,
            name=name,
            url=url,
            creator=creator,
            commercial_ok=commercial_ok,
            attribution=attribution,
            redistribute_ok=redistribute_ok,
        )

    return record


cc0 = preset(
    "CC0-1.0",
    "Creative Commons Zero 1.0",
    "https://creativecommons.org/publicdomain/zero/1.0/",
    commercial_ok=True,
    attribution=False,
    redistribute_ok=True,
)
cc_by = preset(
    "CC-BY-4.0",
    "Creative Commons Attribution 4.0",
    "https://creativecommons.org/licenses/by/4.0/",
    commercial_ok=True,
    attribution=True,
    redistribute_ok=True,
)
cc_by_nc = preset(
    "CC-BY-NC-4.0",
    "Creative Commons Attribution-NonCommercial 4.0",
    "https://creativecommons.org/licenses/by-nc/4.0/",
    commercial_ok=False,
    attribution=True,
    redistribute_ok=True,
)
royalty_free = preset(
    "LicenseRef-royalty-free-sfx",
    "Royalty-free sound effects licence (no standalone redistribution)",
    None,
    commercial_ok=True,
    attribution=False,
    redistribute_ok=False,
)


def event(
    query: str,
    layer: Layer,
    *,
    salience: str = "medium",
    onset: str | None = None,
    loop: bool = False,
    audioset: Iterable[str] = (),
) -> dict[str, Any]:
    """A scene event as foley's ``SoundEvent.to_dict()``."""
    return {
        "query": query,
        "layer": layer,
        "diegetic": True,
        "salience": salience,
        "onset": onset,
        "loop": loop,
        "ucs_catid": None,
        "audioset": list(audioset),
        "era_place": None,
    }


def verdict(match: bool, confidence: float, reason: str) -> dict[str, Any]:
    return {"match": match, "confidence": confidence, "reason": reason, "level": "clap"}


@dataclass(frozen=True)
class DemoSound:
    """One demo candidate: which FLAC, how it is stored, and what the agent knew of it."""

    sound_id: str
    stem: str
    storage: str  # "by_value" | "local" | "generated"
    caption: str
    tags: tuple[str, ...]
    license: dict[str, Any]
    event: dict[str, Any]
    scores: tuple[float, float, float]  # clap, bm25, rrf
    ucs: tuple[str, str] | None = None
    verdict: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()
    cost: tuple[float, float] | None = None  # (estimate, actual) USD for a generation
    prompt: str | None = None
    audioset: tuple[str, ...] = ()


# Onsets in foley's grammar (foley.weave.anchor), resolved against the demo narration's
# words (assets/demo/narration_words.json): a quoted word for one-shots, the sentence
# a bed spans, the scene boundary a stinger opens; None for a bed means "the whole scene".
RAIN = event("rain on a tin roof", "ambience", loop=True, salience="high", onset=None)
DOOR = event("a door slams shut", "sfx_fg", salience="high", onset="on 'slammed'")
STEPS = event("footsteps on gravel", "sfx_fg", onset="on 'footsteps'")
THUNDER = event("distant thunder", "ambience", salience="medium", onset="as 'thunder'")
WIND = event(
    "wind howling around the house", "ambience", loop=True, salience="low", onset="during 'wind'"
)
CLOCK = event(
    "a clock ticking in the hallway", "sfx_fg", salience="low", loop=True, onset="when 'clock'"
)
BELL = event("a church bell tolls midnight", "stinger", salience="high", onset="at 'bell'")
GLASS = event("a glass set down on the table", "sfx_fg", salience="low", onset="on 'glass'")
HEART = event("a pounding heartbeat", "stinger", salience="medium", onset="on 'heart'")

GENERATED_PROMPT = "strong wind howling around an old stone house at night, gusts, no rain"
