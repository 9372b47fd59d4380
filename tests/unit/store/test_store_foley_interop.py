"""Interop with the real foley package, both directions, run in subprocesses.

foley reads FOLEY_DATA_DIR once at import, so each foley step is a fresh interpreter
pointed at the test's data dir: exactly how foley's agent would share the files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from foley_tui.domain import Pick, Reject
from foley_tui.store import SessionService

from .helpers import ODD_IDS, candidate, run_py

LAYERS = ["voice", "sfx_fg", "ambience", "stinger", "music", None, "voice", None, "music"]
ONSETS = [0.0, 1.5, None, 12.25, 3, None, 7.75, 0.5, None]

FOLEY_WRITES = """
import json, sys
from foley.agent.session import SessionStore
from foley.base import Candidate
args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.loads({payload!r})
s = SessionStore(args["session"])
s.cache_candidates([Candidate.from_dict(c) for c in args["candidates"]])
for sid, layer, onset in args["picks"]:
    s.add_pick(sid, layer=layer, onset=onset)
for sid, reason in args["rejects"]:
    s.add_reject(sid, reason=reason)
print(json.dumps({{"picks": sorted(s.picked_ids()), "cands": [c.to_dict() for c in
    s.rehydrate(sorted(args["ids"]))]}}))
"""

FOLEY_READS = """
import json
from foley.agent.session import SessionStore
from foley.agent.verbs import foley_plan
s = SessionStore({session!r})
plan = foley_plan({session!r})
print(json.dumps({{
    "picks": sorted(s.list_picks(), key=lambda p: p["sound_id"]),
    "picked_ids": sorted(s.picked_ids()),
    "rejects": sorted(s.list_rejects(), key=lambda r: r["sound_id"]),
    "rehydrated": sorted(c.sound.id for c in s.rehydrate(s.picked_ids())),
    "items": [[i["clip_ref"], i["layer"], i["onset"]] for i in plan["items"]],
}}))
"""


def _foley_write(data_dir: Path, session: str, picks: list, rejects: list) -> dict:
    payload = json.dumps(
        {
            "session": session,
            "candidates": [candidate(i) for i in ODD_IDS],
            "picks": picks,
            "rejects": rejects,
            "ids": ODD_IDS,
        }
    )
    return run_py(FOLEY_WRITES.format(payload=payload), data_dir)


def test_foley_writes_we_read(data_dir: Path) -> None:
    picks: list[Any] = [
        [i, layer, onset] for i, layer, onset in zip(ODD_IDS[:6], LAYERS, ONSETS, strict=False)
    ]
    rejects: list[Any] = [[ODD_IDS[7], "too bright"], [ODD_IDS[8], None]]
    out = _foley_write(data_dir, "default", picks, rejects)
    assert out["picks"] == sorted(ODD_IDS[:6])
    service = SessionService(data_dir)
    [info] = service.list()
    assert (info.session_id, info.made_by_foley) == ("default", True)
    assert (info.picked, info.rejected, info.total) == (6, 2, len(ODD_IDS))
    store = service.get("default")
    assert store.picks() == {
        i: Pick(i, layer, None if onset is None else float(onset)) for i, layer, onset in picks
    }
    assert store.rejects() == {
        ODD_IDS[7]: Reject(ODD_IDS[7], "too bright"),
        ODD_IDS[8]: Reject(ODD_IDS[8]),
    }
    # foley's full Candidate.to_dict() round-trips through our reads unchanged
    assert store.rehydrate(sorted(ODD_IDS)) == out["cands"]
    rows = {r.sound_id: r for r in store.rows()}
    assert set(rows) == set(ODD_IDS)
    assert rows[ODD_IDS[1]].caption == f"caption of {ODD_IDS[1]}"
    assert store.problems() == []
    # and we can change foley's decisions, foley sees it
    store.set_layer(ODD_IDS[2], "stinger")
    store.clear(ODD_IDS[0])
    read = run_py(FOLEY_READS.format(session="default"), data_dir)
    assert ODD_IDS[0] not in read["picked_ids"]
    assert [ODD_IDS[2], "stinger", None] in [
        [p["sound_id"], p["layer"], p["onset"]] for p in read["picks"]
    ]


def test_we_write_foley_reads_and_plans(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("interop")
    store = service.get(sid)
    store.cache_candidates([candidate(i) for i in ODD_IDS])
    expected = {}
    for sound_id, layer, onset in zip(ODD_IDS, LAYERS, ONSETS, strict=True):
        if sound_id == ODD_IDS[7]:
            store.add_reject(sound_id, reason="hiss")
            continue
        store.add_reject(sound_id)  # then picked: the reject must disappear
        store.add_pick(sound_id, layer=layer, onset=onset)
        expected[sound_id] = (layer, onset)
    store.set_onset(ODD_IDS[1], 4.5)
    expected[ODD_IDS[1]] = (expected[ODD_IDS[1]][0], 4.5)
    read = run_py(FOLEY_READS.format(session=sid), data_dir)
    assert read["picked_ids"] == sorted(expected)
    assert read["rejects"] == [{"sound_id": ODD_IDS[7], "reason": "hiss"}]
    assert read["picks"] == [
        {"sound_id": i, "layer": expected[i][0], "onset": expected[i][1]} for i in sorted(expected)
    ]
    assert read["rehydrated"] == sorted(expected)
    items = {clip: (layer, onset) for clip, layer, onset in read["items"]}
    assert set(items) == set(expected)
    for sound_id, (layer, onset) in expected.items():
        plan_layer, plan_onset = items[sound_id]
        assert plan_layer == (layer or "sfx_fg"), sound_id  # None: the candidate's own event
        if onset is None and layer is None:
            assert plan_onset == "after:line-1"
        elif onset is not None:
            assert float(plan_onset) == float(onset), sound_id


def test_files_are_byte_identical_to_foleys(data_dir: Path) -> None:
    picks: list[Any] = [
        [i, layer, onset] for i, layer, onset in zip(ODD_IDS, LAYERS, ONSETS, strict=True)
    ][:7]
    rejects: list[Any] = [[ODD_IDS[7], "hiss"], [ODD_IDS[8], None]]
    _foley_write(data_dir, "theirs", picks, rejects)
    service = SessionService(data_dir)
    sid = service.create()
    store = service.get(sid)
    store.cache_candidates([candidate(i) for i in ODD_IDS])
    for sound_id, layer, onset in picks:
        store.add_pick(sound_id, layer=layer, onset=onset)
    for sound_id, reason in rejects:
        store.add_reject(sound_id, reason=reason)
    theirs = data_dir / "sessions" / "theirs"
    ours = data_dir / "sessions" / sid
    for ns in ("picks", "rejects"):
        names = sorted(p.name for p in (theirs / ns).iterdir())
        assert names == sorted(p.name for p in (ours / ns).iterdir()), ns
        for name in names:
            assert (theirs / ns / name).read_bytes() == (ours / ns / name).read_bytes(), name
    # candidates: foley writes Candidate.to_dict() (all defaults filled in); the same
    # dict cached by us gives the same bytes.
    full = run_py(
        "import json\nfrom foley.agent.session import SessionStore\n"
        f"cands = SessionStore('theirs').rehydrate({ODD_IDS!r})\n"
        "print(json.dumps([c.to_dict() for c in cands]))",
        data_dir,
    )
    other = service.get(service.create())
    other.cache_candidates(full)
    cand_dir = data_dir / "sessions" / other.session_id / "candidates"
    for name in sorted(p.name for p in (theirs / "candidates").iterdir()):
        assert (theirs / "candidates" / name).read_bytes() == (cand_dir / name).read_bytes()
    # nothing of ours inside foley's namespace folders
    for ns in ("candidates", "picks", "rejects"):
        assert not [p for p in (ours / ns).iterdir() if p.name.startswith(".")]
