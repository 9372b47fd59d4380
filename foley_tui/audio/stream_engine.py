"""The machinery behind :class:`~foley_tui.audio.sounddevice_player.SoundDevicePlayer`:
the PortAudio callback and its mix, the feeder thread that decodes ahead, voice
creation/swapping and the loudness worker (see that module's docstring for the design).

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from foley_tui.audio.base import PlayerState, PlayerStatus, Source
from foley_tui.audio.decode import BlockDecoder, DecodeError, ResamplerPool, sanitise
from foley_tui.audio.loudness import LoudnessCache, db_to_gain, match_gain_db, measure_file
from foley_tui.audio.player_common import Notifier, PlayerSettings
from foley_tui.audio.voice import HeadCache, Ramp, Voice

#: Fade used when a new sound replaces the old one, on stop and on pause (no click).
SWITCH_FADE_S = 0.010

#: Fade-in when starting mid-sound (seek, resume); a start at 0 plays the file as is.
ENTRY_FADE_S = 0.004

#: How far the feeder decodes ahead of the callback.
READ_AHEAD_S = 1.0

#: Gain changes (volume, measured loudness arriving) are ramped over this time.
GAIN_RAMP_S = 0.030

#: play() decodes at least this many output frames itself (~23 ms at 44.1 kHz), and the
#: callback wakes the feeder only after FEEDER_GRACE_FRAMES of them have played (or
#: fewer are left), leaving ~12 ms for the feeder's first, small, block.
FIRST_BLOCK_FRAMES = 1024

FEEDER_GRACE_FRAMES = 512

#: Output frames kept per cached head (decoded start of a sound), and the cache budget.
HEAD_S = 0.15

HEAD_CACHE_BYTES = 32 * 1024 * 1024

#: The audio callback is Python and needs the GIL: lowering Python's thread switch
#: interval (default 5 ms) bounds how long the UI or the feeder can hold the callback off.
SWITCH_INTERVAL_S = 0.0005

#: A scene's stems are premixed this far ahead of the callback (lane mute/solo and volume
#: apply after the stems, in the callback: heard at the next block; a loop region change
#: is heard after at most this long).
SCENE_READ_AHEAD_S = 0.2

#: Frames a scene is premixed per feeder step.
SCENE_STEP_FRAMES = 2048

#: Idle naps on an unpaced sink (see StreamEngine._idle_nap).
IDLE_AHEAD_S = 0.020

IDLE_NAP_S = 0.002


class StreamEngine:
    """Callback, mix, feeder and voice handling; the state is set by
    ``SoundDevicePlayer.__init__`` and declared here so both halves are type-checked."""

    samplerate: int
    underruns: int
    frames_out: int
    _read_ahead: int
    _resamplers: ResamplerPool
    _lock: threading.RLock
    _settings: PlayerSettings
    _notifier: Notifier
    _voice: Voice | None
    _fading: list[Voice]
    _last_source: Source | None
    _last_position: float
    _last_duration: float
    _error: str | None
    _warning: str | None
    _closed: bool
    _heads: HeadCache
    _loudness: LoudnessCache
    _measuring: set[str]
    _measure_pool: ThreadPoolExecutor
    _ended: deque[Voice]
    _wake: threading.Event
    _kick: threading.Event
    _idle_due: float

    # -- internals (caller thread) ---------------------------------------------------
    def _status(self) -> PlayerStatus:
        voice = self._voice
        if voice is None:
            state = PlayerState.STOPPED
            position = self._last_position
            duration = self._last_duration
            error = self._error
            warning = self._warning
        else:
            if voice.finished:  # played out; the feeder is about to report the end
                state = PlayerState.STOPPED
            elif voice.paused or voice.pausing:
                state = PlayerState.PAUSED
            else:
                state = PlayerState.PLAYING
            position = voice.position
            duration = voice.duration
            error = voice.error or self._error
            warning = voice.warning
        return PlayerStatus(
            state=state,
            position_s=position,
            duration_s=duration,
            source=self._last_source,
            loop=self._settings.loop,
            volume_db=self._settings.volume_db,
            loudness_match=self._settings.loudness_match,
            error=error,
            warning=warning,
        )

    def _gain_for(self, source: Source) -> float:
        db = self._settings.volume_db
        if self._settings.loudness_match:
            lufs = source.loudness_lufs
            if lufs is None:
                lufs = self._loudness.get(source.identity)
            db += match_gain_db(lufs, self._settings.target_lufs)
        return db_to_gain(db)

    def is_warm(self, source: Source, start_s: float = 0.0) -> bool:
        """``play(source, start_s)`` would start from the head cache (no file read)."""
        if start_s > 0:
            return False
        with self._lock:
            return (source.identity, self.samplerate) in self._heads

    def _new_voice(self, source: Source, start_s: float, *, use_head: bool = True) -> Voice:
        """Queue the first block of ``source`` on a new voice: from the head cache (no
        disk access), else by opening the file and decoding one block."""
        key = (source.identity, self.samplerate)
        cached = self._heads.get(key) if use_head and start_s <= 0 else None  # LRU touch
        loop = self._settings.loop
        if cached is not None:
            head, info = cached
            voice = Voice(source, None, info, self.samplerate, 0.0, loop)
            voice.push(head)
            voice.skip = len(head)  # the feeder decodes on from the start and drops these
        else:
            decoder = BlockDecoder(source.path, self.samplerate, start_s, self._resamplers)
            decoder.loop = loop
            try:
                first = decoder.read_first(min_out=FIRST_BLOCK_FRAMES)
            except DecodeError:
                decoder.close()
                raise
            voice = Voice(source, decoder, decoder.info, self.samplerate, decoder.start_s, loop)
            voice.push(first)
            if decoder.start_s == 0 and decoder.emitted == len(first) and len(first):
                self._heads.put(key, first, decoder.info)
            if decoder.done:
                voice.eof = True
        voice.gain = Ramp(self._gain_for(source))
        self._maybe_measure(source)
        return voice

    def _seek_voice(self, voice: Voice, target: float) -> Voice:
        from foley_tui.audio.limiter import lookahead_frames
        from foley_tui.audio.mixer import StemMix
        from foley_tui.audio.scene_voice import SceneVoice

        if not isinstance(voice, SceneVoice):
            return self._new_voice(voice.source, target, use_head=False)
        old = voice.stems
        stems = StemMix(
            voice.scene,
            self.samplerate,
            start_s=target,
            end_s=old.stop_frame / old.rate,
            tail=lookahead_frames(self.samplerate),
        )
        new = SceneVoice(voice.scene, stems, voice.read_ahead or self._read_ahead)
        new.push(new.scene_decoder.read(FIRST_BLOCK_FRAMES))
        new.eof = stems.done
        return new

    def _swap(self, voice: Voice) -> None:
        self._retire_current()
        self._voice = voice
        self._last_duration = voice.duration
        self._kick.set()

    def _retire_current(self) -> None:
        old = self._voice
        self._voice = None
        if old is None:
            return
        old.dying = True
        if old.paused or old.env.value <= 0.0:
            self._ended.append(old)  # the feeder closes its decoder, off the caller's path
            self._wake.set()
            return
        old.pausing = False
        old.env.go(0.0, SWITCH_FADE_S, self.samplerate)
        self._fading.append(old)

    def _maybe_measure(self, source: Source) -> None:
        if not self._settings.loudness_match or source.loudness_lufs is not None:
            return
        if self._loudness.get(source.identity) is not None or source.identity in self._measuring:
            return
        self._measuring.add(source.identity)
        with contextlib.suppress(RuntimeError):  # pool shut down: closing
            self._measure_pool.submit(self._measure, source)

    def _measure(self, source: Source) -> None:
        """Worker: measure loudness, then ramp the playing voice to the matched gain."""
        try:
            lufs = measure_file(source.path)
        except (DecodeError, OSError, ValueError):
            lufs = float("nan")
        finally:
            self._measuring.discard(source.identity)
        self._loudness.put(source.identity, lufs)
        with self._lock:
            voice = self._voice
            if voice is not None and voice.source.identity == source.identity:
                voice.gain.go(self._gain_for(source), GAIN_RAMP_S * 3, self.samplerate)

    # -- audio callback (PortAudio thread) -------------------------------------------
    def _callback(self, outdata: np.ndarray, frames: int, _time: Any, status: Any) -> None:
        # Never touches disk or locks: reads the voice reference once, pops queued arrays.
        outdata.fill(0.0)
        self.frames_out += frames
        voice = self._voice
        if voice is None and not self._fading:
            if not self._idle_nap(frames):
                return
            voice = self._voice  # play() may have kicked us awake: start it right away
            if voice is None and not self._fading:
                return
        self._idle_due = 0.0
        try:
            self._mix(outdata, frames, voice, status)
        except Exception as exc:  # an exception here would abort the stream for good
            outdata.fill(0.0)
            if voice is not None and not voice.reported:
                voice.error = f"playback error: {exc!r}"
                voice.eof = voice.finished = voice.reported = True
                self._ended.append(voice)  # the feeder reports it stopped, with the error
            self._fading = []
            self._wake.set()

    def _idle_nap(self, frames: int) -> bool:
        """Pace idle silence on a sink that runs ahead of real time; True if we napped.

        A clocked device never gets IDLE_AHEAD_S ahead, so this only ever applies to an
        unpaced sink (an ALSA ``file`` PCM), where an idle stream would otherwise spin a
        CPU and the GIL. The nap is an Event wait that play() cuts short, so it adds no
        latency; naps are long enough (2 ms) that their wake-ups rarely interrupt play().
        """
        now = time.perf_counter()
        due = max(self._idle_due, now)
        self._idle_due = due + frames / self.samplerate
        if due - now <= IDLE_AHEAD_S:
            return False
        self._kick.wait(IDLE_NAP_S)
        self._kick.clear()
        return True

    # Voices summed past float32's range are inf for a moment: replaced below, silently.
    @np.errstate(over="ignore", invalid="ignore")
    def _mix(self, outdata: np.ndarray, frames: int, voice: Voice | None, status: Any) -> None:
        if status.output_underflow:
            self.underruns += 1
        if voice is not None and not voice.finished:
            voice.render(outdata, frames)
            if voice.finished and not voice.reported:
                voice.reported = True
                self._ended.append(voice)
                self._wake.set()
            elif (
                not voice.eof
                and voice.buffered < (voice.read_ahead or self._read_ahead) // 2
                and (voice.consumed >= FEEDER_GRACE_FRAMES or voice.buffered < FEEDER_GRACE_FRAMES)
            ):
                # Not on the very first callbacks: the feeder's decoding would compete
                # for the GIL with the callbacks that carry the first frames out.
                self._wake.set()
        # The output ceiling: 0 dBFS for previews; the master's ceiling while a scene
        # sounds, also for a preview fading out under it (added after the scene's
        # limiter, it could otherwise reach full scale).
        ceiling = voice.ceiling if voice is not None else 1.0
        fading = list(self._fading)  # play() may retire another voice meanwhile
        for old in fading:
            ceiling = min(ceiling, old.ceiling)
        if fading:
            for old in fading:
                # Nothing feeds a retired voice: when its buffer runs dry it is done.
                written = old.render(outdata, frames)
                if old.env.value <= 0.0 or old.finished or written < frames:
                    self._fading.remove(old)
                    self._ended.append(old)
                    self._wake.set()  # the feeder closes its decoder
        # The guarantee, whatever the voices did: nothing non-finite, nothing above the
        # ceiling reaches the device.
        sanitise(outdata)
        np.clip(outdata, -ceiling, ceiling, out=outdata)

    # -- feeder thread ---------------------------------------------------------------
    def _feed_loop(self) -> None:
        while not self._closed:
            self._wake.wait(0.02)
            self._wake.clear()
            self._reap()
            voice = self._voice
            if voice is None:
                if not self._resamplers.refill():
                    self._wake.set()  # more to build: come straight back
                continue
            if voice.eof:
                continue
            with voice.lock:
                self._fill(voice)
                warning = voice.nonfinite_warning()
            if warning != voice.warning:
                self._warn(voice, warning)
            self._resamplers.refill(limit=1)  # replace the one this voice took

    def _warn(self, voice: Voice, warning: str | None) -> None:
        """Note what the voice's decoder replaced by silence; the first note of a voice
        is reported at once (a state callback), later counts with its status."""
        first = voice.warning is None
        voice.warning = warning
        if not first:
            return
        with self._lock:
            if self._voice is not voice:
                return
            status = self._status()
        self._notifier.emit(status)

    def _fill(self, voice: Voice) -> None:
        """Decode ahead until the voice holds ``read_ahead`` frames or the file ends."""
        if voice.decoder is None:
            try:
                voice.decoder = BlockDecoder(
                    voice.source.path, self.samplerate, voice.start_s, self._resamplers
                )
            except DecodeError as exc:
                voice.error = str(exc)
                voice.eof = True
                return
        decoder = voice.decoder
        ahead = voice.read_ahead or self._read_ahead
        while voice is self._voice and not voice.eof and voice.buffered < ahead:
            decoder.loop = voice.loop
            # Small while the voice is nearly dry (a quick top-up), then larger blocks.
            step = 4096 if voice.buffered < 2 * FEEDER_GRACE_FRAMES else 16384
            if voice.read_ahead is not None:
                # A scene: premix in small steps, so the GIL-holding work between two
                # audio callbacks stays short (the callback needs the GIL).
                step = SCENE_STEP_FRAMES
            try:
                block = decoder.read(step)
            except (DecodeError, ValueError) as exc:  # ValueError: file closed under us
                voice.error = str(exc)
                voice.eof = True
                break
            if voice.skip:
                drop = min(voice.skip, len(block))
                voice.skip -= drop
                block = block[drop:]
            voice.push(block)
            if decoder.done:
                voice.eof = True
            if self._closed:
                break

    def _reap(self) -> None:
        """Close decoders of finished voices and report natural ends (feeder thread)."""
        while self._ended:
            voice = self._ended.popleft()
            voice.close_decoder()
            if voice.dying:
                continue
            with self._lock:
                if self._voice is voice:
                    self._voice = None
                    self._last_position = voice.duration
                    self._last_duration = voice.duration
                    if voice.error:
                        self._error = voice.error
                    self._warning = voice.nonfinite_warning() or voice.warning
                    status = self._status()
                else:
                    continue
            self._notifier.emit(status)
