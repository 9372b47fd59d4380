"""CandidateList: a virtual list that renders only the rows on screen.

Textual's ``DataTable``/``OptionList`` measure every row before the first paint (seconds at
100k rows); this widget uses the line API (``ScrollView.render_line``) so each frame costs
only the visible rows, whatever the session size. Line 0 is a fixed column header.

It holds no state of its own beyond the cursor: the screen hands it the listing (the view
in display order, the rows and the decisions), and it posts ``Highlighted`` when the
cursor moves. It owns the keys of what it owns, cursor movement (ids in
:mod:`foley_tui.keys.keymap`, remappable). Columns are measured in terminal cells, so wide
characters (CJK, emoji) and combining marks keep them aligned.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from foley_tui.audition.events import is_candidate, is_header, key_of
from foley_tui.audition.listing import Listing
from foley_tui.audition.text import column, fit, format_duration, format_score
from foley_tui.domain import Pick, Status, format_onset
from foley_tui.keys.bindings import bindings

if TYPE_CHECKING:
    from foley_tui.library.source import LibraryColumns

_PLAIN = Style()
"""A cell with no style of its own."""

GHOST = "no cached candidate: foley plan drops it"
"""The mark of a pick whose candidate is not cached (``c`` clears it)."""

SUGGESTED = "~"
"""Marks a placement half that is the event's suggestion (or plan's default), not the pick's."""

GLYPHS = {Status.PICKED: "✔", Status.REJECTED: "✘", Status.UNDECIDED: "·", Status.CONFLICT: "±"}
"""Row marks; ``±`` is a conflict (picked AND rejected, as foley can leave a sound)."""


CAPTION_ROOM = 72
"""Cells of caption before any spare width goes to the onset and source columns."""
ONSET_NEED = 24
"""What an onset column needs: ``~during 'the wind howls'`` (a longer anchor is cut)."""
SOURCE_NEED = 36
"""What a source/licence column needs: ``sonniss/LicenseRef-Sonniss-GDC-2024``."""


@dataclass(frozen=True, slots=True)
class Columns:
    """Column widths for a given list width (caption takes what is left)."""

    glyph: int
    caption: int
    duration: int
    layer: int
    onset: int
    source: int
    score: int

    @classmethod
    def for_width(cls, width: int) -> Columns:
        """Widths for a list ``width`` cells wide. Once the caption has
        :data:`CAPTION_ROOM` cells, the spare width goes first to the columns that are cut
        at their base widths (an anchor onset ``~at 'bell…'``, a source and licence
        ``sonniss/LicenseR…``), up to what they need, and only then to the caption."""
        glyph, duration, layer, onset, score = 3, 7, 9, 10, 6  # onset: -0:01.500
        source = 18 if width >= 90 else 12
        rest = width - (glyph + duration + layer + onset + source + score)
        if rest < 16:  # very narrow: drop source/licence before squeezing captions
            rest += source
            source = 0
        spare = rest - CAPTION_ROOM
        if spare > 0:
            more_onset = min(spare, ONSET_NEED - onset)
            more_source = min(spare - more_onset, SOURCE_NEED - source)
            onset += more_onset
            source += more_source
            rest -= more_onset + more_source
        return cls(glyph, max(rest, 4), duration, layer, onset, source, score)


@dataclass(frozen=True, slots=True)
class LibraryLayout:
    """Column widths of a library folder's list (what a librarian expects to see)."""

    glyph: int
    name: int
    folder: int
    description: int
    category: int
    library: int
    duration: int
    rate: int
    bits: int
    channels: int
    format: int

    @classmethod
    def for_width(cls, width: int) -> LibraryLayout:
        glyph, duration, rate, bits, channels, fmt = 3, 7, 6, 3, 3, 5
        category, library = (16, 14) if width >= 110 else (12, 0) if width >= 80 else (0, 0)
        rest = max(
            width - (glyph + duration + rate + bits + channels + fmt + category + library), 12
        )
        name = rest // 4
        folder = rest // 5
        return cls(
            glyph,
            name,
            folder,
            rest - name - folder,
            category,
            library,
            duration,
            rate,
            bits,
            channels,
            fmt,
        )


