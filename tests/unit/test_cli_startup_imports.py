"""The command line does not pay for the Redis client unless a Redis store is used."""

from __future__ import annotations

import subprocess
import sys


def test_building_the_cli_does_not_import_redis() -> None:
    code = (
        "import sys\n"
        "from foley_tui.cli import build_parser\n"
        "build_parser()\n"
        "from foley_tui.store import open_service\n"
        "open_service('file')\n"
        "print(sorted(m for m in sys.modules if m == 'redis' or m.startswith('redis.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_app_starts_without_the_audio_stack_or_dol() -> None:
    """What the first paint imports: the app, its screens and the file store, but not
    numpy, soundfile, sounddevice, the mixer or dol (hundreds of ms and ~60 MB: the audio
    stack is imported by the player's start-up thread after the first frame, dol by the
    load worker once the whole list is in)."""
    code = (
        "import sys\n"
        "import foley_tui.cli_app, foley_tui.app, foley_tui.screens.audition\n"
        "from foley_tui.cli import build_parser\n"
        "build_parser()\n"
        "heavy = ('numpy', 'soundfile', 'sounddevice', 'soxr', 'dol', 'foley_tui.audio.mixer')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
