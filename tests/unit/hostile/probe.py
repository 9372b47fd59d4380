"""Open one (hostile) session every way the app and the CLI do, in this process, and
print what happened as one JSON line. Run as a child process by the hostile tests, so a
hang is a timeout, a crash a signal and an unexpected exception a traceback on stderr.

Usage: python probe.py DATA_DIR SESSION_ID OTHER_DATA_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def probe(data_dir: Path, sid: str, other: Path, *, decide: bool = True) -> dict[str, Any]:
    """Open, list, page, resolve, export and re-import; with ``decide``, also make
    durable decisions. Without it (the fuzz runs) nothing is fsync'd: the export is
    re-imported into an in-memory service (the same validation)."""
    from foley_tui.audio.base import Source
    from foley_tui.audio.decode import BlockDecoder, DecodeError, nonfinite_note
    from foley_tui.audio.resolve import resolve
    from foley_tui.domain import ValidationError
    from foley_tui.store import SessionService, SessionServiceError, StoreWriteError

    expected = (SessionServiceError, StoreWriteError, ValidationError)
    out: dict[str, Any] = {"messages": [], "export": None}
    say = out["messages"].append
    service = SessionService(data_dir)
    out["listed"] = [info.session_id for info in service.list()]
    out["most_recent"] = service.most_recent()
    try:
        store = service.get(sid)
    except expected as exc:
        say(f"open: {exc}")
        return out
    rows = store.rows()
    out["rows"] = [row.sound_id for row in rows]
    out["unreadable"] = {row.sound_id: row.unreadable for row in rows if row.unreadable}
    say(" ".join(row.unreadable or "" for row in rows))
    store.picks(), store.rejects(), store.journal()
    page = store.page(limit=10)
    out["page"] = None if page is None else [row.sound_id for row in page.rows]
    meta = store.meta()
    out["volume_db"] = meta.view.get("volume_db")
    out["created"] = meta.created.isoformat()
    for row in rows:
        cand = store.candidate(row.sound_id)
        if cand is not None:
            found = resolve(cand, data_dir)
            if not isinstance(found, Source):
                say(found.reason)
                continue
            # Decode it as the player does: what the device would get, and what the
            # decoder had to replace.
            try:
                decoder = BlockDecoder(found.path, 48000)
            except DecodeError as exc:
                say(str(exc))
                continue
            worst = 0.0
            while not decoder.done:
                block = decoder.read(8192)
                if len(block):
                    worst = max(worst, float(abs(block).max()))
            decoder.close()
            out.setdefault("peaks", {})[row.sound_id] = worst
            if decoder.nonfinite:
                say(nonfinite_note(found.path.name, decoder.nonfinite))
    try:
        doc = service.export_session(sid)
    except expected as exc:
        say(f"export: {exc}")
    else:
        text = json.dumps(doc, ensure_ascii=True)
        out["export"] = text
        try:
            target = SessionService(other) if decide else SessionService.in_memory()
            target.import_session(json.loads(text))
            out["reimported"] = True
        except expected as exc:
            say(f"reimport: {exc}")
    for action in ("pick-c1", "reject-c0", "layer-c2", "undo") if decide else ():
        try:
            if action == "pick-c1":
                store.add_pick("c1", layer="music")
            elif action == "reject-c0":
                store.add_reject("c0", reason="no")
            elif action == "layer-c2":
                store.add_pick("c2")
                store.set_layer("c2", "ambience")
            else:
                store.undo()
        except expected as exc:
            say(f"{action}: {exc}")
        except OSError as exc:  # a refused link: the decision is not made
            say(f"{action}: {exc}")
    try:
        if decide:
            store.flush()
    except OSError as exc:  # StoreWriteError: our folder is refused (a link)
        say(f"flush: {exc}")
    out["problems"] = [str(problem) for problem in store.problems()]
    out["messages"].extend(out["problems"])
    return out


if __name__ == "__main__":
    result = probe(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
    print(json.dumps(result, ensure_ascii=True))
