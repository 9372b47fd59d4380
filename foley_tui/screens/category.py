"""CategoryScreen: filter a library folder's list by one of its UCS categories.

Lists the folder's categories (``CATEGORY/SUBCATEGORY`` from the files' iXML, else the
CatID as written) with how many sounds each holds; choosing one dismisses with the
filter text that shows that category alone (the ``/`` filter's terms: each one must be in
the row's tags, where the category, sub-category and CatID are).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList

from foley_tui.keys.bindings import bindings

ALL = "(every category)"


def category_query(category: str) -> str:
    """The ``/`` filter text that keeps one category's sounds."""
    return " ".join(part for part in category.split("/") if part)


class CategoryScreen(ModalScreen[str | None]):
    """The folder's categories; Enter filters by the highlighted one, Esc cancels."""

    BINDINGS = bindings("dialog")

    def __init__(self, categories: list[tuple[str, int]]) -> None:
        super().__init__()
        self.categories = categories

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="modal-dialog"):
            count = len(self.categories)
            yield Label(f"Filter by category ({count} in this folder)", id="title")
            options = [ALL, *(f"{name}  ({n})" for name, n in self.categories)]
            yield OptionList(*options, id="categories")
            if not self.categories:
                yield Label("No file here names a UCS category or CatID.", classes="error")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index == 0:
            self.dismiss("")
        else:
            self.dismiss(category_query(self.categories[event.option_index - 1][0]))

    def action_cancel(self) -> None:
        self.dismiss(None)
