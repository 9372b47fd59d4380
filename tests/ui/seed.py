"""Deterministic sessions for the UI tests, the tmux end-to-end test and the benchmark.

Candidates are foley ``Candidate.to_dict()`` shaped; their audio is a short WAV written
next to the data dir and referenced by absolute path (foley's index-in-place mode).
"""

from __future__ import annotations

import math
import os
import struct
import wave
from pathlib import Path
from typing import Any

from foley_tui.store import SessionService, encode_key

BASE_MTIME = 1_767_225_600  # 2026-01-01T00:00:00Z

CAPTIONS = (
    ("rain on a tin roof, steady", ("rain", "roof", "ambience"), "freesound", "CC0-1.0"),
    ("heavy door slams shut", ("door", "slam", "impact"), "bbc", "RemArc"),
    ("footsteps on gravel, slow walk", ("footsteps", "gravel"), "freesound", "CC-BY-4.0"),
    ("distant thunder rumble", ("thunder", "storm"), "sonniss", "Sonniss-GDC"),
    ("glass clink, two wine glasses", ("glass", "clink"), "freesound", "CC0-1.0"),
    ("wind through pine trees", ("wind", "forest", "ambience"), "bbc", "RemArc"),
    ("wooden door knock, three times", ("door", "knock"), "freesound", "CC-BY-4.0"),
    ("fast whoosh pass-by", ("whoosh", "transition"), "elevenlabs", "ElevenLabs-ToS"),
    ("campfire crackle close", ("fire", "crackle"), "freesound", "CC0-1.0"),
    ("old clock ticking", ("clock", "tick"), "sonniss", "Sonniss-GDC"),
    ("water drip in a cave", ("water", "drip", "cave"), "freesound", "CC-BY-4.0"),
    ("small bird chirp", ("bird", "chirp"), "bbc", "RemArc"),
)


def write_tone(path: Path, seconds: float = 0.5, rate: int = 8000, freq: float = 440.0) -> None:
    """A small 16-bit mono WAV (stdlib only, so seeding is fast and dependency-free)."""
    frames = int(seconds * rate)
    data = b"".join(
        # A struck, decaying tone: the waveform strip has a shape to show.
        struct.pack(
            "<h",
            int(30000 * math.exp(-4.0 * i / frames) * math.sin(2 * math.pi * freq * i / rate)),
        )
        for i in range(frames)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(data)


def candidate(
    index: int, audio: Path | None, *, big: bool = False, events: bool = False
) -> dict[str, Any]:
    caption, tags, source, licence = CAPTIONS[index % len(CAPTIONS)]
    sound_id = f"{source}:{1000 + index}"
    generated = source == "elevenlabs"
    return {
        "sound": {
            "id": sound_id,
            "content_sha256": None,
            "uri": str(audio) if audio else f"https://example.invalid/{index}",
            "storage_mode": "by_reference",
            "license": {
                "source": source,
                "source_id": str(1000 + index),
                "license_id": licence,
                "commercial_ok": licence != "CC-BY-NC-4.0",
                "requires_attribution": licence.startswith("CC-BY"),
                "is_ai_generated": generated,
                "creator_name": "seed",
            },
            "caption": caption if index < len(CAPTIONS) else f"{caption} #{index}",
            "tags": list(tags),
            "duration_s": 0.5 + (index % 7) * 1.25,
            "sample_rate": 8000,
            "channels": 1,
            "format": "wav",
            "loudness_lufs": -20.0,
            **({"embedding_note": "x" * 2500} if big else {}),
        },
        "origin": "generated" if generated else "retrieved",
        # With ``events``, foley's agent made it for a scene event (the list groups by it);
        # without, it is a plain library sound (the flat list).
        **({"event": {"query": tags[0], "layer": "sfx_fg", "onset": "start"}} if events else {}),
        "clap_score": round(0.9 - (index % 10) * 0.05, 3),
        "bm25_score": 7.5,
        "rrf_score": round(0.032 - (index % 10) * 0.001, 4),
        "rerank_score": None,
        "verdict": {"match": True, "confidence": 0.8, "reason": "matches query", "level": "ok"}
        if index % 3 == 0
        else None,
        "license_ok": True,
        "preview_uri": None,
        "notes": ["seeded for tests"] if index % 4 == 0 else [],
        "cost_estimate_usd": 0.12 if generated else None,
        "cost_actual_usd": 0.1 if generated else None,
    }


def seed_session(
    data_dir: Path,
    count: int = 12,
    *,
    title: str = "Storm scene",
    audio_count: int | None = None,
    big: bool = False,
    events: bool = False,
) -> tuple[SessionService, str]:
    """Create a session of ``count`` candidates; the first ``audio_count`` get a WAV."""
    service = SessionService(data_dir)
    session_id = service.create(title)
    store = service.get(session_id)
    audio_dir = data_dir.parent / "audio-files"
    limit = count if audio_count is None else audio_count
    tones: dict[int, Path] = {}
    for i in range(min(limit, len(CAPTIONS))):
        tones[i] = audio_dir / f"tone-{i}.wav"
        write_tone(tones[i], freq=220.0 + 55 * i)
    candidates = [
        candidate(i, tones[i % len(CAPTIONS)] if i < limit else None, big=big, events=events)
        for i in range(count)
    ]
    store.cache_candidates(candidates)
    # The default order is (file mtime, id): fix the mtimes so the order is the seed's.
    folder = data_dir / "sessions" / session_id / "candidates"
    for i, cand in enumerate(candidates):
        stamp = BASE_MTIME + i
        os.utime(folder / encode_key(cand["sound"]["id"]), (stamp, stamp))
    return service, session_id
