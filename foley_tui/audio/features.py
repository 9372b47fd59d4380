"""Audio features for "find similar": what a sound is like, as one vector per file.

Headless: never imports textual. No model weights and nothing downloaded: the features are
classic descriptors computed with numpy and scipy from the file's first
:data:`ANALYSIS_S` seconds, mixed to mono and resampled to :data:`RATE`:

- MFCC statistics (mean and standard deviation of 13 coefficients over 40 mel bands),
- spectral centroid and flatness (mean and standard deviation over frames),
- spectral contrast (peak minus valley per octave band, in dB),
- the envelope (its crest, how much of the time it is loud, where its energy sits, how
  fast it attacks, how many onsets a second it has),
- the duration (log seconds, from the header: long files are not read to the end).

Each file is analysed once: :class:`FeatureCache` keeps the raw vectors in one SQLite
file keyed by the sound's content hash, so a renamed or re-cached copy of the same bytes
is not analysed again. :func:`normalise` scales a set of raw vectors (per dimension across
the set, then each group of descriptors to equal weight) and :func:`nearest` ranks them by
cosine distance, brute force: at a session's size (thousands to tens of thousands) a
matrix-vector product is faster than building any index.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soxr
from scipy.fft import dct

from foley_tui.audio.base import AudioRef
from foley_tui.audio.blob import RemoteBlob
from foley_tui.audio.decode import DecodeError, open_sound

Vector = npt.NDArray[np.float32]

#: Bumped whenever the features change: cached vectors of another version are ignored.
VERSION = 1
#: The analysis rate (mono): enough bandwidth for timbre, cheap to transform.
RATE = 22050
N_FFT = 1024
HOP = 512
N_MELS = 40
N_MFCC = 13
#: Octave bands of the spectral contrast (Hz edges).
CONTRAST_EDGES = (0.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, RATE / 2)
#: Only the head of a long file is analysed.
ANALYSIS_S = 30.0
#: The floor of every log (a digital silence must not give -inf).
EPS = 1e-10

#: ``(name, size, weight)`` of each group of descriptors, in vector order: :func:`normalise`
#: gives each group its weight whatever its size, so 26 MFCC statistics do not drown the
#: centroid. The duration weighs least: takes of one event differ in length more than in
#: sound.
GROUPS: tuple[tuple[str, int, float], ...] = (
    ("mfcc", 2 * N_MFCC, 1.0),
    ("centroid", 2, 0.7),
    ("flatness", 2, 0.7),
    ("contrast", len(CONTRAST_EDGES) - 1, 0.7),
    ("envelope", 5, 0.7),
    ("duration", 1, 0.25),
)
SIZE = sum(size for _, size, _ in GROUPS)


class FeatureError(Exception):
    """The file could not be read for analysis (its reason is the message)."""


@lru_cache(maxsize=1)
def _mel_filters() -> npt.NDArray[np.float64]:
    """A (N_MELS, N_FFT // 2 + 1) triangular mel filterbank (Slaney-style, unnormalised)."""

    def mel(hz: npt.ArrayLike) -> npt.NDArray[np.float64]:
        return 2595.0 * np.log10(1.0 + np.asarray(hz, dtype=np.float64) / 700.0)

    def hz(m: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)

    bins = np.fft.rfftfreq(N_FFT, 1.0 / RATE)
    edges = hz(np.linspace(mel(20.0), mel(RATE / 2), N_MELS + 2))
    filters = np.zeros((N_MELS, len(bins)))
    for index in range(N_MELS):
        low, mid, high = edges[index : index + 3]
        rising = (bins - low) / max(mid - low, EPS)
        falling = (high - bins) / max(high - mid, EPS)
        filters[index] = np.maximum(0.0, np.minimum(rising, falling))
    return filters


@lru_cache(maxsize=1)
def _window() -> npt.NDArray[np.float64]:
    return np.hanning(N_FFT)


def _read_mono(path: AudioRef) -> tuple[npt.NDArray[np.float32], int, float]:
    """(mono samples of the head, their rate, the whole file's duration in seconds)."""
    try:
        with open_sound(path) as handle:
            rate = int(handle.samplerate)
            frames = int(handle.frames)
            want = min(frames, int(ANALYSIS_S * rate)) if frames > 0 else int(ANALYSIS_S * rate)
            data = handle.read(want, dtype="float32", always_2d=True)
    except (DecodeError, RuntimeError, OSError) as exc:  # soundfile's errors are RuntimeError
        raise FeatureError(f"cannot analyse {path}: {exc}") from None
    mono = data.mean(axis=1, dtype=np.float32) if data.size else np.zeros(0, np.float32)
    duration = (frames if frames > 0 else len(mono)) / rate if rate else 0.0
    return mono, rate, duration


def _frames(signal: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Overlapping frames (n, N_FFT) of ``signal``, zero-padded to at least one frame."""
    if len(signal) < N_FFT:
        signal = np.pad(signal, (0, N_FFT - len(signal)))
    count = 1 + (len(signal) - N_FFT) // HOP
    return np.lib.stride_tricks.as_strided(
        signal,
        shape=(count, N_FFT),
        strides=(signal.strides[0] * HOP, signal.strides[0]),
        writeable=False,
    )


def describe(samples: npt.NDArray[np.floating], rate: int, duration_s: float) -> Vector:
    """The raw (unnormalised) feature vector of mono ``samples`` at ``rate``."""
    signal = np.asarray(samples, dtype=np.float64)
    if rate != RATE and len(signal):
        signal = soxr.resample(signal, rate, RATE, quality="LQ")
    frames = _frames(np.ascontiguousarray(signal))
    power = np.abs(np.fft.rfft(frames * _window(), axis=1)) ** 2  # (n, bins)
    bins = np.fft.rfftfreq(N_FFT, 1.0 / RATE)

    # Timbre: MFCC mean and spread.
    mel = np.log(power @ _mel_filters().T + EPS)
    mfcc = dct(mel, type=2, axis=1, norm="ortho")[:, :N_MFCC]
    # Frames are weighted by loudness: a sound's silent tail says nothing of its timbre.
    energy = power.sum(axis=1)
    weights = energy / energy.sum() if energy.sum() > 0 else np.full(len(energy), 1 / len(energy))

    def stats(values: npt.NDArray[np.float64]) -> tuple[float, float]:
        mean = float(np.sum(values * weights))
        return mean, float(np.sqrt(max(np.sum(weights * (values - mean) ** 2), 0.0)))

    mfcc_mean = (mfcc * weights[:, None]).sum(axis=0)
    mfcc_std = np.sqrt(np.maximum((weights[:, None] * (mfcc - mfcc_mean) ** 2).sum(axis=0), 0))

    # Brightness and noisiness.
    total = power.sum(axis=1) + EPS
    centroid = (power @ bins) / total / (RATE / 2)
    flatness = np.exp(np.mean(np.log(power + EPS), axis=1)) / (np.mean(power, axis=1) + EPS)

    # Contrast: the loudest against the quietest fifth of each octave band, in dB.
    contrast: list[float] = []
    level_db = 10 * np.log10(power + EPS)
    for low, high in pairwise(CONTRAST_EDGES):
        band = level_db[:, (bins >= low) & (bins < high)]
        if band.shape[1] == 0:
            contrast.append(0.0)
            continue
        ordered = np.sort(band, axis=1)
        part = max(1, ordered.shape[1] // 5)
        per_frame = ordered[:, -part:].mean(axis=1) - ordered[:, :part].mean(axis=1)
        contrast.append(float(np.sum(per_frame * weights)))

    # Envelope: frame RMS relative to its peak.
    rms = np.sqrt(np.mean(frames**2, axis=1))
    peak = float(rms.max()) if len(rms) else 0.0
    envelope = [0.0, 0.0, 0.5, 0.0, 0.0]
    if peak > 0:
        rel = rms / peak
        crest = float(np.max(np.abs(signal))) / (float(np.sqrt(np.mean(signal**2))) + EPS)
        loud = float(np.mean(rel > 0.1))
        centre = float(np.sum(np.arange(len(rel)) * rel) / (rel.sum() * max(len(rel) - 1, 1)))
        attack = float(np.argmax(rel >= 0.9)) * HOP / RATE
        # Onsets: rises of the envelope by 3x within a frame, per second.
        rises = np.count_nonzero((rel[1:] > 3 * rel[:-1] + 0.05) & (rel[1:] > 0.2))
        seconds = max(len(signal) / RATE, HOP / RATE)
        envelope = [np.log(crest + EPS), loud, centre, np.log1p(attack * 100), rises / seconds]

    vector = [
        *mfcc_mean,
        *mfcc_std,
        *stats(centroid),
        *stats(flatness),
        *contrast,
        *envelope,
        float(np.log1p(max(duration_s, 0.0))),
    ]
    return np.asarray(vector, dtype=np.float32)


def analyse(path: AudioRef) -> Vector:
    """Read ``path`` (its head) and describe it. Raises :class:`FeatureError`."""
    mono, rate, duration = _read_mono(path)
    return describe(mono, rate, duration)


def content_key(path: AudioRef, declared_sha256: str | None = None) -> str:
    """The cache key of a sound's bytes: its declared SHA-256 when the candidate has one
    (foley records ``content_sha256``), a blob's own content key, else a hash of the file."""
    if declared_sha256:
        return declared_sha256.lower()
    if isinstance(path, RemoteBlob):
        return path.key
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/foley-tui/features.sqlite`` (``~/.cache/foley-tui/...``)."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "foley-tui" / "features.sqlite"


class FeatureCache:
    """Raw feature vectors by content hash, in one SQLite file (safe across threads).

    A cache: losing it costs a re-analysis, never a decision, so it lives in the user's
    cache dir and an unreadable file is replaced by an empty one. ``path=None`` keeps
    the vectors in memory.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = self._open(path)

    @staticmethod
    def _open(path: Path | None) -> sqlite3.Connection:
        if path is None:
            db = sqlite3.connect(":memory:", check_same_thread=False)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(path), check_same_thread=False, timeout=10)
            try:
                db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.DatabaseError:  # not a database: a cache may be rebuilt
                db.close()
                path.unlink(missing_ok=True)
                db = sqlite3.connect(str(path), check_same_thread=False, timeout=10)
        db.execute(
            "CREATE TABLE IF NOT EXISTS features"
            " (key TEXT PRIMARY KEY, version INTEGER NOT NULL, vector BLOB NOT NULL)"
        )
        return db

    def get_many(self, keys: Iterable[str]) -> dict[str, Vector]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Vector] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, vector FROM features WHERE version = ? AND key IN ({marks})",
                    [VERSION, *chunk],
                )
                for key, blob in rows:
                    vector = np.frombuffer(blob, dtype=np.float32)
                    if vector.shape == (SIZE,):
                        found[key] = vector
        return found

    def put_many(self, items: Mapping[str, Vector]) -> None:
        rows = [(key, VERSION, np.asarray(v, np.float32).tobytes()) for key, v in items.items()]
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO features (key, version, vector) VALUES (?, ?, ?)", rows
            )

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute(
                "SELECT COUNT(*) FROM features WHERE version = ?", (VERSION,)
            ).fetchone()
        return int(count)

    def close(self) -> None:
        with self._lock:
            self._db.close()


@dataclass(frozen=True, slots=True)
class Sound:
    """One sound to describe: its id, where its bytes are, and its declared hash."""

    sound_id: str
    path: AudioRef
    sha256: str | None = None


@dataclass(frozen=True, slots=True)
class Described:
    """The raw vectors of the sounds that could be read, and why the others could not."""

    vectors: dict[str, Vector]
    errors: dict[str, str]
    analysed: int
    """How many were analysed now (the rest came from the cache)."""


def describe_all(
    sounds: Iterable[Sound],
    cache: FeatureCache,
    *,
    flush_every: int = 200,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Described:
    """Raw vectors for ``sounds``: cached ones read in one query, the rest analysed (and
    stored in batches, so an interrupted run keeps what it did). ``progress(done, total)``
    is called before the first analysis (0 done) and after each; ``cancelled()`` True
    stops early (what was analysed is kept in the cache and returned)."""
    items = list(sounds)
    keys: dict[str, str] = {}
    errors: dict[str, str] = {}
    for sound in items:
        try:
            keys[sound.sound_id] = content_key(sound.path, sound.sha256)
        except OSError as exc:
            errors[sound.sound_id] = str(exc)
    cached = cache.get_many(keys.values())
    vectors: dict[str, Vector] = {}
    pending: dict[str, Vector] = {}
    analysed = 0
    todo = sum(1 for key in set(keys.values()) if key not in cached)
    if progress is not None and todo:
        progress(0, todo)
    for sound in items:
        key = keys.get(sound.sound_id)
        if key is None:
            continue
        vector = cached.get(key)
        if vector is None:
            if cancelled is not None and cancelled():
                break
            try:
                vector = analyse(sound.path)
            except FeatureError as exc:
                errors[sound.sound_id] = str(exc)
                continue
            cached[key] = pending[key] = vector
            analysed += 1
            if progress is not None:
                progress(analysed, todo)
            if len(pending) >= flush_every:
                cache.put_many(pending)
                pending = {}
        vectors[sound.sound_id] = vector
    if pending:
        cache.put_many(pending)
    return Described(vectors, errors, analysed)


def normalise(matrix: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    """Raw vectors (rows) made comparable: each dimension standardised across the rows,
    each group of :data:`GROUPS` scaled to its weight, then each row to unit length."""
    data = np.asarray(matrix, dtype=np.float64)
    if data.ndim != 2 or data.shape[1] != SIZE:
        raise ValueError(f"expected (n, {SIZE}) raw vectors, got {data.shape}")
    spread = data.std(axis=0)
    scaled = (data - data.mean(axis=0)) / np.where(spread > 1e-9, spread, 1.0)
    start = 0
    for _, size, weight in GROUPS:
        scaled[:, start : start + size] *= weight / np.sqrt(size)
        start += size
    lengths = np.linalg.norm(scaled, axis=1, keepdims=True)
    return (scaled / np.where(lengths > 0, lengths, 1.0)).astype(np.float32)


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A sound like the query: its id and cosine distance (0 same, 2 opposite)."""

    sound_id: str
    distance: float


def nearest(
    query: str, vectors: Mapping[str, Vector] | Sequence[tuple[str, Vector]], k: int = 10
) -> list[Neighbour]:
    """The ``k`` sounds whose normalised features are closest to ``query``'s, nearest
    first (the query itself left out; ties by id). Raises ``KeyError`` for an unknown
    query."""
    pairs = list(vectors.items()) if isinstance(vectors, Mapping) else list(vectors)
    ids = [sound_id for sound_id, _ in pairs]
    if query not in ids:
        raise KeyError(query)
    if len(ids) < 2 or k <= 0:
        return []
    unit = normalise(np.stack([vector for _, vector in pairs]))
    row = ids.index(query)
    distance = 1.0 - unit @ unit[row]
    distance[row] = np.inf
    count = min(k, len(ids) - 1)
    best = np.argpartition(distance, count - 1)[:count]
    order = sorted(best, key=lambda index: (float(distance[index]), ids[index]))
    return [Neighbour(ids[index], max(float(distance[index]), 0.0)) for index in order]
