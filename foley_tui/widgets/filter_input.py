"""FilterInput: the audition list's ``/`` filter box."""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input

from foley_tui.keys.bindings import bindings
from foley_tui.widgets.candidate_list import CandidateList


class FilterInput(Input):
    """The ``/`` filter box: Enter keeps the filter, Escape clears it (its own keys, in
    :mod:`foley_tui.keys.keymap`) and gives the list the focus back."""

    BINDINGS = bindings("filter")

    # An Input sets its virtual width to its text's on every keystroke, and Textual's
    # virtual size lays the whole screen out when it changes. This box has a fixed size
    # (app.tcss) and no scrollbar: its text's width only bounds its own horizontal
    # scroll, so a change repaints the box and lays nothing out.
    virtual_size = Reactive(Size(0, 0), layout=False)

    def action_clear_filter(self) -> None:
        self.value = ""
        self.screen.query_one(CandidateList).focus()
