"""DecisionDialogs: the audition screen's decisions that ask first (a plain object the
screen composes, like its loader and previewer).

Picking that drops a scene event's other picks (``one_pick_per_event``), a reject with a
reason, the onset dialog, a nudge that would replace an anchor onset, and skipping an
undo/redo entry the store refused: each opens a modal and, when the user confirms, runs
the model intent through the screen (so the change is applied in one place). The modals
are imported when first opened: starting the app does not need them.

A dialog opens at once and reads nothing on the UI thread: what its confirm is checked
against (the records as it opened, which of the sounds foley's agent picked, the
narration's words) is read by the decision writer's worker behind the decisions asked
before it, and the check on confirm runs there too; a stalled store leaves the dialog
and every key working.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from foley_tui.audition.change import Change
from foley_tui.audition.model import AuditionModel
from foley_tui.audition.stale import Baseline
from foley_tui.screens.audition.links import AppLinks
from foley_tui.screens.audition.writer import Read
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

        def message(note: str) -> str:
            return (
                f"one_pick_per_event: picking {model.caption(sound_id)} drops the scene "
                f"event's other pick{'s' if len(rivals) > 1 else ''}:\n{names}{note}\n"
                "All or nothing, one undo."
            )

        opened = self._opened([sound_id, *rivals])

        def done(yes: bool | None) -> None:
            if yes:
                self._confirm(opened, lambda: model.pick_dropping(sound_id, rivals))

        dialog = ConfirmModal(
            "Pick and drop the others?",
            message("\n(reading which of them foley's agent picked…)"),
            yes_label="Pick and drop",
        )

        def agents(outcome: object) -> None:
            if isinstance(outcome, BaseException):
                dialog.set_message(message(f"\n(foley's agent's picks not read: {outcome})"))
                return
            found = outcome if isinstance(outcome, list) else []
            note = ""
            if found:
                which = ", ".join(model.caption(sid) for sid in found)
                note = f"\n{len(found)} of them foley's agent picked (not in our journal): {which}."
            dialog.set_message(message(note))

        self.screen.writer.read(Read(lambda: model.agents_picks(rivals), agents))
        self.screen.app.push_screen(dialog, done)

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
                self._confirm(opened, lambda: self.model.set_onset(sound_id, choice.onset))

        caption = self.model.caption(sound_id)
        placement = self.model.listing.placement(sound_id)
        layer = placement.layer if placement else (pick.layer if pick else None) or "sfx_fg"
        loop = placement.loop if placement else False
        onset = pick.onset if pick else None
        dialog = OnsetScreen(caption, onset, layer=layer, loop=loop, words=self._words_now())
        if self.screen.links.narration is None:  # the session's, read by the worker
            self.screen.writer.read(Read(self._session_words, dialog.set_words))
        self.screen.app.push_screen(dialog, done)

    def _words_now(self) -> list[dict[str, Any]]:
        """This run's narration's word timeline (``open --narration``), without reading
        the store; none when the run has none."""
        narration = self.screen.links.narration
        return list(narration.words) if narration is not None else []

    def _session_words(self) -> list[dict[str, Any]]:
        """(Worker.) The session's narration's word timeline, none when it has none."""
        from foley_tui.scene.narration import NarrationError, read_narration

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
        words = self._words_now()
        pending = self.screen.links.narration is None  # the session's words: read first

        def message() -> str:
            if pending:
                return (
                    f"The onset is the anchor {anchor!r}, which foley resolves against the "
                    "narration's words (reading them…)."
                )
            target = self.model.nudged_to(sound_id, delta, words)
            return (
                f"The onset is the anchor {anchor!r}, which foley resolves against the "
                f"narration's words. A nudge replaces it with {clock(target)} ({target:g} s, "
                "a number of seconds: it no longer follows the words)."
            )

        dialog = ConfirmModal("Replace the anchor with a number?", message(), yes_label="Replace")
        if pending:

            def read(outcome: object) -> None:
                nonlocal pending, words
                pending = False
                words = outcome if isinstance(outcome, list) else []
                dialog.set_message(message())

            self.screen.writer.read(Read(self._session_words, read))
        opened = self._opened([sound_id])

        def done(replace: bool | None) -> None:
            if not replace:
                return
            if pending:  # the user never saw the number the nudge would write
                self.screen.app.notify(
                    "Not saved: the narration's words were not read yet.",
                    title="Store",
                    severity="warning",
                )
                return
            self._confirm(
                opened,
                lambda: self.model.nudge(
                    delta, replace_anchor=True, words=words, sound_id=sound_id
                ),
            )

        self.screen.app.push_screen(dialog, done)

    def _opened(self, sound_ids: list[str]) -> Baseline:
        """The pick records a dialog's confirm would write over, read by the writer's
        worker behind the decisions of ours still being written (a key pressed just
        before the dialog opened is ours, not a change under it)."""
        picks = self.screen.store.picks_ns
        baseline = Baseline({sid: self.model.caption(sid) for sid in sound_ids})
        self.screen.writer.read(Read(lambda: baseline.read(picks, sound_ids)))
        return baseline

    def _confirm(self, baseline: Baseline, intent: Callable[[], Change]) -> None:
        """Run a dialog's confirm (``intent``) unless the session changed under the
        dialog: the writer's worker checks it before the job's store calls, once our
        decisions asked before have landed (then nothing is written and the row's error
        says what changed). The row says "saving…" from the confirm on."""
        picks = self.screen.store.picks_ns
        self.screen.run_intent(lambda: self.model.checked(lambda: baseline.check(picks), intent))
