"""The scene contract: where each pick sounds and how loud, in each mix, written once.

Every consumer of a scene (the timeline, ``C``, ``P``, ``play-scene``, ``render-scene``,
``scene --json``, ``weave``, the spot bundle, regions) asks this module, never its own
arithmetic:

* **placement sample**: :func:`placement_frame`, foley's rule ``int(onset * rate)``
  (``FullRender`` overlays at ``int(pl.onset * sample_rate)``);
* **in-point**: :attr:`ClipPlacement.in_point_s`, 0 unless a region says otherwise (the
  woven mix ignores regions: foley weaves the whole sound);
* **length**: :meth:`ClipPlacement.length_frames`, foley's ``fit_duration``: the whole
  file for a one-shot; a bed's sentence span, trimmed, and filled by looping only when its
  event loops (a short non-looping bed plays once); or a region;
* **gain in each mix**: the *flat* mix plays every pick at unity (or loudness-matched, on
  request); the *woven* mix gives each clip :class:`WovenGain`: foley's
  ``reference_gain_db`` measured on the whole fitted clip (the peak ceiling less the layer
  gain) plus ``LAYER_GAIN_DB[layer]``, computed by :func:`woven_gain` and cached by the
  file's content hash.

What the woven mix leaves out, and says so (:func:`woven_note`): the voice layer (foley's
render mixes ``RENDER_LAYERS`` only), anything at or past the narration's end and the
part of a tail past it (foley's bus is the narration's length), and anything placed past
:data:`MAX_PLACEMENT_S` (left out of both mixes: an absurd onset never becomes a render
of gigabytes).

foley is imported only inside the functions that need it (``import foley.weave`` costs a
noticeable fraction of a second): never when the app starts.

Headless: never imports textual.
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from foley_tui.audio.placement import ClipPlacement, placement_frame, span_frames
from foley_tui.domain import MAX_PLACEMENT_S as _MAX_PLACEMENT_S

__all__ = [
    "ANALYSING_NOTE",
    "CENTRE_PAN_DB",
    "CUT_NOTE",
    "DEFAULT_MIX",
    "FLAT",
    "GHOST_NOTE",
    "MAX_PLACEMENT_S",
    "MIXES",
    "REGION_NOTE",
    "VOICE_NOTE",
    "WOVEN",
    "ClipPlacement",
    "Mix",
    "WovenGain",
    "placement_frame",
    "span_frames",
    "woven_gain",
    "woven_note",
]

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from foley_tui.audio.base import AudioRef

#: The latest onset (seconds) anything is placed at: a day. Our own writes refuse more
#: (:func:`foley_tui.domain.validate_onset`); an agent's pick past it is shown and left out
#: of every mix.
MAX_PLACEMENT_S = _MAX_PLACEMENT_S

Mix = Literal["woven", "flat"]
WOVEN: Mix = "woven"
FLAT: Mix = "flat"
#: The mixes, default first: the woven mix is what foley's weave makes of the scene; the
#: flat one plays every sound at unity, for judging a sound on its own.
MIXES: tuple[Mix, ...] = (WOVEN, FLAT)
DEFAULT_MIX: Mix = WOVEN

#: Notes on what the woven mix does with a pick (the scene list, the timeline, the CLI).
VOICE_NOTE = "weave does not render the voice layer"
CUT_NOTE = "weave cuts it"
#: A pick with a region: foley has no regions.
REGION_NOTE = "weave plays the whole sound: its region plays in the flat mix and the spot"
GHOST_NOTE = "no cached candidate: foley plan drops it"
#: The progress note of a ``P`` or ``C`` that builds the woven mix first.
ANALYSING_NOTE = (
    "Analysing the scene for the woven mix: each sound is measured once, the whole scene "
    "mixed once for foley's master"
)


def woven_note(
    layer: str, onset_s: float | None, end_s: float | None, narration_s: float | None
) -> str | None:
    """What foley's weave does with a pick of ``layer`` sounding from ``onset_s`` to
    ``end_s`` over a narration ``narration_s`` long (None: no narration), when it does
    not simply play it: leaves the voice layer out, cuts it, or cuts its tail."""
    if layer == "voice":
        return VOICE_NOTE
    if onset_s is None:
        return None
    if onset_s > MAX_PLACEMENT_S or (narration_s is not None and onset_s >= narration_s):
        return CUT_NOTE
    if narration_s is not None and end_s is not None and end_s > narration_s:
        return f"weave cuts its last {end_s - narration_s:.1f} s"
    return None


def woven_leaves_out(layer: str, onset_s: float | None, narration_s: float | None) -> bool:
    """Whether the woven mix leaves the pick out entirely (not only its tail)."""
    note = woven_note(layer, onset_s, None, narration_s)
    return note in (VOICE_NOTE, CUT_NOTE)


# ---------------------------------------------------------------------- woven gain
@dataclass(frozen=True, slots=True)
class WovenGain:
    """A clip's static gain in the woven mix (dB), as foley's ``FullRender`` applies it.

    Attributes:
        reference_db: ``foley.level.reference_gain_db`` of the whole fitted clip (folded
            to mono) with the peak ceiling less the layer gain: what brings it to foley's
            reference loudness.
        layer_db: ``foley.weave.mix.LAYER_GAIN_DB[layer]``.
    """

    reference_db: float
    layer_db: float

    @property
    def clip_db(self) -> float:
        """The clip gain an editor's timeline carries: reference plus layer gain (no
        pan, no ducking, no master)."""
        return self.reference_db + self.layer_db

    @property
    def channel_db(self) -> float:
        """What each channel of the mix gets: the clip gain and foley's centre pan."""
        return self.clip_db + CENTRE_PAN_DB

    @property
    def channel_gain(self) -> float:
        return float(10.0 ** (self.channel_db / 20.0))


