"""DecisionDialogs: the audition screen's decisions that ask first (a plain object the
screen composes, like its loader and previewer).

Picking that drops a scene event's other picks (``one_pick_per_event``), a reject with a
reason, the onset dialog, a nudge that would replace an anchor onset, and skipping an
undo/redo entry the store refused: each opens a modal and, when the user confirms, runs
the model intent through the screen (so the change is applied in one place). The modals
are imported when first opened: starting the app does not need them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from foley_tui.audition.change import Change
from foley_tui.audition.model import AuditionModel
from foley_tui.audition.stale import OpenedOn
from foley_tui.screens.audition.links import AppLinks
from foley_tui.store import SessionStore

if TYPE_CHECKING:
    from foley_tui.screens.audition.writer import DecisionWriter
    from foley_tui.screens.onset import OnsetChoice


class DialogHost(Protocol):
    """What the dialogs need of the screen that composes them."""

    @property
    def app(self) -> App[Any]: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def current_id(self) -> str | None: ...
    @property
    def links(self) -> AppLinks: ...
    @property
    def writer(self) -> DecisionWriter: ...
    def apply(self, change: Change) -> None: ...
    def run_intent(self, intent: Callable[[], Change]) -> None: ...


@dataclass(slots=True)
class _Baseline:
    """What a dialog's confirm is checked against (see ``DecisionDialogs._opened``)."""

    opened: OpenedOn


