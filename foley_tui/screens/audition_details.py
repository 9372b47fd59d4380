"""The highlighted candidate: its details, its resolved source, its waveform, and the
prefetch that warms the player for the next key.

Resolving is local (stats only); a remote source is fetched in a worker when the network
is allowed. Waveform peaks and prefetching run in exclusive workers, so a new highlight
cancels the old work.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual import work
from textual.worker import get_current_worker

from foley_tui.audio.base import Source, Unplayable
from foley_tui.messages import PeaksReady, SourceResolved
from foley_tui.model import Pick, Reject
from foley_tui.screens.audition_base import AuditionBase
from foley_tui.widgets.details import Details
from foley_tui.widgets.waveform import Waveform


class CandidateDetails(AuditionBase):
    """Details pane, waveform strip and source resolution for the highlighted row."""

    def _schedule_details(self) -> None:
        """Show the details after the next frame: the list repaints first (and a held
        key's many moves collapse into one details load)."""
        if not self._details_pending:
            self._details_pending = True
            self.call_after_refresh(self._flush_details)

    def _flush_details(self) -> None:
        self._details_pending = False
        self._show_details()

    def _candidate(self, sound_id: str) -> dict[str, Any] | None:
        if sound_id in self._candidates:
            self._candidates.move_to_end(sound_id)
            return self._candidates[sound_id]
        candidate = self.store.candidate(sound_id)
        self._candidates[sound_id] = candidate
        if len(self._candidates) > 256:
            self._candidates.popitem(last=False)
        return candidate

    def _source(self, sound_id: str) -> Source | Unplayable:
        """Resolve locally (stats only; the network is tried in a worker when allowed)."""
        source = self._sources.get(sound_id)
        if source is None:
            candidate = self._candidate(sound_id)
            if candidate is None:
                row = self.listing.rows.get(sound_id)
                why = row.unreadable if row and row.unreadable else "candidate file missing"
                source = Unplayable(f"candidate unreadable: {why}")
            else:
                # Imported on first use: keeps it (and urllib) out of the first paint.
                from foley_tui.audio.resolve import resolve

                source = resolve(candidate, self.store.data_dir, allow_network=False)
            self._remember_source(sound_id, source)
        return source

    def _remember_source(self, sound_id: str, source: Source | Unplayable) -> None:
        self._sources[sound_id] = source
        if len(self._sources) > 1024:
            self._sources.popitem(last=False)
        if isinstance(source, Unplayable):
            self.candidate_list.unplayable.add(sound_id)
        else:
            self.candidate_list.unplayable.discard(sound_id)
        self.candidate_list.refresh_row(sound_id)

    def _show_details(self) -> None:
        details = self.query_one(Details)
        waveform = self.query_one(Waveform)
        sound_id = self.current_id
        if sound_id is None:
            details.show(None, None, None, None, None)
            waveform.clear("")
            return
        row = self.listing.rows.get(sound_id)
        candidate = self._candidate(sound_id)
        source = self._source(sound_id) if candidate is not None else None
        decisions = self.listing.decisions
        decision: Pick | Reject | None = decisions.picks.get(sound_id) or decisions.rejects.get(
            sound_id
        )
        details.show(sound_id, candidate, row, decision, source)
        self._schedule_prefetch()
        if self._peaks_for == sound_id:
            return
        self._peaks_for = sound_id
        if isinstance(source, Source):
            waveform.clear("waveform…")
            self._compute_peaks(sound_id, source)
        else:
            waveform.clear(f"⊘ {source.reason}" if source else "⊘ candidate unreadable")
            if self.settings.allow_network and candidate is not None:
                self._fetch_source(sound_id, candidate)

    @work(thread=True, group="fetch", exclusive=True, exit_on_error=False, name="fetch preview")
    def _fetch_source(self, sound_id: str, candidate: Mapping[str, Any]) -> None:
        from foley_tui.audio.resolve import resolve

        source = resolve(candidate, self.store.data_dir, allow_network=True)
        self.post_message(SourceResolved(sound_id, source))

    def on_source_resolved(self, message: SourceResolved) -> None:
        previous = self._sources.get(message.sound_id)
        self._remember_source(message.sound_id, message.source)
        # The prefetch worker resolves rows ahead of the cursor: re-show only on news.
        if message.sound_id == self.current_id and message.source != previous:
            self._peaks_for = None
            self._show_details()

    # -- prefetch: warm the player for the next key ---------------------------------
    def _schedule_prefetch(self) -> None:
        """Prefetch after the next frame, never inside a key handler: a decision shows the
        details synchronously, and starting a worker there would delay its autoplay."""
        if not self._prefetch_pending:
            self._prefetch_pending = True
            self.call_after_refresh(self._prefetch_around)

    def _prefetch_around(self) -> None:
        """Hand the highlighted candidate and the one auto-advance would move to next (the
        next undecided) to the prefetch worker, so either key's play() reads no file."""
        self._prefetch_pending = False
        sound_id = self.current_id
        if sound_id is None:
            return
        target = self.listing.next_undecided(self.candidate_list.cursor)
        next_id = self.listing.view[target] if target is not None else None
        if (sound_id, next_id) == self._prefetched:
            return
        self._prefetched = (sound_id, next_id)
        wanted: list[tuple[str, Source | None]] = []
        for wanted_id in (sound_id, next_id):
            if wanted_id is None:
                continue
            known = self._sources.get(wanted_id)
            if isinstance(known, Source):
                wanted.append((wanted_id, known))
            elif known is None:  # not resolved yet: the worker resolves it (stats only)
                wanted.append((wanted_id, None))
        if wanted:
            self._prefetch(wanted)

    @work(thread=True, group="prefetch", exclusive=True, exit_on_error=False, name="prefetch")
    def _prefetch(self, wanted: list[tuple[str, Source | None]]) -> None:
        worker = get_current_worker()
        for sound_id, source in wanted:
            if worker.is_cancelled:
                return
            if source is None:
                candidate = self.store.candidate(sound_id)
                if candidate is None:
                    continue
                from foley_tui.audio.resolve import resolve

                resolved = resolve(candidate, self.store.data_dir, allow_network=False)
                self.post_message(SourceResolved(sound_id, resolved))
                if not isinstance(resolved, Source):
                    continue
                source = resolved
            self.player.prefetch(source)

    # -- waveform -------------------------------------------------------------------
    @work(thread=True, group="peaks", exclusive=True, exit_on_error=False, name="waveform")
    def _compute_peaks(self, sound_id: str, source: Source) -> None:
        # numpy/soundfile load here, in the worker, not before the first paint.
        from foley_tui.audio.decode import DecodeError
        from foley_tui.audio.peaks import progressive_peaks

        worker = get_current_worker()
        width = max(self.query_one(Waveform).size.width, 40)
        try:
            for result in progressive_peaks(source, width):
                if worker.is_cancelled:
                    return
                self.post_message(
                    PeaksReady(sound_id, result.peaks, result.duration_s, result.exact)
                )
        except (DecodeError, OSError) as exc:
            self.post_message(PeaksReady(sound_id, (), 0.0, True, error=str(exc)))

    def on_peaks_ready(self, message: PeaksReady) -> None:
        if message.sound_id != self.current_id:
            return
        waveform = self.query_one(Waveform)
        if message.error:
            waveform.clear(f"⊘ {message.error}")
        else:
            waveform.set_peaks(message.peaks, message.duration_s)
