"""StatusLine: session title, decision counts, cost of the picks, audio device, view."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static


@dataclass(frozen=True, slots=True)
class StatusInfo:
    """What the status line shows (built by the screen from its state)."""

    title: str
    picked: int
    rejected: int
    undecided: int
    total: int
    cost_usd: float
    device: str
    audio_ok: bool
    loading: str = ""
    """Progress while columns fill in, e.g. ``columns 4,000/100,000``."""
    view: str = ""
    """Active filter/sort/toggles, e.g. ``filter "rain" · sort caption · autoplay``."""


def render_status(info: StatusInfo) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f" {info.title} ", style="bold reverse")
    text.append(" ")
    text.append(f"✔ {info.picked}", style="green")
    text.append("  ")
    text.append(f"✘ {info.rejected}", style="red")
    text.append("  ")
    text.append(f"· {info.undecided}", style="dim")
    text.append(f" of {info.total}")
    if info.loading:  # before the rest: it must show even when the line is cut off
        text.append(f"  ⧗ {info.loading}", style="italic")
    text.append(f"  ${info.cost_usd:.2f}")
    text.append("  ")
    if info.audio_ok:
        text.append(f"♪ {info.device}")
    else:
        text.append(info.device, style="bold yellow")
    if info.view:
        text.append(f"  {info.view}", style="cyan")
    return text


class StatusLine(Static):
    """One line above the footer."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; }
    """

    def show(self, info: StatusInfo) -> None:
        self.update(render_status(info), layout=False)
