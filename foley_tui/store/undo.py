"""Undo/redo of a session store: compare-and-swap over the journal's stacks.

An entry applies only while the sound is still as the entry left it
(:class:`UndoConflictError` otherwise; ``force`` applies anyway, ``skip`` steps past).
Headless: never imports textual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from foley_tui.store.decisions import DecisionsMixin
from foley_tui.store.errors import UndoConflictError
from foley_tui.store.records import JournalEntry, Verdicts

#: Undo/redo look at the stack again this many times when it moves under them.
_STEP_ATTEMPTS = 50


class UndoMixin(DecisionsMixin):
    """Undo, redo and skip over this store's decisions."""

    # ------------------------------------------------------------------ undo / redo
    def undo(self, *, force: bool = False) -> JournalEntry | None:
        """Restore the ``before`` state of the latest decision not yet undone, only while
        the sound is still in that decision's ``after`` state (compare-and-swap).

        Raises :class:`UndoConflictError` (nothing written) when the sound changed since,
        unless ``force``. Returns the entry undone, or None when there is nothing to undo.
        """
        return self._step("undo", force=force)

    def redo(self, *, force: bool = False) -> JournalEntry | None:
        """Re-apply the ``after`` state of the latest undone decision, only while the
        sound is still in its ``before`` state (compare-and-swap, as :meth:`undo`)."""
        return self._step("redo", force=force)

    def skip_undo(self) -> JournalEntry | None:
        """Step past the entry undo would revert, writing nothing but a ``skip`` record
        (so redo, the app and other processes agree). Returns the entry skipped."""
        return self._step("undo", skip=True)

    def skip_redo(self) -> JournalEntry | None:
        """Step past the entry redo would re-apply (see :meth:`skip_undo`)."""
        return self._step("redo", skip=True)

    def _step(self, kind: str, *, force: bool = False, skip: bool = False) -> JournalEntry | None:
        with self._locked():
            for _attempt in range(_STEP_ATTEMPTS):
                target = self._top(kind)
                if target is None:
                    return None
                try:
                    self._decide_group(
                        [
                            (sid, self._swap(kind, target, sid, old, new, force=force, skip=skip))
                            for sid, old, new in target.changes()
                        ],
                        kind="skip" if skip else kind,
                        target=target.seq,
                    )
                except UndoConflictError:
                    # On a store without a cross-process lock (Redis), another process
                    # of ours may have moved the stack meanwhile: look again.
                    if self._top(kind) is target:
                        raise
                    continue
                return target
            return None

    def _top(self, kind: str) -> JournalEntry | None:
        self._refresh_journal()
        with self._lock:
            return self._last(self._done if kind == "undo" else self._undone)

    @staticmethod
    def _swap(
        kind: str,
        target: JournalEntry,
        sid: str,
        before: dict[str, Any],
        after: dict[str, Any],
        *,
        force: bool,
        skip: bool,
    ) -> Callable[[Verdicts], Verdicts]:
        """The compare-and-swap of undo/redo for one sound of ``target``: its files must
        still be as the entry left them (undo) or found them (redo); a skip changes
        nothing."""
        expected, wanted = (after, before) if kind == "undo" else (before, after)

        def change(now: Verdicts) -> Verdicts:
            if skip:
                return now
            if not force and not now.matches(expected, sid):
                was = Verdicts.from_state(sid, expected).describe()
                raise UndoConflictError(
                    f"cannot {kind} {sid!r}: changed outside foley-tui: now "
                    f"{now.describe()} (it was {was}); nothing was changed "
                    f"(--force applies it anyway, --skip steps past it)",
                    entry=target,
                    now=now,
                )
            return Verdicts.from_state(sid, wanted)

        return change
