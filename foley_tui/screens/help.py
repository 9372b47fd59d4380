"""HelpScreen: every key of the audition screen, by section, with the user's remapping."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from foley_tui.keys import keymap
from foley_tui.keys.bindings import bindings
from foley_tui.keys.spec import KeySpec


@dataclass(frozen=True, slots=True)
class HelpEntry:
    """One line of help: the section, the key(s) as bound now, what it does, its id."""

    section: str
    keys: str
    description: str
    tooltip: str
    binding_id: str


def help_entries(app: App[Any], remapped: Mapping[str, str]) -> list[HelpEntry]:
    """Every binding of the app (every screen's, widget's and the app's), with the user's
    remapping (key id -> keys) and the key names as the app displays them."""
    return [
        HelpEntry(
            spec.section,
            keys_shown(app, spec, remapped),
            spec.description,
            spec.tooltip,
            spec.id,
        )
        for spec in keymap.KEYS
    ]


def keys_shown(app: App[Any], spec: KeySpec, remapped: Mapping[str, str]) -> str:
    """The keys of a binding after the user's remapping (key id -> keys), named as the app
    displays them (help and the command palette show the same)."""
    keys = remapped.get(spec.id, spec.keys)
    return ", ".join(app.get_key_display(Binding(k.strip(), "")) for k in keys.split(","))


#: Below this many cells the table leaves out the id column (docs/keys.md lists them),
#: so the description keeps a readable width.
IDS_FROM_CELLS = 96
#: The key column wraps past this many cells (``escape, q, ?, f1``), at its commas.
KEY_CELLS = 14


def help_table(entries: Sequence[HelpEntry], width: int | None = None) -> Table:
    """The keys by section; ``width`` (the cells it is drawn in) below
    :data:`IDS_FROM_CELLS` leaves out the remapping ids."""
    with_ids = width is None or width >= IDS_FROM_CELLS
    table = Table(box=None, expand=True, show_header=True, pad_edge=False, header_style="bold")
    table.add_column("key", style="bold cyan", max_width=KEY_CELLS, overflow="fold")
    table.add_column("action", no_wrap=True)
    table.add_column("what it does", ratio=1)
    if with_ids:
        # A Text header: a str would be Rich markup, and "[keymap]" a tag it drops.
        table.add_column(Text("id (config.toml [keymap])"), no_wrap=True, style="dim")
    section = None
    for entry in entries:
        if entry.section != section:
            section = entry.section
            table.add_row(Text(section, style="bold underline"), *[""] * (2 + with_ids))
        ids = [entry.binding_id] if with_ids else []
        table.add_row(entry.keys, entry.description, entry.tooltip, *ids)
    return table


class HelpScreen(ModalScreen[None]):
    """A scrollable table of keys; Escape, q, ? or F1 closes it."""

    BINDINGS = bindings("help")

    def __init__(self, entries: Sequence[HelpEntry]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog", classes="modal-dialog"):
            yield Static(
                "[b]Keys[/b]  (remap by id in ~/.config/foley-tui/config.toml)", id="help-title"
            )
            yield Static(id="help-table")

    def on_resize(self) -> None:
        # The table is laid out for the dialog's width: a narrow terminal leaves out the
        # ids (said in the title) rather than wrapping each description to a few words.
        width = self.query_one("#help-dialog").content_region.width or self.size.width
        self.query_one("#help-table", Static).update(help_table(self.entries, width))
        if width < IDS_FROM_CELLS:
            self.query_one("#help-title", Static).update(
                "[b]Keys[/b]  (remap by id in ~/.config/foley-tui/config.toml; the ids are "
                "in docs/keys.md, or in help on a wider terminal)"
            )

    def action_close(self) -> None:
        self.dismiss(None)
