"""SessionsScreen: every session in the data dir, and what you can do with one.

Lists title, id, picked/rejected/total, created, last modified, whether foley made it
and, for the library folders opened before, the folder (from the data dir's list);
opens, creates, renames, deletes (after a confirmation), exports to a file and imports
from one. All IO runs in thread workers; failures are shown on the screen (and nothing is
ever overwritten: export refuses an existing file, import refuses an existing session).

Opening a session dismisses the screen with its id: whoever pushed the screen switches
to it (``app.push_screen(SessionsScreen(...), callback)``). Escape dismisses with None.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Static

from foley_tui.audition.text import cut
from foley_tui.keys.bindings import bindings
from foley_tui.screens.sessions_modals import ChoiceModal, ConfirmModal, TextPromptModal
from foley_tui.store import SessionInfo
from foley_tui.widgets.key_hints import KeyHints

T = TypeVar("T")


class SessionsBackend(Protocol):
    """What the screen needs of :class:`foley_tui.store.SessionService`."""

    @property
    def data_dir(self) -> Path | None:
        """Where the sessions and the library registry live (None: in memory)."""
        ...

    def list(self) -> list[SessionInfo]: ...
    def create(self, title: str | None = None) -> str: ...
    def rename(self, session_id: str, title: str) -> None: ...
    def delete(self, session_id: str) -> None: ...
    def export_to_file(self, session_id: str, path: Path) -> Any: ...
    def import_from_file(
        self, path: Path, *, overwrite: bool = False, as_copy: bool = False
    ) -> str: ...
    @property
    def delete_outcome(self) -> str: ...


COLUMNS: tuple[tuple[str, str], ...] = (
    ("title", "Title"),
    ("id", "Id"),
    ("counts", "Picked/Rej./Total"),
    ("created", "Created"),
    ("updated", "Last modified"),
    ("foley", "Made by"),
)
"""(key, header) of the list's columns; narrow enough for a 120-column terminal. A
*Folder* column follows once a library folder has been opened (see ``folders``)."""

NARROW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("title", "Title"),
    ("id", "Id"),
    ("counts", "P/R/Total"),
    ("updated", "Modified"),
    ("foley", "Made by"),
)
"""The columns below :data:`WIDE_FROM_CELLS` (80 columns): the id cut, the dates short,
no creation date (the list is in creation order)."""

WIDE_FROM_CELLS = 110
"""Screens at least this wide get every column, in full."""
NARROW_ID_CELLS = 12
"""An id in the narrow list: its start (a ULID's is its creation time), cut with …."""

TITLE_WIDTH = 24
"""Titles are cut to this many cells (with an ellipsis) so the other columns stay visible."""
FOLDER_WIDTH = 32
"""A library folder's path is cut to this many cells, from the left (its end names it)."""


def folder_cell(path: str) -> str:
    """A folder's path for the list: ``~`` for the home folder, the start cut away."""
    home = str(Path.home())
    if path == home or path.startswith(home + "/"):
        path = "~" + path[len(home) :]
    if cell_len(path) <= FOLDER_WIDTH:
        return path
    kept = ""
    for ch in reversed(path):
        if cell_len(kept) + cell_len(ch) > FOLDER_WIDTH - 1:
            break
        kept = ch + kept
    return "…" + kept


def format_time(moment: datetime) -> str:
    """A timestamp in the user's local time, to the minute."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def default_export_name(info: SessionInfo) -> str:
    """A file name for an export: the title as a slug plus the id's first characters."""
    slug = re.sub(r"[^a-z0-9]+", "-", (info.title or "session").lower()).strip("-")
    return f"{slug or 'session'}-{info.session_id[:8].lower()}.foley-session.json"


def _expand(text: str) -> Path:
    return Path(text).expanduser()


def export_folder() -> Path:
    """Where an export is suggested: the home folder (always there, and where a file
    manager opens), never the folder the app happened to be started from."""
    return Path.home()


class SessionsCommands(Provider):
    """The sessions screen's actions in the command palette (those that apply now)."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        screen = self.screen
        if not isinstance(screen, SessionsScreen):
            return []
        found: list[tuple[str, str, Callable[[], object]]] = []
        for binding in SessionsScreen.BINDINGS:
            if (
                not isinstance(binding, Binding)
                or screen.check_action(binding.action, ()) is not True
            ):
                continue
            title = f"Sessions: {binding.description}"
            found.append((title, binding.tooltip, partial(screen.run_action, binding.action)))
        return found

    async def discover(self) -> Hits:
        for title, help_text, run in self._commands():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)


class SessionsScreen(Screen[str | None]):
    """The sessions list. Dismisses with the id of the session to open, or None."""

    COMMANDS = {SessionsCommands}

    DEFAULT_CSS = """
    SessionsScreen #sessions-heading {
        padding: 0 1;
        text-style: bold;
        height: 1;
    }
    SessionsScreen #sessions-table {
        height: 1fr;
    }
    SessionsScreen #sessions-error {
        color: $error;
        padding: 0 1;
        height: auto;
    }
    SessionsScreen #sessions-error.-empty, SessionsScreen #sessions-status.-empty {
        display: none;
    }
    SessionsScreen #sessions-status {
        color: $success;
        padding: 0 1;
        height: auto;
    }
    """

    BINDINGS = bindings("sessions")

    sessions: reactive[tuple[SessionInfo, ...]] = reactive(())
    """The sessions as last listed, in creation order."""
    error: reactive[str] = reactive("")
    """The last failure, shown under the list until the next action succeeds."""
    status: reactive[str] = reactive("")
    """The last success worth saying (an export's path, an import's new id)."""

    def __init__(
        self,
        service: SessionsBackend,
        *,
        current: str | None = None,
        location: str | None = None,
    ) -> None:
        """Args:
        service: The session service (a real one, or a fake in tests).
        current: The id of the session open in the app: marked, and not deletable.
        location: Where the sessions live (the data dir), shown in the heading.
        """
        super().__init__()
        self.service = service
        self.current = current
        self.location = location
        self._select_after_load: str | None = current
        self._binding_state: tuple[bool, bool] | None = None
        self._narrow = False
        """The list's columns are the narrow ones (see :data:`NARROW_COLUMNS`)."""
        self.folders: dict[str, str] = {}
        """Session id -> the library folder it auditions (the folders opened before)."""

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Sessions", id="sessions-heading")
            table: DataTable[str | Text] = DataTable(
                id="sessions-table", cursor_type="row", zebra_stripes=True
            )
            for key, label in COLUMNS:
                table.add_column(label, key=key)
            yield table
            yield Static("", id="sessions-error", classes="-empty")
            yield Static("", id="sessions-status", classes="-empty")
        yield KeyHints()

    def on_mount(self) -> None:
        if self.location is None:
            folder = self.service.data_dir
            self.location = str(folder) if folder is not None else None
        self.query_one(DataTable).focus()
        self.load()

    # ------------------------------------------------------------------ state -> widgets

    def watch_error(self, error: str) -> None:
        widget = self.query_one("#sessions-error", Static)
        widget.update(Text(error))
        widget.set_class(not error, "-empty")

    def watch_status(self, status: str) -> None:
        widget = self.query_one("#sessions-status", Static)
        widget.update(Text(status))
        widget.set_class(not status, "-empty")

    def on_resize(self) -> None:
        narrow = self.size.width < WIDE_FROM_CELLS
        if narrow != self._narrow:
            self._narrow = narrow
            table = self.query_one(DataTable)
            table.clear(columns=True)
            for key, label in NARROW_COLUMNS if narrow else COLUMNS:
                table.add_column(label, key=key)
            self.watch_sessions(self.sessions)

    def _cells(self, info: SessionInfo) -> list[str | Text]:
        """The row of a session: every column in full, or the narrow list's cells."""
        counts = Text(f"{info.picked}/{info.rejected}/{info.total}", justify="right")
        made_by = "foley" if info.made_by_foley else "foley-tui"
        if self._narrow:
            return [
                self._title_cell(info),
                cut(info.session_id, NARROW_ID_CELLS),
                counts,
                info.updated.astimezone().strftime("%m-%d %H:%M"),
                made_by,
            ]
        return [
            self._title_cell(info),
            info.session_id,
            counts,
            format_time(info.created),
            format_time(info.updated),
            made_by,
        ]

    def watch_sessions(self, sessions: tuple[SessionInfo, ...]) -> None:
        table = self.query_one(DataTable)
        table.clear()
        folders = self.folders
        if folders and "folder" not in table.columns:
            table.add_column("Folder", key="folder")
        with_folder = "folder" in table.columns
        for info in sessions:
            cells = self._cells(info)
            if with_folder:
                path = folders.get(info.session_id)
                cells.append(folder_cell(path) if path is not None else "")
            table.add_row(*cells, key=info.session_id)
        wanted = self._select_after_load
        if wanted is not None and any(s.session_id == wanted for s in sessions):
            table.move_cursor(row=table.get_row_index(wanted))
        where = f" in {self.location}" if self.location else ""
        count = len(sessions)
        shown = sum(1 for info in sessions if info.session_id in folders)
        opened = f", {shown} of them library folder{'s' if shown != 1 else ''}" if shown else ""
        self.query_one("#sessions-heading", Static).update(
            Text(f"Sessions: {count} session{'s' if count != 1 else ''}{opened}{where}")
        )
        self._sync_bindings(force=True)

    def _title_cell(self, info: SessionInfo) -> Text:
        """The title, marked with a dot when it is the session open in the app."""
        # Cut by terminal cells: a CJK or emoji title takes two cells a character.
        title = cut(info.title or "(untitled)", TITLE_WIDTH - 2)
        if info.session_id == self.current:
            return Text.assemble(("● ", "bold green"), title)
        return Text.assemble("  ", title)

    def selected(self) -> SessionInfo | None:
        """The highlighted session, if any."""
        if not self.sessions:
            return None
        try:
            table = self.query_one(DataTable)
        except NoMatches:  # asked (by the footer) before the table is composed
            return None
        if table.row_count == 0:
            return None
        row = table.cursor_row
        if 0 <= row < len(self.sessions):
            return self.sessions[row]
        return None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._sync_bindings()

    def _sync_bindings(self, force: bool = False) -> None:
        """Refresh the footer when an input of check_action changed (is a row selected,
        is it the open session): rebuilding it on every cursor move is wasted work."""
        info = self.selected()
        state = (info is not None, info is not None and info.session_id == self.current)
        if force or state != self._binding_state:
            self._binding_state = state
            self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_session()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"open_session", "rename_session", "export_session"}:
            return self.selected() is not None
        if action == "delete_session":
            info = self.selected()
            return info is not None and info.session_id != self.current
        return True

    # ------------------------------------------------------------------ IO (workers)

    def load(self, select: str | None = None) -> None:
        """List the sessions in a worker; then highlight ``select`` (or keep the cursor)."""
        if select is not None:
            self._select_after_load = select
        else:
            info = self.selected() if self.is_mounted and self.sessions else None
            self._select_after_load = info.session_id if info else self._select_after_load
        self._list_worker()

    @work(thread=True, group="sessions", exclusive=True)
    def _list_worker(self) -> None:
        try:
            sessions = tuple(self.service.list())
        except Exception as exc:  # shown on screen, never a crash
            self.app.call_from_thread(self._failed, "Could not list the sessions", exc)
            return
        data_dir = self.service.data_dir
        folders: dict[str, str] = {}
        if data_dir is not None:
            from foley_tui.library.registry import FolderRegistry

            # Most recent first: a session given several folders shows its latest.
            for folder in reversed(FolderRegistry(Path(data_dir)).list()):
                folders[folder.session_id] = folder.path
        self.app.call_from_thread(self._listed, sessions, folders)

    def _listed(self, sessions: tuple[SessionInfo, ...], folders: dict[str, str]) -> None:
        self.folders = folders
        self.sessions = sessions

    def _failed(self, what: str, exc: BaseException) -> None:
        self.status = ""
        self.error = f"{what}: {exc}"

    def _run(
        self,
        what: str,
        job: Callable[[], T],
        done: Callable[[T], None],
    ) -> None:
        """Run ``job`` in a thread worker; ``done(result)`` or the error on the main thread."""

        def work_in_thread() -> None:
            try:
                result = job()
            except Exception as exc:  # shown on screen, never a crash
                self.app.call_from_thread(self._failed, what, exc)
                return
            self.app.call_from_thread(done, result)

        self.run_worker(work_in_thread, thread=True, group="sessions-io", name=what)

    def _succeeded(self, message: str, select: str | None = None) -> None:
        self.error = ""
        self.status = message
        self.load(select)

    # ------------------------------------------------------------------ actions

    def action_cursor(self, step: int) -> None:
        """j / k: the next or previous session (the arrows move the table itself)."""
        table = self.query_one(DataTable)
        if step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_open_session(self) -> None:
        info = self.selected()
        if info is not None:
            self.dismiss(info.session_id)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_reload(self) -> None:
        self.load()

    def action_new_session(self) -> None:
        def created(title: str | None) -> None:
            if title is None:
                return
            self._run(
                "Could not create the session",
                lambda: self.service.create(title),
                lambda sid: self._succeeded(f"Created {title!r} ({sid})", sid),
            )

        self.app.push_screen(
            TextPromptModal("New session", placeholder="Title", ok_label="Create"), created
        )

    def action_rename_session(self) -> None:
        info = self.selected()
        if info is None:
            return

        def renamed(title: str | None) -> None:
            if title is None or title == info.title:
                return
            self._run(
                f"Could not rename {info.title!r}",
                lambda: self.service.rename(info.session_id, title),
                lambda _: self._succeeded(f"Renamed to {title!r}", info.session_id),
            )

        self.app.push_screen(
            TextPromptModal(
                f"Rename {info.title or info.session_id!r}",
                value=info.title or "",
                ok_label="Rename",
            ),
            renamed,
        )

    def action_delete_session(self) -> None:
        info = self.selected()
        if info is None or info.session_id == self.current:
            return

        # The cursor stays where it was: on the session below, else the one above.
        ids = [s.session_id for s in self.sessions]
        at = ids.index(info.session_id)
        after = ids[at + 1 :] or ids[:at][-1:]
        neighbour = after[0] if after else None

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            self._run(
                f"Could not delete {info.title!r}",
                lambda: self.service.delete(info.session_id),
                lambda _: self._succeeded(f"Deleted {info.title or info.session_id!r}", neighbour),
            )

        made_by = " (made by foley: foley's picks for it go too)" if info.made_by_foley else ""
        self.app.push_screen(
            ConfirmModal(
                "Delete this session?",
                f"{info.title or '(untitled)'}  {info.session_id}\n"
                f"{info.total} candidates, {info.picked} picked, {info.rejected} rejected"
                f"{made_by}.\n{self.service.delete_outcome}",
                yes_label="Delete",
            ),
            confirmed,
        )

    def action_export_session(self) -> None:
        info = self.selected()
        if info is None:
            return

        def check(text: str) -> str | None:
            path = _expand(text)
            if path.exists():
                return f"{path} already exists: choose another name (nothing is overwritten)"
            if not path.parent.is_dir():
                return f"no such folder: {path.parent}"
            return None

        def chosen(text: str | None) -> None:
            if text is None:
                return
            path = _expand(text).resolve()
            self._run(
                f"Could not export {info.title!r}",
                lambda: self.service.export_to_file(info.session_id, path),
                lambda _: self._succeeded(f"Exported {info.title!r} to {path}", info.session_id),
            )

        self.app.push_screen(
            TextPromptModal(
                f"Export {info.title or info.session_id!r} to a file",
                value=str(export_folder() / default_export_name(info)),
                ok_label="Export",
                validate=check,
            ),
            chosen,
        )

    def _import_or_ask(self, path: Path) -> str | None:
        """(Worker.) Import ``path``; when its session is already here, ask (on the UI
        thread) whether to overwrite it or import it as a copy, and return None."""
        from foley_tui.store.errors import SessionImportError

        try:
            return self.service.import_from_file(path)
        except SessionImportError as exc:
            if "already exists" not in str(exc):
                raise
        self.app.call_from_thread(self._ask_how_to_import, path)
        return None

    def _ask_how_to_import(self, path: Path) -> None:
        def chosen(how: str | None) -> None:
            if not how:
                return
            self._run(
                f"Could not import {path.name}",
                lambda: self.service.import_from_file(
                    path, overwrite=how == "overwrite", as_copy=how == "copy"
                ),
                lambda sid: self._imported(path, sid),
            )

        self.app.push_screen(
            ChoiceModal(
                "This session is already here",
                f"{path.name} holds a session this list already has. Overwrite it (the one "
                "here goes to the Trash), or import it as a copy beside it (a new id, its "
                "title marked (copy))?",
                [("copy", "Import as a copy"), ("overwrite", "Overwrite")],
            ),
            chosen,
        )

    def _imported(self, path: Path, session_id: str) -> None:
        self._succeeded(f"Imported {path.name} as {session_id}", session_id)

    def action_import_session(self) -> None:
        def check(text: str) -> str | None:
            path = _expand(text)
            return None if path.is_file() else f"no such file: {path}"

        def chosen(text: str | None) -> None:
            if text is None:
                return
            path = _expand(text).resolve()
            self._run(
                f"Could not import {path.name}",
                lambda: self._import_or_ask(path),
                lambda sid: None if sid is None else self._imported(path, sid),
            )

        self.app.push_screen(
            TextPromptModal(
                "Import a session from a file",
                placeholder="path/to/session.foley-session.json",
                ok_label="Import",
                validate=check,
            ),
            chosen,
        )
