"""Deciding and placing: pick, reject (with a reason), clear, undo/redo, layer, onset.

Every change goes to the store first and changes the row only once it is on disk
(:meth:`DecisionActions._write`); after a decision the cursor moves on to the next
undecided candidate (a setting), which plays when autoplay is on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from foley_tui.model import Pick, Reject, Status, ValidationError
from foley_tui.screens.audition_preview import PreviewActions
from foley_tui.screens.onset import OnsetChoice, OnsetScreen
from foley_tui.screens.reason import RejectReasonScreen

T = TypeVar("T")


class DecisionActions(PreviewActions):
    """Decide and place the highlighted candidate, persisted before it shows."""

    REPEAT_GUARD_S = 0.4
    """A toggle repeated on the same row within this time is a held key, not a decision."""

    def _repeat_guard(self, action: str, sound_id: str) -> bool:
        """True when this toggle would undo the same toggle just made on the same row:
        a held key's auto-repeat landing on a row the cursor could not leave."""
        last = self._last_toggle
        return (
            last is not None
            and last[0] == action
            and last[1] == sound_id
            and time.monotonic() - last[2] < self.REPEAT_GUARD_S
        )

    def _write(
        self,
        sound_id: str,
        write: Callable[[], T],
        apply: Callable[[T], None],
        *,
        advance: bool = False,
    ) -> bool:
        """Write to the store first; only on success change the row. Synchronous, so key
        presses are applied one at a time to the row highlighted when each was handled."""
        try:
            result = write()
        except (OSError, ValidationError, ValueError, KeyError) as exc:
            self.notify(f"Not saved: {exc}", title="Store", severity="error", timeout=8)
            return False
        self._generation += 1
        apply(result)
        self._after_decision(sound_id, advance=advance)
        return True

    def _after_decision(self, sound_id: str, *, advance: bool) -> None:
        self._user_moved = True
        listing = self.listing
        cl = self.candidate_list
        old_index = cl.cursor
        vs = self.view_settings
        if vs.status_filter != "all" or vs.sort in ("layer", "onset"):
            listing.apply(vs)
            cl.refresh_data(keep=sound_id)
        else:
            cl.refresh_row(sound_id)
        moved = False
        if advance and self.settings.auto_advance:
            view = listing.view
            here = cl.cursor if cl.highlighted == sound_id else old_index - 1
            target = listing.next_undecided(here)
            if target is not None:
                cl.move_to(target)
                moved = True
            elif sound_id in view:
                cl.move_to(view.index(sound_id))
        self._refresh_undo()
        self._update_status()
        self._show_details()
        if moved and vs.autoplay and cl.highlighted is not None:
            self._play(cl.highlighted)

    def _toggle(self, action: str, sound_id: str) -> bool:
        if self._repeat_guard(action, sound_id):
            return False
        self._last_toggle = (action, sound_id, time.monotonic())
        return True

    def _toggle_verdict(
        self,
        action: str,
        status: Status,
        undo: Callable[[str], object],
        decide: Callable[[str], object],
        mark: Callable[[str], None],
    ) -> None:
        """Pick and reject toggle alike: on a row already ``status``, ``undo`` it (the
        cursor stays); otherwise ``decide`` on disk, then ``mark`` the row and advance."""
        sound_id = self.current_id
        if sound_id is None or not self._toggle(action, sound_id):
            return
        decisions = self.listing.decisions
        if decisions.status(sound_id) is status:
            self._write(sound_id, lambda: undo(sound_id), lambda _: decisions.clear(sound_id))
        else:
            self._write(sound_id, lambda: decide(sound_id), lambda _: mark(sound_id), advance=True)

    def action_pick(self) -> None:
        decisions = self.listing.decisions
        self._toggle_verdict(
            "pick",
            Status.PICKED,
            self.store.drop_pick,
            self.store.add_pick,
            lambda sound_id: decisions.set_pick(Pick(sound_id)),
        )

    def action_reject(self) -> None:
        decisions = self.listing.decisions
        self._toggle_verdict(
            "reject",
            Status.REJECTED,
            self.store.clear,
            self.store.add_reject,
            lambda sound_id: decisions.set_reject(Reject(sound_id)),
        )

    def action_reject_reason(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return

        def done(reason: str | None) -> None:
            if reason is None:
                return
            self._write(
                sound_id,
                lambda: self.store.add_reject(sound_id, reason=reason),
                lambda _: self.listing.decisions.set_reject(Reject(sound_id, reason)),
                advance=True,
            )

        self.app.push_screen(RejectReasonScreen(self._caption(sound_id)), done)

    def action_clear(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        self._write(
            sound_id,
            lambda: self.store.clear(sound_id),
            lambda _: self.listing.decisions.clear(sound_id),
        )

    def action_undo(self) -> None:
        self._journal(undo=True)

    def action_redo(self) -> None:
        self._journal(undo=False)

    def _journal(self, *, undo: bool) -> None:
        try:
            entry = self.store.undo() if undo else self.store.redo()
        except OSError as exc:
            self.notify(f"Not saved: {exc}", title="Store", severity="error", timeout=8)
            return
        if entry is None:
            self.notify(f"Nothing to {'undo' if undo else 'redo'}.", timeout=2)
            self._refresh_undo()
            return
        self._generation += 1
        state = entry.before if undo else entry.after
        self.listing.decisions.apply_state(entry.sound_id, state)
        self._after_decision(entry.sound_id, advance=False)
        if entry.sound_id in self.listing.view:
            self.candidate_list.move_to(self.listing.view.index(entry.sound_id))
        verb = "Undid" if undo else "Redid"
        self.notify(f"{verb}: {self._caption(entry.sound_id)} → {state.get('status')}", timeout=2)

    # -- actions: place -------------------------------------------------------------
    def action_set_layer(self, layer: str) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        self._write(
            sound_id,
            lambda: self.store.set_layer(sound_id, layer),  # type: ignore[arg-type]
            self.listing.decisions.set_pick,
        )

    def action_edit_onset(self) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        pick = self.listing.decisions.picks.get(sound_id)

        def done(choice: OnsetChoice | None) -> None:
            if choice is None:
                return
            self._write(
                sound_id,
                lambda: self.store.set_onset(sound_id, choice.onset),
                self.listing.decisions.set_pick,
            )

        self.app.push_screen(
            OnsetScreen(self._caption(sound_id), pick.onset if pick else None), done
        )

    def action_nudge_onset(self, delta: float) -> None:
        sound_id = self.current_id
        if sound_id is None:
            return
        pick = self.listing.decisions.picks.get(sound_id)
        if pick is not None and isinstance(pick.onset, str):
            self.notify("the onset is an anchor; set a number with o first", severity="warning")
            return
        now = pick.onset if pick and isinstance(pick.onset, int | float) else 0.0
        onset = max(0.0, round(now + delta, 3))
        self._write(
            sound_id, lambda: self.store.set_onset(sound_id, onset), self.listing.decisions.set_pick
        )
