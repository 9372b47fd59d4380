"""Seeded fuzzing of a session's JSON files and of its SQLite index (run as a child).

Each case builds a healthy session, opens it once (the index is written), mutates one
file (bytes flipped, cut, hostile tokens spliced in, a JSON leaf replaced by an absurd
value, index rows altered through SQL), then opens it every way (see probe.py) and
checks: no unexpected exception, nothing outside the data dir changed, and an index
mutation never changes what an export holds. Prints one JSON line of failures.

Usage: python fuzz_run.py WORK_DIR SEED COUNT
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import sys
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.unit.hostile.corpus import SID, healthy
from tests.unit.hostile.probe import probe

TOKENS = [
    b"NaN",
    b"-Infinity",
    b"1e999",
    b"9" * 401,
    b"[" * 3000,
    b'"\\ud800"',
    b'"\\u0000"',
    b"true",
    b"null",
    b'{"a": 1, "a": 2}',
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b'"\x1b[2J"',
    b"}",
    b",",
]
VALUES: list[Any] = [
    float("nan"),
    float("inf"),
    10**401,
    -1,
    True,
    None,
    "",
    "\ud800",
    "x" * 10_000,
    [[[[[]]]]],
    {"nested": {"deep": [1, 2, {"x": None}]}},
    "9999-12-31T23:59:59-23:59",
    "../../etc/passwd",
    "\x1b]0;pwned\x07",
]


JOURNAL = "".join(
    json.dumps(record) + "\n"
    for record in (
        {
            "seq": 1,
            "id": "01J0000000000000000000000A",
            "at": "2026-01-01T00:00:00+00:00",
            "sound_id": "c0",
            "before": {"status": "undecided"},
            "after": {"status": "picked", "layer": "voice", "onset": 1.5},
            "kind": "do",
        },
        {
            "seq": 2,
            "id": "01J0000000000000000000000B",
            "at": "2026-01-01T00:00:01+00:00",
            "sound_id": "c1",
            "before": {"status": "undecided"},
            "after": {"status": "rejected", "reason": "hiss"},
            "kind": "do",
        },
    )
)


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(4)
    if not data or kind == 0:
        return data[: rng.randrange(len(data) + 1)]
    pos = rng.randrange(len(data))
    if kind == 1:
        flips = bytes(b ^ (1 << rng.randrange(8)) for b in data[pos : pos + rng.randint(1, 8)])
        return data[:pos] + flips + data[pos + len(flips) :]
    if kind == 2:
        return data[:pos] + rng.choice(TOKENS) + data[pos:]
    return data[:pos] + rng.choice(TOKENS) + data[pos + rng.randint(1, 20) :]


def mutate_json(rng: random.Random, data: bytes) -> bytes:
    try:
        value = json.loads(data)
    except ValueError:
        return mutate_bytes(rng, data)
    holders: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in node:
                holders.append((node, key))
                walk(node[key])
        elif isinstance(node, list):
            for i in range(len(node)):
                holders.append((node, i))
                walk(node[i])

    walk(value)
    if not holders:
        return mutate_bytes(rng, data)
    node, key = rng.choice(holders)
    node[key] = rng.choice(VALUES)
    return json.dumps(value, indent=4).encode()  # NaN/Infinity as Python writes them


def mutate_index(rng: random.Random, path: Path) -> None:
    if rng.random() < 0.4:
        path.write_bytes(mutate_bytes(rng, path.read_bytes()))
        return
    db = sqlite3.connect(path)
    if rng.random() < 0.25:  # one stored column's blob (see index_columns)
        try:
            keys = [k for (k,) in db.execute("SELECT k FROM columns")]
            key = rng.choice(keys)
            (blob,) = db.execute("SELECT v FROM columns WHERE k = ?", (key,)).fetchone()
            db.execute("UPDATE columns SET v = ? WHERE k = ?", (mutate_bytes(rng, blob), key))
            db.commit()
        except (sqlite3.Error, IndexError):
            pass
        finally:
            db.close()
        return
    statements = [
        "UPDATE rows SET key = 'c1' WHERE pos = 0",
        "UPDATE rows SET name = 'evil.json' WHERE pos = 1",
        "DELETE FROM rows WHERE pos = 2",
        "UPDATE rows SET pos = pos + 10",
        "UPDATE rows SET caption = ?",
        "UPDATE info SET v = ? WHERE k = 'digest'",
        "UPDATE rows SET unreadable = ?",
        "INSERT INTO problems VALUES ('x', 'x.json', ?)",
        "DELETE FROM rows_fts_data",
        "CREATE TABLE extra(x)",
    ]
    statement = rng.choice(statements)
    try:
        if "?" in statement:
            db.execute(statement, (str(rng.choice(VALUES)),))
        else:
            db.execute(statement)
        db.commit()
    except (sqlite3.Error, UnicodeEncodeError):  # the mutation itself was refused
        pass
    finally:
        db.close()


def exported_records(text: str | None) -> Any:
    if text is None:
        return None
    doc = json.loads(text)
    return {k: doc.get(k) for k in ("candidates", "picks", "rejects", "raw")}


def case(work: Path, seed: int) -> str | None:
    rng = random.Random(seed)
    folder = work / f"case-{seed}"
    data, outside, other = folder / "data", folder / "outside", folder / "other"
    root = healthy(data, outside)
    (root / ".foley-tui" / "journal.jsonl").write_text(JOURNAL)
    baseline = probe(data, SID, folder / "other0", decide=False)  # writes the index
    secret = sorted((p.name, p.read_bytes()) for p in outside.iterdir() if p.is_file())
    targets = sorted(p for p in root.rglob("*") if p.is_file() and p.name != "lock")
    target = rng.choice(targets)
    if target.name == "index.sqlite":
        mutate_index(rng, target)
    elif rng.random() < 0.5:
        target.write_bytes(mutate_json(rng, target.read_bytes()))
    else:
        target.write_bytes(mutate_bytes(rng, target.read_bytes()))
    try:
        result = probe(data, SID, other, decide=False)
    except Exception:
        return f"seed {seed} ({target.name}): {traceback.format_exc()}"
    if sorted((p.name, p.read_bytes()) for p in outside.iterdir() if p.is_file()) != secret:
        return f"seed {seed} ({target.name}): a file outside the data dir changed"
    if target.name == "index.sqlite":
        # The index is a cache: whatever it holds, an export holds what the files hold.
        before, after = exported_records(baseline["export"]), exported_records(result["export"])
        if before is not None and after is not None:
            after["picks"], before["picks"] = None, None  # the probe's own decisions
            after["rejects"], before["rejects"] = None, None
            if before != after:
                return f"seed {seed}: a mutated index changed the export"
    shutil.rmtree(folder, ignore_errors=True)
    return None


def main() -> None:
    work, seed, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    failures = [f for f in (case(work, seed + i) for i in range(count)) if f]
    print(json.dumps({"cases": count, "failures": failures}))


if __name__ == "__main__":
    main()
