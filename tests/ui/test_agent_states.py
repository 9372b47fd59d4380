"""States foley's agent makes while foley-tui is open, each made with foley 0.0.89's own
SessionStore (in a fresh interpreter: foley reads FOLEY_DATA_DIR at import) and checked in
the files after.

* A dialog opened on a pick the agent then changes or drops never applies to the
  agent's newer state: on confirm nothing is written and the user is told what changed
  (the onset dialog, the question before a nudge replaces an anchor, one pick per event;
  the timeline's onset dialog).
* Nudging an anchored onset starts from where the narration's words put it, and the
  question says the new value.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from foley_tui.config import Settings
from foley_tui.scene.narration import make_narration, write_narration
from foley_tui.screens.onset import OnsetScreen
from foley_tui.screens.sessions_modals import ConfirmModal
from foley_tui.store import SessionService
from tests.fakes import NoticeLog
from tests.ui.conftest import SIZE, Session, current, ready, settle
from tests.ui.seed import seed_session
from tests.unit.store.helpers import run_py

FOLEY = """
import json
from foley.agent.session import SessionStore
s = SessionStore({session!r})
{code}
print(json.dumps(s.list_picks()))
"""


def agent(data_dir: Path, session_id: str, code: str) -> Any:
    """foley's agent writes (its own SessionStore); returns its picks after."""
    return run_py(FOLEY.format(session=session_id, code=code), data_dir)


def notices(log: NoticeLog) -> str:
    return str(log)


async def _to(pilot: Any, app: Any, sound_id: str) -> None:
    screen = app.audition
    screen.candidate_list.move_to(screen.listing.view.index(sound_id))
    await pilot.pause()
    assert current(app) == sound_id


async def test_the_onset_dialog_never_recreates_a_pick_the_agent_dropped(
    data_dir: Path,
) -> None:
    service, session_id = seed_session(data_dir)
    agent(data_dir, session_id, "s.add_pick('bbc:1001', layer='sfx_fg', onset=1.5)")
    session = Session(data_dir, service, session_id)
    app = session.app()
    log = NoticeLog(app)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _to(pilot, app, "bbc:1001")
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OnsetScreen)
        assert agent(data_dir, session_id, "s.drop_pick('bbc:1001')") == []
        await pilot.press("ctrl+a", *"3.25", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, OnsetScreen)
        assert "was dropped" in notices(log) and "Not saved" in notices(log)
    assert session.pick_file("bbc:1001") is None  # not re-created with layer null
    assert agent(data_dir, session_id, "") == []


async def test_a_nudge_confirmed_after_the_agent_moved_the_pick_writes_nothing(
    data_dir: Path,
) -> None:
    service, session_id = seed_session(data_dir)
    agent(data_dir, session_id, "s.add_pick('bbc:1001', onset=\"on 'door'\")")
    session = Session(data_dir, service, session_id)
    app = session.app()
    log = NoticeLog(app)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _to(pilot, app, "bbc:1001")
        await pilot.press("]")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await settle(pilot)  # what it opened on is read by a worker
        agent(data_dir, session_id, "s.add_pick('bbc:1001', onset=12.0)")
        await pilot.press("y")
        await settle(pilot)
        assert "onset changed" in notices(log) and "12.0" in notices(log)
    assert session.pick_file("bbc:1001") == {"sound_id": "bbc:1001", "layer": None, "onset": 12.0}


async def test_one_pick_per_event_never_drops_a_pick_the_agent_replaced(
    data_dir: Path,
) -> None:
    service, session_id = seed_session(data_dir, events=True)
    agent(data_dir, session_id, "s.add_pick('freesound:1006', onset=2.5)")
    session = Session(data_dir, service, session_id)
    app = session.app(settings=Settings(one_pick_per_event=True))
    log = NoticeLog(app)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("e", "p")  # the door slam: the knock would be dropped
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await settle(pilot)  # what it opened on is read by a worker
        agent(data_dir, session_id, "s.add_pick('freesound:1006', onset=3.0)")
        await pilot.press("y")
        await settle(pilot)
        assert "freesound:1006" in notices(log) or "onset changed" in notices(log)
        assert "Not saved" in notices(log)
    assert agent(data_dir, session_id, "") == [
        {"sound_id": "freesound:1006", "layer": None, "onset": 3.0}
    ]
    assert session.pick_file("bbc:1001") is None


