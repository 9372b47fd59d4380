"""Text measured in terminal cells: wide characters, emoji and combining marks."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from foley_tui.audition.text import column, cut, fit

SAMPLES = [
    "rain on a tin roof",
    "ドアがバタンと閉まる音、重い木の扉",  # CJK: two cells each
    "🚪💥 door slam 🔊🔊🔊",  # emoji
    "café crème, résumé",  # precomposed
    "cafe\u0301 cre\u0300me, re\u0301sume\u0301",  # combining marks: zero width
    "line\nbreak\ttab",  # control characters
]


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("width", [1, 2, 5, 12, 40])
def test_fit_is_exactly_the_width_in_cells(text: str, width: int) -> None:
    fitted = fit(text, width)
    assert cell_len(fitted) == width
    assert cell_len(fit(text, width, right=True)) == width
    if cell_len(text) > width:
        assert fitted.endswith("…") or fitted.endswith("… ")


@pytest.mark.parametrize("text", SAMPLES)
def test_a_column_keeps_one_separating_space(text: str) -> None:
    cell = column(text, 12)
    assert cell_len(cell) == 12 and cell.endswith(" ")
    assert column(text, 0) == ""


def test_cut_never_pads_and_keeps_short_text() -> None:
    assert cut("short", 10) == "short"
    assert cell_len(cut("ドアがバタンと閉まる音", 9)) <= 9
    assert cut("ドアがバタンと閉まる音", 9).endswith("…")
