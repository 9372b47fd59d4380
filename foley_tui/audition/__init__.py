"""The headless audition: what a keypress means in a session, tested without a screen.

:class:`AuditionModel` owns the listing, decisions, view settings, cursor, undo
availability, the repeat guard, auto-advance and outside-change bookkeeping; its intents
return a :class:`Change` the screen applies. Never imports textual.
"""

from __future__ import annotations

from foley_tui.audition.change import Change, Outside
from foley_tui.audition.listing import SORTS, STATUS_FILTERS, Decisions, Listing, ViewSettings
from foley_tui.audition.model import (
    VOLUME_RANGE_DB,
    VOLUME_STEP_DB,
    AuditionModel,
)

__all__ = [
    "SORTS",
    "STATUS_FILTERS",
    "VOLUME_RANGE_DB",
    "VOLUME_STEP_DB",
    "AuditionModel",
    "Change",
    "Decisions",
    "Listing",
    "Outside",
    "ViewSettings",
]