WORDS = [
    {"word": "Gravel", "start": 9.1, "end": 9.5},
    {"word": "crunched", "start": 9.638, "end": 10.1},
    {"word": "underfoot.", "start": 10.12, "end": 10.8},
]


async def test_nudging_an_anchor_starts_where_the_words_put_it(
    data_dir: Path, tmp_path: Path
) -> None:
    import numpy as np
    import soundfile as sf

    service, session_id = seed_session(data_dir)
    narration = tmp_path / "narration.wav"
    sf.write(str(narration), np.full((48000 * 12, 1), 0.1, np.float32), 48000)
    words = tmp_path / "words.json"
    words.write_text(json.dumps(WORDS))
    write_narration(service.get(session_id), make_narration(narration, words))
    agent(data_dir, session_id, "s.add_pick('bbc:1001', onset=\"on 'crunched'\")")
    session = Session(data_dir, service, session_id)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _to(pilot, app, "bbc:1001")
        await pilot.press("]")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await settle(pilot)  # the session's words are read by a worker
        shown = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "0:09.738" in shown  # the new value, from 'crunched' at 9.638 s
        await pilot.press("y")
        await settle(pilot)
    record = session.pick_file("bbc:1001")
    assert record is not None and record["onset"] == 9.738  # not 0.1


async def test_the_timeline_onset_dialog_writes_nothing_over_an_agent_change(
    data_dir: Path,
) -> None:
    from foley_tui.screens.timeline.screen import TimelineScreen

    service, session_id = seed_session(data_dir)
    agent(data_dir, session_id, "s.add_pick('bbc:1001', layer='sfx_fg', onset=1.5)")
    session = Session(data_dir, service, session_id)
    app = session.app()
    log = NoticeLog(app)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("t")
        for _ in range(300):
            await pilot.pause(0.01)
            if isinstance(app.screen, TimelineScreen):
                break
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OnsetScreen)
        await settle(pilot)  # what it opened on is read by a worker
        agent(data_dir, session_id, "s.add_pick('bbc:1001', layer='stinger', onset=4.0)")
        await pilot.press("ctrl+a", *"2.0", "enter")
        await settle(pilot)
        assert "Not saved" in notices(log) and "layer changed" in notices(log)
    assert session.pick_file("bbc:1001") == {
        "sound_id": "bbc:1001",
        "layer": "stinger",
        "onset": 4.0,
    }


def _merge(app: Any) -> None:
    """Merge what the agent wrote now (what the poll does every poll_interval_s)."""
    screen = app.audition
    outside = screen.model.check_outside()
    if outside is not None:
        screen.apply(screen.model.apply_outside(outside))


async def test_ghost_picks_follow_the_agent_and_a_stale_one_never_writes(
    data_dir: Path,
) -> None:
    from foley_tui.widgets.status_line import status_info

    service, session_id = seed_session(data_dir)
    session = Session(data_dir, service, session_id)
    app = session.app(settings=Settings(poll_interval_s=60.0))
    log = NoticeLog(app)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        agent(data_dir, session_id, "s.add_pick('ghost:1', onset=1.0)")
        _merge(app)
        await pilot.pause()
        assert "ghost:1" in screen.listing.view  # the agent added it: it appears
        info = status_info(screen.model, screen.player, 0.0, "")
        assert info.ghosts == 1 == len(screen.listing.ghosts())
        agent(data_dir, session_id, "s.drop_pick('ghost:1')")
        _merge(app)
        await pilot.pause()
        assert "ghost:1" not in screen.listing.view  # it dropped it: it goes
        assert status_info(screen.model, screen.player, 0.0, "").ghosts == 0
        # A ghost the list still shows when the agent drops it: a key on it writes nothing.
        agent(data_dir, session_id, "s.add_pick('ghost:2', layer='sfx_fg', onset=2.0)")
        _merge(app)
        await pilot.pause()
        await _to(pilot, app, "ghost:2")
        agent(data_dir, session_id, "s.drop_pick('ghost:2')")
        await pilot.press("4")  # layer stinger on the stale row
        await pilot.pause()
        assert "dropped this pick" in notices(log)
        assert "ghost:2" not in screen.listing.view
    assert session.pick_file("ghost:2") is None
    assert agent(data_dir, session_id, "") == []


