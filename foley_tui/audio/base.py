"""Interfaces shared by the audio engine and its users (the UI, the CLI, tests).

Headless: never imports textual. The UI only ever talks to a :class:`Player` and to the
resolver's :class:`Source` / :class:`Unplayable` results, so tests can inject a fake. A
:class:`Scene` (what a player's ``play_scene`` plays: :class:`MixVoice` s and the live
controls) is defined here, beside the protocol that names it; the mixer renders it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from foley_tui.audio.blob import RemoteBlob
from foley_tui.audio.placement import ClipPlacement

if TYPE_CHECKING:
    from foley_tui.audio.duck import DuckEnvelope

AudioRef: TypeAlias = Path | RemoteBlob
"""Where a source's bytes are: a local file, or a store's blob read by range."""


class AudioFormat(Enum):
    """A container/codec sniffed from magic bytes (never from a file name)."""

    WAV = "wav"
    FLAC = "flac"
    OGG = "ogg"  # Vorbis or Opus inside Ogg
    MP3 = "mp3"
    AIFF = "aiff"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Source:
    """Playable audio found for a candidate.

    Attributes:
        path: A local file holding the audio (a blob in the byte store, a user's file...),
            or a :class:`~foley_tui.audio.blob.RemoteBlob` a shared store holds (audio
            pushed to a Redis session, streamed when the file is not on this machine).
        format: The sniffed format.
        how: Which lookup rule found it (``preview``, ``content_sha256``, ``path``,
            ``generations``, ``remote``), for the details pane.
        identity: A stable key for caches (path + size + mtime).
        loudness_lufs: The candidate's declared integrated loudness, if it has one.
    """

    path: AudioRef
    format: AudioFormat
    how: str
    identity: str
    loudness_lufs: float | None = None


@dataclass(frozen=True, slots=True)
class Unplayable:
    """Why a candidate cannot be played; a state to show, never an exception.

    ``kind`` classifies the reason for tests and styling: ``missing`` (blob or file not
    there), ``remote`` (only a URL and network access is off), ``network`` (fetch failed),
    ``unsupported`` (not audio, corrupt or undecodable), ``empty`` (zero length) or
    ``none`` (the candidate names no audio at all).
    """

    reason: str
    kind: str = "unplayable"


#: ``Source.how`` of the pseudo-source a player reports while it plays a scene.
SCENE_HOW = "scene"


class PlayerState(Enum):
    STOPPED = "stopped"
    PLAYING = "playing"
    PAUSED = "paused"


@dataclass(frozen=True, slots=True)
class PlayerStatus:
    """A snapshot of a player, read by the UI on a timer and passed to state callbacks."""

    state: PlayerState
    position_s: float
    duration_s: float
    source: Source | None
    loop: bool
    volume_db: float
    loudness_match: bool
    error: str | None = None
    #: Played, but not as the file says: its non-finite samples were replaced by silence.
    warning: str | None = None
    #: Times the output fell behind since the device opened (a hole of silence each).
    underruns: int = 0
    #: What the player changed about the output to stop them, e.g. ``output latency
    #: raised to 100 ms after underruns``.
    output_note: str | None = None


StateCallback = Callable[[PlayerStatus], None]


@dataclass(frozen=True, slots=True)
class MixVoice:
    """One sound on the scene clock.

    Attributes:
        path: The audio file (or a store's blob, read by range).
        onset_s: Scene time of its first sample (may be negative: starts cut).
        gain: Linear gain (loudness match x any per-pick gain).
        lane: The lane (a layer name, or ``narration``) for mute/solo.
        length_s: Play at most this long (a bed spanning a sentence); None = the file.
        loop: Loop the file to fill ``length_s`` (beds).
        key: An id for the caller (the pick's sound id).
        mono: Fold it to mono (the mean of its channels) on both sides (the woven mix).
        fade_in_s: A linear fade-in over its first seconds (foley's declick).
        fade_out_s: A linear fade-out over its last seconds.
        in_point_s: Where in the file it starts (a region's in-point).
        out_point_s: Where in the file it ends (a region's out point); None: its end.
    """

    path: AudioRef
    onset_s: float
    gain: float = 1.0
    lane: str = "sfx_fg"
    length_s: float | None = None
    loop: bool = False
    key: str = ""
    mono: bool = False
    fade_in_s: float = 0.0
    fade_out_s: float = 0.0
    in_point_s: float = 0.0
    out_point_s: float | None = None

    @property
    def placement(self) -> ClipPlacement:
        """Its place by the scene contract's rules."""
        return ClipPlacement(
            self.onset_s, self.in_point_s, self.length_s, self.loop, self.out_point_s
        )


@dataclass
class Scene:
    """What to play and the live controls (read by the mix at every block).

    Mutate the controls through the methods, or assign ``volume_db`` (each replaces an
    immutable value, so the mixing thread never sees a half-made change).
    """

    voices: list[MixVoice]
    muted: frozenset[str] = frozenset()
    soloed: frozenset[str] = frozenset()
    loop_region: tuple[float, float] | None = None
    volume_db: float = 0.0
    label: str = "scene"
    mix: str = "flat"
    """Which mix this is (``woven`` or ``flat``), for what the UI says."""
    end_s: float | None = None
    """Nothing sounds from here on (the woven mix ends with the narration, as foley's)."""
    duck: DuckEnvelope | None = None
    """The gain of :attr:`ducked` lanes under the words (the woven mix), else None."""
    ducked: frozenset[str] = frozenset()
    master_gain_db: float = 0.0
    """A static gain before the master limiter (the woven mix's master stage)."""
    _revision: int = field(default=0, repr=False)

    def set_muted(self, lane: str, muted: bool) -> None:
        self.muted = self.muted | {lane} if muted else self.muted - {lane}

    def set_soloed(self, lane: str, soloed: bool) -> None:
        self.soloed = self.soloed | {lane} if soloed else self.soloed - {lane}

    def set_loop_region(self, region: tuple[float, float] | None) -> None:
        if region is not None:
            start, end = float(region[0]), float(region[1])
            if not (math.isfinite(start) and math.isfinite(end)) or end <= start:
                raise ValueError(f"a loop region needs start < end (got {region!r})")
            region = (max(start, 0.0), end)
        self.loop_region = region
        self._revision += 1

    def controls(self) -> tuple[object, ...]:
        """Everything premixed stems depend on besides the voices (a cache key): the
        loop region. Mute, solo and volume are applied after the stems, live."""
        return (self.loop_region, self._revision)

    def audible(self, lane: str) -> bool:
        if lane in self.muted:
            return False
        return not self.soloed or lane in self.soloed

    def lanes(self) -> list[str]:
        return sorted({v.lane for v in self.voices})


@runtime_checkable
class Player(Protocol):
    """What the UI needs from an audio player.

    Implementations: ``SoundDevicePlayer`` (PortAudio), ``NullPlayer`` (no device: keeps
    time, makes no sound), ``DeferredPlayer`` (opens one of those in the background) and
    the tests' fake. All methods return quickly and never raise for bad audio or a broken
    device: a failure becomes ``PlayerStatus.error``, a state callback, or a silent player
    whose ``unavailable_reason`` says why.

    Start-up is part of the protocol: the owner calls :meth:`start` once (the app does it
    after its first frame); a player that opens its device in the background reports
    :attr:`starting` until it is up. Players built ready (the device opened in the
    constructor, or no device at all) treat ``start`` as a no-op and are never ``starting``.
    """

    def start(self) -> None:
        """Open the output if that is still to do; returns at once (never waits for a
        device) and may be called more than once."""

    @property
    def starting(self) -> bool:
        """True while the output is still being opened (``available`` is not known yet)."""

    @property
    def available(self) -> bool:
        """True when sound actually reaches a device."""

    @property
    def device_name(self) -> str:
        """A human label for the output ("default (ALSA)", "no audio: <reason>")."""

    @property
    def unavailable_reason(self) -> str | None:
        """Why there is no sound, or None when there is."""

    @property
    def latency_s(self) -> float:
        """The output latency the device reports (0.0 without a device, or before it is
        up): the timeline's tap subtracts it, ``play-scene`` lets it play out."""

    def play(self, source: Source, start_s: float = 0.0) -> None:
        """Start ``source`` at ``start_s``, fading out whatever was playing."""

    def play_scene(self, scene: Scene, start_s: float = 0.0, end_s: float | None = None) -> None:
        """Mix ``scene`` (its picks on the scene clock, the narration) from ``start_s`` to
        ``end_s`` (default: its end, or for ever inside its loop region), replacing what
        was playing. ``status()`` then reports the scene clock; ``source.how`` is
        ``"scene"``. The scene's live controls (mute, solo, loop region) are read as it
        plays."""

    def prefetch_scene(
        self, scene: Scene, start_s: float = 0.0, end_s: float | None = None
    ) -> None:
        """A hint that ``scene`` may be played soon from ``start_s``: premix its first
        block so ``play_scene`` with the same scene, start and controls starts as fast
        as a prefetched preview. Called from a worker; never raises."""

    def stop(self) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def toggle_pause(self) -> None: ...

    def seek(self, seconds: float, *, relative: bool = False) -> None:
        """Move the playhead (clamped to the sound)."""

    def set_loop(self, loop: bool) -> None: ...

    def set_volume_db(self, volume_db: float) -> None:
        """Preview volume in dB (0 = unity), applied on top of the loudness gain."""

    def set_loudness_match(self, enabled: bool, target_lufs: float = -23.0) -> None:
        """Match every sound to ``target_lufs`` (declared loudness, else measured)."""

    def status(self) -> PlayerStatus: ...

    def set_state_callback(self, callback: StateCallback | None) -> None:
        """Called (from any thread) when the state changes: play, stop, end, error."""

    def is_warm(self, source: Source, start_s: float = 0.0) -> bool:
        """True when ``play(source, start_s)`` would read no file (its head is cached, or
        this player reads nothing): the UI thread may then call it; otherwise call
        ``play()`` from a worker (opening and decoding a file is a read)."""

    def prefetch(self, source: Source) -> None:
        """A hint that ``source`` may be played soon: warm whatever makes its ``play()``
        start faster (e.g. decode its first block into a bounded cache, so that play()
        reads no file).

        Must return at once (bounded work: at most a short head decode, never a wait on a
        device or on another sound) and never raise: a source that cannot be read is simply
        not cached, and its play() reports the error. Callers still call it off the UI
        thread (from a worker), never on the key path.
        """

    def close(self) -> None: ...
