"""FilterInput: the audition list's ``/`` filter box."""

from __future__ import annotations

from textual.widgets import Input

from foley_tui.keys.bindings import bindings
from foley_tui.widgets.candidate_list import CandidateList


class FilterInput(Input):
    """The ``/`` filter box: Enter keeps the filter, Escape clears it (its own keys, in
    :mod:`foley_tui.keys.keymap`) and gives the list the focus back."""

    BINDINGS = bindings("filter")

    def action_clear_filter(self) -> None:
        self.value = ""
        self.screen.query_one(CandidateList).focus()