ANCHOR_ONSETS: list[tuple[str, Any, str]] = [
    # (sound id, the onset foley's agent wrote, the anchor foley's plan passes on)
    ("bbc:1001", float("nan"), "nan"),
    ("freesound:1002", float("inf"), "inf"),
    ("sonniss:1003", True, "True"),
    ("freesound:1004", "", ""),
    ("bbc:1005", 1e20, "1e+20"),
]


async def test_onsets_foley_reads_as_anchors_are_shown_as_those_anchors(
    data_dir: Path, capsys: Any
) -> None:
    """nan, inf, True, '' and 1e20 are words (or no cue) to foley's plan: the list, the
    details, `session show` / `picks` and the timeline all show the anchor it reads."""
    from foley_tui.cli import main
    from foley_tui.scene.build import build_scene
    from foley_tui.widgets.candidate_list import CandidateList
    from foley_tui.widgets.details import Details
    from tests.ui.test_behaviour import plain
    from tests.unit.store.helpers import candidate

    service = SessionService(data_dir)
    session_id = service.create("anchors")
    cands = [candidate(sid, caption=f"sound {sid}") for sid, _, _ in ANCHOR_ONSETS]
    picks = "\n".join(
        f"s.add_pick({sid!r}, onset={onset!r})".replace("nan", "float('nan')").replace(
            "inf", "float('inf')"
        )
        for sid, onset, _ in ANCHOR_ONSETS
    )
    code = (
        "from foley.base import Candidate\n"
        f"s.cache_candidates([Candidate.from_dict(c) for c in {cands!r}])\n{picks}"
    )
    agent(data_dir, session_id, code)
    # foley's own plan: what it puts on each timeline item.
    plan = run_py(
        "import json\nfrom foley.agent.verbs import foley_plan\n"
        f"items = foley_plan({session_id!r})['items']\n"
        "print(json.dumps({i['clip_ref']: i['onset'] for i in items}))",
        data_dir,
    )
    for sid, _, text in ANCHOR_ONSETS:
        assert plan[sid] == text, sid
    scene = build_scene(service.get(session_id), resolve_audio=False)
    for sid, _, text in ANCHOR_ONSETS:
        pick = scene.pick(sid)
        assert pick is not None and pick.placement.onset == text, sid  # the timeline's
    session = Session(data_dir, service, session_id)
    app = session.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        cl = screen.query_one(CandidateList)
        for sid, _, text in ANCHOR_ONSETS:
            row = screen.listing.view.index(sid)
            line = cl.render_line(row + 1).text
            shown = text if text else "''"
            assert shown in line, (sid, line)
            await _to(pilot, app, sid)
            text_now = ""
            showing = re.compile(rf"^id +{re.escape(sid)}(?: |$)", re.M)
            for _ in range(200):  # the details follow the cursor from a timer: wait for it
                await pilot.pause(0.02)
                text_now = plain(screen.query_one(Details).content)
                if showing.search(text_now):
                    break
            assert showing.search(text_now), (sid, text_now)
            assert shown in text_now, sid
    capsys.readouterr()
    assert main(["picks", session_id, "--json"]) == 0
    listed = {p["sound_id"]: p["onset"] for p in json.loads(capsys.readouterr().out)}
    for sid, _, text in ANCHOR_ONSETS:
        assert listed[sid] == text, sid
    assert session.pick_file("bbc:1001") is not None  # nothing rewritten


async def test_an_event_onset_the_agent_changes_regroups_the_list_live(
    data_dir: Path,
) -> None:
    from foley_tui.audition.events import is_header
    from tests.unit.store.helpers import candidate

    service = SessionService(data_dir)
    session_id = service.create("events")
    event = {"query": "door slam", "layer": "sfx_fg", "onset": "on 'door'"}
    cands = [candidate(sid, caption=f"slam {sid}", event=event) for sid in ("a:1", "b:2")]
    cache = (
        "from foley.base import Candidate\n"
        "s.cache_candidates([Candidate.from_dict(c) for c in {cands!r}])"
    )
    agent(data_dir, session_id, cache.format(cands=cands))
    session = Session(data_dir, service, session_id)
    app = session.app(settings=Settings(poll_interval_s=60.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert sum(1 for e in screen.listing.view if is_header(e)) == 1
        moved = dict(cands[0], event={**event, "onset": "on 'knock'"})
        agent(data_dir, session_id, cache.format(cands=[moved]))
        _merge(app)
        await pilot.pause()
        listing = screen.listing
        assert listing.events["a:1"] != listing.events["b:2"]
        assert sum(1 for e in listing.view if is_header(e)) == 2
