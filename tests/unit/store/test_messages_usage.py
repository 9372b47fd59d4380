"""The session's conversation and ledger through the Python API: messages, the history
window, usage counters, generation cost, the bounded in-memory service and export/import
of all of it."""

from __future__ import annotations

import json
import threading
from collections.abc import Hashable, Iterator
from pathlib import Path

import pytest

from foley_tui.domain import ValidationError
from foley_tui.store import SessionImportError, SessionNotFoundError, SessionService
from foley_tui.store.backend import StateBackend
from foley_tui.store.export_doc import checksum_of
from foley_tui.store.messages import MESSAGES_FILE, Conversation, Message
from foley_tui.store.usage import (
    USAGE_FILE,
    Ledger,
    Usage,
    format_usd,
    generation_cost,
    usd_to_micro,
)
from foley_tui.terminal import escape_line
from tests.unit.store.helpers import candidate


@pytest.fixture(params=["files", "memory"])
def service(request: pytest.FixtureRequest, data_dir: Path) -> Iterator[SessionService]:
    yield SessionService(data_dir) if request.param == "files" else SessionService.in_memory()


def _state(data_dir: Path, sid: str) -> Path:
    return data_dir / "sessions" / sid / ".foley-tui"


# ---------------------------------------------------------------------- messages
def test_append_message_numbers_and_keeps_messages(service: SessionService) -> None:
    sid = service.create("scene")
    first = service.append_message(sid, "user", "Need a heavier door, less reverb")
    second = service.append_message(sid, "agent", "searching", {"query": "heavy door"})
    third = service.append_message(sid, "system", "note", {"sound_id": "freesound:1"})
    assert [m.seq for m in (first, second, third)] == [1, 2, 3]
    assert len({first.id, second.id, third.id}) == 3 and all(len(m.id) == 26 for m in [first])
    assert first.at.utcoffset() is not None and first.at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert second.metadata == {"query": "heavy door"} and third.sound_id == "freesound:1"
    assert service.messages(sid) == [first, second, third]
    assert service.conversation(sid).for_sound("freesound:1") == [third]


@pytest.mark.parametrize(
    ("role", "content", "metadata", "error"),
    [
        ("designer", "hi", None, "role must be one of user, agent, system"),
        ("user", "   ", None, "must not be empty"),
        ("user", 42, None, "content must be text"),
        ("user", "hi", ["not", "an", "object"], "metadata must be a JSON object"),
        ("user", "hi", {"x": float("nan")}, "not plain JSON"),
        ("user", "hi", {"x": {1, 2}}, "not plain JSON"),
        ("user", "hi", {"sound_id": 7}, "sound_id must be a sound id"),
    ],
)
def test_bad_messages_are_refused_and_write_nothing(
    service: SessionService,
    data_dir: Path,
    role: str,
    content: object,
    metadata: object,
    error: str,
) -> None:
    sid = service.create()
    with pytest.raises(ValidationError, match=error):
        service.append_message(sid, role, content, metadata)  # type: ignore[arg-type]
    assert service.messages(sid) == []
    assert not (_state(data_dir, sid) / MESSAGES_FILE).exists()


def test_unknown_session_raises(service: SessionService) -> None:
    for call in (
        lambda: service.append_message("01NOSUCHSESSION0000000000", "user", "hi"),
        lambda: service.update_token_usage("01NOSUCHSESSION0000000000", 1, 1, 0),
        lambda: service.history_window("01NOSUCHSESSION0000000000", 5),
    ):
        with pytest.raises(SessionNotFoundError):
            call()


