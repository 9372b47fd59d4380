"""The demo session's catalogue: every candidate of "Demo: a stormy night" as data.

Which bundled FLAC each candidate uses and how it is stored (``by_value``, ``local`` or
``generated``), what the agent knew of it (caption, tags, licence record, scene event,
scores, verdict, notes, cost), the decisions the demo starts with, and each sound's
measured loudness and AudioSet labels. :mod:`foley_tui.demo` builds the session from it.

The licence records are illustrative (the sounds are all CC0, see assets/demo/LICENSE):
they show what real search results carry, so the licence column and flags have
something to show.

Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from foley_tui.model import Layer
from foley_tui.store.local import license_record


def _license(
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


def _preset(
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
        return _license(
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


_cc0 = _preset(
    "CC0-1.0",
    "Creative Commons Zero 1.0",
    "https://creativecommons.org/publicdomain/zero/1.0/",
    commercial_ok=True,
    attribution=False,
    redistribute_ok=True,
)
_cc_by = _preset(
    "CC-BY-4.0",
    "Creative Commons Attribution 4.0",
    "https://creativecommons.org/licenses/by/4.0/",
    commercial_ok=True,
    attribution=True,
    redistribute_ok=True,
)
_cc_by_nc = _preset(
    "CC-BY-NC-4.0",
    "Creative Commons Attribution-NonCommercial 4.0",
    "https://creativecommons.org/licenses/by-nc/4.0/",
    commercial_ok=False,
    attribution=True,
    redistribute_ok=True,
)
_royalty_free = _preset(
    "LicenseRef-royalty-free-sfx",
    "Royalty-free sound effects licence (no standalone redistribution)",
    None,
    commercial_ok=True,
    attribution=False,
    redistribute_ok=False,
)


def _event(
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


def _verdict(match: bool, confidence: float, reason: str) -> dict[str, Any]:
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
RAIN = _event("rain on a tin roof", "ambience", loop=True, salience="high", onset=None)
DOOR = _event("a door slams shut", "sfx_fg", salience="high", onset="on 'slammed'")
STEPS = _event("footsteps on gravel", "sfx_fg", onset="on 'footsteps'")
THUNDER = _event("distant thunder", "ambience", salience="medium", onset="as 'thunder'")
WIND = _event(
    "wind howling around the house", "ambience", loop=True, salience="low", onset="during 'wind'"
)
CLOCK = _event(
    "a clock ticking in the hallway", "sfx_fg", salience="low", loop=True, onset="when 'clock'"
)
BELL = _event("a church bell tolls midnight", "stinger", salience="high", onset="at 'bell'")
GLASS = _event("a glass set down on the table", "sfx_fg", salience="low", onset="on 'glass'")
HEART = _event("a pounding heartbeat", "stinger", salience="medium", onset="on 'heart'")

GENERATED_PROMPT = "strong wind howling around an old stone house at night, gusts, no rain"

SOUNDS: tuple[DemoSound, ...] = (
    # -- rain on a tin roof
    DemoSound(
        "freesound:701245",
        "rain_roof",
        "by_value",
        "Heavy rain drumming on a corrugated tin roof, close, steady",
        ("rain", "tin roof", "metal", "downpour", "ambience", "loopable"),
        _cc0("freesound", "701245", "quietfield"),
        RAIN,
        (0.81, 14.2, 0.0325),
        ("RAIN", "METAL"),
        _verdict(True, 0.93, "steady rain with bright metallic pings: a tin roof"),
    ),
    DemoSound(
        "freesound:688310",
        "fire_crackle",
        "by_value",
        "Rain on a shed roof, crackly, with drips",
        ("rain", "roof", "crackle", "drips"),
        _cc_by("freesound", "688310", "m_field_recs"),
        RAIN,
        (0.52, 11.7, 0.0301),
        ("RAIN", "GENERAL"),
        _verdict(False, 0.71, "crackles and a low roar: this is a wood fire, not rain"),
        ("tagged as rain by the uploader",),
    ),
    DemoSound(
        "bbc:07042113",
        "ocean_waves",
        "local",
        "Rain storm over the sea, waves breaking on shingle",
        ("rain", "storm", "sea", "waves", "coast"),
        _cc_by_nc("bbc", "07042113", "BBC Sound Effects"),
        RAIN,
        (0.47, 9.8, 0.0289),
        ("WATER", "WAVES"),
        _verdict(False, 0.64, "a breaking wave; no rain on a roof"),
        ("RemArc licence: personal, educational or research use only",),
    ),
    DemoSound(
        "local:drips/cave_drip_03.flac",
        "water_drip",
        "local",
        "Water dripping into a full basin, slow drips",
        ("water", "drip", "drop", "basin", "interior"),
        _cc0("local", "drips/cave_drip_03.flac", "studio library"),
        RAIN,
        (0.39, 6.1, 0.0244),
        ("WATER", "DRIP"),
    ),
    # -- a door slams shut
    DemoSound(
        "sonniss:GDC2024-door-017",
        "door_slam",
        "by_value",
        "Heavy wooden front door slammed shut, latch, short room tail",
        ("door", "slam", "wood", "heavy", "interior", "impact"),
        _royalty_free("sonniss", "GDC2024-door-017", "Sonniss GDC bundle"),
        DOOR,
        (0.88, 17.9, 0.0328),
        ("DOORS", "WOOD"),
        _verdict(True, 0.95, "a hard wooden impact with a latch click and room tail"),
    ),
    DemoSound(
        "freesound:655902",
        "door_knock",
        "by_value",
        "Knocking three times on a wooden door",
        ("door", "knock", "wood", "knuckles"),
        _cc_by("freesound", "655902", "hollow_oak"),
        DOOR,
        (0.58, 12.6, 0.0310),
        ("DOORS", "KNOCK"),
        _verdict(False, 0.82, "three knocks, not a slam"),
    ),
    DemoSound(
        "freesound:612877",
        "thunder_clap",
        "local",
        "Door slam with a big boomy tail (processed)",
        ("door", "slam", "boom", "cinematic", "impact"),
        _cc_by_nc("freesound", "612877", "sfx_lab"),
        DOOR,
        (0.44, 10.2, 0.0294),
        ("DESIGNED", "IMPACT"),
        None,
        ("a long tail; might work under a cut",),
    ),
    # -- footsteps on gravel
    DemoSound(
        "freesound:590114",
        "footsteps_gravel",
        "by_value",
        "Footsteps walking slowly on loose gravel, leather shoes",
        ("footsteps", "gravel", "walk", "crunch", "exterior"),
        _cc_by("freesound", "590114", "stepwise"),
        STEPS,
        (0.84, 15.3, 0.0327),
        ("FOOTSTEPS", "GRAVEL"),
        _verdict(True, 0.9, "crunchy heel-toe steps on small stones"),
    ),
    DemoSound(
        "local:foley/keys_clatter_01.flac",
        "typing",
        "local",
        "Footsteps on gravel path, fast (foley, small stones)",
        ("footsteps", "gravel", "foley", "fast"),
        _cc0("local", "foley/keys_clatter_01.flac", "studio library"),
        STEPS,
        (0.41, 13.0, 0.0306),
        ("FOOTSTEPS", "GRAVEL"),
        _verdict(False, 0.77, "regular plastic clicks: a keyboard, not steps"),
        ("misfiled in the studio library?",),
    ),
    DemoSound(
        "freesound:571338",
        "clock_tick",
        "by_value",
        "Steps on a wooden floor, slow, distant",
        ("footsteps", "wood", "slow", "interior"),
        _cc0("freesound", "571338", "oldhouse"),
        STEPS,
        (0.33, 8.4, 0.0263),
        ("FOOTSTEPS", "WOOD"),
    ),
    # -- distant thunder
    DemoSound(
        "bbc:07015034",
        "thunder_distant",
        "by_value",
        "Distant thunder, long low rolling rumble, no rain",
        ("thunder", "distant", "rumble", "storm", "weather"),
        _cc_by_nc("bbc", "07015034", "BBC Sound Effects"),
        THUNDER,
        (0.86, 16.8, 0.0326),
        ("WEATHER", "THUNDER"),
        _verdict(True, 0.91, "a low rolling rumble with no crack: distant"),
        ("RemArc licence: personal, educational or research use only",),
    ),
    DemoSound(
        "freesound:640021",
        "thunder_clap",
        "by_value",
        "Thunder clap overhead, sharp crack then heavy rumble",
        ("thunder", "clap", "crack", "close", "storm"),
        _cc0("freesound", "640021", "stormchaser_uk"),
        THUNDER,
        (0.74, 15.9, 0.0318),
        ("WEATHER", "THUNDER"),
        _verdict(False, 0.6, "a close clap with a crack; the scene wants distant"),
    ),
    DemoSound(
        "freesound:598431",
        "car_pass",
        "by_value",
        "Low rumble passing by outside, left to right",
        ("rumble", "pass by", "low", "exterior", "stereo"),
        _cc_by("freesound", "598431", "roadside_rec"),
        THUNDER,
        (0.36, 7.5, 0.0250),
        ("VEHICLES", "CAR"),
        _verdict(False, 0.88, "an engine with a Doppler drop: a car passing"),
    ),
    # -- wind howling around the house (one paid generation)
    DemoSound(
        "elevenlabs:gen-5d1f0c2a9e",
        "wind",
        "generated",
        "Strong wind howling around a stone house, gusting",
        ("wind", "howl", "gust", "storm", "ambience", "generated"),
        _license(
            "elevenlabs",
            "gen-5d1f0c2a9e",
            "LicenseRef-elevenlabs-paid",
            name="ElevenLabs paid plan output licence",
            url="https://elevenlabs.io/terms-of-use",
            creator="ElevenLabs sound effects",
            commercial_ok=True,
            attribution=False,
            ai_generated=True,
            generator_model="eleven_text_to_sound_v2",
            prompt=GENERATED_PROMPT,
        ),
        WIND,
        (0.79, 0.0, 0.0161),
        ("WEATHER", "WIND"),
        _verdict(True, 0.86, "gusting broadband wind with a whistle"),
        (),
        (0.08, 0.08),
        GENERATED_PROMPT,
    ),
    DemoSound(
        "freesound:603377",
        "whoosh",
        "by_value",
        "Wind gust whoosh, single, fast",
        ("wind", "whoosh", "gust", "swish", "transition"),
        _cc0("freesound", "603377", "airflow"),
        WIND,
        (0.55, 12.1, 0.0307),
        ("WHOOSH", "AIR"),
        None,
        ("one gust only: would need looping",),
    ),
    DemoSound(
        "local:hum/transformer_50hz.flac",
        "electric_hum",
        "local",
        "Low wind drone through a window frame",
        ("wind", "drone", "low", "interior"),
        _cc0("local", "hum/transformer_50hz.flac", "studio library"),
        WIND,
        (0.29, 6.6, 0.0238),
        ("AMBIENCE", "ROOM TONE"),
        _verdict(False, 0.84, "a steady 50 Hz hum: electrical, not wind"),
    ),
    # -- a clock ticking in the hallway
    DemoSound(
        "freesound:580992",
        "clock_tick",
        "local",
        "Grandfather clock ticking, tick-tock, close",
        ("clock", "tick", "tock", "mechanical", "interior"),
        _cc_by("freesound", "580992", "timekeeper"),
        CLOCK,
        (0.83, 16.0, 0.0325),
        ("CLOCKS", "TICK"),
        _verdict(True, 0.89, "alternating tick and tock once a second"),
    ),
    DemoSound(
        "freesound:566104",
        "typing",
        "by_value",
        "Typing on a mechanical keyboard, uneven rhythm",
        ("typing", "keyboard", "clicks", "office"),
        _cc0("freesound", "566104", "deskbound"),
        CLOCK,
        (0.31, 5.2, 0.0229),
        ("COMPUTERS", "KEYBOARD"),
    ),
    # -- a church bell tolls midnight
    DemoSound(
        "freesound:622519",
        "bell",
        "by_value",
        "Church bell struck once, long decay, slow beating",
        ("bell", "church", "toll", "strike", "ring"),
        _cc_by("freesound", "622519", "belfry_audio"),
        BELL,
        (0.87, 18.3, 0.0328),
        ("BELLS", "CHURCH"),
        _verdict(True, 0.92, "a large bell's hum, tierce and long ring"),
    ),
    DemoSound(
        "freesound:633870",
        "ui_beep",
        "by_value",
        "Two-tone notification chime",
        ("chime", "notification", "beep", "ui"),
        _cc0("freesound", "633870", "pixelsounds"),
        BELL,
        (0.35, 7.7, 0.0258),
        ("USER INTERFACE", "BEEP"),
        _verdict(False, 0.9, "a synthetic UI beep"),
    ),
    DemoSound(
        "freesound:649005",
        "glass_clink",
        "local",
        "Small bell ding, bright",
        ("bell", "ding", "bright", "small"),
        _cc_by("freesound", "649005", "belfry_audio"),
        BELL,
        (0.42, 9.1, 0.0283),
        ("BELLS", "HANDBELL"),
    ),
    # -- a glass set down on the table
    DemoSound(
        "freesound:611742",
        "glass_clink",
        "by_value",
        "Two wine glasses clinking, cheers, twice",
        ("glass", "clink", "cheers", "wine glass"),
        _cc0("freesound", "611742", "kitchen_sounds"),
        GLASS,
        (0.72, 13.8, 0.0321),
        ("GLASS", "CLINK"),
        None,
        ("two clinks: trim to the first one",),
    ),
    DemoSound(
        "freesound:620318",
        "water_drip",
        "by_value",
        "Water poured into a glass, single drop",
        ("water", "glass", "drop", "pour"),
        _cc_by("freesound", "620318", "kitchen_sounds"),
        GLASS,
        (0.37, 8.9, 0.0272),
        ("WATER", "DRIP"),
    ),
    # -- a pounding heartbeat
    DemoSound(
        "freesound:627771",
        "heartbeat",
        "by_value",
        "Heartbeat, resting, lub-dub, deep and close",
        ("heartbeat", "heart", "pulse", "body", "tension"),
        _cc0("freesound", "627771", "anatomy_sfx"),
        HEART,
        (0.85, 17.1, 0.0327),
        ("HUMAN", "HEARTBEAT"),
        _verdict(True, 0.87, "a low lub-dub at about 70 bpm"),
    ),
    DemoSound(
        "freesound:593318",
        "bird_chirp",
        "by_value",
        "Small songbird chirping, short phrases",
        ("bird", "chirp", "song", "morning"),
        _cc0("freesound", "593318", "dawnchorus"),
        HEART,
        (0.22, 3.1, 0.0201),
        ("ANIMALS", "BIRD"),
        _verdict(False, 0.96, "birdsong"),
    ),
)
"""Every demo candidate, in the order an agent would have found them."""

# Decisions the demo starts with, so the counts, the cost tally and the scene have
# something to show: (sound id, layer, onset) picks and (sound id, reason) rejects. The
# onsets are foley's: a number of seconds, a symbolic anchor of the pick's own (written
# as foley's agent writes it), or None (the event's suggestion).
DEMO_PICKS: tuple[tuple[str, Layer | None, float | str | None], ...] = (
    ("freesound:701245", "ambience", 0.0),  # the rain bed from the top
    ("elevenlabs:gen-5d1f0c2a9e", "ambience", None),  # the wind: during 'wind'
    ("freesound:590114", None, "on 'crunched'"),  # footsteps on the crunch, not 'footsteps'
    ("sonniss:GDC2024-door-017", None, 13.4),  # the slam, nudged just before 'slammed'
    ("freesound:622519", None, None),  # the bell: at 'bell' (a scene boundary)
)
DEMO_REJECTS: tuple[tuple[str, str | None], ...] = (
    ("freesound:593318", "birdsong does not belong in a storm at night"),
)


LOUDNESS_LUFS: dict[str, float] = {
    "bell": -20.1,
    "bird_chirp": -13.7,
    "car_pass": -18.3,
    "clock_tick": -29.3,
    "door_knock": -20.3,
    "door_slam": -19.9,
    "electric_hum": -19.7,
    "fire_crackle": -27.1,
    "footsteps_gravel": -22.6,
    "glass_clink": -17.1,
    "heartbeat": -20.3,
    "ocean_waves": -22.2,
    "rain_roof": -17.7,
    "thunder_clap": -23.7,
    "thunder_distant": -26.1,
    "typing": -27.2,
    "ui_beep": -12.7,
    "water_drip": -19.7,
    "whoosh": -16.7,
    "wind": -24.6,
}
"""Integrated loudness (BS.1770, pyloudnorm) of each demo sound, as foley's QC records it.

