"""SoundDevicePlayer: the PortAudio player.

Headless: never imports textual; ``sounddevice`` is imported by the constructor
(:func:`~foley_tui.audio.devices.import_sounddevice`), not at import time.

How :class:`SoundDevicePlayer` gets sound out, promptly and without dropouts on a busy
machine (the way audio applications are built: all the work ahead of the device):

* ONE callback ``OutputStream`` is opened at the device's own default rate, stereo
  float32, ``latency='low'``, and kept open. Opening a stream per play costs ~0.8 ms,
  switching sound inside a running stream far less. Once nothing has sounded for
  :data:`~foley_tui.audio.stream_engine.IDLE_REST_S` the stream rests (stopped, still
  open: no callback, and the feeder and the reader wait on events), so an idle player
  costs no CPU; the next sound starts it again inside play(), after its first frames
  are in the ring. On a sink that is not clocked (an ALSA ``file`` PCM in tests) idle
  callbacks nap, so a running idle stream never spins a CPU; play() cuts the nap short.
* The audio callback only copies mixed frames out of an output ring allocated up front,
  replaces non-finite samples and clamps to the ceiling: no lock, no allocation of
  samples, no mixing, whatever plays. Two threads do everything else ahead of it: a
  reader decodes each voice ahead (about a second for a preview, the premixed stems of a
  scene; it alone touches files, so a read that blocks on the disk never holds up the
  mix), and a feeder mixes every voice (previews included, fading ones too), the scene's
  lane gains and its limiter into the ring, keeping it as deep as the longest gap it has
  seen between two of its visits (25 to 50 ms,
  :data:`~foley_tui.audio.stream_engine.RING_MAX_S`): that depth is how late a mute,
  solo, volume change or pause is heard at most.
* ``play()`` opens the file and decodes just the first block (a few hundred microseconds,
  whatever the file's length; the resampler comes ready-made from a pool), or takes it
  from a bounded cache of recently played or prefetched heads (:meth:`prefetch`); it
  puts it on a new *voice* and rewrites the ring from one device period ahead: what the
  ring holds of the old sound fades out over ~10 ms there, the new sound is mixed over
  it. So a new sound, a seek and a stop are heard at the next callback, never after the
  ring's depth; from silence the first block is in the ring before play() returns.
* If the feeder falls behind, the callback plays silence for the missing frames (an
  underrun, counted with PortAudio's own) and the playhead holds (no frames are lost).
* Gain = preview volume x loudness match, ramped per block so changes never click. With
  loudness match on, the candidate's declared ``loudness_lufs`` is used at once; otherwise
  the sound starts at the declared/unity gain while a worker measures BS.1770 loudness,
  then ramps to the matched gain (measured values are cached by source identity).
* A sound's tail is never cut: the resampler is flushed at the end of the file, the voice
  ends only when its last frame has been handed to the device, and ``close()`` stops the
  stream gracefully (PortAudio drains its buffers).

State callbacks always run on the player's own notifier thread, never on the caller's.
The callback, ring, mixing, reader, feeder and loudness machinery is in
:mod:`foley_tui.audio.stream_engine`; this module opens the stream and holds the public
player API.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from foley_tui.audio.base import SCENE_HOW, PlayerStatus, Source, StateCallback
from foley_tui.audio.decode import BlockDecoder, DecodeError
from foley_tui.audio.devices import (
    AudioUnavailable,
    import_sounddevice,
    open_failure,
    parse_device,
)
from foley_tui.audio.player_common import DEFAULT_TARGET_LUFS
from foley_tui.audio.priority import at_audio_ceiling, audio_ceiling
from foley_tui.audio.stream_engine import (
    ENTRY_FADE_S,
    GAIN_RAMP_S,
    HEAD_S,
    READ_AHEAD_S,
    SCENE_READ_AHEAD_S,
    SWITCH_FADE_S,
    SWITCH_INTERVAL_S,
    StreamEngine,
)
from foley_tui.audio.voice import Ramp

if TYPE_CHECKING:
    from foley_tui.audio.base import Scene
    from foley_tui.audio.scene_voice import SceneVoice


class SoundDevicePlayer(StreamEngine):
    """The PortAudio player (see the module docstring for how it works)."""

    def __init__(
        self,
        device: str | int | None = None,
        *,
        read_ahead_s: float = READ_AHEAD_S,
        kick: threading.Event | None = None,
    ):
        """``kick``: the event an idle callback naps on (see :class:`StreamEngine`)."""
        sd = import_sounddevice()
        # The scene machinery (the limiter's scipy) is imported before the stream runs:
        # an import holds the GIL the callback needs, for as long as loading a shared
        # library from disk takes, which no priority shortens.
        import foley_tui.audio.scene_voice  # noqa: F401

        self._sd = sd
        self._device = parse_device(device)
        try:
            info = sd.query_devices(self._device, "output")
            samplerate = round(float(info["default_samplerate"]))
            self._device_label = f"{info['name']} ({sd.query_hostapis(info['hostapi'])['name']})"
        except (sd.PortAudioError, ValueError) as exc:
            raise open_failure(None if self._device is None else device, exc) from None
        super().__init__(samplerate, read_ahead_s=read_ahead_s, kick=kick)
        try:
            with audio_ceiling():  # see _open_stream
                self._stream = self._open_stream("low")
        except (sd.PortAudioError, ValueError) as exc:
            self._measure_pool.shutdown(wait=False)
            self._resamplers.close()
            raise open_failure(None if self._device is None else device, exc) from None
        self._prepared: tuple[tuple[object, ...], SceneVoice] | None = None
        self._stream_lock = threading.Lock()
        self._running = False
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._feeder = threading.Thread(target=self._feed_loop, name="foley-feeder", daemon=True)
        self._reader = threading.Thread(target=self._read_loop, name="foley-reader", daemon=True)
        self._feeder.start()
        self._reader.start()
        try:
            with audio_ceiling():
                self._stream.start()
        except sd.PortAudioError as exc:
            self.close()
            raise AudioUnavailable(f"cannot start the output stream: {exc}") from None
        self._running = True
        self._wake.set()  # the feeder watches the running stream (and rests it)

    def _open_stream(self, latency: str | float) -> Any:
        """Open (not start) the output. Called at a real-time priority: the threads the
        host API starts for the stream (PortAudio's, and the ALSA pulse plugin's
        mainloop, which carries every block to the sound server) inherit it, so busy
        processes never hold the device's data up on its way out."""
        return self._sd.OutputStream(
            samplerate=self.samplerate,
            channels=2,
            dtype="float32",
            latency=latency,
            device=self._device,
            callback=self.pull,
        )

    def _reopen(self, latency: float) -> bool:
        """Reopen the output with a larger buffer (feeder thread): the ring keeps its
        frames, so what plays resumes where it was."""
        sd = self._sd
        with self._stream_lock:
            if self._closed or not self._running:
                return False
            if float(self._stream.latency) >= latency:
                return False
            with contextlib.suppress(Exception):
                self._stream.abort()
            with contextlib.suppress(Exception):
                self._stream.close()
            self._running = False
            self._realtime_asked = False  # the new stream's callback thread asks again
            self._started()
            for choice in (latency, "low"):  # never left without a stream
                try:
                    stream = self._open_stream(choice)
                    stream.start()
                except (sd.PortAudioError, ValueError):
                    continue
                self._stream = stream
                self._running = True
                return choice == latency
            return False

    @property
    def output_running(self) -> bool:
        """The output stream runs: a sound plays, or one did within the last
        :data:`~foley_tui.audio.stream_engine.IDLE_REST_S`; otherwise it rests (stopped,
        no callback runs) until the next sound starts it."""
        return self._running

    def _rest_output(self) -> bool:
        """Stop the stream while nothing sounds (feeder thread). Aborted, not drained:
        what the device still holds is silence by now, and a drain through a sound
        server can take longer than a play() may wait for the stream's lock."""
        with self._stream_lock:
            if self._closed or not self._running or not self.idle:
                return False
            try:
                self._stream.abort()
            except self._sd.PortAudioError:
                return False
            self._running = False
            return True

    def _wake_output(self) -> None:
        """Start the resting stream (the caller of play(), at the audio ceiling): the
        new sound's first frames are in the ring already, and the first callback of
        the started stream copies them out. Always under the stream's lock: a rest
        the feeder began before this sound must have finished before it is undone."""
        sd = self._sd
        with self._stream_lock:
            if self._closed or self._running:
                return
            self._realtime_asked = False  # a started stream has a new callback thread
            self._started()
            try:
                self._stream.start()
            except sd.PortAudioError:
                # The device went away while resting: open it again, as at start-up.
                with contextlib.suppress(Exception):
                    self._stream.close()
                try:
                    stream = self._open_stream("low")
                    stream.start()
                except (sd.PortAudioError, ValueError) as exc:
                    self._error = f"cannot start the output stream: {exc}"
                    return
                self._stream = stream
            self._running = True

    def _ready_output(self) -> None:
        """Start a resting stream ahead of a likely play (a prefetch), and keep a running
        idle one from resting for another IDLE_REST_S."""
        self._idle_since = time.monotonic()  # the feeder's idle clock starts again
        self._wake_output()
        self._wake.set()

    # -- Player protocol -------------------------------------------------------------
    def start(self) -> None:
        """Nothing to do: this player is ready once constructed."""

    @property
    def starting(self) -> bool:
        return False

    @property
    def available(self) -> bool:
        return not self._closed

    @property
    def device_name(self) -> str:
        return self._device_label

    @property
    def unavailable_reason(self) -> str | None:
        return "player closed" if self._closed else None

    @property
    def prepared_scene(self) -> SceneVoice | None:
        """The scene voice :meth:`prefetch_scene` premixed, until a play_scene() takes
        or drops it."""
        prepared = self._prepared
        return None if prepared is None else prepared[1]

    @property
    def latency_s(self) -> float:
        """The output latency PortAudio reports for the open stream."""
        return float(self._stream.latency)

    @at_audio_ceiling
    def play(self, source: Source, start_s: float = 0.0) -> None:
        with self._lock:
            self._error = None
            self._warning = None
            self._last_source = source
            try:
                voice = self._new_voice(source, start_s)
            except DecodeError as exc:
                self.switch(None)
                self._error = str(exc)
                self._last_position = 0.0
                self._last_duration = 0.0
                self._notifier.emit(self._status())
                return
            self.switch(voice)
        self._notifier.emit(self.status())

    @at_audio_ceiling
    def play_scene(self, scene: Scene, start_s: float = 0.0, end_s: float | None = None) -> None:
        """Mix ``scene`` from ``start_s`` (to ``end_s``) through the same stream as a
        preview: the reader premixes the stems (decoding, placing) as it decodes a file,
        the feeder applies the lane gains and the limiter as it mixes the ring, so mute, solo
        and volume are heard within the ring's depth; the callback's work is the same for
        one voice or thirty-two."""
        with self._lock:
            self._error = None
            self._warning = None
            scene.volume_db = self._settings.volume_db
            voice = self._take_prepared(scene, start_s, end_s)
            if voice is None:
                voice = self._scene_voice(scene, start_s, end_s, self._first_frames())
            else:
                voice.bus.snap()  # the controls as they are now, not at the prefetch
            if voice.stems.problems:
                self._error = "; ".join(voice.stems.problems)
            self._last_source = voice.source
            self.switch(voice)
        self._notifier.emit(self.status())

    @at_audio_ceiling
    def prefetch_scene(
        self, scene: Scene, start_s: float = 0.0, end_s: float | None = None
    ) -> None:
        """Premix the first stems of ``scene`` from ``start_s`` (opening its voices'
        files) into a ready voice, so a play_scene() with the same scene, start and loop
        region only swaps it in (mute, solo and volume may change in between: they apply
        after the stems). Call it from a worker; one prepared scene is kept. Never
        raises. A resting stream starts now (see :meth:`prefetch`)."""
        if self._closed:
            return
        self._ready_output()
        key = self._scene_key(scene, start_s, end_s)
        try:
            # As much as a preview's cached head: the first device periods need no
            # premixing by the reader while they play.
            voice = self._scene_voice(scene, start_s, end_s, int(HEAD_S * self.samplerate))
        except Exception:  # a hint: play_scene() reports any real problem
            return
        with self._lock:
            old, self._prepared = self._prepared, (key, voice)
        if old is not None:
            old[1].stems.close()

    def _scene_voice(
        self, scene: Scene, start_s: float, end_s: float | None, first_frames: int
    ) -> SceneVoice:
        """A voice for ``scene`` holding its first ``first_frames`` frames of stems."""
        from foley_tui.audio.limiter import lookahead_frames
        from foley_tui.audio.mixer import StemMix
        from foley_tui.audio.scene_voice import SceneVoice

        stems = StemMix(
            scene,
            self.samplerate,
            start_s=start_s,
            end_s=end_s,
            tail=lookahead_frames(self.samplerate),
        )
        first = stems.read(first_frames)
        ahead = max(int(SCENE_READ_AHEAD_S * self.samplerate), 4096)
        voice = SceneVoice(scene, stems, ahead, stems.position_s - len(first) / self.samplerate)
        voice.push(first)
        voice.eof = stems.done
        return voice

    def _scene_key(self, scene: Scene, start_s: float, end_s: float | None) -> tuple[object, ...]:
        return (
            id(scene),
            len(scene.voices),
            round(start_s * self.samplerate),
            end_s,
            scene.controls(),
        )

    def _take_prepared(
        self, scene: Scene, start_s: float, end_s: float | None
    ) -> SceneVoice | None:
        prepared, self._prepared = self._prepared, None
        if prepared is None:
            return None
        key, voice = prepared
        if key != self._scene_key(scene, start_s, end_s):
            voice.stems.close()
            return None
        return voice

    def stop(self) -> None:
        with self._lock:
            if self._voice is not None:
                self._last_position = self._heard_position(self._voice)
                self.switch(None)
                self._notifier.emit(self._status())

    def pause(self) -> None:
        with self._lock:
            voice = self._voice
            if voice is not None and not (voice.paused or voice.pausing):
                voice.pausing = True
                voice.env.go(0.0, SWITCH_FADE_S, self.samplerate)
                self._notifier.emit(self._status())

    def resume(self) -> None:
        with self._lock:
            voice = self._voice
            if voice is not None and (voice.paused or voice.pausing):
                voice.pausing = False
                voice.env.go(1.0, ENTRY_FADE_S, self.samplerate)
                voice.paused = False
                self._render_now()
                self._notifier.emit(self._status())
            elif (
                voice is None
                and self._last_source is not None
                and self._last_source.how != SCENE_HOW
            ):
                position = self._last_position
                if position >= self._last_duration - 1e-3:
                    position = 0.0
                self.play(self._last_source, position)

    def toggle_pause(self) -> None:
        with self._lock:
            voice = self._voice
            if voice is not None and not (voice.paused or voice.pausing):
                self.pause()
            else:
                self.resume()

    @at_audio_ceiling
    def seek(self, seconds: float, *, relative: bool = False) -> None:
        with self._lock:
            voice = self._voice
            if voice is None:
                if self._last_source is None:
                    return
                target = self._last_position + seconds if relative else seconds
                self._last_position = min(max(target, 0.0), self._last_duration)
                return
            target = self._heard_position(voice) + seconds if relative else seconds
            if not math.isfinite(target):
                return
            target = min(max(target, 0.0), voice.duration)
            was_paused = voice.paused or voice.pausing
            try:
                new = self._seek_voice(voice, target)
            except DecodeError as exc:
                self._error = str(exc)
                return
            if target > 0:
                new.env = Ramp(0.0)
                new.env.go(1.0, ENTRY_FADE_S, self.samplerate)
            if was_paused:
                new.paused = True
                new.env = Ramp(0.0)
            self.switch(new)
        self._wake.set()

    def set_loop(self, loop: bool) -> None:
        with self._lock:
            self._settings.loop = loop
            voice = self._voice
            if voice is not None:
                # Read by the reader at its next block; if the end is already queued this
                # pass ends and the setting applies to the next play.
                voice.loop = loop
        self._notifier.emit(self.status())

    def set_volume_db(self, volume_db: float) -> None:
        with self._lock:
            self._settings.volume_db = float(volume_db)
            voice = self._voice
            if voice is not None and voice.source.how == SCENE_HOW:
                # Read by the scene's bus at its next block, before the limiter: heard
                # within the ring's depth, and the ceiling always holds.
                scene = getattr(voice, "scene", None)
                if scene is not None:
                    scene.volume_db = float(volume_db)
            elif voice is not None:
                voice.gain.go(self._gain_for(voice.source), GAIN_RAMP_S, self.samplerate)

    def set_loudness_match(self, enabled: bool, target_lufs: float = DEFAULT_TARGET_LUFS) -> None:
        with self._lock:
            self._settings.loudness_match = enabled
            self._settings.target_lufs = float(target_lufs)
            voice = self._voice
            if voice is not None and voice.source.how != SCENE_HOW:
                voice.gain.go(self._gain_for(voice.source), GAIN_RAMP_S, self.samplerate)
                self._maybe_measure(voice.source)

    def status(self) -> PlayerStatus:
        with self._lock:
            return self._status()

    def set_state_callback(self, callback: StateCallback | None) -> None:
        self._notifier.callback = callback

    @at_audio_ceiling
    def prefetch(self, source: Source) -> None:
        """Decode the head of ``source`` into the bounded cache so a later play() reads no
        disk (call it from a worker when the cursor lands on a row). Never raises: a
        source that cannot be decoded is not cached, and its play() reports why.

        A prefetch says a play may follow: a resting stream starts now, in silence, so
        its start is over before the sound comes."""
        key = (source.identity, self.samplerate)
        if self._closed:
            return
        self._ready_output()
        if key in self._heads:
            return
        try:
            decoder = BlockDecoder(source.path, self.samplerate, pool=self._resamplers)
        except Exception:  # a hint: any failure just means no warm head
            return
        try:
            head = decoder.read_first(min_out=int(HEAD_S * self.samplerate))
        except Exception:
            return
        finally:
            decoder.close()
        with self._lock:
            self._heads.put(key, head, decoder.info)
        if self._settings.loudness_match:
            self._maybe_measure(source)

    def clear_cache(self) -> None:
        """Forget cached heads (the benchmark uses this to time cold plays)."""
        with self._lock:
            self._heads.clear()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        with self._stream_lock, contextlib.suppress(Exception):
            # stop() (not abort) lets PortAudio play out what it holds: no cut tail.
            if self._running:
                self._stream.stop()
            self._running = False
        with contextlib.suppress(Exception):
            self._stream.close()
        self._wake.set()
        self._read_wake.set()
        self._feeder.join(timeout=2)
        self._reader.join(timeout=2)
        self._measure_pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            prepared, self._prepared = self._prepared, None
            if prepared is not None:
                prepared[1].stems.close()  # a prefetched scene's open files
            for voice in [self._voice, *self._fading, *self._ended, *self._retired]:
                if voice is not None:
                    voice.close_decoder()
            self._voice = None
            self._fading = []
            self._heads.clear()
        self._resamplers.close()
        self._notifier.close()