def test_messages_file_lives_in_our_state_and_reads_back(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    sent = service.append_message(sid, "user", "zwölf \u00e9 \U0001f50a", {"sound_id": "a/b c"})
    path = _state(data_dir, sid) / MESSAGES_FILE
    lines = path.read_bytes().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["seq"] == 1
    for name in ("candidates", "picks", "rejects"):
        assert list((data_dir / "sessions" / sid / name).iterdir()) == []
    # a fresh service (another process) reads the same message back
    assert SessionService(data_dir).messages(sid) == [sent]


def test_garbage_and_torn_lines_are_reported_never_fatal(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    service.append_message(sid, "user", "one")
    path = _state(data_dir, sid) / MESSAGES_FILE
    with open(path, "ab") as fh:
        fh.write(b'garbage\n{"seq": "x"}\n{"seq": 2, "role": "us')  # torn tail
    reader = SessionService(data_dir)
    assert [m.content for m in reader.messages(sid)] == ["one"]
    # the next append starts on a fresh line and follows the last readable seq
    after = reader.append_message(sid, "agent", "two")
    assert after.seq == 2
    assert [m.content for m in reader.messages(sid)] == ["one", "two"]
    assert [m.content for m in SessionService(data_dir).messages(sid)] == ["one", "two"]
    problems = reader.conversation(sid).problems
    assert len(problems) == 3 and all(p.key == MESSAGES_FILE for p in problems)
    assert b"garbage" in path.read_bytes()  # never rewritten


def test_reading_is_incremental(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    reader = SessionService(data_dir).conversation(sid)
    writer = SessionService(data_dir)
    assert reader.refresh() == []
    token = reader.token()
    writer.append_message(sid, "agent", "a")
    assert reader.token() != token
    assert [m.content for m in reader.refresh()] == ["a"]
    writer.append_message(sid, "agent", "b")
    writer.append_message(sid, "user", "c")
    assert [m.content for m in reader.refresh()] == ["b", "c"]  # only the new ones
    assert reader.refresh() == []
    assert reader.last_seq == 3


def test_threads_appending_at_once_keep_seq_gap_free(service: SessionService) -> None:
    sid = service.create()
    errors: list[BaseException] = []

    def tell(worker: int) -> None:
        try:
            for i in range(25):
                service.append_message(sid, "agent", f"{worker}:{i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=tell, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    seqs = [m.seq for m in SessionService.messages(service, sid)]
    if service.data_dir is None:  # in memory: the window keeps the last 20
        assert seqs == list(range(81, 101))
    else:
        assert seqs == list(range(1, 101))


# ---------------------------------------------------------------------- history window
def test_history_window_returns_the_last_n_in_order(service: SessionService) -> None:
    sid = service.create()
    store = service.get(sid)
    store.cache_candidates([candidate("door"), candidate("rain")])
    service.append_message(sid, "user", "m1")
    store.add_pick("door", layer="sfx_fg", onset=1.5)
    service.append_message(sid, "agent", "m2", {"sound_id": "door"})
    store.add_reject("rain", reason="hiss")
    service.append_message(sid, "user", "m3")
    store.undo()
    items = service.history_window(sid, 20)
    assert [(i.source, i.kind) for i in items] == [
        ("message", "user"),
        ("decision", "pick"),
        ("message", "agent"),
        ("decision", "reject"),
        ("message", "user"),
        ("decision", "undo"),
    ]
    assert [i.seq for i in items] == [1, 1, 2, 2, 3, 3]
    assert items[1].text == "door: undecided -> picked (layer sfx_fg, onset 0:01.500)"
    assert items[3].text == "rain: undecided -> rejected (hiss)"
    assert items[5].text == "undo #2: rain -> undecided"
    assert items[2].sound_id == "door" and items[1].author == "user"
    last3 = service.history_window(sid, 3)
    assert last3 == items[-3:]
    assert service.history_window(sid, 0) == []
    assert [i.to_json()["seq"] for i in service.history_window(sid, 1)] == [3]


def test_history_window_of_many_messages_is_the_tail(service: SessionService) -> None:
    sid = service.create()
    for i in range(30):
        service.append_message(sid, "agent", f"m{i}")
    items = service.history_window(sid, 7)
    assert [i.text for i in items] == [f"m{i}" for i in range(23, 30)]
    assert [i.seq for i in items] == list(range(24, 31))


def test_control_characters_are_escaped() -> None:
    assert escape_line("a\nb\x1b[31m\tc\\d\x7f\x85\u2028") == (
        "a\\nb\\x1b[31m\\tc\\\\d\\x7f\\x85\\u2028"
    )
    assert escape_line("plain é 音") == "plain é 音"


# ---------------------------------------------------------------------- usage
def test_usage_adds_up_exactly(service: SessionService, data_dir: Path) -> None:
    sid = service.create()
    assert service.usage(sid).cost_micro_usd == 0
    for _ in range(10):
        service.update_token_usage(sid, 100, 7, 0.1)
    usage = service.update_token_usage(sid, 0, 0, "0.2")
    assert (usage.input_tokens, usage.output_tokens, usage.cost_micro_usd) == (1000, 70, 1_200_000)
    assert usage.cost_usd == 1.2 and format_usd(usage.cost_micro_usd) == "$1.20"
    assert service.usage(sid) == usage
    if service.data_dir is not None:
        stored = json.loads((_state(data_dir, sid) / USAGE_FILE).read_bytes())
        assert stored["cost_micro_usd"] == 1_200_000


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((-1, 0, 0), "input_tokens must not be negative"),
        ((0, -5, 0), "output_tokens must not be negative"),
        ((0, 0, -0.01), "cost must not be negative"),
        ((0, 0, float("inf")), "cost must be finite"),
        ((0, 0, "lots"), "cost must be a number"),
        ((1.5, 0, 0), "input_tokens must be a whole number"),
        ((True, 0, 0), "input_tokens must be a whole number"),
    ],
)
def test_bad_usage_is_refused_and_changes_nothing(
    service: SessionService, args: tuple[object, object, object], error: str
) -> None:
    sid = service.create()
    service.update_token_usage(sid, 5, 5, 1)
    with pytest.raises(ValidationError, match=error):
        service.update_token_usage(sid, *args)  # type: ignore[arg-type]
    assert (service.usage(sid).input_tokens, service.usage(sid).cost_micro_usd) == (5, 1_000_000)


def test_usd_conversion_is_exact() -> None:
    assert usd_to_micro(0.62) == 620_000
    assert usd_to_micro("0.000125") == 125
    assert usd_to_micro(3) == 3_000_000
    assert usd_to_micro("0.0000005") == 0 and usd_to_micro("0.0000015") == 2  # half-even
    assert sum(usd_to_micro(0.1) for _ in range(3)) == usd_to_micro(0.3)
    assert format_usd(620_125) == "$0.620125" and format_usd(0) == "$0.00"


def test_unreadable_counters_are_reported_and_never_overwritten(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    service.update_token_usage(sid, 1, 1, 1)
    path = _state(data_dir, sid) / USAGE_FILE
    path.write_bytes(b"{torn")
    assert service.usage(sid).input_tokens == 0
    assert [p.key for p in service.ledger(sid).problems] == [USAGE_FILE]
    with pytest.raises(ValidationError, match="unreadable"):
        service.update_token_usage(sid, 1, 1, 1)
    assert path.read_bytes() == b"{torn"


def test_generation_cost_keeps_actual_and_estimate_apart(service: SessionService) -> None:
    def cand(
        sid: str, event: str | None, est: float | None, act: float | None
    ) -> dict[str, object]:
        return candidate(
            sid,
            event={"query": event} if event else None,
            cost_estimate_usd=est,
            cost_actual_usd=act,
        )

    sid = service.create()
    service.get(sid).cache_candidates(
        [
            cand("a", "door slam", 0.04, 0.03),  # actual wins
            cand("b", "door slam", 0.05, None),  # estimate only
            cand("c", "rain", None, 0.10),
            cand("d", None, 0.01, None),
            cand("e", "rain", None, None),  # free: not counted
        ]
    )
    total, events = service.generation_cost(sid)
    assert (total.actual_micro_usd, total.estimate_micro_usd, total.candidates) == (
        130_000,
        60_000,
        4,
    )
    assert {k: (v.actual_micro_usd, v.estimate_micro_usd) for k, v in events.items()} == {
        "door slam": (30_000, 50_000),
        "rain": (100_000, 0),
        None: (0, 10_000),
    }
    assert generation_cost([{"cost_actual_usd": "0.5"}, {"cost_actual_usd": -1}])[0].candidates == 0


# ---------------------------------------------------------------------- bounded service
def test_in_memory_service_evicts_the_least_recently_used() -> None:
    service = SessionService.in_memory(max_sessions=3, window=2)
    a, b, c = service.create("a"), service.create("b"), service.create("c")
    service.get(a)  # a is now more recent than b
    d = service.create("d")
    with pytest.raises(SessionNotFoundError):
        service.get(b)
    assert {i.session_id for i in service.list()} == {a, c, d}
    service.append_message(c, "user", "keep c warm")
    service.create("e")  # evicts a (c and d were used since)
    with pytest.raises(SessionNotFoundError):
        service.append_message(a, "user", "too late")
    assert len(service.list()) == 3


def test_pinned_session_is_never_evicted() -> None:
    service = SessionService.in_memory(max_sessions=2)
    on_screen = service.create("on screen")
    service.pin(on_screen)
    for i in range(5):
        service.create(f"other {i}")
    assert service.get(on_screen).session_id == on_screen
    assert len(service.list()) == 2


def test_in_memory_window_keeps_the_last_messages() -> None:
    service = SessionService.in_memory(window=3)
    sid = service.create()
    for i in range(1, 8):
        service.append_message(sid, "user", f"m{i}")
    assert [(m.seq, m.content) for m in service.messages(sid)] == [(5, "m5"), (6, "m6"), (7, "m7")]
    assert service.append_message(sid, "agent", "next").seq == 8


def test_in_memory_service_is_safe_from_threads() -> None:
    service = SessionService.in_memory(max_sessions=8, window=5)
    errors: list[BaseException] = []
    created: list[str] = []
    lock = threading.Lock()

    def work(worker: int) -> None:
        try:
            for i in range(40):
                sid = service.create(f"{worker}-{i}")
                with lock:
                    created.append(sid)
                for other in list(created[-6:]):
                    try:
                        service.append_message(other, "agent", "x")
                        service.update_token_usage(other, 1, 1, 0.000001)
                        service.history_window(other, 3)
                    except SessionNotFoundError:
                        pass  # evicted by another thread meanwhile: the contract
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(service.list()) == 8


def test_file_service_bounds_its_cache_of_open_stores(data_dir: Path) -> None:
    service = SessionService(data_dir, max_sessions=2)
    ids = [service.create(str(i)) for i in range(4)]
    assert service.open_sessions == tuple(ids[2:])  # the two used last
    # dropping a store from the cache loses nothing: it opens again from the files
    service.append_message(ids[0], "user", "still here")
    assert [m.content for m in service.messages(ids[0])] == ["still here"]


# ---------------------------------------------------------------------- export / import
def test_export_import_round_trips_messages_and_usage(
    service: SessionService, data_dir: Path
) -> None:
    sid = service.create("ledger")
    service.append_message(sid, "user", "heavier door", {"sound_id": "door"})
    service.append_message(sid, "agent", "on it")
    service.update_token_usage(sid, 41_000, 900, 0.62)
    doc = service.export_session(sid)
    assert doc["schema_version"] == 2
    assert [m["seq"] for m in doc["messages"]] == [1, 2]
    assert doc["usage"]["cost_micro_usd"] == 620_000
    for target in (SessionService(data_dir / "other"), SessionService.in_memory()):
        assert target.import_session(json.loads(json.dumps(doc))) == sid
        assert [(m.seq, m.role, m.content, m.sound_id) for m in target.messages(sid)] == [
            (1, "user", "heavier door", "door"),
            (2, "agent", "on it", None),
        ]
        assert target.messages(sid) == service.messages(sid)
        assert target.usage(sid).cost_micro_usd == 620_000
        assert target.usage(sid).input_tokens == 41_000
        assert target.append_message(sid, "user", "after import").seq == 3
        assert target.update_token_usage(sid, 0, 0, 0.38).cost_micro_usd == 1_000_000


def test_version_1_exports_still_import(data_dir: Path) -> None:
    service = SessionService(data_dir)
    sid = service.create("old")
    doc = service.export_session(sid)
    del doc["messages"], doc["usage"]
    doc["schema_version"] = 1
    doc["checksum"] = checksum_of(doc)
    target = SessionService(data_dir / "other")
    assert target.import_session(doc) == sid
    assert target.messages(sid) == [] and target.usage(sid).cost_micro_usd == 0
    # schema 1 cannot carry the new keys
    doc["messages"] = []
    doc["checksum"] = checksum_of(doc)
    with pytest.raises(SessionImportError, match="need schema version 2"):
        SessionService(data_dir / "third").import_session(doc)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ("role", "not a message"),
        ("seq", "does not follow"),
        ("dup", "duplicate id"),
        ("empty", "must not be empty"),
        ("notlist", "must be a list"),
        ("usage_neg", "must not be negative"),
        ("usage_key", "unknown usage keys"),
        ("usage_type", "usage must be an object"),
    ],
)
def test_bad_messages_or_usage_in_an_export_are_refused(
    data_dir: Path, change: str, error: str
) -> None:
    service = SessionService(data_dir)
    sid = service.create()
    service.append_message(sid, "user", "a")
    service.append_message(sid, "agent", "b")
    doc = service.export_session(sid)
    messages, usage = doc["messages"], doc["usage"]
    if change == "role":
        messages[0]["role"] = "boss"
    elif change == "seq":
        messages[1]["seq"] = 1
    elif change == "dup":
        messages[1]["id"] = messages[0]["id"]
    elif change == "empty":
        messages[1]["content"] = " "
    elif change == "notlist":
        doc["messages"] = {"1": messages[0]}
    elif change == "usage_neg":
        usage["input_tokens"] = -3
    elif change == "usage_key":
        usage["dollars"] = 1
    elif change == "usage_type":
        doc["usage"] = [1, 2]
    doc["checksum"] = checksum_of(doc)
    target = SessionService(data_dir / "other")
    with pytest.raises(SessionImportError, match=error):
        target.import_session(doc)
    assert not (data_dir / "other" / "sessions" / sid).exists()


def test_message_record_round_trip() -> None:
    service = SessionService.in_memory()
    sid = service.create()
    message = service.append_message(sid, "agent", "x", {"n": [1, 2.5, None]})
    assert Message.from_record(json.loads(json.dumps(message.to_record()))) == message
    assert Message.from_record({"seq": True}) is None


def test_a_failed_write_is_a_store_write_error_and_keeps_nothing(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from foley_tui.store import StoreWriteError
    from foley_tui.store.file_state import FileState

    service = SessionService(data_dir)
    sid = service.create()
    service.append_message(sid, "user", "kept")
    service.update_token_usage(sid, 1, 1, 1)

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(FileState, "append_line", full)
    monkeypatch.setattr(FileState, "swap_doc", full)
    with pytest.raises(StoreWriteError, match=r"could not save the message.*No space left"):
        service.append_message(sid, "user", "lost")
    with pytest.raises(StoreWriteError, match=r"could not save the usage.*No space left"):
        service.update_token_usage(sid, 5, 5, 5)
    monkeypatch.undo()
    assert [m.content for m in service.messages(sid)] == ["kept"]
    assert service.append_message(sid, "user", "next").seq == 2
    assert service.usage(sid).input_tokens == 1


class _DictState(StateBackend):
    """A shared-store stand-in: our logs and documents in plain dicts, through the five
    methods a backend other than files implements (the Redis one does the same)."""

    def __init__(self) -> None:
        self.logs: dict[str, bytes] = {}
        self.docs: dict[str, bytes] = {}

    def append_line(
        self, name: str, line: bytes, *, expect: int | None = None
    ) -> tuple[int, int] | None:
        start = len(self.logs.get(name, b""))
        if expect is not None and expect != start:
            return None
        self.logs[name] = self.logs.get(name, b"") + line
        return start, start + len(line)

    def read_from(self, name: str, offset: int) -> bytes:
        return self.logs.get(name, b"")[offset:]

    def token_of(self, name: str) -> Hashable:
        return len(self.logs.get(name, b"")), self.docs.get(name)

    def read_doc(self, name: str) -> bytes | None:
        return self.docs.get(name)

    def swap_doc(self, name: str, old: bytes | None, new: bytes) -> bool:
        if self.docs.get(name) != old:
            return False
        self.docs[name] = new
        return True


def test_a_shared_backend_keeps_the_conversation_through_the_state_api() -> None:
    state = _DictState()
    first = Conversation(state)
    first.append("user", "stored in the backend")
    second = Conversation(state)  # another reader of the same backend
    assert [m.content for m in second.messages()] == ["stored in the backend"]
    assert second.append("agent", "reply").seq == 2
    assert [m.seq for m in first.refresh()] == [2]
    assert b"reply" in state.logs[MESSAGES_FILE]
    Ledger(state).add(3, 4, 0.5)
    assert Ledger(state).read().cost_micro_usd == 500_000
    assert json.loads(state.docs[USAGE_FILE])["input_tokens"] == 3


def test_a_backend_without_the_state_api_fails_loudly() -> None:
    class Bare(StateBackend):
        pass

    with pytest.raises(NotImplementedError, match=r"keeps no messages\.jsonl"):
        Conversation(Bare()).append("user", "nowhere to keep it")


def test_a_lost_race_on_a_shared_backend_renumbers_and_retries() -> None:
    """Another writer appends between our read and our write (no cross-process lock):
    the compare-and-swap refuses ours, we re-read and take the next seq."""

    class Racy(_DictState):
        def __init__(self) -> None:
            super().__init__()
            self.raced = False

        def append_line(
            self, name: str, line: bytes, *, expect: int | None = None
        ) -> tuple[int, int] | None:
            if not self.raced:
                self.raced = True
                theirs = json.loads(line)
                theirs.update(id="01THEIRS000000000000000000", content="theirs")
                super().append_line(name, json.dumps(theirs).encode() + b"\n")
            return super().append_line(name, line, expect=expect)

        def swap_doc(self, name: str, old: bytes | None, new: bytes) -> bool:
            if not self.raced:
                self.raced = True
                self.docs[name] = json.dumps(Usage(10, 0, 0).to_record()).encode()
            return super().swap_doc(name, old, new)

    state = Racy()
    message = Conversation(state).append("user", "mine")
    assert message.seq == 2
    assert [(m.seq, m.content) for m in Conversation(state).messages()] == [
        (1, "theirs"),
        (2, "mine"),
    ]
    state = Racy()
    assert Ledger(state).add(5, 0, 0).input_tokens == 15  # their 10 kept, ours added


def test_per_candidate_index_follows_the_window() -> None:
    service = SessionService.in_memory(window=3)
    sid = service.create()
    conversation = service.conversation(sid)
    service.append_message(sid, "user", "a1", {"sound_id": "a"})
    service.append_message(sid, "user", "b1", {"sound_id": "b"})
    service.append_message(sid, "user", "a2", {"sound_id": "a"})
    assert [m.content for m in conversation.for_sound("a")] == ["a1", "a2"]
    service.append_message(sid, "user", "c1", {"sound_id": "c"})  # a1 leaves the window
    assert [m.content for m in conversation.for_sound("a")] == ["a2"]
    service.append_message(sid, "user", "x")
    assert conversation.for_sound("b") == []  # b1 left too
    assert [m.content for m in conversation.for_sound("c")] == ["c1"]


def test_ledger_watch_says_what_moved(data_dir: Path) -> None:
    from foley_tui.store.history import LedgerWatch

    service = SessionService(data_dir)
    sid = service.create()
    watch = LedgerWatch(service.get(sid))
    assert watch.poll() == (True, False)  # first look: messages read, usage still zero
    assert watch.poll() == (False, False)
    other = SessionService(data_dir)  # another process
    other.append_message(sid, "agent", "on door", {"sound_id": "door"})
    assert watch.poll() == (True, False)
    assert [m.content for m in watch.for_sound("door")] == ["on door"]
    other.update_token_usage(sid, 10, 1, 0.25)
    assert watch.poll() == (False, True)
    assert watch.usage.cost_micro_usd == 250_000
    assert watch.poll() == (False, False)
