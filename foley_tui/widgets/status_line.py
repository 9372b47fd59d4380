"""StatusLine: session title, decision counts, the shared store's reachability, cost of
the picks, audio device, view."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from foley_tui.audio.devices import NO_OUTPUT_DEVICE
from foley_tui.audition.text import cut

if TYPE_CHECKING:
    from foley_tui.audio.base import Player
    from foley_tui.audition.model import AuditionModel


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
    conflicts: int = 0
    ghosts: int = 0
    """Picks with no cached candidate (not in ``picked``, which counts candidates)."""
    """Sounds both picked and rejected (foley can leave both); counted in both."""
    loading: str = ""
    """Progress while columns fill in, e.g. ``columns 4,000/100,000``."""
    view: str = ""
    """Active filter/sort/toggles, e.g. ``filter "rain" · sort caption · autoplay``."""
    spent_usd: float = 0.0
    """What the agent actually spent on this session (its usage ledger)."""
    store_down: str = ""
    """The shared store is unreachable, e.g. ``Redis down``: decisions are refused until
    it answers again (cleared then). Shown right after the counts, never cut off."""
    clock: str = ""
    """The preview's position and length (``0:01.250 / 0:03.000``) while it plays or is
    paused; right after the title."""
    underruns: int = 0
    """Times the output fell behind (a hole of silence each) since the device opened;
    shown beside the device when there were any."""
    output_note: str = ""
    """What the player changed about the output because of them (a larger latency)."""


TITLE_CELLS = 24
DEVICE_CELLS = 24
MIN_TITLE_CELLS = 6


def render_status(info: StatusInfo, width: int | None = None) -> Text:
    """The line, most important first: the counts, the loading state and the view
    toggles (filter, loop, volume, loudness match) come before the cost and the audio
    device, which are cut at the right edge when the line is too narrow. To keep the
    toggles on a narrow line (``width``), the title shrinks first, then the counts and
    toggles go compact. A missing device is named in a few cells (its reason is in the
    notification shown once per run)."""
    line = _line(info, TITLE_CELLS, compact=False)
    if width is None or line.cell_len <= width:
        return line
    room = width - _line(info, 0, compact=False).cell_len - 3
    if room >= MIN_TITLE_CELLS:
        return _line(info, min(room, TITLE_CELLS), compact=False)
    room = width - _line(info, 0, compact=True).cell_len - 3
    return _line(info, min(max(room, 0), TITLE_CELLS), compact=True)


def _line(info: StatusInfo, title_cells: int, *, compact: bool) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    if title_cells > 0:
        text.append(f" {cut(info.title, title_cells)} ", style="bold reverse")
        text.append(" ")
    gap = " " if compact else "  "
    sep = "" if compact else " "
    if info.clock:
        text.append(f"▶ {info.clock}", style="bold")
        text.append(gap)
    text.append(f"✔{sep}{info.picked}", style="green")
    text.append(gap)
    text.append(f"✘{sep}{info.rejected}", style="red")
    text.append(gap)
    text.append(f"·{sep}{info.undecided}", style="dim")
    text.append(f"/{info.total}" if compact else f" of {info.total}")
    if info.conflicts:
        text.append(f"{gap}±{sep}{info.conflicts}", style="bold yellow")
    if info.ghosts:
        text.append(f"{gap}+{info.ghosts} uncached pick{'s' if info.ghosts != 1 else ''}")
    if info.store_down:  # before the rest: a refused decision must be explained
        down = "⚠ down" if compact else f"⚠ {info.store_down}"
        text.append(f"{gap}{down}", style="bold white on red")
    if info.loading:  # before the rest: it must show even when the line is cut off
        text.append(f"{gap}⧗ {info.loading}", style="italic")
    if info.view:
        view = info.view.replace(" · ", " ") if compact else info.view
        text.append(f"{gap}{view}", style="cyan")
    text.append(f"{gap}${info.cost_usd:.2f}")
    if info.spent_usd:
        text.append(
            f"{gap}spent ${info.spent_usd:.2f}" if not compact else f" +${info.spent_usd:.2f}"
        )
    text.append(gap)
    if info.audio_ok:
        text.append(f"♪ {cut(info.device, DEVICE_CELLS)}")
    elif info.device.startswith(NO_OUTPUT_DEVICE):
        text.append(f"⊘ {NO_OUTPUT_DEVICE}", style="bold yellow")
    else:
        text.append("⊘ no audio", style="bold yellow")
    if info.underruns:
        plural = "s" if info.underruns != 1 else ""
        note = f" ({info.output_note})" if info.output_note and not compact else ""
        text.append(f"{gap}⚠ {info.underruns} underrun{plural}{note}", style="yellow")
    return text


def status_info(
    model: AuditionModel, player: Player, spent_usd: float, store_down: str
) -> StatusInfo:
    """What the audition screen's status line shows: the session's counts and cost, the
    loading state, the view toggles, the output device, the agent's spend and an
    unreachable store."""
    picked, rejected, undecided, total = model.listing.counts()
    available = player.available
    if player.starting:
        device, available = "audio starting…", True
    elif available:
        device = player.device_name
    else:
        device = player.unavailable_reason or "no output device"
    return StatusInfo(
        title=model.title,
        picked=picked,
        rejected=rejected,
        undecided=undecided,
        total=total,
        conflicts=model.listing.conflicts(),
        ghosts=len(model.listing.ghosts()),
        cost_usd=model.listing.picks_cost(),
        device=device,
        audio_ok=available,
        loading=model.loading,
        view=" · ".join(model.toggles()),
        spent_usd=spent_usd,
        store_down=store_down,
    )


class StatusLine(Static):
    """One line above the footer."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; }
    """

    _info: StatusInfo | None = None
    _clock = ""
    _output: tuple[int, str] = (0, "")

    def show(self, info: StatusInfo) -> None:
        if info.clock != self._clock:
            info = replace(info, clock=self._clock)
        if (info.underruns, info.output_note) != self._output:
            info = replace(info, underruns=self._output[0], output_note=self._output[1])
        self._info = info
        self.update(render_status(info, self.size.width or None), layout=False)

    def set_output(self, underruns: int, note: str | None) -> None:
        """The player's underrun count and what it did about them (read with its
        status): only the line is redrawn, and only when they change."""
        output = (underruns, note or "")
        if output == self._output:
            return
        self._output = output
        if self._info is not None:
            self.show(self._info)

    def set_clock(self, clock: str) -> None:
        """The playhead readout, at the playhead's rate: only the line is redrawn."""
        if clock == self._clock:
            return
        self._clock = clock
        if self._info is not None:
            self.show(self._info)

    @property
    def clock(self) -> str:
        return self._clock

    def on_resize(self) -> None:
        if self._info is not None:
            self.show(self._info)
