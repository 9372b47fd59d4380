"""Panes: the highlighted candidate's waveform, or its spectrogram (``w``), for the
audition screen's previewer.

A plain object the previewer composes: it starts the peaks and spectrogram workers for
the row the details show (each cached by the audio package, so stepping back is free) on
the previewer, takes their answers, moves both playheads and dims the silence
skip-silence skips. Its workers never touch a widget: they post :class:`PeaksReady` /
:class:`SpectrogramReady` to the previewer, which hands them back here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.worker import get_current_worker

from foley_tui.audio.base import Source
from foley_tui.audition.model import AuditionModel
from foley_tui.screens.audition.reports import PeaksReady, SpectrogramReady
from foley_tui.widgets.spectrogram import Spectrogram
from foley_tui.widgets.waveform import Waveform

if TYPE_CHECKING:
    from collections.abc import Callable


class Panes:
    """The waveform and spectrogram of one audition screen."""

    def __init__(self, host: Widget, model: AuditionModel, redraw: Callable[[], None]) -> None:
        """``host``: the widget the workers run on and post to (the previewer);
        ``redraw``: shows the highlighted row again (the spectrogram is computed for the
        pane's size once it is laid out)."""
        self.host = host
        self.model = model
        self.redraw = redraw
        self.peaks_for: str | None = None
        """The sound whose peaks were asked for (None: ask again)."""
        self._spectrum_for: str | None = None
        self._spectrum_source: Source | None = None
        self._waveform: Waveform | None = None
        self._spectrogram: Spectrogram | None = None

    # Composed once with the screen: asked once, and kept (a playhead message handled
    # while the screen is being taken down then finds its pane, not a query's error).
    @property
    def waveform(self) -> Waveform:
        if self._waveform is None:
            self._waveform = self.host.screen.query_one(Waveform)
        return self._waveform

    @property
    def spectrogram(self) -> Spectrogram:
        if self._spectrogram is None:
            self._spectrogram = self.host.screen.query_one(Spectrogram)
        return self._spectrogram

    def clear(self, message: str = "") -> None:
        """Nothing to draw (no row, reading, unplayable: ``message`` says which)."""
        self.waveform.clear(message)
        self.spectrogram.clear(message)
        self._spectrum_for = None

    def show(self, sound_id: str, source: Source) -> None:
        """Draw ``sound_id``: its peaks (and its spectrogram when shown) from workers."""
        self._show_spectrogram(sound_id, source)
        if self.peaks_for == sound_id:
            return
        self.peaks_for = sound_id
        waveform = self.waveform
        waveform.clear("waveform…")
        width = max(waveform.size.width, 40)
        self.host.run_worker(
            lambda: self._compute_peaks(sound_id, source, width),
            thread=True,
            group="peaks",
            exclusive=True,
            exit_on_error=False,
            name="waveform",
        )

    def unplayable(self, sound_id: str, message: str) -> None:
        self.peaks_for = sound_id
        self.clear(message)

    def playing(self, playing: bool) -> None:
        self.waveform.playing = self.spectrogram.playing = playing

    def playhead(self, position_s: float, duration_s: float) -> None:
        for pane in (self.waveform, self.spectrogram):
            pane.position_s = position_s
            if duration_s > 0:
                pane.duration_s = duration_s

    def skip_silence_changed(self, source: Source | None) -> None:
        """The waveform dims the skipped silence only while skip-silence is on."""
        first = None
        if self.model.view.skip_silence and source is not None:
            from foley_tui.audio.peaks import cached_first_sound

            first = cached_first_sound(source)
        self.waveform.first_sound_s = first or 0.0

    def sync(self) -> None:
        """Show the waveform or the spectrogram, as the view says (``w``)."""
        wanted = self.model.view.spectrogram
        self.waveform.display = not wanted
        self.spectrogram.display = wanted
        if wanted:
            self._spectrum_for = None
            # Computed for the pane's size once it is laid out.
            self.host.call_after_refresh(self.redraw)

    # -- workers and their answers -----------------------------------------------------
    def _compute_peaks(self, sound_id: str, source: Source, width: int) -> None:
        # numpy/soundfile load here, in the worker, not before the first paint.
        from foley_tui.audio.decode import DecodeError, nonfinite_note
        from foley_tui.audio.peaks import progressive_peaks

        worker = get_current_worker()
        post = self.host.post_message
        try:
            for result in progressive_peaks(source, width):
                if worker.is_cancelled:
                    return
                problem = None
                if result.nonfinite:
                    problem = nonfinite_note(source.path.name, result.nonfinite)
                post(
                    PeaksReady(
                        sound_id,
                        result.peaks,
                        result.duration_s,
                        result.exact,
                        first_sound_s=result.first_sound_s,
                        problem=problem,
                        nonfinite=result.nonfinite,
                    )
                )
        except (DecodeError, OSError) as exc:
            post(PeaksReady(sound_id, (), 0.0, True, error=str(exc)))

    def peaks_ready(self, message: PeaksReady) -> None:
        if message.sound_id != self.model.cursor:
            return
        waveform = self.waveform
        if message.error:
            waveform.clear(f"⊘ {message.error}")
            return
        waveform.set_peaks(message.peaks, message.duration_s)
        first = message.first_sound_s
        if first is not None:
            waveform.first_sound_s = first if self.model.view.skip_silence else 0.0

    def resized(self) -> None:
        """The spectrogram pane changed size: its sound's grid is computed again for
        the new size (the picture it has stays, stretched, until then)."""
        sound_id, source = self._spectrum_for, self._spectrum_source
        if sound_id is None or source is None or sound_id != self.model.cursor:
            return
        self._spectrum_for = None
        self._show_spectrogram(sound_id, source, keep=True)

    def _show_spectrogram(self, sound_id: str, source: Source, *, keep: bool = False) -> None:
        """Compute the sound's spectrogram for the pane's size in a worker (cached
        beside the peaks) when the pane shows it; ``keep``: the picture stays until the
        answer comes (a resize), else the pane says it is computing."""
        pane = self.spectrogram
        if not self.model.view.spectrogram or self._spectrum_for == sound_id:
            return
        self._spectrum_for, self._spectrum_source = sound_id, source
        if not keep:
            pane.clear("spectrogram…")
        columns, bands = pane.grid_wanted()
        post = self.host.post_message

        def work() -> None:
            from foley_tui.audio.decode import DecodeError
            from foley_tui.audio.spectrogram import cached_spectrogram

            try:
                result = cached_spectrogram(source, columns, bands)
            except (DecodeError, OSError) as exc:
                post(SpectrogramReady(sound_id, (), 0.0, error=str(exc)))
                return
            post(SpectrogramReady(sound_id, result.levels, result.duration_s))

        self.host.run_worker(
            work,
            thread=True,
            group="spectrogram",
            exclusive=True,
            exit_on_error=False,
            name="spectrogram",
        )

    def spectrogram_ready(self, message: SpectrogramReady, position_s: float | None) -> None:
        """``position_s``: the playhead, when this sound is the one playing."""
        if message.sound_id != self.model.cursor:
            return
        pane = self.spectrogram
        if message.error:
            pane.clear(f"⊘ {message.error}")
            return
        pane.set_levels(message.levels, message.duration_s)
        if position_s is not None:
            pane.position_s = position_s
