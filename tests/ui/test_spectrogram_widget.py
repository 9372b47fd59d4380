"""The spectrogram and waveform widgets alone: half-block colours, the playhead, the
dimmed skipped silence, and a click that asks to seek."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Offset

from foley_tui.widgets.spectrogram import HALF, Spectrogram, colour, stretch
from foley_tui.widgets.waveform import SeekRequested, Waveform


class Harness(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seeks: list[float] = []

    def compose(self) -> ComposeResult:
        yield Spectrogram(id="spec")
        yield Waveform(id="wave")

    def on_seek_requested(self, message: SeekRequested) -> None:
        self.seeks.append(message.position_s)


def test_stretch_puts_the_lowest_band_at_the_bottom() -> None:
    levels = [[0.0, 0.0], [1.0, 1.0]]  # band 0 silent, band 1 loud
    assert stretch(levels, 4, 4) == [[32] * 4, [32] * 4, [0] * 4, [0] * 4]
    assert stretch([], 2, 3) == [[0, 0, 0], [0, 0, 0]]


async def test_each_cell_is_two_bands_and_a_click_seeks() -> None:
    app = Harness()
    async with app.run_test(size=(40, 12)) as pilot:
        spec = app.query_one(Spectrogram)
        spec.clear("spectrogram…")
        await pilot.pause()
        assert "spectrogram…" in "".join(s.text for s in spec.render_line(3))
        # 16 bands (8 rows), 40 columns: loud in the top band only.
        levels = [[0.0] * 40 for _ in range(15)] + [[1.0] * 40]
        spec.set_levels(levels, 4.0)
        await pilot.pause()
        top = list(spec.render_line(0))
        assert "".join(s.text for s in top) == HALF * 40
        assert top[0].style is not None
        assert top[0].style.color == colour(32) and top[0].style.bgcolor == colour(0)
        spec.position_s, spec.playing = 2.0, True
        await pilot.pause()
        assert "".join(s.text for s in spec.render_line(5))[20] == "┃"

        await pilot.click(Spectrogram, offset=Offset(10, 2))
        await pilot.pause()
        assert app.seeks == [1.0]  # column 10 of 40 of a 4 s sound


async def test_the_waveform_dims_the_skipped_silence_and_seeks_on_click() -> None:
    app = Harness()
    async with app.run_test(size=(40, 12)) as pilot:
        wave = app.query_one(Waveform)
        await pilot.click(Waveform, offset=Offset(5, 0))
        assert app.seeks == []  # nothing shown: nothing to seek
        wave.set_peaks([(0.0, 0.0)] * 20 + [(-0.9, 0.9)] * 20, 2.0)
        wave.first_sound_s = 1.0
        await pilot.pause()
        segments = list(wave.render_line(0))
        skipped = wave.get_component_rich_style("waveform--skipped")
        rest = wave.get_component_rich_style("waveform--rest")
        assert segments[0].style is not None and segments[0].style.color == skipped.color
        assert segments[-1].style is not None and segments[-1].style.color == rest.color
        await pilot.click(Waveform, offset=Offset(30, 0))
        await pilot.pause()
        assert app.seeks == [1.5]