#: foley's constant-power pan at the centre (``cos(π/4)`` on each channel), in dB.
CENTRE_PAN_DB = 20.0 * math.log10(math.cos(math.pi / 4))

#: Gains measured, by (content hash, layer, span, loop): a scene rebuilt after every edit
#: reads and measures each sound once.
_GAINS: OrderedDict[tuple[object, ...], WovenGain] = OrderedDict()
_HASHES: dict[tuple[str, str], str] = {}
_LOCK = threading.Lock()
_CACHE_SIZE = 4096


def content_key(ref: AudioRef) -> str:
    """The content hash of a source (sha256 of a file's bytes, memoised by path and its
    ``stat`` facts in the process and across runs; a store's blob already is one)."""
    import hashlib

    from foley_tui.audio.blob import RemoteBlob
    from foley_tui.scene.gain_store import shared_store

    if isinstance(ref, RemoteBlob):
        return f"blob:{ref.key}"
    path = Path(ref).absolute()
    st = os.stat(path)
    facts = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_dev}"
    memo = (str(path), facts)
    with _LOCK:
        found = _HASHES.get(memo)
    if found is None:
        found = shared_store().get_hash(*memo)
    if found is None:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
        found = digest.hexdigest()
        shared_store().put_hash(*memo, found)
    with _LOCK:
        _HASHES[memo] = found
        if len(_HASHES) > _CACHE_SIZE:
            _HASHES.pop(next(iter(_HASHES)))
    return found


def read_mono(ref: AudioRef) -> tuple[npt.NDArray[np.float32], int]:
    """The whole source folded to mono (the mean of its channels, as foley's
    ``to_mono``), at its own rate, read block by block."""
    import numpy as np

    from foley_tui.audio.decode import DecodeError, open_sound

    parts = []
    with open_sound(ref) as handle:
        rate = int(handle.samplerate)
        try:
            while True:
                block = handle.read(1 << 16, dtype="float32", always_2d=True)
                if not len(block):
                    break
                parts.append(block.mean(axis=1, dtype=np.float32))
        except RuntimeError as exc:
            raise DecodeError(f"decode error in {ref.name}: {exc}") from None
    mono = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
    return mono, rate


