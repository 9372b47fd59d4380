"""Helpers for the store tests: candidate dicts and running real foley in a subprocess.

foley reads FOLEY_DATA_DIR once, when ``foley.stores`` is imported, so every test that
drives foley's own SessionStore runs it in a fresh interpreter with the test's data dir.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Ids that exercise foley's file-name encoding: ':', '/', spaces, a leading '.', '..',
#: non-ASCII, a literal '%', and an id that looks already encoded.
ODD_IDS = [
    "freesound:123456",
    "bbc/RemArc/07 door slam.wav",
    "with space",
    ".leading-dot",
    "..",
    "ünïcødé 音 🔊",
    "100%real",
    "%41lready-encoded",
    "mix: /é .x",
]


def candidate(sound_id: str, *, caption: str | None = None, **extra: Any) -> dict[str, Any]:
    """A candidate dict foley's ``Candidate.from_dict`` accepts (missing keys default)."""
    data: dict[str, Any] = {
        "sound": {
            "id": sound_id,
            "uri": None,
            "storage_mode": "by_reference",
            "license": {"source": "freesound", "license_id": "CC0-1.0"},
            "caption": caption if caption is not None else f"caption of {sound_id}",
            "tags": ["door", "slam"],
            "duration_s": 1.25,
            "sample_rate": 48000,
            "channels": 2,
            "format": "flac",
        },
        "origin": "retrieved",
        "event": {"query": "door slam", "layer": "sfx_fg", "onset": "after:line-1"},
        "rrf_score": 0.03,
        "notes": [],
    }
    data.update(extra)
    return data


def run_py(code: str, data_dir: Path, *, timeout: float = 60) -> Any:
    """Run ``code`` in a fresh interpreter with FOLEY_DATA_DIR set; return the JSON it
    prints on its last stdout line."""
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if out.returncode != 0:
        raise AssertionError(f"subprocess failed ({out.returncode}):\n{out.stderr}")
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else None


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes), to prove nothing was deleted."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".foley-tui" not in p.parts
    }
