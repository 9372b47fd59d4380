"""The conversation and ledger verbs through ``foley_tui.cli.main``:
``session tell``, ``session history``, ``session messages``, ``session usage`` and what
``session show`` reports about usage and generation cost."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from foley_tui.cli import main
from foley_tui.store import SessionService
from tests.unit.store.helpers import candidate


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def sid(data_dir: Path) -> str:
    service = SessionService(data_dir)
    session_id = service.create("Hallway")
    service.get(session_id).cache_candidates(
        [
            candidate("door", event={"query": "door slam"}, cost_estimate_usd=0.04),
            candidate("door2", event={"query": "door slam"}, cost_actual_usd=0.05),
            candidate("rain", event=None, cost_estimate_usd=0.02, cost_actual_usd=0.01),
        ]
    )
    return session_id


def test_tell_prints_the_id_and_stores_the_message(
    capsys: pytest.CaptureFixture[str], data_dir: Path, sid: str
) -> None:
    code, out, err = run(capsys, "session", "tell", "Hallway", "Need a heavier door")
    assert code == 0, err
    message_id = out.strip()
    assert len(message_id) == 26
    code, out, _ = run(
        capsys,
        "session",
        "tell",
        sid,
        "found three",
        "--role",
        "agent",
        "--sound",
        "door",
        "--meta",
        '{"query": "heavy door", "author": "foley-agent"}',
    )
    assert code == 0
    messages = SessionService(data_dir).messages(sid)
    assert [(m.seq, m.role, m.content) for m in messages] == [
        (1, "user", "Need a heavier door"),
        (2, "agent", "found three"),
    ]
    assert messages[0].id == message_id
    assert messages[1].metadata == {
        "query": "heavy door",
        "author": "foley-agent",
        "sound_id": "door",
    }


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--role", "boss"], "invalid choice"),
        (["--meta", "{nope"], "--meta is not JSON"),
        (["--meta", "[1]"], "--meta must be a JSON object"),
        (["--sound", "nothing-like-it"], "no candidate 'nothing-like-it'"),
    ],
)
def test_tell_refuses_bad_input(
    capsys: pytest.CaptureFixture[str], data_dir: Path, sid: str, argv: list[str], error: str
) -> None:
    with pytest.raises(SystemExit) if "invalid choice" in error else contextlib.nullcontext():
        code, _, err = run(capsys, "session", "tell", sid, "hello", *argv)
        assert code == 2 and error in err
    if "invalid choice" in error:
        assert error in capsys.readouterr().err
    assert SessionService(data_dir).messages(sid) == []


def test_tell_empty_and_unknown_session(
    capsys: pytest.CaptureFixture[str], data_dir: Path, sid: str
) -> None:
    code, _, err = run(capsys, "session", "tell", sid, "  ")
    assert code == 2 and "must not be empty" in err
    code, _, err = run(capsys, "session", "tell", "no-such-session", "hi")
    assert code == 2 and "no session 'no-such-session'" in err
    code, _, _ = run(capsys, "session", "tell", sid, "on a ghost", "--sound", "gone", "--force")
    assert code == 0 and SessionService(data_dir).messages(sid)[0].sound_id == "gone"


def test_tell_reads_stdin(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data_dir: Path,
    sid: str,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("line one\nline two\n"))
    code, _, _ = run(capsys, "session", "tell", sid, "-")
    assert code == 0
    assert SessionService(data_dir).messages(sid)[0].content == "line one\nline two\n"


def test_history_interleaves_messages_and_decisions(
    capsys: pytest.CaptureFixture[str], data_dir: Path, sid: str
) -> None:
    run(capsys, "session", "tell", sid, "first\x1b[2J\nsecond line")
    assert run(capsys, "pick", sid, "door", "--layer", "sfx_fg")[0] == 0
    run(capsys, "session", "tell", sid, "agent here", "--role", "agent")
    assert run(capsys, "reject", sid, "rain", "--reason", "hiss")[0] == 0
    code, out, _ = run(capsys, "session", "history", sid)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 4
    assert "[user] first\\x1b[2J\\nsecond line" in lines[0]
    assert "\x1b" not in out
    assert "[pick] door: undecided -> picked (layer sfx_fg" in lines[1]
    assert "[agent] agent here" in lines[2] and lines[2].startswith("msg #2")
    assert "[reject] rain: undecided -> rejected (hiss)" in lines[3]
    code, out, _ = run(capsys, "session", "history", sid, "-n", "2", "--json")
    items = json.loads(out)
    assert [(i["source"], i["seq"], i["kind"]) for i in items] == [
        ("message", 2, "agent"),
        ("decision", 2, "reject"),
    ]
    assert set(items[0]) == {"source", "id", "seq", "at", "author", "kind", "text", "sound_id"}
    code, _, err = run(capsys, "session", "history", sid, "-n", "-1")
    assert code == 2 and "negative" in err


def test_history_of_an_empty_session(capsys: pytest.CaptureFixture[str], sid: str) -> None:
    code, out, _ = run(capsys, "session", "history", sid)
    assert code == 0 and out.strip() == "no messages or decisions yet"
    code, out, _ = run(capsys, "session", "history", sid, "--json")
    assert json.loads(out) == []


def test_messages_filters_by_seq_role_and_sound(
    capsys: pytest.CaptureFixture[str], sid: str
) -> None:
    run(capsys, "session", "tell", sid, "heavier door", "--sound", "door")
    run(capsys, "session", "tell", sid, "searching", "--role", "agent")
    run(capsys, "session", "tell", sid, "less reverb")
    code, out, _ = run(
        capsys, "session", "messages", sid, "--role", "user", "--since", "1", "--json"
    )
    assert [m["content"] for m in json.loads(out)] == ["less reverb"]
    code, out, _ = run(capsys, "session", "messages", sid, "--sound", "door")
    assert code == 0 and "heavier door" in out and "(on door)" in out and "reverb" not in out


def test_usage_adds_and_prints(capsys: pytest.CaptureFixture[str], sid: str) -> None:
    code, out, _ = run(capsys, "session", "usage", sid)
    assert code == 0 and "agent spend:   $0.00" in out
    for _ in range(3):
        run(capsys, "session", "usage", sid, "--input-tokens", "13,000", "--cost", "0.1")
    code, out, _ = run(
        capsys, "session", "usage", sid, "--output-tokens", "200", "--cost", "$0.32", "--json"
    )
    assert json.loads(out) == {
        "session_id": sid,
        "input_tokens": 39_000,
        "output_tokens": 200,
        "cost_usd": 0.62,
        "cost_micro_usd": 620_000,
    }
    code, out, _ = run(capsys, "session", "usage", sid)
    assert "input tokens:  39,000" in out and "agent spend:   $0.62" in out


@pytest.mark.parametrize(
    "argv",
    [["--input-tokens", "-5"], ["--cost", "-1"], ["--cost", "free"], ["--output-tokens", "1.5"]],
)
def test_usage_refuses_bad_amounts(
    capsys: pytest.CaptureFixture[str], data_dir: Path, sid: str, argv: list[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["session", "usage", sid, *argv])
    assert "error" in capsys.readouterr().err
    assert SessionService(data_dir).usage(sid).cost_micro_usd == 0


def test_show_reports_usage_and_generation_cost(
    capsys: pytest.CaptureFixture[str], sid: str
) -> None:
    run(capsys, "session", "usage", sid, "--input-tokens", "41000", "--output-tokens", "900")
    run(capsys, "session", "usage", sid, "--cost", "0.62")
    code, out, _ = run(capsys, "session", "show", sid, "--json")
    doc = json.loads(out)
    assert doc["usage"] == {"input_tokens": 41000, "output_tokens": 900, "cost_usd": 0.62}
    cost = doc["generation_cost"]
    assert (cost["cost_actual_usd"], cost["cost_estimate_usd"], cost["candidates"]) == (
        0.06,
        0.04,
        3,
    )
    assert cost["events"] == [
        {"event": "door slam", "cost_actual_usd": 0.05, "cost_estimate_usd": 0.04, "candidates": 2},
        {"event": None, "cost_actual_usd": 0.01, "cost_estimate_usd": 0.0, "candidates": 1},
    ]
    code, out, _ = run(capsys, "session", "show", sid)
    assert code == 0 and "tokens:    41,000 in, 900 out" in out
    assert "spend:     $0.62 agent, $0.06 generation (+ $0.04 estimated)" in out
