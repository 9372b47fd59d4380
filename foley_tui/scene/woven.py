"""The woven mix's plan: foley's ``FullRender`` rules applied to the scene's voices.

What :meth:`~foley_tui.scene.build.SceneModel.to_scene` builds for ``mix="woven"``,
with foley's own code and constants:

* each pick at its contract placement (:mod:`foley_tui.scene.contract`), folded to mono,
  panned centre (``cos(π/4)`` a channel), at its :class:`~foley_tui.scene.contract.WovenGain`
  (foley's reference gain on the whole fitted clip plus ``LAYER_GAIN_DB``), with
  foley's declick fades (``Processing``'s ``fade_in`` / ``fade_out``);
* the narration folded to mono at unity on both sides (foley's voice bus);
* the voice layer, and whatever starts at or past the narration's end, left out; the mix
  ends with the narration (foley's buses are its length);
* the beds (``DUCKED_LAYERS``) ducked under the words by ``DUCK_DB`` with foley's attack
  and release (:class:`~foley_tui.audio.duck.DuckEnvelope`);
* foley's master stage as a static gain found by an analysis pass (:func:`master_gain`:
  the whole programme, narration included, measured and brought to the master profile's
  loudness as ``foley.audio.loudness_gain_db`` rules), applied before our true-peak
  limiter (the same -1 dBTP ceiling as foley's look-ahead limiter).

foley is imported inside the functions (never when the app starts).

Headless: never imports textual.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foley_tui.audio.duck import DuckEnvelope
    from foley_tui.audio.mixer import Scene

#: foley's render rate (``weave(sr=48_000)``): the master analysis runs at it.
ANALYSIS_RATE = 48000


def fades() -> tuple[float, float]:
    """foley's declick fades (seconds in, out): ``Processing``'s defaults."""
    from foley.base import Processing

    defaults = Processing()
    return float(defaults.fade_in), float(defaults.fade_out)


def ducked_layers() -> frozenset[str]:
    """The layers foley ducks under speech (``DUCKED_LAYERS``)."""
    from foley.weave.render import DUCKED_LAYERS

    return frozenset(layer.value for layer in DUCKED_LAYERS)


def rendered_layers() -> frozenset[str]:
    """The layers foley's render mixes (``RENDER_LAYERS``: not the voice)."""
    from foley.weave.render import RENDER_LAYERS

    return frozenset(layer.value for layer in RENDER_LAYERS)


def duck_envelope(words: Sequence[dict[str, Any]], length_s: float) -> DuckEnvelope | None:
    """The beds' gain under ``words`` over a narration ``length_s`` long (foley's
    ``speech_duck_gain`` with its depth, attack and release), None without words."""
    if not words or length_s <= 0:
        return None
    from foley.weave.mix import DUCK_ATTACK_S, DUCK_DB, DUCK_RELEASE_S
    from foley.weave.render import _speech_spans

    from foley_tui.audio.duck import DuckEnvelope

    return DuckEnvelope(
        _speech_spans(list(words)),
        length_s=length_s,
        depth_db=DUCK_DB,
        attack_s=DUCK_ATTACK_S,
        release_s=DUCK_RELEASE_S,
    )


@dataclass(frozen=True, slots=True)
class MasterAnalysis:
    """What the analysis pass found and the static gain foley's master stage implies.

    Attributes:
        input_lufs: The programme's integrated loudness before the master.
        peak_dbfs: Its sample peak.
        gain_db: The master's loudness gain (``loudness_gain_db`` of the profile).
        target_lufs: The profile's target.
    """

    input_lufs: float
    peak_dbfs: float
    gain_db: float
    target_lufs: float


_MASTERS: OrderedDict[tuple[object, ...], MasterAnalysis] = OrderedDict()
_LOCK = threading.Lock()


def _scene_key(scene: Scene) -> tuple[object, ...]:
    from foley_tui.audio.blob import RemoteBlob

    voices = []
    for v in scene.voices:
        ref = v.path
        if isinstance(ref, RemoteBlob):
            ident = f"blob:{ref.key}"
        else:
            try:
                st = ref.stat()
                ident = f"{ref}:{st.st_size}:{st.st_mtime_ns}"
            except OSError:
                ident = str(ref)
        voices.append(
            (
                ident,
                v.onset_s,
                v.gain,
                v.lane,
                v.length_s,
                v.loop,
                v.mono,
                v.in_point_s,
                v.out_point_s,
            )
        )
    duck = scene.duck.key() if scene.duck is not None else None
    return (tuple(voices), scene.end_s, duck, scene.ducked)


def master_gain(scene: Scene, *, rate: int = ANALYSIS_RATE) -> MasterAnalysis:
    """foley's master loudness gain for the woven ``scene``: the whole programme mixed
    (every voice, ducked, no mute or solo, no loop region, no limiter) and measured, then
    ``foley.audio.loudness_gain_db``'s rule with the podcast profile's target and the
    sample-peak allowance its master leaves the limiter. Cached by the scene's content."""
    key = _scene_key(scene)
    with _LOCK:
        found = _MASTERS.get(key)
    if found is not None:
        return found
    import numpy as np
    from foley.audio import LUFS_MIN_BLOCK_S, loudness_gain_db
    from foley.base import resolve_master

    from foley_tui.audio.loudness import LoudnessMeter
    from foley_tui.audio.mixer import StemMix

    profile = resolve_master("podcast")
    plain = replace(
        scene,
        muted=frozenset(),
        soloed=frozenset(),
        loop_region=None,
        volume_db=0.0,
        master_gain_db=0.0,
    )
    stems = StemMix(plain, rate)
    # Every woven voice is folded to mono and panned centre: the programme is dual mono,
    # so one channel is measured and its loudness counted twice (BS.1770 sums channels).
    meter = LoudnessMeter(rate, 1)
    peak = 0.0
    try:
        while True:
            block = stems.read(1 << 15)
            if not len(block):
                break
            mixed = block[:, 0, 0].copy()
            for lane in range(1, block.shape[1]):
                mixed += block[:, lane, 0]
            meter.feed(mixed)
            peak = max(peak, float(np.abs(mixed).max()))
    finally:
        stems.close()
    lufs = meter.integrated() + 10.0 * math.log10(2.0)
    peak_db = 20.0 * math.log10(peak) if peak > 0 else -math.inf
    gain = 0.0
    if meter.frames >= math.ceil(LUFS_MIN_BLOCK_S * rate) and peak > 0:
        # foley's rule on our streamed measurement: a probe with the programme's
        # sample peak, read by a meter that reports the programme's loudness.
        probe = np.zeros(math.ceil(LUFS_MIN_BLOCK_S * rate))
        probe[0] = peak
        gain, _ = loudness_gain_db(
            probe,
            rate,
            target_lufs=profile.target_lufs,
            peak_ceiling_dbfs=profile.true_peak_db + profile.max_limiting_db,
            meter=lambda _samples, _rate: lufs,
        )
    found = MasterAnalysis(float(lufs), peak_db, float(gain), float(profile.target_lufs))
    with _LOCK:
        _MASTERS[key] = found
        while len(_MASTERS) > 64:
            _MASTERS.popitem(last=False)
    return found
