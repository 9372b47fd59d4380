"""Block decoding: read a file with soundfile a block at a time, downmix, resample.

Headless: never imports textual. Nothing here reads a whole file: a 10-minute ambience is
opened, positioned and its first block decoded in well under a millisecond, and the player's
feeder thread pulls further blocks while earlier ones play.

Every block comes out as float32 stereo at the *device* rate: the device is opened at its own
default rate (asking PulseAudio's ALSA plugin for a 16 kHz stream underruns badly), so the
decoder converts with a streaming ``soxr`` resampler that keeps its state across blocks (no
seams). A file already at the device rate is passed through untouched (bit-exact).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import soundfile as sf
import soxr

from foley_tui.audio.base import AudioRef
from foley_tui.audio.blob import BlobReader, RemoteBlob
from foley_tui.safe_io import open_regular

Frames = npt.NDArray[np.float32]

#: libsndfile's supported rates span this, and so do we.
MIN_RATE = 8000
MAX_RATE = 192000
#: Resampling quality: soxr "HQ" is transparent and cheap enough to run per block.
RESAMPLE_QUALITY = "HQ"
# 5.1 (L R C LFE Ls Rs) -> stereo, ITU-R BS.775 coefficients without LFE, normalised so a
# full-scale signal in every channel cannot clip.
_MINUS3DB = 0.7071067811865476
_DOWNMIX_51 = np.array(
    [
        [1.0, 0.0],
        [0.0, 1.0],
        [_MINUS3DB, _MINUS3DB],
        [0.0, 0.0],
        [_MINUS3DB, 0.0],
        [0.0, _MINUS3DB],
    ],
    dtype=np.float32,
) / np.float32(1.0 + 2 * _MINUS3DB)


#: The problem a sound with non-finite samples is marked with (our index, the details).
NONFINITE_PROBLEM = "non-finite samples"


def sanitise(block: npt.NDArray[np.floating]) -> int:
    """Replace every non-finite sample of ``block`` (NaN, +-inf) by 0, in place; returns
    how many there were.

    A float WAV may hold NaN or inf, and a DOUBLE one values like 1e300 that become inf
    as float32: any of them would reach the device at full scale whatever the volume
    (NaN times a gain is NaN), and poison every filter state it passes through (the
    resampler, the limiter's estimate). Every reader of decoded audio calls this first.
    """
    if block.size == 0:
        return 0
    # One pass: a float64 sum of float32 samples is finite exactly when every sample is
    # (a float64 block's sum may overflow, and is then checked sample by sample).
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.add.reduce(block, axis=None, dtype=np.float64))
    if np.isfinite(total):
        return 0
    bad = ~np.isfinite(block)
    count = int(np.count_nonzero(bad))
    if count:
        block[bad] = 0.0
    return count


def nonfinite_note(name: str, count: int) -> str:
    """How a sound's non-finite samples are reported (a warning, the details)."""
    return f"{NONFINITE_PROBLEM} in {name}: {count} replaced by silence"


class DecodeError(Exception):
    """A file cannot be decoded (unsupported, corrupt, empty, unusual rate)."""


@dataclass(frozen=True, slots=True)
class AudioInfo:
    """What a file holds, from its header."""

    frames: int
    samplerate: int
    channels: int
    format: str
    subtype: str

    @property
    def duration_s(self) -> float:
        return self.frames / self.samplerate if self.samplerate else 0.0


def _info_of(handle: sf.SoundFile) -> AudioInfo:
    return AudioInfo(
        frames=max(int(handle.frames), 0),
        samplerate=int(handle.samplerate),
        channels=int(handle.channels),
        format=str(handle.format),
        subtype=str(handle.subtype),
    )


def _check_info(info: AudioInfo, path: AudioRef) -> None:
    if not MIN_RATE <= info.samplerate <= MAX_RATE:
        raise DecodeError(f"unsupported sample rate {info.samplerate} Hz in {path.name}")
    if info.channels < 1:
        raise DecodeError(f"no channels in {path.name}")
    if info.frames == 0:
        raise DecodeError(f"zero-length audio (no frames) in {path.name}")


def open_sound(path: AudioRef) -> sf.SoundFile:
    """Open ``path`` with soundfile, mapping its errors to :class:`DecodeError`.

    A :class:`~foley_tui.audio.blob.RemoteBlob` is decoded from memory, fetched by range
    as the decoder reads (:func:`stream_error` says when a fetch failed on the way)."""
    if isinstance(path, RemoteBlob):
        return _open_blob(path)
    # Opened by us, checked to be a regular file, then handed to libsndfile as a
    # descriptor: a path swapped for a FIFO or /dev/zero since it was resolved can
    # neither block nor stream forever.
    try:
        fd, _ = open_regular(path, follow=True)
    except OSError as exc:
        raise DecodeError(f"cannot open {path}: {exc.strerror or exc}") from None
    # With closefd, libsndfile owns the descriptor from here on, and closes it itself
    # when the open fails (closing it again could close another thread's new file).
    try:
        return sf.SoundFile(fd, closefd=True)
    except sf.LibsndfileError as exc:
        raise DecodeError(
            f"unsupported or corrupt audio in {path.name}: {exc.error_string}"
        ) from None
    except (RuntimeError, TypeError) as exc:
        raise DecodeError(f"unsupported or corrupt audio in {path.name}: {exc}") from None
    except OSError as exc:
        raise DecodeError(f"cannot open {path}: {exc.strerror or exc}") from None


def _open_blob(blob: RemoteBlob) -> sf.SoundFile:
    reader = blob.open()
    try:
        return sf.SoundFile(reader)
    except (sf.LibsndfileError, RuntimeError, TypeError) as exc:
        if reader.error is not None:  # the bytes did not arrive: say why, not "corrupt"
            raise DecodeError(reader.error) from None
        detail = exc.error_string if isinstance(exc, sf.LibsndfileError) else exc
        raise DecodeError(f"unsupported or corrupt audio in {blob.name}: {detail}") from None


def stream_error(handle: sf.SoundFile) -> str | None:
    """Why the bytes under ``handle`` stopped arriving (a blob read by range whose
    store went away), or None: a short read is then the end of the sound."""
    reader = handle.name
    return reader.error if isinstance(reader, BlobReader) else None


def probe(path: AudioRef) -> AudioInfo:
    """The header facts of ``path``; raises :class:`DecodeError` when it cannot play."""
    with open_sound(path) as handle:
        info = _info_of(handle)
    _check_info(info, path)
    return info


def to_stereo(block: npt.NDArray[np.float32]) -> Frames:
    """Downmix or upmix ``(frames, channels)`` float32 to ``(frames, 2)``.

    Mono goes to both sides; stereo is untouched; 5.1 uses the ITU matrix (LFE dropped);
    any other layout is averaged into both sides (there is no standard for it).
    """
    channels = block.shape[1]
    if channels == 2:
        return block
    if channels == 1:
        return np.repeat(block, 2, axis=1)
    if channels == 6:
        return np.ascontiguousarray(block @ _DOWNMIX_51, dtype=np.float32)
    mixed = block.mean(axis=1, dtype=np.float32)
    return np.repeat(mixed[:, None], 2, axis=1)


class ResamplerPool:
    """Fresh resamplers made ahead of time, so play() does not pay for building one.

    Building a soxr HQ stream costs about as much as opening a file and decoding its first
    block (and ``clear()`` is no cheaper), so the player's feeder keeps one unused stream
    per common input rate (and per rate seen) while it is idle; a decoder takes one.
    """

    COMMON_RATES = (44100, 48000, 96000, 22050, 32000, 88200, 16000, 24000, 192000, 8000)

    def __init__(self, out_rate: int) -> None:
        self.out_rate = int(out_rate)
        self._fresh: dict[int, soxr.ResampleStream] = {}
        self._wanted = [rate for rate in self.COMMON_RATES if rate != self.out_rate]
        self._lock = threading.Lock()
        self._closed = False

    def take(self, in_rate: int) -> soxr.ResampleStream:
        with self._lock:
            fresh = self._fresh.pop(in_rate, None)
            if in_rate not in self._wanted:
                self._wanted.append(in_rate)
        return fresh if fresh is not None else _new_resampler(in_rate, self.out_rate)

    def ready(self, in_rate: int) -> bool:
        """A stream for ``in_rate`` is built and waiting (:meth:`take` costs nothing)."""
        with self._lock:
            return in_rate in self._fresh

    def refill(self, limit: int = 2) -> bool:
        """Build up to ``limit`` missing streams; True if the pool is full."""
        for rate in list(self._wanted):
            if limit <= 0:
                return False
            if rate not in self._fresh:
                stream = _new_resampler(rate, self.out_rate)
                with self._lock:
                    if self._closed:
                        return True
                    self._fresh.setdefault(rate, stream)
                limit -= 1
        return True

    def close(self) -> None:
        """Release every stream made ahead and make no more. soxr's streams are
        native objects: one still alive when the interpreter shuts down makes its
        binding print a leak report on the terminal."""
        with self._lock:
            self._closed = True
            self._wanted = []
            self._fresh.clear()


def _new_resampler(in_rate: int, out_rate: int) -> soxr.ResampleStream:
    return soxr.ResampleStream(in_rate, out_rate, 2, dtype="float32", quality=RESAMPLE_QUALITY)


class BlockDecoder:
    """Decode ``path`` from ``start_s`` as float32 stereo blocks at ``out_rate``.

    Output frame ``n`` of a pass is the sound at ``start_s + n / out_rate`` (soxr aligns
    its output, so positions need no delay correction). With ``loop`` the decoder wraps to
    the start at the end without flushing the resampler, so the loop seam is continuous.
    Not thread-safe: one thread (the player's feeder) owns it.
    """

    def __init__(
        self,
        path: AudioRef,
        out_rate: int,
        start_s: float = 0.0,
        pool: ResamplerPool | None = None,
    ) -> None:
        self.path = path
        self.out_rate = int(out_rate)
        self._pool = pool if pool is not None and pool.out_rate == self.out_rate else None
        self._handle = open_sound(path)
        try:
            self.info = _info_of(self._handle)
            _check_info(self.info, path)
            self._resampler = self._new_resampler()
            start_frame = min(max(round(start_s * self.info.samplerate), 0), self.info.frames)
            if start_frame:
                self._handle.seek(start_frame)
        except Exception:
            self._handle.close()
            raise
        self.start_s = start_frame / self.info.samplerate
        self.emitted = 0  # output frames returned since start_s
        self.nonfinite = 0  # non-finite input samples replaced by silence so far
        self.done = False
        self.loop = False

    @property
    def duration_s(self) -> float:
        return self.info.duration_s

    @property
    def read_position(self) -> int:
        """The file's frame the next read starts at (how far into the file it has read)."""
        return int(self._handle.tell())

    def _new_resampler(self) -> soxr.ResampleStream | None:
        if self.info.samplerate == self.out_rate:
            return None
        if self._pool is not None:
            return self._pool.take(self.info.samplerate)
        return _new_resampler(self.info.samplerate, self.out_rate)

    def position_of(self, emitted: int) -> float:
        """The file position (seconds) of output frame ``emitted`` (wraps when looping)."""
        pos = self.start_s + emitted / self.out_rate
        duration = self.duration_s
        if self.loop and duration > 0 and pos >= duration:
            pos %= duration
        return min(pos, duration)

    def read(self, in_frames: int = 8192) -> Frames:
        """The next block of output (may be empty while the resampler primes).

        Returns an empty array once the sound (and the resampler's tail) is exhausted; then
        :attr:`done` is true. Raises :class:`DecodeError` if the file turns out corrupt.
        """
        if self.done:
            return np.zeros((0, 2), dtype=np.float32)
        try:
            raw = self._handle.read(in_frames, dtype="float32", always_2d=True)
            if len(raw) == 0 and self.loop and self.info.frames > 0:
                self._handle.seek(0)
                raw = self._handle.read(in_frames, dtype="float32", always_2d=True)
        except (sf.LibsndfileError, RuntimeError) as exc:
            raise DecodeError(f"decode error in {self.path.name}: {exc}") from None
        if len(raw) < in_frames and (failed := stream_error(self._handle)) is not None:
            raise DecodeError(failed)
        self.nonfinite += sanitise(raw)
        last = len(raw) == 0
        block = to_stereo(raw) if len(raw) else np.zeros((0, 2), dtype=np.float32)
        if self._resampler is not None:
            block = self._resampler.resample_chunk(block, last=last)
            # Finite but huge samples (a DOUBLE file's 1e38) can overflow in the filter.
            self.nonfinite += sanitise(block)
        if last:
            self.done = True
        self.emitted += len(block)
        return block

    def read_first(self, min_out: int = 1, max_in: int = 16384) -> Frames:
        """Decode until at least ``min_out`` output frames exist (resampler priming)."""
        blocks: list[Frames] = []
        got = 0
        step = 1024
        read_in = 0
        while got < min_out and not self.done and read_in < max_in:
            block = self.read(step)
            read_in += step
            if len(block):
                blocks.append(block)
                got += len(block)
            step = min(step * 2, 8192)
        if not blocks:
            return np.zeros((0, 2), dtype=np.float32)
        return blocks[0] if len(blocks) == 1 else np.concatenate(blocks)

    def close(self) -> None:
        self._handle.close()
        self._resampler = None  # a native object: released now, not at shutdown