def layer_gain_db(layer: str) -> float:
    """foley's base gain for ``layer`` (``LAYER_GAIN_DB``), 0 for a layer it lacks."""
    from foley.base import Layer
    from foley.weave.mix import LAYER_GAIN_DB

    try:
        return float(LAYER_GAIN_DB.get(Layer(layer), 0.0))
    except ValueError:
        return 0.0


def measure_woven_gain(
    clip: npt.NDArray[np.float32], rate: int, layer: str, placement: ClipPlacement
) -> WovenGain:
    """:class:`WovenGain` of a mono ``clip`` at ``rate``, fitted as foley fits it (the
    in-point ignored: the woven mix weaves the whole sound).

    Raises:
        ImportError: mixing's loudness meter is not installed (foley's reference gain
            would then be 0 dB for every clip: a flat mix passed off as the woven one).
    """
    try:
        from mixing import loudness  # noqa: F401  (what foley's reference gain meters with)
    except ImportError as exc:
        raise ImportError(
            "the woven mix measures each clip's loudness with mixing's meter, which is "
            "not installed: pip install 'mixing[loudness]'",
            name=exc.name,
        ) from exc
    from foley.level import REFERENCE_PEAK_CEILING_DBFS, reference_gain_db
    from foley.weave.mix import fit_duration

    layer_db = layer_gain_db(layer)
    fitted = fit_duration(clip, rate, duration=placement.span_s, loop=placement.loop)
    reference = reference_gain_db(
        fitted, rate, peak_ceiling_dbfs=REFERENCE_PEAK_CEILING_DBFS - layer_db
    )
    return WovenGain(float(reference), layer_db)


def woven_gain(
    ref: AudioRef,
    layer: str,
    placement: ClipPlacement,
    *,
    decoded: tuple[npt.NDArray[np.float32], int] | None = None,
) -> WovenGain:
    """The woven mix's static gain for a pick of ``layer`` whose audio is ``ref``,
    fitted to ``placement``: cached by content hash in the process and across runs
    (:mod:`foley_tui.scene.gain_store`); the first time ever, it reads the whole file,
    unless ``decoded`` holds it already (:func:`read_mono`'s answer, from whoever
    decoded the file anyway).

    Raises:
        DecodeError: The source cannot be decoded.
        OSError: It cannot be read.
    """
    key = (content_key(ref), layer, placement.span_s, placement.loop)
    found = _known(key)
    if found is not None:
        return found
    clip, rate = decoded if decoded is not None else read_mono(ref)
    gain = measure_woven_gain(clip, rate, layer, placement)
    _remember(key, gain)
    from foley_tui.scene.gain_store import gain_key, shared_store

    shared_store().put(gain_key(*key), gain.reference_db, gain.layer_db)
    return gain


def cached_woven_gain(ref: AudioRef, layer: str, placement: ClipPlacement) -> WovenGain | None:
    """The woven gain if it was measured already, in this process or an earlier run
    (hashes the file's bytes, never decodes it), else None."""
    try:
        key = (content_key(ref), layer, placement.span_s, placement.loop)
    except OSError:
        return None
    return _known(key)


def _known(key: tuple[str, str, float | None, bool]) -> WovenGain | None:
    with _LOCK:
        found = _GAINS.get(key)
        if found is not None:
            _GAINS.move_to_end(key)
            return found
    from foley_tui.scene.gain_store import gain_key, shared_store

    stored = shared_store().get(gain_key(*key))
    if stored is None:
        return None
    gain = WovenGain(*stored)
    _remember(key, gain)
    return gain


def _remember(key: tuple[str, str, float | None, bool], gain: WovenGain) -> None:
    with _LOCK:
        _GAINS[key] = gain
        while len(_GAINS) > _CACHE_SIZE:
            _GAINS.popitem(last=False)
