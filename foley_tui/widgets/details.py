"""Details: everything about the highlighted candidate, loaded on demand.

The full candidate dict is read only for the highlighted row (never for the whole list),
then shown with its decision and where its audio is (or why it cannot be played).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from foley_tui.audio.base import Source, Unplayable
from foley_tui.audition.text import format_duration
from foley_tui.domain import Candidate, Pick, Reject, Row, format_onset
from foley_tui.scene.placement import DEFAULT_LAYER, effective_placement
from foley_tui.terminal import escape_line

if TYPE_CHECKING:
    from foley_tui.marks import Marks


class Message(Protocol):
    """What the pane shows of a message of the session's conversation attached to the
    candidate (the store's ``Message`` has these and more)."""

    @property
    def author(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str: ...


if TYPE_CHECKING:
    from foley_tui.library.source import SoundDetails

#: Messages attached to a candidate shown in its details (the latest ones).
MAX_MESSAGES = 5
ROLE_STYLE = {"user": "bold cyan", "agent": "bold magenta", "system": "bold yellow"}


def _flag(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return "?"


def _fmt_score(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return f"{value:.4g}"


class Details(Static):
    """The details pane."""

    DEFAULT_CSS = """
    Details { padding: 0 1; }
    """

    content: RenderableType = ""
    """What the pane shows now (kept for tests and exports)."""

    _shown: tuple[object, ...] | None = None
    """What :meth:`show` was last given (None: something else was shown since)."""

    def show(
        self,
        sound_id: str | None,
        candidate: Mapping[str, Any] | None,
        row: Row | None,
        decision: Pick | Reject | None,
        source: Source | Unplayable | None,
        reject: Reject | None = None,
        messages: Sequence[Message] = (),
        library: SoundDetails | None = None,
        problems: Sequence[str] = (),
        marks: Marks | None = None,
    ) -> None:
        """``decision`` is the pick (else the reject); ``reject`` the reject of a pick that
        is also rejected (a conflict foley left); ``messages`` those attached to it;
        ``library`` what a library folder knows of the sound (paths, embedded fields);
        ``problems`` what the decoder found wrong in its audio; ``marks`` our rating,
        hidden flag and region. Shown again with the same inputs (a filter keystroke that
        keeps the highlighted sound), the pane is left as it is: a new content would be
        measured and the screen laid out again."""
        shown = (
            sound_id,
            candidate,
            row,
            decision,
            source,
            reject,
            tuple(messages),
            library,
            tuple(problems),
            marks,
        )
        if shown == self._shown:
            return
        self._shown = shown
        self.content = render_details(
            sound_id, candidate, row, decision, source, reject, messages, library, problems
        )
        if marks is not None and not marks.empty:
            line = Text.assemble(("marks  ", "bold"), marks.describe())
            self.content = Group(self.content, line)
        self.update(self.content)

    def show_reading(self, sound_id: str, row: Row | None) -> None:
        """The moment a worker reads the candidate file: what the list knows."""
        self._shown = None
        caption = row.caption if row is not None else ""
        self.content = Text.assemble(
            (f"{sound_id}\n", "bold"), (f"{caption}\n" if caption else "", ""), ("reading…", "dim")
        )
        self.update(self.content)


def _event_text(event: Mapping[str, Any]) -> str:
    """The scene event's suggestion: layer, onset, diegetic, salience, loop."""
    onset = event.get("onset")
    bits = [
        f"layer {event.get('layer') or DEFAULT_LAYER}",
        f"onset {format_onset(onset) if isinstance(onset, str | int | float) else '-'}",
    ]
    if "diegetic" in event:
        bits.append(f"diegetic {_flag(event.get('diegetic'))}")
    salience = _fmt_score(event.get("salience"))
    if salience is not None:
        bits.append(f"salience {salience}")
    bits.append(f"loop {_flag(bool(event.get('loop', False)))}")
    return " · ".join(bits)


def placement_text(candidate: Mapping[str, Any], pick: Pick) -> str:
    """What ``foley plan`` will place for ``pick``: each half chosen (the pick's own) or
    suggested (the event's, else plan's default ``sfx_fg``)."""
    placement = effective_placement(candidate, {"layer": pick.layer, "onset": pick.onset})
    layer_how = "chosen" if placement.layer_chosen else "suggested"
    if placement.onset is None:
        onset = "onset - (no cue)"
    else:
        onset_how = "chosen" if placement.onset_chosen else "suggested"
        shown = format_onset(pick.onset if placement.onset_chosen else placement.onset)
        onset = f"onset {shown} ({onset_how})"
    text = f"plan uses layer {placement.layer} ({layer_how}) · {onset}"
    if placement.error:
        text += f" · {placement.error}"
    return text


def render_details(
    sound_id: str | None,
    candidate: Mapping[str, Any] | None,
    row: Row | None,
    decision: Pick | Reject | None,
    source: Source | Unplayable | None,
    reject: Reject | None = None,
    messages: Sequence[Message] = (),
    library: SoundDetails | None = None,
    problems: Sequence[str] = (),
) -> RenderableType:
    """The pane's content (a function so it is testable without a running app).
    ``messages`` are the conversation's messages attached to this candidate; ``library``
    the folder's paths and embedded fields of a library sound."""
    if sound_id is None:
        return Text("No candidate selected.", style="dim")
    if candidate is None and row is None and isinstance(decision, Pick):
        return Text.assemble(
            (f"{sound_id}\n", "bold"),
            (
                "picked, but no cached candidate: foley plan drops it (c clears the pick)",
                "bold yellow",
            ),
        )
    if candidate is None:
        reason = row.unreadable if row and row.unreadable else "candidate file missing"
        return Text.assemble((f"{sound_id}\n", "bold"), (f"unreadable: {reason}", "bold yellow"))
    cand = Candidate(candidate)
    # A two-column grid so long values wrap under themselves, not under the labels.
    table = Table.grid(padding=(0, 1))
    table.add_column(style="dim", no_wrap=True)
    table.add_column(ratio=1)

    labels: list[str] = []

    def field(label: str, value: str, style: str = "") -> None:
        labels.append(label)
        table.add_row(label, Text(value, style=style))

    if library is not None:
        _library_head(library, field)
    else:
        _file_head(cand, field)
    if cand.tags:
        field("tags", ", ".join(cand.tags))
    bits = [format_duration(cand.duration_s)]
    if cand.sample_rate:
        bits.append(f"{cand.sample_rate} Hz")
    if cand.bit_depth and library is None:  # a folder's sound says it in its file format
        bits.append(f"{cand.bit_depth}-bit")
    if cand.channels:
        bits.append(f"{cand.channels} ch")
    if cand.format:
        bits.append(cand.format)
    field("sound", " · ".join(bits))
    if cand.origin:
        field("origin", cand.origin)
    lic = cand.license
    field("licence", cand.license_id or "unknown")
    if cand.source:
        field("source", cand.source + (f" #{lic.get('source_id')}" if lic.get("source_id") else ""))
    field("commercial", _flag(lic.get("commercial_ok")))
    field("attribution", _flag(lic.get("requires_attribution")))
    field("AI-made", _flag(lic.get("is_ai_generated")))
    if lic.get("creator_name"):
        field("creator", str(lic["creator_name"]))
    scores = []
    for key, label in (
        ("rerank_score", "rerank"),
        ("rrf_score", "rrf"),
        ("clap_score", "clap"),
        ("bm25_score", "bm25"),
    ):
        value = _fmt_score(candidate.get(key))
        if value is not None:
            scores.append(f"{label} {value}")
    field("scores", " · ".join(scores) if scores else "-")
    if cand.cost_usd is not None:
        field("cost", f"${cand.cost_usd:.2f}")
    verdict = cand.verdict
    if verdict:
        match = verdict.get("match")
        conf = _fmt_score(verdict.get("confidence"))
        parts = [f"match {_flag(match)}"]
        if conf:
            parts.append(f"confidence {conf}")
        if verdict.get("reason"):
            parts.append(str(verdict["reason"]))
        field("verdict", " · ".join(parts))
    for note in cand.notes:
        field("note", note, "italic")
    event = candidate.get("event")
    if isinstance(event, Mapping):
        field("event", str(event.get("query") or "(no query)"), "bold")
        field("suggests", _event_text(event))
    table.add_row("", "")
    if isinstance(decision, Pick) and reject is not None:
        field(
            "decision",
            "conflict: picked AND rejected (p keeps the pick, x the reject)",
            "bold yellow",
        )
        field("pick", placement_text(candidate, decision), "green")
        field("reject", reject.reason or "(no reason)", "red")
    elif isinstance(decision, Pick):
        field("decision", "picked · " + placement_text(candidate, decision), "bold green")
    elif isinstance(decision, Reject):
        reason = f": {decision.reason}" if decision.reason else ""
        field("decision", f"rejected{reason}", "bold red")
    else:
        field("decision", "undecided", "dim")
    if isinstance(source, Source):
        field("audio", f"{source.format.value} · {source.how} · {source.path.name}")
    elif isinstance(source, Unplayable):
        field("audio", f"⊘ unplayable: {source.reason}", "bold yellow")
    for problem in problems:
        field("problem", problem, "bold yellow")
    if messages:
        table.add_row("", "")
    for message in messages[-MAX_MESSAGES:]:
        lines = [escape_line(line) for line in message.content.split("\n")]
        table.add_row(
            "message",
            Text.assemble(
                (f"{escape_line(message.author)}: ", ROLE_STYLE.get(message.role, "bold")),
                "\n".join(lines),
            ),
        )
    if len(messages) > MAX_MESSAGES:
        field("", f"… {len(messages) - MAX_MESSAGES} earlier (m: the conversation)", "dim")
    if library is not None and library.fields:
        table.add_row("", "")
        field("embedded", f"{len(library.fields)} fields", "dim")
        for key, value in library.fields.items():
            field(key, value)
    label_width = max(map(cell_len, labels), default=0)
    return Group(
        Text(cand.caption or sound_id, style="bold"),
        Text(""),
        IdLine(sound_id, label_width),
        table,
    )


class IdLine:
    """The ``id`` line, whole: under the other labels' column when the id fits beside
    it, else right after ``id`` (the whole width of the pane), folded only when the id is
    longer than that. In the grid a long id would be cut at the value column's edge."""

    def __init__(self, sound_id: str, label_width: int) -> None:
        self.sound_id = sound_id
        self.label_width = label_width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(self.label_width, 2)
        if width + 1 + cell_len(self.sound_id) > options.max_width:
            width = 2
        text = Text.assemble(("id".ljust(width), "dim"), " ", self.sound_id)
        text.overflow = "fold"
        yield text


def _file_head(cand: Candidate, field: Callable[..., None]) -> None:
    """A librarian's lines of an agent's sound from the user's own library, as its
    candidate records them: the file and the folder holding it (when its ``uri`` is a
    file on this machine) and the UCS category (its library and vendor are the source
    and creator lines below)."""
    uri = cand.sound.get("uri")
    if isinstance(uri, str) and ("://" not in uri or uri.startswith("file://")):
        folder, name = cand.file_place
        if name:
            field("file", name)
        if folder:
            field("folder", folder)
    if cand.ucs_category:
        field("UCS category", cand.ucs_category)


def _library_head(library: SoundDetails, field: Callable[..., None]) -> None:
    """What a library folder knows of the sound, first: its description and UCS
    category, library and vendor, the file's format, every path holding it (the embedded
    fields as the file carries them come last)."""
    meta = library.entry.meta
    u = meta.ucs
    if meta.description:
        field("description", meta.description, "bold")
    category = " / ".join(x for x in (u.category, u.subcategory) if x)
    if category or u.catid:
        ucs = category or u.catid
        if category and u.catid:
            ucs += f" ({u.catid})"
        field("UCS category", ucs)
    if u.fx_name:
        field("FX name", u.fx_name)
    if u.keywords:
        field("keywords", ", ".join(u.keywords))
    if meta.library:
        field("library", meta.library)
    if meta.vendor:
        field("vendor", meta.vendor)
    bits = [meta.format.upper()]
    if meta.bit_depth:
        bits.append(f"{meta.bit_depth}-bit")
    field("file format", " · ".join(bits))
    for i, path in enumerate(library.paths):
        field("path" if i == 0 else "", path)
    if meta.warning:
        field("warning", meta.warning, "yellow")
