"""Run one foley-tui command line in a fresh interpreter and report its max RSS: what the
tests that hold the store to its caps measure (the child's own peak, not the test's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# The peak is VmHWM of the child's own memory map: ``ru_maxrss`` would also count the
# pages of the (big) test process it was forked from, which Linux keeps across exec.
CHILD = """
import contextlib, io, json, sys
from foley_tui.cli import main

out = io.StringIO()
with contextlib.redirect_stdout(out):
    rc = main(sys.argv[1:])
with open("/proc/self/status") as status:
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
with open("/proc/self/io") as io_:
    read = next(int(line.split()[1]) for line in io_ if line.startswith("rchar:"))
heavy = sorted(m for m in ("dol", "ulid", "importlib.metadata") if m in sys.modules)
print(json.dumps({"rc": rc, "out": out.getvalue(), "rss_kb": rss, "read_kb": read // 1024,
                  "imported": heavy}))
"""


def cli_rss(data_dir: Path, *args: str, timeout: float = 600) -> dict[str, Any]:
    """``{"rc", "out" (its stdout), "rss_kb" (its max RSS), "read_kb" (every byte its
    reads returned, modules included), "imported" (which of dol, ulid and
    importlib.metadata it imported)}`` of ``foley-tui ARGS``."""
    env = {**os.environ, "FOLEY_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


__all__ = ["cli_rss"]
