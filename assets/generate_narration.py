"""Synthesise the demo's narration with espeak-ng, and its word timeline.

    python assets/generate_narration.py [OUT_DIR]    # default: assets/demo/

Writes ``narration.flac`` (mono, 16-bit) and ``narration_words.json`` (foley's aligner
format, ``[{"word", "start", "end"}, ...]``). Run once and committed: a speech
synthesiser's output is not byte-reproducible across versions, so the demo ships the
result rather than regenerating it.

The word times are measured, not guessed: every word is synthesised on its own, its
leading and trailing silence trimmed (samples under -50 dBFS), and the words are joined
with fixed pauses (a short one between words, a longer one after a sentence's last
word). A word's ``start``/``end`` are exactly where its trimmed audio begins and ends in
the joined file. The text and this program are CC0 (assets/demo/LICENSE); espeak-ng's
output is not a derivative work of any recording.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import soundfile as sf

OUT_DIR = Path(__file__).resolve().parent / "demo"

SCRIPT = (
    "Rain drummed on the tin roof of the old house.",
    "The wind howled around the chimney.",
    "Footsteps crunched on the gravel outside, and the door slammed.",
    "Thunder rolled somewhere far away.",
    "In the hall, a clock ticked.",
    "She set her glass down on the table, and her heart pounded.",
    "Then the church bell tolled midnight.",
)

VOICE = "en-gb"
SPEED_WPM = 150
WORD_GAP_S = 0.07
SENTENCE_GAP_S = 0.55
LEAD_S = 0.5
TAIL_S = 0.8
SILENCE_DB = -50.0


def speak(word: str) -> tuple[np.ndarray, int]:
    """One word from espeak-ng as float32 mono samples and their rate."""
    spoken = subprocess.run(
        ["espeak-ng", "-v", VOICE, "-s", str(SPEED_WPM), "--stdout", word],
        capture_output=True,
        check=True,
    )
    data, rate = sf.read(io.BytesIO(spoken.stdout), dtype="float32")
    return (data if data.ndim == 1 else data.mean(axis=1)), int(rate)


def trim(data: np.ndarray) -> np.ndarray:
    """The word without its leading and trailing silence."""
    loud = np.flatnonzero(np.abs(data) > 10 ** (SILENCE_DB / 20))
    return data[loud[0] : loud[-1] + 1] if len(loud) else data[:0]


def build(script: tuple[str, ...] = SCRIPT) -> tuple[np.ndarray, int, list[dict[str, object]]]:
    pieces: list[np.ndarray] = []
    words: list[dict[str, object]] = []
    rate = 0
    position = 0
    for sentence in script:
        tokens = sentence.split()
        for i, token in enumerate(tokens):
            spoken = token.strip(",.;:!?")
            data, rate = speak(spoken)
            if not pieces:
                lead = np.zeros(round(LEAD_S * rate), np.float32)
                pieces.append(lead)
                position = len(lead)
            body = trim(data)
            words.append(
                {
                    "word": token,
                    "start": round(position / rate, 4),
                    "end": round((position + len(body)) / rate, 4),
                }
            )
            pieces.append(body)
            position += len(body)
            last = i == len(tokens) - 1
            gap = np.zeros(round((SENTENCE_GAP_S if last else WORD_GAP_S) * rate), np.float32)
            pieces.append(gap)
            position += len(gap)
    pieces.append(np.zeros(round(TAIL_S * rate), np.float32))
    audio = np.concatenate(pieces)
    peak = float(np.abs(audio).max())
    if peak > 0:
        audio = audio * np.float32(10 ** (-3.0 / 20) / peak)  # -3 dBFS peak
    return audio.astype(np.float32), rate, words


def main(argv: list[str]) -> int:
    if shutil.which("espeak-ng") is None:
        print("espeak-ng is not installed (apt-get install espeak-ng)", file=sys.stderr)
        return 1
    out_dir = Path(argv[0]) if argv else OUT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    audio, rate, words = build()
    sf.write(str(out_dir / "narration.flac"), audio, rate, format="FLAC", subtype="PCM_16")
    lines = ",\n".join(" " + json.dumps(w) for w in words)
    (out_dir / "narration_words.json").write_text(f"[\n{lines}\n]\n")
    print(f"narration: {len(audio) / rate:.2f} s at {rate} Hz, {len(words)} words")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