class DecisionDialogs:
    """The confirm and input dialogs of one audition screen's decisions."""

    def __init__(self, screen: DialogHost, model: AuditionModel) -> None:
        self.screen = screen
        self.model = model

    def offer_skip(self, undo: bool, why: str) -> None:
        """An undo/redo refused (the sound changed outside foley-tui): nothing was written;
        the user may step past that entry instead of being stuck on it."""
        from foley_tui.screens.sessions_modals import ConfirmModal

        verb = "undo" if undo else "redo"

        def done(skip: bool | None) -> None:
            if skip:
                self.screen.apply(self.model.skip(undo=undo))

        self.screen.app.push_screen(
            ConfirmModal(
                f"Skip this {verb}?",
                f"{why.removeprefix('Not saved: ')}. Skipping leaves the files as they are "
                f"and moves the {verb} history past this entry.",
                yes_label="Skip",
            ),
            done,
        )

    def pick(self) -> None:
        from foley_tui.screens.sessions_modals import ConfirmModal

        sound_id = self.screen.current_id
        rivals = self.model.event_rivals(sound_id) if sound_id is not None else []
        if sound_id is None or not rivals:
            self.screen.run_intent(self.model.pick)
            return
        model = self.model
        names = "\n".join(f"  {model.caption(sid)} ({sid})" for sid in rivals)
        agents = model.agents_picks(rivals)
        note = ""
        if agents:
            which = ", ".join(model.caption(sid) for sid in agents)
            note = f"\n{len(agents)} of them foley's agent picked (not in our journal): {which}."
        message = (
            f"one_pick_per_event: picking {model.caption(sound_id)} drops the scene event's "
            f"other pick{'s' if len(rivals) > 1 else ''}:\n{names}{note}\n"
            "All or nothing, one undo."
        )

        opened = self._opened([sound_id, *rivals])

        def done(yes: bool | None) -> None:
            if yes:
                self._confirm(
                    opened,
                    lambda: self.screen.run_intent(lambda: model.pick_dropping(sound_id, rivals)),
                )

        self.screen.app.push_screen(
            ConfirmModal("Pick and drop the others?", message, yes_label="Pick and drop"), done
        )

    def reject_reason(self) -> None:
        from foley_tui.screens.reason import RejectReasonScreen

        sound_id = self.screen.current_id
        if sound_id is None:
            return

        def done(reason: str | None) -> None:
            if reason is not None:
                self.screen.run_intent(lambda: self.model.reject_with(sound_id, reason))

        self.screen.app.push_screen(RejectReasonScreen(self.model.caption(sound_id)), done)

    def edit_onset(self) -> None:
        from foley_tui.screens.onset import OnsetScreen

        sound_id = self.screen.current_id
        if sound_id is None:
            return
        pick = self.model.listing.decisions.picks.get(sound_id)
        opened = self._opened([sound_id])

        def done(choice: OnsetChoice | None) -> None:
            if choice is not None:
                self._confirm(
                    opened,
                    lambda: self.screen.run_intent(
                        lambda: self.model.set_onset(sound_id, choice.onset)
                    ),
                )

        caption = self.model.caption(sound_id)
        placement = self.model.listing.placement(sound_id)
        layer = placement.layer if placement else (pick.layer if pick else None) or "sfx_fg"
        loop = placement.loop if placement else False
        onset = pick.onset if pick else None
        dialog = OnsetScreen(caption, onset, layer=layer, loop=loop, words=self._words())
        self.screen.app.push_screen(dialog, done)

    def _words(self) -> list[dict[str, Any]]:
        """The narration's word timeline (this run's, else the session's), so the onset
        dialog can say where an anchor lands; none when there is no narration."""
        from foley_tui.scene.narration import NarrationError, read_narration

        narration = self.screen.links.narration
        if narration is None:
            try:
                narration = read_narration(self.screen.store)  # no hashing: a hint for the dialog
            except NarrationError:
                return []
        return list(narration.words) if narration is not None else []

    def nudge_onset(self, delta: float) -> None:
        from foley_tui.screens.sessions_modals import ConfirmModal

        sound_id = self.screen.current_id
        pick = self.model.listing.decisions.picks.get(sound_id) if sound_id else None
        if sound_id is None or pick is None or not isinstance(pick.onset, str):
            self.screen.run_intent(lambda: self.model.nudge(delta))
            return
        from foley_tui.scene.reading import clock

        anchor = pick.onset
        words = self._words()
        target = self.model.nudged_to(sound_id, delta, words)
        opened = self._opened([sound_id])

        def done(replace: bool | None) -> None:
            if replace:
                self._confirm(
                    opened,
                    lambda: self.screen.run_intent(
                        lambda: self.model.nudge(
                            delta, replace_anchor=True, words=words, sound_id=sound_id
                        )
                    ),
                )

        self.screen.app.push_screen(
            ConfirmModal(
                "Replace the anchor with a number?",
                f"The onset is the anchor {anchor!r}, which foley resolves against the "
                f"narration's words. A nudge replaces it with {clock(target)} ({target:g} s, "
                "a number of seconds: it no longer follows the words).",
                yes_label="Replace",
            ),
            done,
        )

    def _opened(self, sound_ids: list[str]) -> _Baseline:
        """The pick records a dialog's confirm would write over, read as it opens; and
        read again once the decisions of ours still being written have landed (a key
        pressed just before the dialog opened is ours, not a change under it)."""
        picks = self.screen.store.picks_ns
        baseline = _Baseline(OpenedOn.read(picks, sound_ids))
        if self.screen.writer.outstanding:

            def again() -> None:
                baseline.opened = OpenedOn.read(picks, sound_ids)

            self.screen.writer.when_idle(again)
        return baseline

    def _confirm(self, baseline: _Baseline, go: Callable[[], None]) -> None:
        """Run a dialog's confirm once our decisions in hand have landed, unless the
        session changed under the dialog."""

        def then() -> None:
            if not self._stale(baseline.opened):
                go()

        self.screen.writer.when_idle(then)

    def _stale(self, opened: OpenedOn) -> bool:
        """On confirm: whether the session changed under the dialog (then nothing is
        written and the user is told what changed)."""
        why = opened.changed(self.screen.store.picks_ns, self.model.caption)
        if why is None:
            return False
        self.screen.app.notify(why, title="Store", severity="warning", timeout=10)
        return True
