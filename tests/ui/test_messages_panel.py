"""The conversation panel with Pilot: the history window newest last, writing
to the agent as the designer, attaching to a candidate, and messages from another
process appearing live."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Label, Static

from foley_tui.app.foley_app import FoleyApp
from foley_tui.config import Config
from foley_tui.screens.audition.screen import AuditionScreen
from foley_tui.screens.messages import MessagesScreen, render_item
from foley_tui.store import SessionService, SessionStore
from foley_tui.store.history import from_message
from foley_tui.widgets.details import Details
from foley_tui.widgets.status_line import StatusLine
from tests.fakes import FakePlayer
from tests.ui.conftest import Session, ready, settle
from tests.unit.store.helpers import candidate

SIZE = (110, 30)
#: Generous bound for a condition to come true (pauses of 50 ms); fails loudly after.
MAX_PAUSES = 400


class PanelHost(App[None]):
    def __init__(self, store: SessionStore, sound_id: str | None) -> None:
        super().__init__()
        self.store = store
        self.sound_id = sound_id

    def compose(self) -> ComposeResult:
        yield Label("host")

    def on_mount(self) -> None:
        self.push_screen(MessagesScreen(self.store, sound_id=self.sound_id, caption="door slam"))


def _history_text(app: App[None]) -> str:
    static = app.screen.query_one("#history-text", Static)
    return str(static.render())


async def _until(pilot: Pilot[None], condition: object, what: str) -> None:
    for _ in range(MAX_PAUSES):
        if callable(condition) and condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never happened: {what}")


def _session(data_dir: Path) -> tuple[SessionService, str]:
    service = SessionService(data_dir)
    sid = service.create("panel")
    service.get(sid).cache_candidates([candidate("door"), candidate("rain")])
    return service, sid


async def test_panel_shows_the_window_and_sends_as_the_designer(data_dir: Path) -> None:
    service, sid = _session(data_dir)
    service.append_message(sid, "agent", "found 3 doors")
    store = service.get(sid)
    store.add_pick("door", layer="sfx_fg")
    app = PanelHost(store, "door")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MessagesScreen)
        text = _history_text(app)
        assert text.index("found 3 doors") < text.index("pick door")  # newest last
        assert app.screen.focused is app.screen.query_one(Input)
        await pilot.press(*"heavier please")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one(Input).value == ""
        assert _history_text(app).rstrip().endswith("user: heavier please")
    messages = SessionService(data_dir).messages(sid)
    assert [(m.seq, m.role, m.content, m.sound_id) for m in messages] == [
        (1, "agent", "found 3 doors", None),
        (2, "user", "heavier please", None),
    ]


async def test_ctrl_t_attaches_the_message_to_the_candidate(data_dir: Path) -> None:
    service, sid = _session(data_dir)
    app = PanelHost(service.get(sid), "door")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "No messages yet" in _history_text(app)
        await pilot.press("ctrl+t")
        assert "Attached to door slam" in str(app.screen.query_one("#attach", Label).render())
        await pilot.press(*"less reverb", "enter")
        await pilot.press("ctrl+t", *"general note", "enter")
        await pilot.pause()
        assert "user on door: less reverb" in _history_text(app)
    messages = SessionService(data_dir).messages(sid)
    assert [(m.content, m.sound_id) for m in messages] == [
        ("less reverb", "door"),
        ("general note", None),
    ]


async def test_an_empty_message_is_refused(data_dir: Path) -> None:
    service, sid = _session(data_dir)
    app = PanelHost(service.get(sid), None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space", "enter")
        await pilot.pause()
        assert "must not be empty" in str(app.screen.query_one("#error", Label).render())
        await pilot.press("ctrl+t")  # nothing highlighted: nothing to attach to
        assert "none highlighted" in str(app.screen.query_one("#attach", Label).render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, MessagesScreen)
    assert SessionService(data_dir).messages(sid) == []


async def test_messages_and_decisions_from_another_process_appear_live(data_dir: Path) -> None:
    service, sid = _session(data_dir)
    app = PanelHost(service.get(sid), "door")
    other = SessionService(data_dir)  # its own store objects and read offsets
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        other.append_message(sid, "agent", "new batch cached", {"author": "foley-agent"})
        await _until(pilot, lambda: "new batch cached" in _history_text(app), "agent message")
        assert "foley-agent (agent): new batch cached" in _history_text(app)
        other.get(sid).add_reject("rain", reason="hiss")
        await _until(pilot, lambda: "reject rain" in _history_text(app), "outside decision")


def test_render_escapes_control_characters() -> None:
    service = SessionService.in_memory()
    sid = service.create()
    message = service.append_message(sid, "agent", "two\nlines\x1b[31m red?")
    text = render_item(from_message(message)).plain
    assert "\x1b" not in text and "\\x1b[31m red?" in text
    assert text.endswith("agent: two\n      lines\\x1b[31m red?")


# ---------------------------------------------------------------------- in the app
def _details_text(screen: AuditionScreen) -> str:
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(screen.query_one(Details).content)
    return console.export_text()


async def test_m_opens_the_panel_and_an_attached_message_shows_in_details(
    session: Session,
) -> None:
    app = session.app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        sound_id = screen.current_id
        assert sound_id is not None
        assert "message" not in _details_text(screen)
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MessagesScreen)
        assert app.screen.sound_id == sound_id
        await pilot.press("ctrl+t", *"heavier door please", "enter", "escape")
        await settle(pilot)
        assert app.screen is screen
        await _until(
            pilot, lambda: "heavier door please" in _details_text(screen), "message in details"
        )
        assert "user: heavier door please" in _details_text(screen)
    (message,) = session.service.messages(session.session_id)
    assert (message.role, message.sound_id) == ("user", sound_id)


async def test_the_agent_writing_from_another_process_shows_live(session: Session) -> None:
    app = session.app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        sound_id = screen.current_id
        assert sound_id is not None
        other = SessionService(session.data_dir)  # another process's view of the files
        other.append_message(session.session_id, "agent", "this one is dry", {"sound_id": sound_id})
        await _until(pilot, lambda: "this one is dry" in _details_text(screen), "live message")
        other.update_token_usage(session.session_id, 41_000, 1_200, 0.62)
        status = screen.query_one(StatusLine)
        await _until(pilot, lambda: "spent $0.62" in str(status.render()), "spend in status")


async def test_the_session_on_screen_is_never_evicted(data_dir: Path) -> None:
    service = SessionService(data_dir, max_sessions=2)
    sid = service.create("on screen")
    app = FoleyApp(service.get(sid), FakePlayer(), Config(), service)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        for i in range(5):
            service.info(service.create(f"other {i}"))  # the sessions screen's reads
        assert len(service.open_sessions) == 2 and sid in service.open_sessions
        assert service.get(sid, touch=False) is app.store  # still the same open store
