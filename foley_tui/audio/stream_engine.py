"""The machinery behind :class:`~foley_tui.audio.sounddevice_player.SoundDevicePlayer`:
the reader thread that decodes each voice ahead, the feeder thread that mixes ahead of
the device, the output ring it mixes into, the PortAudio callback that copies out of it,
voice creation/swapping and the loudness worker (see that module's docstring for the
design).

The reader and the feeder are apart so that nothing the disk does reaches the device: a
read that blocks (a file that left the page cache while other work saturates the disk)
holds up the reader alone, while the feeder goes on mixing what the voice has decoded
(up to :data:`READ_AHEAD_S` of a preview, :data:`SCENE_READ_AHEAD_S` of a scene's stems).
The reader hands each decoded block over by appending it to the voice's queue (a deque:
no lock), and it alone opens, reads and closes decoders, so the feeder never waits on a
decoder's lock either.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from foley_tui.audio.base import PlayerState, PlayerStatus, Source
from foley_tui.audio.decode import BlockDecoder, DecodeError, ResamplerPool, sanitise
from foley_tui.audio.loudness import LoudnessCache, db_to_gain, match_gain_db, measure_file
from foley_tui.audio.player_common import Notifier, PlayerSettings
from foley_tui.audio.priority import READER_PRIORITY, ask_realtime, audio_ceiling
from foley_tui.audio.ring import OutputRing
from foley_tui.audio.voice import HeadCache, Ramp, Voice

#: Fade used when a new sound replaces the old one, on stop and on pause (no click).
SWITCH_FADE_S = 0.010

#: Fade-in when starting mid-sound (seek, resume); a start at 0 plays the file as is.
ENTRY_FADE_S = 0.004

#: How far the reader decodes a preview ahead of the mix.
READ_AHEAD_S = 1.0

#: Gain changes (volume, measured loudness arriving) are ramped over this time.
GAIN_RAMP_S = 0.030

#: play() decodes at least this many output frames itself (or as many as the ring may
#: hold, if more), so the new sound covers the frames it replaces.
FIRST_BLOCK_FRAMES = 1024

#: Output frames kept per cached head (decoded start of a sound), and the cache budget.
HEAD_S = 0.15

HEAD_CACHE_BYTES = 32 * 1024 * 1024

#: The audio callback is Python and needs the GIL: lowering Python's thread switch
#: interval (default 5 ms) bounds how long the UI or the feeder can hold the callback off.
SWITCH_INTERVAL_S = 0.0005

#: A scene's stems are premixed this far ahead of the mix (a loop region change is
#: heard after at most this long plus the ring).
SCENE_READ_AHEAD_S = 0.2

#: Frames a scene is premixed per reader step.
SCENE_STEP_FRAMES = 2048

#: Frames the feeder mixes into the output ring per step (voices, lane gains, limiter).
RENDER_FRAMES = 512

#: The ring's depth: how far the mix runs ahead of the device, so how late a control
#: (mute, solo, volume, pause) is heard at most. The feeder keeps it at the longest gap
#: it has seen between two of its visits (with a margin), within these bounds. The floor
#: covers a new sound's first premix steps, before the feeder has seen any gap of it.
RING_MIN_S = 0.025
RING_MAX_S = 0.050

#: The ring's allocation (more than its deepest fill plus a step).
RING_CAPACITY_S = 0.25

#: The measured gap decays by half over this long (the ring shrinks back slowly).
JITTER_HALF_LIFE_S = 5.0

#: The device latencies tried in turn when the device keeps running dry (each time
#: UNDERRUNS_TO_RAISE of its underruns fall within UNDERRUN_WINDOW_S): a larger device
#: buffer outlasts longer stalls of the audio thread, at the price of a later sound.
LATENCY_STEPS_S = (0.05, 0.1, 0.2)
UNDERRUNS_TO_RAISE = 3
UNDERRUN_WINDOW_S = 10.0

#: The output stream rests (stopped: no callback, no feeder visit) once nothing has
#: sounded for this long; the next sound starts it again before its play() returns.
IDLE_REST_S = 2.0

#: A device's underflow flag in the frames it is handed just after its stream starts is
#: the start itself (the device's buffer being filled), not a device running dry: no
#: reason to raise the latency (and, while nothing sounds, no underrun either).
START_GRACE_S = 0.1

#: While the stream runs idle the feeder looks at the device this often (a device that
#: runs dry while idle is reopened in silence, see StreamEngine._watch_device).
IDLE_POLL_S = 0.02

#: Idle naps on an unpaced sink (see StreamEngine._idle_nap).
IDLE_AHEAD_S = 0.020

IDLE_NAP_S = 0.002


class StreamEngine:
    """Callback, mix, reader, feeder and voice handling, without a device: built
    headless at a sample rate. The feeder thread calls :meth:`mix` and the device's
    callback :meth:`pull`; :class:`~foley_tui.audio.sounddevice_player.SoundDevicePlayer`
    adds the stream, the reader and feeder threads and the player's API.

    ``ring``: the output ring to mix into (default: one of :data:`RING_CAPACITY_S`);
    ``kick``: the event an idle callback naps on, which play() and the feeder set (see
    :meth:`_idle_nap`)."""

    samplerate: int
    underruns: int
    frames_out: int
    _read_ahead: int
    _resamplers: ResamplerPool
    _lock: threading.RLock
    _mix_lock: threading.RLock
    _gate: threading.Lock
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
    _retired: deque[Voice]
    _wake: threading.Event
    _read_wake: threading.Event
    _read_gate: threading.Lock
    _kick: threading.Event
    _idle_due: float
    _ring: OutputRing
    _scratch: np.ndarray
    _mask: np.ndarray
    _period: int
    _limit_state: tuple[float, int]
    _rendering: bool
    _jitter: float
    _jitter_at: float
    _seen_read: int
    _output_note: str | None
    _device_underruns: int
    _device_seen: int
    _underrun_times: deque[float]
    _latency_step: int
    _realtime_asked: bool
    realtime: bool

    def __init__(
        self,
        samplerate: int,
        *,
        read_ahead_s: float = READ_AHEAD_S,
        ring: OutputRing | None = None,
        kick: threading.Event | None = None,
    ) -> None:
        rate = self.samplerate = int(samplerate)
        self._read_ahead = max(int(read_ahead_s * rate), 4096)
        self._resamplers = ResamplerPool(rate)
        self._lock = threading.RLock()
        self._settings = PlayerSettings()
        self._notifier = Notifier("foley-player-notify")
        self._voice = None
        self._fading = []
        self._last_source = None
        self._last_position = 0.0
        self._last_duration = 0.0
        self._error = None
        self._warning = None
        self._closed = False
        self._heads = HeadCache(HEAD_CACHE_BYTES)
        self._loudness = LoudnessCache()
        self._measuring = set()
        self._measure_pool = ThreadPoolExecutor(1, thread_name_prefix="foley-loudness")
        self._ended = deque()
        self._retired = deque()  # voices whose decoders the reader closes
        self._wake = threading.Event()  # the feeder's: something to mix or report
        self._read_wake = threading.Event()  # the reader's: a voice has room to decode
        self.underruns = 0
        self._kick = kick if kick is not None else threading.Event()
        self._idle_due = 0.0
        self.frames_out = 0  # frames handed to the device (diagnostics, tests)
        # The mix's state (the ring and its buffers, allocated once). Reentrant: a
        # caller holding the mix (held()) may mix itself.
        self._mix_lock = threading.RLock()
        # Held by the feeder while it mixes (not while it waits), and by the reader
        # while it decodes: held() takes both, so nothing of theirs runs meanwhile. The
        # feeder never takes the reader's.
        self._gate = threading.Lock()
        self._read_gate = threading.Lock()
        self._ring = ring if ring is not None else OutputRing(int(RING_CAPACITY_S * rate))
        # Room to mix anything the ring may hold at once (a switch mixes the new voice
        # over every queued frame).
        self._scratch = np.zeros((self._ring.capacity, 2), dtype=np.float32)
        self._mask = np.zeros((8192, 2), dtype=bool)
        self._period = 0  # the longest callback (frames) so far
        # The device's limit and the ring frame it holds until: one tuple, replaced
        # whole, so the callback never sees a ceiling with another's end.
        self._limit_state = (1.0, 0)
        self._rendering = False  # the feeder has frames still to mix
        self._jitter = 0.0  # frames the device took between two feeder visits (decaying)
        self._jitter_at = time.monotonic()
        self._seen_read = 0
        self._output_note = None  # what was changed about the output, for the status
        self._device_underruns = 0  # the device's own (PortAudio's flag), counted apart
        self._device_seen = 0
        self._underrun_times = deque(maxlen=UNDERRUNS_TO_RAISE)
        self._latency_step = 0
        self._realtime_asked = False  # asked by the first callback of each stream
        self.realtime = False  # the callback thread runs at a real-time priority
        self._idle_since: float | None = None  # when the feeder last found nothing to mix
        self._grace_until = int(START_GRACE_S * rate)  # frames_out where a start's grace ends

    # -- public read-only state (diagnostics, tests) ---------------------------------
    @property
    def voice(self) -> Voice | None:
        """The sounding voice (None: silence)."""
        return self._voice

    @property
    def fading(self) -> tuple[Voice, ...]:
        """The voices switched away from that are still fading out in the mix."""
        return tuple(self._fading)

    @property
    def retiring(self) -> tuple[Voice, ...]:
        """The voices switched away from and not closed yet: fading out, or silent and
        waiting for the feeder to close them."""
        return (*self._fading, *self._ended)

    @property
    def ring(self) -> OutputRing:
        """The output ring the mix is written to and the callback copies out of."""
        return self._ring

    def measured_lufs(self, source: Source) -> float | None:
        """The loudness measured for ``source`` (NaN: it could not be), None until then."""
        return self._loudness.get(source.identity)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Nothing is switched, decoded, mixed or reported while this is held (the
        device's callback still copies out what is queued: it takes no lock)."""
        with self._gate, self._read_gate, self._lock, self._mix_lock:
            yield

    @property
    def queued_frames(self) -> int:
        """Mixed frames waiting in the output ring for the device."""
        return self._ring.queued

    @property
    def rendering(self) -> bool:
        """True while the feeder has frames still to mix (a sound playing and not
        paused, or one fading out)."""
        return self._rendering

    @property
    def idle(self) -> bool:
        """Nothing playing, fading or waiting for the device."""
        return self._voice is None and not self._fading and self._ring.queued == 0

    @property
    def ring_target_frames(self) -> int:
        """How deep the feeder keeps the output ring now (see :data:`RING_MAX_S`)."""
        rate = self.samplerate
        low, high = int(RING_MIN_S * rate), int(RING_MAX_S * rate)
        return min(max(int(1.5 * self._jitter) + RENDER_FRAMES, low), high)

    @property
    def ring_ms(self) -> float:
        """:attr:`ring_target_frames` in milliseconds: the most a control waits."""
        return self.ring_target_frames * 1e3 / self.samplerate

    # -- internals (caller thread) ---------------------------------------------------
    def _heard_index(self, voice: Voice) -> int:
        """Output frames of ``voice`` the device has been handed so far."""
        marks = voice.ring_marks
        read = self._ring.read
        while len(marks) > 1 and marks[1][0] <= read:
            marks.popleft()
        if not marks:
            return 0
        ring_at, index = marks[0]
        heard = index + max(read - ring_at, 0)
        if len(marks) > 1:
            heard = min(heard, marks[1][1])
        return min(heard, voice.rendered)

    def _heard_position(self, voice: Voice) -> float:
        return voice.position_of(self._heard_index(voice))

    def _heard_out(self, voice: Voice) -> bool:
        """The voice's last frame has been handed to the device."""
        return voice.finished and voice.end_ring is not None and self._ring.read >= voice.end_ring

    def _status(self) -> PlayerStatus:
        voice = self._voice
        if voice is None:
            state = PlayerState.STOPPED
            position = self._last_position
            duration = self._last_duration
            error = self._error
            warning = self._warning
        else:
            if self._heard_out(voice):  # played out; the feeder is about to report it
                state = PlayerState.STOPPED
            elif voice.paused or voice.pausing:
                state = PlayerState.PAUSED
            else:
                state = PlayerState.PLAYING
            position = self._heard_position(voice)
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
            underruns=self.underruns,
            output_note=self._output_note,
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

    def _first_frames(self) -> int:
        """Frames a new voice brings decoded: enough to cover what it replaces."""
        return max(FIRST_BLOCK_FRAMES, int(RING_MAX_S * self.samplerate) + RENDER_FRAMES)

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
            voice.skip = len(head)  # the reader decodes on from the start and drops these
        else:
            decoder = BlockDecoder(source.path, self.samplerate, start_s, self._resamplers)
            decoder.loop = loop
            try:
                first = decoder.read_first(min_out=self._first_frames())
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
        new.push(new.scene_decoder.read(self._first_frames()))
        new.eof = stems.done
        return new

    def switch(self, voice: Voice | None) -> None:
        """Make ``voice`` the sounding one (None: silence), heard one device period
        from now: what the ring already holds of the old sound fades out there."""
        if self._closed:
            return
        with self._mix_lock:
            self._cut_over(voice)
        if voice is not None:
            self._last_duration = voice.duration
            self._wake_output()  # its first frames are in the ring already
        self._wake.set()
        self._read_wake.set()

    def _cut_over(self, voice: Voice | None) -> None:
        """Rewrite the queued mix so ``voice`` replaces what sounds (mix lock held).

        The frames the callback may be copying (one device period) stay as they are;
        from there the queued frames fade out over SWITCH_FADE_S, and the new voice is
        mixed over them from that frame on. When the queue is shorter than the fade,
        the old voices finish the fade themselves in the next steps."""
        ring = self._ring
        if voice is not None:
            # A scene's ceiling holds from the switch on, for the old sound's last
            # frames and its fade too (they sound together with the scene, or just
            # before it). It is lowered before any queued frame changes: the callback
            # may copy the faded frames the moment they are written.
            self._lower_ceiling(voice.ceiling, ring.write)
        olds = [v for v in (self._voice, *self._fading) if v is not None]
        start = min(ring.read + self._period, ring.write) if ring.queued else ring.write
        pending = ring.write - start
        fade = max(int(SWITCH_FADE_S * self.samplerate), 1)
        level = ring.fade_out(start, fade)
        for old in olds:
            old.dying = True
            old.pausing = False
        if level <= 0.0:
            self._ended.extend(olds)  # silent in the ring already; the feeder retires them
            self._fading = []
        else:
            keep = []
            for old in olds:
                if old.paused or old.env.value <= 0.0:
                    self._ended.append(old)
                    continue
                old.env.value *= level
                old.env.go(0.0, SWITCH_FADE_S * level, self.samplerate)
                keep.append(old)
            self._fading = keep
        self._voice = voice
        if voice is None:
            self._rendering = bool(self._fading)
            return
        voice.ring_marks.clear()
        overlap = self._renderable(voice, pending)
        if pending and overlap >= pending:
            # The new voice covers the whole faded stretch: mix it over from ``start``.
            out = self._scratch[:pending]
            out.fill(0.0)
            written = self._render_voice(voice, out, pending)
            self._lower_ceiling(voice.ceiling, ring.write)
            sanitise(out)
            np.clip(out, -voice.ceiling, voice.ceiling, out=out)
            voice.ring_marks.append((start, 0))
            ring.add(start, out[:written])
            ring.clip(start, pending, self._limit_state[0])
            if voice.finished and voice.end_ring is None:
                voice.end_ring = start + written
        self._render_first()
        self._rendering = True

    def _render_first(self) -> None:
        """Mix up to the ring's depth now (mix lock held): the next callbacks have it,
        whenever the feeder comes. A device may take several periods at once when a
        sound starts, and the feeder's first visit may wait for the caller to drop the
        GIL: a single period would run dry in between."""
        want = max(RENDER_FRAMES, self._period, self.ring_target_frames) - self._ring.queued
        while want > 0:
            made = self._render(want)
            if not made:
                return
            want -= made

    def _render_now(self) -> None:
        """Mix the first frames of what just became audible (resume), not at the
        feeder's next visit."""
        with self._mix_lock:
            self._render_first()
        self._wake.set()

    def _renderable(self, voice: Voice, frames: int) -> int:
        """Output frames ``voice`` can mix now (at most ``frames``)."""
        if voice.paused:
            return 0
        if voice.eof:
            return frames
        ready = voice.buffered - getattr(getattr(voice, "bus", None), "discard", 0)
        return max(min(frames, ready), 0)

    def _lower_ceiling(self, ceiling: float, until: int) -> None:
        """The device's limit drops at once (before the frames mixed under it reach
        the ring) and rises again only once the ring has handed out every frame before
        ``until``."""
        if ceiling >= 1.0:
            return
        low, end = self._limit_state
        if self._ring.read >= end:
            low = 1.0  # the last lowered stretch is handed out: its limit is over
        self._limit_state = (min(low, ceiling), max(end, until))

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
            with audio_ceiling():  # it holds the GIL the callback needs
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
    def pull(
        self, outdata: np.ndarray, frames: int, time_info: Any = None, status: Any = None
    ) -> None:
        """The device's callback (PortAudio's signature): fill ``outdata`` with the next
        ``frames`` mixed frames. ``status``: PortAudio's flags (None: no underflow)."""
        # Copies what the feeder mixed, nothing else: no lock, no allocation of samples,
        # no mixing, whatever plays.
        try:
            self._copy_out(outdata, frames, status)
        except Exception:  # an exception here would abort the stream for good
            outdata.fill(0.0)

    def _copy_out(self, outdata: np.ndarray, frames: int, status: Any) -> None:
        if not self._realtime_asked:
            self._ask_realtime()
        if status is not None and status.output_underflow:
            self._device_ran_dry()
        self.frames_out += frames
        if frames > self._period:
            self._period = frames  # the most the callback may be copying at a time
        ring = self._ring
        ahead = self._pace(frames)
        first = ring.read
        got = ring.read_into(outdata, frames)
        if got < frames:
            if ahead:
                self._idle_nap()
                if not got:  # play() or the feeder may have written meanwhile
                    ring.read_into(outdata, frames)
            elif self._rendering:
                self.underruns += 1  # the feeder fell behind: this block has a hole
        self._limit(outdata, frames, first)

    def _device_ran_dry(self) -> None:
        """The device's underflow flag: an underrun when something sounds (a hole in
        it; in silence no one hears it). Past a stream's start, a device that runs dry
        is one to open with a larger buffer, sounding or not (see :meth:`_watch_device`);
        at its start it is the start itself (a reopen's own start must not count as a
        reason to raise the latency again)."""
        if self._rendering or self._ring.queued:
            self.underruns += 1
        if self.frames_out >= self._grace_until:
            self._device_underruns += 1

    def _started(self) -> None:
        """A stream (re)started: its first frames have a grace (see START_GRACE_S)."""
        self._grace_until = self.frames_out + int(START_GRACE_S * self.samplerate)

    def _ask_realtime(self) -> None:
        """Once per stream, from its callback thread: a real-time priority, if the
        system grants it, so busy processes at normal priority never delay the device's
        next block. Only PortAudio's own thread (one Python did not start) asks."""
        self._realtime_asked = True
        if not isinstance(threading.current_thread(), threading._DummyThread):
            return
        self.realtime = ask_realtime()

    def _limit(self, outdata: np.ndarray, frames: int, first: int) -> None:
        """The guarantee, whatever the mix did: nothing non-finite, nothing above the
        ceiling reaches the device (in place, in a mask allocated up front). ``first``:
        the ring frame this block started at."""
        mask = self._mask
        if len(mask) < frames:  # a device period beyond any seen: grow once
            mask = self._mask = np.zeros((frames, outdata.shape[1]), dtype=bool)
        bad = mask[:frames]
        np.isfinite(outdata, out=bad)
        np.logical_not(bad, out=bad)
        np.copyto(outdata, 0.0, where=bad)
        low, end = self._limit_state  # one read: the feeder replaces it whole
        ceiling = low if first < end else 1.0
        np.clip(outdata, -ceiling, ceiling, out=outdata)

    def _pace(self, frames: int) -> bool:
        """True when the device has asked for IDLE_AHEAD_S more than real time: an
        unpaced sink (an ALSA ``file`` PCM), never a clocked device."""
        now = time.perf_counter()
        due = max(self._idle_due, now)
        self._idle_due = due + frames / self.samplerate
        return due - now > IDLE_AHEAD_S

    def _idle_nap(self) -> None:
        """Nap instead of handing out silence at once, on an unpaced sink only, where an
        idle or starved stream would otherwise spin a CPU and the GIL. The nap is an
        Event wait that play() and the feeder cut short, so it adds no latency; naps are
        long enough (2 ms) that their wake-ups rarely interrupt play()."""
        self._kick.wait(IDLE_NAP_S)
        self._kick.clear()

    # -- feeder thread ---------------------------------------------------------------
    def _feed_loop(self) -> None:
        # The feeder holds the GIL the callback needs: if busy processes could preempt
        # it while it does, no device buffer would be long enough. It asks for the same
        # priority as the callback (granted or not, like the callback's).
        ask_realtime()
        while not self._closed:
            self._reap()
            if self._voice is None and not self._fading:
                self._rendering = False
                self._idle_wait()
                continue
            self._idle_since = None
            with self._gate:
                self._top_up()
                self._check_end()
                self._watch_device()
                self._ask_read()
            self._nap()

    def _ask_read(self) -> None:
        """Wake the reader when the sounding voice has room for another block."""
        voice = self._voice
        if (
            voice is not None
            and not voice.eof
            and voice.buffered < (voice.read_ahead or self._read_ahead)
        ):
            self._read_wake.set()

    # -- reader thread ---------------------------------------------------------------
    def _read_loop(self) -> None:
        # The reader holds the GIL while it decodes: it runs above every normal process
        # (so none preempts it while it holds the GIL) and below the audio path, whose
        # threads preempt it (and take the GIL at its next switch).
        ask_realtime(READER_PRIORITY)
        while not self._closed:
            self._close_retired()
            with self._read_gate:
                read = self._decode_step()
            if read:
                continue
            if self._voice is None and not self._resamplers.refill(limit=1):
                continue  # idle: build the next ready-made resampler
            self._read_wake.wait()
            self._read_wake.clear()

    def _close_retired(self) -> None:
        """Close the decoders of the voices the feeder has reaped (reader thread: a
        close may wait for the voice's lock, held while its decoder reads)."""
        while self._retired:
            self._retired.popleft().close_decoder()

    def _idle_wait(self) -> None:
        """Nothing to mix: wait for play() (or a reap, or close). While the stream runs
        idle, look at the device every IDLE_POLL_S; once nothing has sounded for
        IDLE_REST_S, rest the stream and wait without a timeout: an idle player then
        costs no CPU at all."""
        if not self.output_running:
            self._wake.wait()
            self._wake.clear()
            return
        if self._idle_since is None:
            self._idle_since = time.monotonic()
        self._wake.wait(IDLE_POLL_S)
        self._wake.clear()
        # A device that runs dry while idle will while playing: reopening it now, in
        # silence, costs nothing audible.
        self._watch_device()
        since = self._idle_since  # once: a prefetch on another thread moves it on
        if since is not None and time.monotonic() - since >= IDLE_REST_S and self._rest_output():
            self._idle_since = None

    @property
    def output_running(self) -> bool:
        """The output stream runs (it rests once nothing has sounded for IDLE_REST_S)."""
        return False

    def _rest_output(self) -> bool:
        """Stop the output stream if nothing sounds; True if it stopped (feeder)."""
        return False

    def _wake_output(self) -> None:
        """Start the output stream again if it rests (the caller of a new sound)."""

    def _watch_device(self) -> None:
        """Open the device with a larger buffer when it keeps running dry (its own
        underruns: the audio thread was not scheduled in time, which no ring depth
        helps)."""
        count = self._device_underruns
        seen = self._underrun_times
        if count == self._device_seen:
            return
        now = time.monotonic()
        for _ in range(min(count - self._device_seen, UNDERRUNS_TO_RAISE)):
            seen.append(now)
        self._device_seen = count
        if len(seen) < UNDERRUNS_TO_RAISE or now - seen[0] > UNDERRUN_WINDOW_S:
            return
        if self._latency_step >= len(LATENCY_STEPS_S):
            return
        latency = LATENCY_STEPS_S[self._latency_step]
        self._latency_step += 1
        seen.clear()
        if self._reopen(latency):
            self._output_note = (
                f"output latency raised to {self.latency_s * 1e3:.0f} ms after underruns"
            )
            with self._lock:
                status = self._status()
            self._notifier.emit(status)

    def _reopen(self, latency: float) -> bool:
        """Reopen the output with ``latency`` (seconds); True if it is open so."""
        return False

    @property
    def latency_s(self) -> float:
        return 0.0

    def _nap(self) -> None:
        """Wait until the ring has drained to about half its depth (play() and a
        wake-up from the loudness worker cut it short)."""
        rate = self.samplerate
        if self._rendering:
            ahead = self._ring.queued - self.ring_target_frames // 2
            self._wake.wait(min(max(ahead / rate, 0.0005), 0.005))
        else:  # paused, or the end is in the ring: nothing to mix until it has played
            self._wake.wait(min(max(self._ring.queued / rate, 0.001), 0.02))
        self._wake.clear()

    def _top_up(self) -> None:
        """Mix until the ring holds its target depth (or nothing more can be mixed)."""
        ring = self._ring
        self._measure_jitter()
        target = self.ring_target_frames
        while not self._closed and ring.queued < target:
            made = self.mix(min(RENDER_FRAMES, target - ring.queued, ring.free))
            self._kick.set()  # an unpaced sink's nap: there is something to play
            if not made:
                break

    def _measure_jitter(self) -> None:
        """The frames the device took since the last visit: the ring must hold more."""
        read = self._ring.read
        taken = read - self._seen_read
        self._seen_read = read
        now = time.monotonic()
        elapsed = now - self._jitter_at
        self._jitter_at = now
        self._jitter *= 0.5 ** (elapsed / JITTER_HALF_LIFE_S)
        if self._rendering and taken > self._jitter:
            self._jitter = float(taken)

    def mix(self, frames: int) -> int:
        """Mix the next ``frames`` (at most) of every voice into the ring, as the feeder
        does; returns the frames mixed."""
        with self._mix_lock:
            return self._render(frames)

    def _render(self, frames: int) -> int:
        """Mix the next ``frames`` (at most) of every voice into the ring; returns the
        frames mixed (mix lock held). A voice whose decoder is behind limits the step:
        the ring never holds a hole in a sound."""
        voice = self._voice
        fading = self._fading
        sounding = voice is not None and not voice.finished and not voice.paused
        # Set once the frames are in the ring (below): a callback that finds the ring
        # empty while a sound starts from silence is no underrun, it is the moment
        # before the sound.
        rendering = sounding or bool(fading)
        frames = min(frames, len(self._scratch), self._ring.free)
        if voice is not None and sounding:
            # Only what the voice has decoded: a hole in the ring would be a hole in it.
            frames = self._renderable(voice, frames)
        elif not fading:
            frames = 0
        if frames <= 0:
            self._rendering = rendering
            return 0
        out = self._scratch[:frames]
        out.fill(0.0)
        made = 0
        # The current voice's ceiling holds for what fades out under it even once it
        # has played out (a one-block scene over a preview's fade), until it is reaped.
        ceiling = voice.ceiling if voice is not None else 1.0
        ring = self._ring
        own = 0
        if voice is not None and not voice.finished:
            index = voice.rendered
            written = own = self._render_voice(voice, out, frames)
            if written:
                marks = voice.ring_marks
                if not marks or marks[-1][1] + ring.write - marks[-1][0] != index:
                    marks.append((ring.write, index))
            made = written
        for old in list(fading):
            written = self._render_voice(old, out, frames)
            if old.env.value <= 0.0 or old.finished or written < frames:
                fading.remove(old)
                self._ended.append(old)
            made = max(made, written)
            ceiling = min(ceiling, old.ceiling)
        if voice is not None and voice.finished and voice.end_ring is None:
            voice.end_ring = ring.write + own
        if not made:
            self._rendering = rendering
            return 0
        block = out[:made]
        sanitise(block)
        self._lower_ceiling(ceiling, ring.write + made)
        np.clip(block, -ceiling, ceiling, out=block)
        ring.push(block)
        self._rendering = rendering
        return made

    def _render_voice(self, voice: Voice, out: np.ndarray, frames: int) -> int:
        """``voice.render`` that turns an exception into the voice's end, with the error
        (a broken voice must not stop the others, nor the feeder)."""
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                written = voice.render(out, frames)
        except Exception as exc:
            voice.error = voice.error or f"playback error: {exc!r}"
            voice.eof = voice.finished = True
            if voice.end_ring is None:
                voice.end_ring = self._ring.write
            return 0
        if voice.finished and voice.end_ring is None and written == 0:
            voice.end_ring = self._ring.write
        return written

    def _check_end(self) -> None:
        """Report a sound that has played out (its last frame handed to the device)."""
        voice = self._voice
        if voice is None or voice.reported or not self._heard_out(voice):
            return
        voice.reported = True
        self._ended.append(voice)

    def _decode_step(self) -> bool:
        """Decode one block ahead for the sounding voice, if it wants one (reader
        thread); True if it did (the reader then comes straight back for the next)."""
        voice = self._voice
        if voice is None or voice.eof or voice.dying:
            return False
        ahead = voice.read_ahead or self._read_ahead
        if voice.buffered >= ahead:
            return False
        with voice.lock:
            self._fill(voice)
            warning = voice.nonfinite_warning()
        self._wake.set()  # the feeder: more to mix
        if warning != voice.warning:
            self._warn(voice, warning)
        self._resamplers.refill(limit=1)  # replace the one this voice took
        return True

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
        """Decode one block ahead (the ring is topped up between two blocks)."""
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
        if voice is not self._voice or voice.eof:
            return
        decoder.loop = voice.loop
        # Small while the voice is nearly dry (a quick top-up), then larger blocks.
        step = 4096 if voice.buffered < 2 * RENDER_FRAMES else 16384
        if voice.read_ahead is not None:
            # A scene: premix in small steps, so the GIL-holding work between two
            # visits to the ring stays short.
            step = SCENE_STEP_FRAMES
        try:
            block = decoder.read(step)
        except (DecodeError, ValueError) as exc:  # ValueError: file closed under us
            voice.error = str(exc)
            voice.eof = True
            return
        if voice.skip:
            drop = min(voice.skip, len(block))
            voice.skip -= drop
            block = block[drop:]
        voice.push(block)
        if decoder.done:
            voice.eof = True

    def _reap(self) -> None:
        """Hand finished voices to the reader to close and report natural ends (feeder
        thread)."""
        while self._ended:
            voice = self._ended.popleft()
            self._retired.append(voice)
            self._read_wake.set()
            if voice.dying:
                continue
            with self._lock:
                if self._voice is voice:
                    with self._mix_lock:
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
