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


def test_open_parses_with_its_own_verbs_and_defers_what_the_first_frame_does_not_need() -> None:
    """`foley-tui open S` builds the parser of the app verbs alone (not every verb's
    module and dependencies), and starting the app imports neither the scene model nor
    the dialogs, export, the TOML reader or `secrets` (each imported where it is used)."""
    code = (
        "import sys\n"
        "from foley_tui.cli import parse_command_line\n"
        "parser, args = parse_command_line(['open', 'S', '--no-audio'])\n"
        "assert args.command == 'open'\n"
        "import foley_tui.app, foley_tui.screens.audition\n"
        "deferred = (\n"
        "    'foley_tui.cli_store', 'foley_tui.cli_scene', 'foley_tui.cli_messages',\n"
        "    'foley_tui.cli_redis', 'foley_tui.cli_audio', 'foley_tui.cli_candidates',\n"
        "    'foley_tui.scene.build', 'foley_tui.scene.narration', 'foley_tui.scene.words',\n"
        "    'foley_tui.screens.help', 'foley_tui.screens.messages', 'foley_tui.screens.onset',\n"
        "    'foley_tui.screens.reason', 'foley_tui.screens.sessions_modals',\n"
        "    'foley_tui.screens.timeline', 'foley_tui.store.export_doc', 'tomllib', 'secrets',\n"
        ")\n"
        "print(sorted(m for m in deferred if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