Measured once and kept here because importing pyloudnorm (scipy) costs ~0.8 s, and the
demo must be on screen within a few seconds of a first launch; a test re-measures them.
"""


AUDIOSET_LABELS: dict[str, tuple[str, ...]] = {
    "rain_roof": ("Rain", "Rain on surface"),
    "wind": ("Wind", "Howl (wind)"),
    "footsteps_gravel": ("Walk, footsteps", "Crunch"),
    "door_knock": ("Knock", "Door"),
    "door_slam": ("Door", "Slam"),
    "glass_clink": ("Glass", "Chink, clink"),
    "thunder_distant": ("Thunder", "Rumble"),
    "thunder_clap": ("Thunderstorm", "Thunder"),
    "whoosh": ("Whoosh, swoosh, swish",),
    "fire_crackle": ("Fire", "Crackle"),
    "clock_tick": ("Clock", "Tick-tock"),
    "water_drip": ("Drip", "Water"),
    "bird_chirp": ("Bird vocalization, bird call, bird song", "Chirp, tweet"),
    "ui_beep": ("Beep, bleep",),
    "heartbeat": ("Heart sounds, heartbeat",),
    "ocean_waves": ("Ocean", "Waves, surf"),
    "electric_hum": ("Mains hum", "Hum"),
    "typing": ("Typing", "Computer keyboard"),
    "car_pass": ("Car passing by", "Vehicle"),
    "bell": ("Church bell", "Bell"),
}
"""What an AudioSet tagger hears in each sound: the audio's truth, which is how the
demo's mislabelled candidates give themselves away in the details pane."""
