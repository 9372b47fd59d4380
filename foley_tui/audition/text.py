"""Text for table-like views, measured in terminal cells.

A CJK character or an emoji takes two cells and a combining mark none, so text is cut and
padded with :func:`rich.cells.cell_len` / :func:`rich.cells.set_cell_size`, never with
``len()``. Headless (rich only, no textual).
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def fit(text: str, width: int, *, right: bool = False) -> str:
    """``text`` in exactly ``width`` cells: cut with an ellipsis when too wide, padded
    with spaces (on the left when ``right``) when too narrow."""
    if width <= 0:
        return ""
    # Control characters (a newline in a caption) would break the row: show them as spaces.
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else " " for ch in text)
    size = cell_len(text)
    if size > width:
        # set_cell_size pads with a space when a wide character straddles the cut.
        return set_cell_size(text, width - 1) + "…"
    pad = " " * (width - size)
    return pad + text if right else text + pad


def cut(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` cells (with an ellipsis), never padded."""
    return fit(text, width) if cell_len(text) > width else text


def column(text: str, width: int, *, right: bool = False) -> str:
    """A column of ``width`` cells: ``text`` fitted to ``width - 1`` plus one separating
    space (an empty string for a hidden column)."""
    if width <= 0:
        return ""
    return fit(text, width - 1, right=right) + " " if width > 1 else " "


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}:{secs:02d}"


def format_score(score: float | None) -> str:
    """Fixed decimals, at most five characters, so a column of scores lines up and compares
    at a glance (rrf scores differ in the third decimal)."""
    if score is None:
        return "-"
    if abs(score) < 10:
        return f"{score:.3f}"
    return f"{score:.1f}" if abs(score) < 1000 else f"{score:.0f}"
