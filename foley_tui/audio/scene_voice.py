"""A scene in the real-time player: stems premixed by the reader, then its bus.

The player's reader thread reads a :class:`SceneDecoder` as if it were a file decoder:
each read is a block of :class:`~foley_tui.audio.mixer.StemMix` stems (every voice decoded,
resampled and placed sample-accurately, summed per lane), queued on the
:class:`SceneVoice` about :data:`~foley_tui.audio.stream_engine.SCENE_READ_AHEAD_S`
ahead. The feeder then renders the voice into the output ring through its own
:class:`~foley_tui.audio.bus.MasterBus`: lane gains read from the scene at every block
(so mute, solo and volume are heard once the ring's few milliseconds have played,
ramped), the sum, and the true-peak limiter (the hearing-safety ceiling). The audio
callback only copies the ring out.

Headless: never imports textual.
"""

from __future__ import annotations

import threading

import numpy as np

from foley_tui.audio.base import Scene
from foley_tui.audio.bus import MasterBus, Stems, StreamClock
from foley_tui.audio.decode import AudioInfo
from foley_tui.audio.mixer import DECODE_BLOCK, StemMix, scene_source
from foley_tui.audio.voice import Voice


class SceneDecoder:
    """A :class:`StemMix` seen by the player's reader as if it were a file decoder."""

    def __init__(self, stems: StemMix) -> None:
        self.stems = stems
        self.out_rate = stems.rate
        self.start_s = stems.position_s
        self.loop = False  # the stems loop their region themselves
        self.info = AudioInfo(
            frames=stems.length_frames,
            samplerate=stems.rate,
            channels=2,
            format="SCENE",
            subtype="FLOAT",
        )
        self.emitted = 0
        self._lock = threading.Lock()

    @property
    def done(self) -> bool:
        return self.stems.done

    @property
    def duration_s(self) -> float:
        return self.stems.duration_s

    def read(self, in_frames: int = DECODE_BLOCK) -> Stems:
        with self._lock:
            block = self.stems.read(in_frames)
        self.emitted += len(block)
        return block

    def read_first(self, min_out: int = 1, max_in: int = 16384) -> Stems:
        return self.read(max(min_out, 1))

    def close(self) -> None:
        with self._lock:
            self.stems.close()


class SceneVoice(Voice):
    """A player voice that plays a scene: queued stems, mixed and limited as the feeder
    renders them. Its position follows the scene clock, also when a loop region wraps."""

    def __init__(
        self, scene: Scene, stems: StemMix, read_ahead: int, start_s: float | None = None
    ) -> None:
        decoder = SceneDecoder(stems)
        start = stems.position_s if start_s is None else start_s
        super().__init__(scene_source(scene), None, decoder.info, stems.rate, start, loop=False)
        self.scene = scene
        self.stems = stems
        self.scene_decoder = decoder
        self.decoder = decoder  # type: ignore[assignment]  # reads like a BlockDecoder
        self.read_ahead = read_ahead
        self.position = start
        self.bus = MasterBus(scene, stems.lanes, stems.rate)
        self.ceiling = self.bus.limiter.ceiling
        # Stem stream index -> scene frame: added to by the feeder as it renders, read
        # (forgetting what is behind) for the heard position only.
        self.clock = StreamClock()
        self.clock.add(0, round(start * stems.rate))
        self._stem_chunks = self.chunks  # (stems, scene frame of the first)
        self._stem: Stems | None = None
        self._stem_off = 0
        self._emitted = 0  # output frames rendered

    @property
    def mix_problems(self) -> list[str]:
        return self.stems.problems

    def nonfinite_warning(self) -> str | None:
        notes = self.stems.nonfinite_notes()
        return "; ".join(notes) if notes else None

    @property
    def rendered(self) -> int:
        return self._emitted

    def push(self, block: Stems) -> None:
        """Queue a block the reader read from :attr:`scene_decoder` (reader thread)."""
        if len(block):
            self._stem_chunks.append((block, self.stems.last_start))
            self.produced += len(block)

    def _take(self, count: int) -> Stems:
        """Up to ``count`` queued stem frames (feeder thread)."""
        parts: list[Stems] = []
        got = 0
        while got < count:
            if self._stem is None or self._stem_off >= len(self._stem):
                if not self._stem_chunks:
                    break
                self._stem, scene_frame = self._stem_chunks.popleft()
                self._stem_off = 0
                self.clock.add(self.consumed + got, scene_frame)
            take = min(count - got, len(self._stem) - self._stem_off)
            parts.append(self._stem[self._stem_off : self._stem_off + take])
            self._stem_off += take
            got += take
        if not parts:
            return np.zeros((0, len(self.stems.lanes), 2), dtype=np.float32)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def render(self, out: np.ndarray, frames: int) -> int:
        """Mix up to ``frames`` frames of the scene into ``out`` (feeder thread)."""
        if self.paused:
            return 0
        want = frames
        if (self.pausing or self.dying) and not self.env.steady:
            want = min(want, self.env.frames_left())
        stems = self._take(want + self.bus.discard)
        self.consumed += len(stems)
        mixed = self.bus.process(stems)
        written = len(mixed)
        if written:
            env = self.env.take(written)
            if isinstance(env, float):
                if env != 1.0:
                    mixed = mixed * np.float32(env)
            else:
                mixed = mixed * env
            out[:written] += mixed
            self._emitted += written
        if self.pausing and self.env.value <= 0.0:
            self.paused = True
            self.pausing = False
        if (
            self.eof
            and not self._stem_chunks
            and (self._stem is None or self._stem_off >= len(self._stem))
        ):
            self.finished = True
        return written

    def position_of(self, index: int) -> float:
        return min(self.clock.scene_frame(index) / self.out_rate, self.duration)
