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
