"""Transport: what the preview keys do beyond play and stop, for the audition screen.

A plain object the previewer composes: pause/resume at the same position (``;``), A/B
between the last two candidates heard at the same position (``b``), a click on the
waveform seeking there, the position readout of the status line, skip-silence (a preview
from the top starts at the first sound as the exact peaks measured it, cached; when they
have not been measured yet the play starts at 0 at once, never waiting for them, and
jumps ahead when they come, if it is still in the silence), and regions: a preview from
the top of a sound with a region starts at its in point and stops at its out point (or,
with loop on, starts the region again), as the pick will sound in the flat mix.
"""

from __future__ import annotations

from typing import Any, Protocol

from textual.message import Message

from foley_tui.audio.base import SCENE_HOW, Player, PlayerState, PlayerStatus, Source
from foley_tui.audition.model import AuditionModel
from foley_tui.screens.audition.reports import PlayheadMoved


class Previewer(Protocol):
    """What the transport needs of the previewer that composes it (named here so the
    transport does not import the previewer's module, which imports it)."""

    @property
    def model(self) -> AuditionModel: ...
    @property
    def playing_id(self) -> str | None: ...
    def play(self, sound_id: str, start_s: float = 0.0, *, exact: bool = False) -> None: ...
    def notify(self, message: str, *, timeout: float | None = None) -> Any: ...
    def post_message(self, message: Message) -> bool: ...


def clock(position_s: float, duration_s: float) -> str:
    """``0:01.250 / 0:03.000``: the playhead and the length, to the millisecond."""

    def one(seconds: float) -> str:
        millis = max(round(seconds * 1000), 0)
        minutes, millis = divmod(millis, 60_000)
        return f"{minutes}:{millis // 1000:02d}.{millis % 1000:03d}"

    return f"{one(position_s)} / {one(duration_s)}"


def in_preview(status: PlayerStatus) -> bool:
    """A candidate's preview is loaded (playing or paused), not a scene."""
    return (
        status.source is not None
        and status.source.how != SCENE_HOW
        and status.state is not PlayerState.STOPPED
    )


class Transport:
    """Pause, A/B, click-to-seek, the readout and skip-silence of one previewer."""

    def __init__(self, previewer: Previewer, player: Player) -> None:
        self.previewer = previewer
        self.player = player
        self.auditioned: list[str] = []
        """The last two sounds played (oldest first): what A/B switches between."""
        self._skip_pending: str | None = None
        """A sound playing from 0 whose first sound was not measured yet."""
        self._region: tuple[float, float] | None = None
        """The (in, out) of the region the preview plays now: it ends at the out point."""

    def start_of(self, sound_id: str, source: Source, start_s: float, *, exact: bool) -> float:
        """Where a play of ``sound_id`` from ``start_s`` begins: from the top (0, not
        ``exact``) with skip-silence on, at the first sound when it is known."""
        if sound_id in self.auditioned:
            self.auditioned.remove(sound_id)
        self.auditioned = [*self.auditioned, sound_id][-2:]
        self._skip_pending = None
        region = self.region_of(sound_id)
        if region is not None and start_s == 0.0 and not exact:
            start_s = region[0]
        self._region = region if region is not None and start_s < region[1] else None
        if start_s != 0.0 or exact or not self.previewer.model.view.skip_silence:
            return start_s
        from foley_tui.audio.peaks import cached_first_sound  # loaded by the peaks worker

        first = cached_first_sound(source)
        if first is None:
            self._skip_pending = sound_id  # never wait for the peaks: from 0 for now
            return 0.0
        return first

    def region_of(self, sound_id: str) -> tuple[float, float] | None:
        """The (in, out) of ``sound_id``'s region (an unset out point: its length, when
        known), or None."""
        marks = self.previewer.model.listing.marks.get(sound_id)
        if marks is None or not marks.has_region:
            return None
        out = marks.region_out
        if out is None:
            row = self.previewer.model.listing.rows.get(sound_id)
            out = row.duration_s if row is not None else None
        return None if out is None else (marks.region_in or 0.0, out)

    def tick(self, status: PlayerStatus) -> None:
        """The playhead moved: a preview of a region ends at its out point (starts it
        again when the preview loops)."""
        region = self._region
        if region is None or not in_preview(status) or status.position_s < region[1]:
            return
        if status.state is not PlayerState.PLAYING:
            return
        if self.previewer.model.view.loop:
            self.player.seek(region[0])
        else:
            self._region = None
            self.player.stop()

    def measured(self, sound_id: str, first_sound_s: float | None) -> None:
        """The exact peaks of ``sound_id`` came: a play of it still in the silence its
        skip-silence could not skip jumps to the first sound."""
        if first_sound_s is None or self._skip_pending != sound_id:
            return
        self._skip_pending = None
        status = self.player.status()
        playing = status.state is PlayerState.PLAYING and self.previewer.playing_id == sound_id
        if playing and status.position_s < first_sound_s:
            self.player.seek(first_sound_s)

    def ab(self) -> str | None:
        """Switch to the other of the last two sounds auditioned, at the same position
        (takes of one event compared at the same moment). Returns the sound now playing,
        or None when fewer than two were auditioned."""
        if len(self.auditioned) < 2:
            self.previewer.notify("A/B: audition two candidates first.", timeout=3)
            return None
        first, second = self.auditioned
        other = first if self.previewer.playing_id == second else second
        status = self.player.status()
        position = status.position_s if in_preview(status) else 0.0
        self.previewer.play(other, position, exact=position > 0)
        return other

    def toggle_pause(self, sound_id: str | None) -> None:
        """Pause what plays, resume what is paused (same position); when nothing does,
        play ``sound_id``."""
        status = self.player.status()
        if in_preview(status):
            self.player.toggle_pause()
        elif status.state is PlayerState.STOPPED and sound_id is not None:
            self.previewer.play(sound_id)

    def seek_to(self, sound_id: str | None, position_s: float) -> None:
        """A click on the waveform: the highlighted sound from there (seeking when it is
        the one playing or paused)."""
        if sound_id is None:
            return
        status = self.player.status()
        if self.previewer.playing_id == sound_id and in_preview(status):
            self._skip_pending = None
            region = self.region_of(sound_id)
            self._region = region if region is not None and position_s < region[1] else None
            self.player.seek(position_s)
            self.previewer.post_message(PlayheadMoved(position_s, status.duration_s))
        else:
            self.previewer.play(sound_id, position_s, exact=True)

    def playhead_of(self, sound_id: str) -> tuple[float | None, float | None]:
        """(position, length) of ``sound_id``'s preview when it is the one playing or
        paused, else (None, None)."""
        status = self.player.status()
        if self.previewer.playing_id == sound_id and in_preview(status):
            return status.position_s, status.duration_s or None
        return None, None

    def readout(self, position_s: float, duration_s: float) -> str:
        """What the status line shows: the clock while a preview plays or is paused."""
        return clock(position_s, duration_s) if in_preview(self.player.status()) else ""
