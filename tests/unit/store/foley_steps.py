"""Steps run by foley 0.0.89's own code, and what foley reads back, for the store tests.

Each step is a fresh interpreter with FOLEY_DATA_DIR set (foley reads it once, at
import): exactly how foley's agent shares a session with foley-tui.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .helpers import candidate, run_py

_PRELUDE = """
import json, sys
from foley.agent.session import SessionStore
from foley.base import Candidate
from foley.agent.verbs import foley_plan
args = json.loads({payload!r})
s = SessionStore(args["session"])
"""


def foley_do(data_dir: Path, session: str, body: str, **args: Any) -> Any:
    """Run ``body`` with ``s`` = foley's SessionStore(session) and ``args``; return the
    JSON of ``result`` if the body sets it."""
    payload = json.dumps({"session": session, **args})
    code = _PRELUDE.format(payload=payload) + body + "\nprint(json.dumps(globals().get('result')))"
    return run_py(code, data_dir)


def foley_cache(data_dir: Path, session: str, ids: list[str]) -> None:
    foley_do(
        data_dir,
        session,
        's.cache_candidates([Candidate.from_dict(c) for c in args["cands"]])',
        cands=[candidate(i) for i in ids],
    )


def foley_view(data_dir: Path, session: str) -> dict[str, Any]:
    """What foley reads: its picks and rejects (sorted) and the plan's items."""
    return foley_do(
        data_dir,
        session,
        """
plan = foley_plan(args["session"])
result = {
    "picks": sorted(s.list_picks(), key=lambda p: p["sound_id"]),
    "rejects": sorted(s.list_rejects(), key=lambda r: r["sound_id"]),
    "items": sorted([i["clip_ref"], str(getattr(i["layer"], "value", i["layer"])), i["onset"]]
                    for i in plan["items"]),
}
""",
    )


def files_of(root: Path) -> dict[str, bytes]:
    """Every pick and reject file of a session folder: relative path -> bytes."""
    out = {}
    for ns in ("picks", "rejects"):
        folder = root / ns
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if not path.name.startswith("."):
                    out[f"{ns}/{path.name}"] = path.read_bytes()
    return out