class CandidateList(ScrollView, can_focus=True, inherit_bindings=False):
    """The candidates of a session, one line each, with a cursor."""

    BINDINGS = bindings("candidate-list")

    COMPONENT_CLASSES = {
        "candidate-list--header",
        "candidate-list--cursor",
        "candidate-list--picked",
        "candidate-list--rejected",
        "candidate-list--undecided",
        "candidate-list--conflict",
        "candidate-list--event",
        "candidate-list--suggested",
        "candidate-list--pending",
        "candidate-list--unreadable",
    }

    DEFAULT_CSS = """
    CandidateList {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
    }
    CandidateList > .candidate-list--header { text-style: bold; background: $panel; }
    CandidateList > .candidate-list--cursor { background: $primary 40%; }
    CandidateList:focus > .candidate-list--cursor { background: $primary; color: $text; }
    CandidateList > .candidate-list--picked { color: $success; }
    CandidateList > .candidate-list--rejected { color: $error; }
    CandidateList > .candidate-list--undecided { color: $text-muted; }
    CandidateList > .candidate-list--conflict { color: $warning; text-style: bold; }
    CandidateList > .candidate-list--suggested { text-style: italic; }
    CandidateList > .candidate-list--event { background: $boost; color: $accent; text-style: bold; }
    CandidateList > .candidate-list--pending { color: $text-disabled; }
    CandidateList > .candidate-list--unreadable { color: $warning; }
    """

    cursor: reactive[int] = reactive(0, always_update=False, repaint=False)
    """Index in the view of the highlighted row."""

    class Highlighted(Message):
        """The cursor moved to ``sound_id`` (None when the view is empty)."""

        def __init__(
            self,
            candidate_list: CandidateList,
            sound_id: str | None,
            index: int = 0,
            by_user: bool = False,
        ) -> None:
            super().__init__()
            self.candidate_list = candidate_list
            self.sound_id = sound_id
            self.index = index
            """Its index in the view."""
            self.by_user = by_user
            """Moved by a key or a click (not by a refresh or a decision)."""

        @property
        def control(self) -> CandidateList:
            return self.candidate_list

    def __init__(self, listing: Listing, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.listing = listing
        self.unplayable: set[str] = set()
        """Ids known to have no playable audio (marked with ⊘)."""
        self.troubled: set[str] = set()
        """Ids whose audio the decoder had to mend (non-finite samples played as
        silence; marked with !)."""
        self._cache: dict[tuple[str, int, bool], Strip] = {}
        self._styles: dict[tuple[str | bool, ...], Style] = {}
        self._last_posted: str | None = None
        self.library: Callable[[str], LibraryColumns | None] | None = None
        """A library folder's columns by sound id: set, the list shows a librarian's
        columns (file name, folder, description, category, library, format) instead."""

    # -- data in -----------------------------------------------------------------------
    @property
    def highlighted(self) -> str | None:
        view = self.listing.view
        if 0 <= self.cursor < len(view) and is_candidate(view[self.cursor]):
            return view[self.cursor]
        return None

    def refresh_data(self, keep: str | None = None) -> None:
        """The view, rows or decisions changed: keep the cursor on ``keep`` if still shown
        (else at the same index, clamped), and repaint."""
        view = self.listing.view
        self._cache.clear()
        self._resize_virtual(len(view) + 1)
        index = self.cursor
        if keep is not None:
            with contextlib.suppress(ValueError):
                index = view.index(keep)
        self.move_to(index, force_post=True)
        # The new virtual size reaches the scrollbars at the next layout; until then a
        # scroll to a row beyond the old size is clamped (a saved cursor deep in a big
        # session would paint the top of the list): scroll again once it is in.
        self.call_after_refresh(self.scroll_to_cursor)
        self.refresh()

    def _resize_virtual(self, lines: int) -> None:
        """The view's length changed (a filter keystroke). Setting ``virtual_size`` lays
        the whole screen out; while the vertical scrollbar stays as it is (shown, or
        not) nothing outside the list changes size, so only the list's scroll range and
        the scrollbar's thumb are updated."""
        size = Size(self.scrollable_content_region.width, lines)
        old = self.virtual_size
        height = self.scrollable_content_region.height
        if (
            old.width != size.width
            or (old.height > height) != (lines > height)
            or not self.show_vertical_scrollbar
        ):
            self.virtual_size = size
            return
        self.set_reactive(CandidateList.virtual_size, size)
        bar = self.vertical_scrollbar
        bar.window_virtual_size = lines
        bar.refresh()
        # What a layout would do next: the offset into the (maybe shorter) new range.
        self.scroll_y = self.validate_scroll_y(self.scroll_y)

    def refresh_rows(self) -> None:
        """Row contents changed (columns filled in), not the view: repaint every line."""
        self._cache.clear()
        self.refresh()

    def refresh_row(self, sound_id: str) -> None:
        """One row's decision changed: drop its cached line (and the event headers', whose
        progress may have changed) and repaint."""
        for key in [k for k in self._cache if k[0] == sound_id or is_header(k[0])]:
            del self._cache[key]
        self.refresh()

    # -- cursor ------------------------------------------------------------------------
    def move_to(
        self, index: int, *, force_post: bool = False, by_user: bool = False, step: int = 1
    ) -> None:
        """Put the cursor on ``index``; an event header is not a candidate, so the cursor
        goes on in the ``step`` direction to the nearest candidate."""
        count = len(self.listing.view)
        index = max(0, min(index, count - 1)) if count else 0
        found = self.listing.candidate_at(index, step) if count else None
        index = found if found is not None else index
        old = self.cursor
        self.cursor = index
        top = round(self.scroll_offset.y)
        self.scroll_to_cursor()
        if old != index:
            if round(self.scroll_offset.y) != top:
                self.refresh()
            else:
                # Only the two rows whose cursor state changed (cached lines key on it).
                width = self.size.width
                for row in (old, index):
                    self.refresh(Region(0, row - top + 1, width, 1))
        sound_id = self.highlighted
        if force_post or sound_id != self._last_posted:
            self._last_posted = sound_id
            self.post_message(self.Highlighted(self, sound_id, self.cursor, by_user))

    def move_by(self, delta: int, *, by_user: bool = False) -> None:
        self.move_to(self.cursor + delta, by_user=by_user, step=-1 if delta < 0 else 1)

    def move_to_id(self, sound_id: str) -> None:
        """Put the cursor on ``sound_id`` when it is shown."""
        with contextlib.suppress(ValueError):
            self.move_to(self.listing.view.index(sound_id))

    # -- keys (ids in foley_tui.keys.keymap) --------------------------------------------------
    def action_move(self, delta: int) -> None:
        self.move_by(delta, by_user=True)

    def action_page(self, direction: int) -> None:
        self.move_by(direction * self.page, by_user=True)

    def action_first(self) -> None:
        self.move_to(0, by_user=True)

    def action_last(self) -> None:
        self.move_to(len(self.listing.view) - 1, by_user=True, step=-1)

    @property
    def page(self) -> int:
        return max(self.scrollable_content_region.height - 2, 1)

    def scroll_to_cursor(self) -> None:
        rows_visible = max(self.scrollable_content_region.height - 1, 1)
        top = round(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + rows_visible:
            self.scroll_to(y=self.cursor - rows_visible + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self._cache.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.listing.view) + 1)
        self.scroll_to_cursor()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.move_to(round(self.scroll_offset.y) + event.y - 1, by_user=True)

    # -- rendering ---------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        # The styles of a paint are looked up once for all its lines (each lookup walks
        # the DOM: a millisecond a line otherwise), and again at the next paint (focus
        # or a theme may have changed them).
        self._styles.clear()
        return super().render_lines(crop)

    def get_component_rich_style(
        self, *names: str, partial: bool = False, default: Style | None = None
    ) -> Style:
        if default is not None:
            return super().get_component_rich_style(*names, partial=partial, default=default)
        key: tuple[str | bool, ...] = (*names, partial)
        style = self._styles.get(key)
        if style is None:
            style = super().get_component_rich_style(*names, partial=partial)
            self._styles[key] = style
        return style

    @property
    def _base_style(self) -> Style:
        style = self._styles.get(())
        if style is None:
            style = self._styles[()] = self.rich_style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        columns = Columns.for_width(width)
        if y == 0:
            if self.library is not None:
                return self._library_header(LibraryLayout.for_width(width), width)
            return self._header(columns, width)
        index = round(self.scroll_offset.y) + y - 1
        view = self.listing.view
        if index >= len(view):
            return Strip.blank(width, self._base_style)
        sound_id = view[index]
        key = (sound_id, width, index == self.cursor)
        strip = self._cache.get(key)
        if strip is None:
            if is_candidate(sound_id):
                # A paged list reads the rows around this one in one go, not row by row.
                self.listing.page_in(index)
            if is_header(sound_id):
                strip = self._render_header(key_of(sound_id), width)
            elif not is_candidate(sound_id):  # a row of the first paint not fetched yet
                style = self.get_component_rich_style("candidate-list--pending")
                if index == self.cursor:
                    style += self.get_component_rich_style("candidate-list--cursor")
                strip = Strip([Segment(column("", 3) + "…", style)]).adjust_cell_length(
                    width, style
                )
            elif self.library is not None:
                strip = self._render_library_row(
                    sound_id, LibraryLayout.for_width(width), width, index == self.cursor
                )
            else:
                strip = self._render_row(sound_id, columns, width, index == self.cursor)
            if len(self._cache) > 2000:
                self._cache.clear()
            self._cache[key] = strip
        return strip

    def _header(self, c: Columns, width: int) -> Strip:
        text = (
            column("", c.glyph)
            + column("caption", c.caption)
            + column("dur", c.duration, right=True)
            + column("layer", c.layer)
            + column("onset", c.onset, right=True)
            + column("source/licence", c.source)
            + column("score", c.score, right=True)
        )
        style = self.get_component_rich_style("candidate-list--header")
        return Strip([Segment(text, style)]).adjust_cell_length(width, style)

    def _placement_cells(self, sound_id: str, pick: Pick | None) -> tuple[str, str, Style, Style]:
        """A pick's effective layer and onset (what ``foley plan`` will use): the pick's
        own as chosen, the event's (or plan's default) marked ``~`` as suggested."""
        if pick is None:
            return "", "", Style(), Style()
        placement = self.listing.placement(sound_id)
        if placement is None:  # the event is unknown: show the pick's own only
            return pick.layer or "-", format_onset(pick.onset), Style(), Style()
        suggested = self.get_component_rich_style("candidate-list--suggested", partial=True)
        layer = placement.layer if placement.layer_chosen else SUGGESTED + placement.layer
        # A chosen onset is the pick's own value (a number shows to the ms); plan's
        # string form of it (``str(onset)``) is the same instant.
        onset = format_onset(pick.onset if placement.onset_chosen else placement.onset)
        if not placement.onset_chosen:
            onset = SUGGESTED + onset
        return (
            layer,
            onset,
            Style() if placement.layer_chosen else suggested,
            Style() if placement.onset_chosen else suggested,
        )

    def _render_header(self, event_key: str, width: int) -> Strip:
        """A scene event: its query, the agent's suggested layer and onset, progress."""
        info = self.listing.event_info.get(event_key)
        picked, total = self.listing.progress(event_key)
        query = info.query if info else "(event)"
        layer = (info.layer if info else None) or "sfx_fg"
        onset = (
            format_onset(info.onset) if info and isinstance(info.onset, str | int | float) else "-"
        )
        done = "✔" if picked else "·"
        right = f" suggests {layer} at {onset} · {picked} of {total} picked "
        left = f"{done} {query}"
        room = max(width - cell_len(right), 0)
        text = fit(left, room) + right
        style = self.get_component_rich_style("candidate-list--event")
        return Strip([Segment(text, style)]).adjust_cell_length(width, style)

    def _audio_glyph(self, sound_id: str) -> str:
        """``⊘`` no playable audio, ``!`` audio the decoder mended, else a space."""
        if sound_id in self.unplayable:
            return "⊘"
        return "!" if sound_id in self.troubled else " "

    def _render_row(self, sound_id: str, c: Columns, width: int, is_cursor: bool) -> Strip:
        listing = self.listing
        row = listing.rows.get(sound_id)
        status = listing.decisions.status(sound_id)
        pick = listing.decisions.picks.get(sound_id)
        base = self._base_style
        status_style = self.get_component_rich_style(f"candidate-list--{status.value}")
        glyph = GLYPHS[status] + self._audio_glyph(sound_id)
        ghost = row is None and listing.rows and not listing.contains(sound_id)
        if ghost:
            caption = f"{sound_id} · {GHOST}"
            text_style = self.get_component_rich_style("candidate-list--unreadable")
        elif row is None or not row.complete:
            caption = sound_id
            text_style = self.get_component_rich_style("candidate-list--pending")
        elif row.unreadable:
            caption = f"! {sound_id}: {row.unreadable}"
            text_style = self.get_component_rich_style("candidate-list--unreadable")
        else:
            caption = row.caption or sound_id
            text_style = Style()
        marks = listing.marks.get(sound_id)
        if marks is not None:
            # Our marks lead the caption: the rating as stars, a hidden row (shown only
            # by the hidden filter) dimmed.
            if marks.rating:
                caption = f"{'★' * marks.rating} {caption}"
            if marks.hidden:
                caption = f"◌ {caption}"
                text_style = text_style + self.get_component_rich_style("candidate-list--pending")
        note = listing.note(sound_id)
        if note is not None:  # a decision of ours on its way, or not confirmed
            caption = f"({note}) {caption}"
        complete = row is not None and row.complete and not row.unreadable
        source = ""
        if complete and row is not None:
            source = "/".join(part for part in (row.source, row.license_id) if part)
        layer_cell, onset_cell, layer_style, onset_style = self._placement_cells(sound_id, pick)
        segments = [
            Segment(column(glyph, c.glyph), base + status_style),
            Segment(column(caption, c.caption), base + text_style),
            Segment(
                column(
                    format_duration(row.duration_s) if complete and row else "",
                    c.duration,
                    right=True,
                ),
                base,
            ),
            Segment(column(layer_cell, c.layer), base + status_style + layer_style),
            Segment(column(onset_cell, c.onset, right=True), base + status_style + onset_style),
            Segment(column(source, c.source), base),
            Segment(
                column(format_score(row.score) if complete and row else "", c.score, right=True),
                base,
            ),
        ]
        if is_cursor:
            # Post-apply so the cursor colours win over each cell's own style.
            cursor = self.get_component_rich_style("candidate-list--cursor")
            segments = [Segment(seg.text, (seg.style or base) + cursor) for seg in segments]
            base = base + cursor
        return Strip(segments).adjust_cell_length(width, base)

    # -- a library folder's columns ------------------------------------------------------
    def _library_header(self, c: LibraryLayout, width: int) -> Strip:
        text = (
            column("", c.glyph)
            + column("file", c.name)
            + column("folder", c.folder)
            + column("description", c.description)
            + column("category", c.category)
            + column("library", c.library)
            + column("dur", c.duration, right=True)
            + column("rate", c.rate, right=True)
            + column("bit", c.bits, right=True)
            + column("ch", c.channels, right=True)
            + column("fmt", c.format)
        )
        style = self.get_component_rich_style("candidate-list--header")
        return Strip([Segment(text, style)]).adjust_cell_length(width, style)

    def _render_library_row(
        self, sound_id: str, c: LibraryLayout, width: int, is_cursor: bool
    ) -> Strip:
        plain = _PLAIN
        listing = self.listing
        row = listing.rows.get(sound_id)
        status = listing.decisions.status(sound_id)
        base = self._base_style
        status_style = self.get_component_rich_style(f"candidate-list--{status.value}")
        glyph = GLYPHS[status] + self._audio_glyph(sound_id)
        assert self.library is not None
        lib = self.library(sound_id)
        complete = row is not None and row.complete and not row.unreadable
        text_style = plain
        if row is not None and row.unreadable:
            description = f"! {row.unreadable}"
            text_style = self.get_component_rich_style("candidate-list--unreadable")
        elif row is None or not row.complete:
            description = sound_id
            text_style = self.get_component_rich_style("candidate-list--pending")
        else:
            description = (lib.description if lib else "") or row.caption
        note = listing.note(sound_id)
        if note is not None:  # a decision of ours on its way, or not confirmed
            description = f"({note}) {description}"
        name = lib.name if lib else ""
        if lib is not None and lib.paths > 1:
            name = f"{name} (+{lib.paths - 1})"  # the same sound at other paths
        rate = ""
        if complete and row is not None and row.sample_rate:
            rate = f"{row.sample_rate / 1000:g}k"
        cells = [
            (column(glyph, c.glyph), status_style),
            (column(name, c.name), plain),
            (column(lib.folder if lib else "", c.folder), plain),
            (column(description, c.description), text_style),
            (column(lib.category if lib else "", c.category), plain),
            (column(lib.library if lib else "", c.library), plain),
            (
                column(
                    format_duration(row.duration_s) if complete and row else "",
                    c.duration,
                    right=True,
                ),
                plain,
            ),
            (column(rate, c.rate, right=True), plain),
            (column(str(lib.bit_depth or "") if lib else "", c.bits, right=True), plain),
            (
                column(str(row.channels or "") if complete and row else "", c.channels, right=True),
                plain,
            ),
            (column(row.format if complete and row else "", c.format), plain),
        ]
        if is_cursor:
            # Post-applied so the cursor colours win over each cell's own style.
            cursor = self.get_component_rich_style("candidate-list--cursor")
            cells = [(text, style + cursor) for text, style in cells]
            base = base + cursor
        # Neighbouring cells of one style are one segment: most cells have none of
        # their own, and every segment costs each later step of the paint.
        merged: list[tuple[str, Style]] = []
        for text, style in cells:
            if merged and merged[-1][1] == style:
                merged[-1] = (merged[-1][0] + text, style)
            else:
                merged.append((text, style))
        return Strip([Segment(text, base + style) for text, style in merged]).adjust_cell_length(
            width, base
        )
