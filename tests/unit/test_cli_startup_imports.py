"""What starting the command line and the app imports: not the Redis client unless a Redis
store is used, not the audio stack or dol before the first frame, and not what the first
frame does not need."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys


def _imported_after(setup: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` (a name, or a prefix ending in ``.``) a fresh interpreter has
    imported once it ran ``setup``. Every name must exist: a module renamed or moved
    fails here instead of passing forever as "not imported"."""
    missing = [m for m in modules if importlib.util.find_spec(m.rstrip(".")) is None]
    assert not missing, f"no such modules: {missing}"
    code = (
        f"import sys\n{setup}\n"
        f"wanted = {modules!r}\n"
        "import json\n"
        "print(json.dumps(sorted(m for m in sys.modules if any(\n"
        "    m == w or (w.endswith('.') and m.startswith(w)) for w in wanted))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


def test_building_the_cli_does_not_import_redis() -> None:
    setup = (
        "from foley_tui.cli import build_parser\n"
        "build_parser()\n"
        "from foley_tui.store import open_service\n"
        "open_service('file')\n"
    )
    assert _imported_after(setup, ("redis", "redis.")) == []


def test_the_app_starts_without_the_audio_stack_or_dol() -> None:
    """What the first paint imports: the app, its screens and the file store, but not
    numpy, soundfile, sounddevice, the mixer, foley (the woven mix's rules) or dol
    (hundreds of ms and ~60 MB: the audio stack is imported by the player's start-up
    thread after the first frame, dol by the load worker once the whole list is in)."""
    setup = (
        "import foley_tui.cli.app, foley_tui.app.foley_app, foley_tui.screens.audition.screen\n"
        "from foley_tui.cli import build_parser\n"
        "build_parser()\n"
    )
    heavy = (
        "numpy",
        "soundfile",
        "sounddevice",
        "soxr",
        "dol",
        "foley_tui.audio.mixer",
        "foley",
        "foley.",
        "mixing",
        "mixing.",
    )
    assert _imported_after(setup, heavy) == []


def test_open_parses_with_its_own_verbs_and_defers_what_the_first_frame_does_not_need() -> None:
    """`foley-tui open S` builds the parser of the app verbs alone (not every verb's
    module and dependencies), and starting the app imports neither the scene model nor
    the dialogs, export, the ledger modules, the TOML reader, `secrets` or `hashlib`
    (each imported where it is used)."""
    setup = (
        "from foley_tui.cli import parse_command_line\n"
        "parser, args = parse_command_line(['open', 'S', '--no-audio'])\n"
        "assert args.command == 'open'\n"
        "import foley_tui.app.foley_app, foley_tui.screens.audition.screen\n"
    )
    deferred = (
        "foley_tui.cli.store",
        "foley_tui.cli.scene",
        "foley_tui.cli.messages",
        "foley_tui.cli.redis",
        "foley_tui.cli.audio",
        "foley_tui.cli.candidates",
        "foley_tui.scene.build",
        "foley_tui.scene.narration",
        "foley_tui.scene.words",
        "foley_tui.screens.help",
        "foley_tui.screens.messages",
        "foley_tui.screens.onset",
        "foley_tui.screens.reason",
        "foley_tui.screens.sessions_modals",
        "foley_tui.screens.timeline",
        "foley_tui.store.export_doc",
        "foley_tui.store.history",
        "foley_tui.store.messages",
        "foley_tui.store.usage",
        "tomllib",
        "secrets",
        "hashlib",
    )
    assert _imported_after(setup, deferred) == []


def test_a_one_shot_verb_parses_with_its_own_modules_verbs_alone() -> None:
    """`foley-tui undo S` builds the parser of the store verbs alone: the other verbs'
    modules, the conversation's and the add walker's are not imported to parse it."""
    setup = (
        "from foley_tui.cli import parse_command_line\n"
        "parser, args = parse_command_line(['undo', 'S'])\n"
        "assert args.command == 'undo'\n"
    )
    deferred = (
        "foley_tui.cli.scene",
        "foley_tui.cli.spot",
        "foley_tui.cli.messages",
        "foley_tui.cli.similar",
        "foley_tui.cli.app",
        "foley_tui.cli.demo",
        "foley_tui.cli.redis",
        "foley_tui.cli.audio",
        "foley_tui.store.local",
        "foley_tui.store.history",
        "foley_tui.scene.contract",
    )
    assert _imported_after(setup, deferred) == []
