"""Details: everything about the highlighted candidate, loaded on demand.

The full candidate dict is read only for the highlighted row (never for the whole list),
then shown with its decision and where its audio is (or why it cannot be played).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.widgets import Static

from foley_tui.audio.base import Source, Unplayable
from foley_tui.model import Candidate, Pick, Reject, Row, format_onset
from foley_tui.widgets.candidate_list import format_duration


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

    def show(
        self,
        sound_id: str | None,
        candidate: Mapping[str, Any] | None,
        row: Row | None,
        decision: Pick | Reject | None,
        source: Source | Unplayable | None,
    ) -> None:
        self.update(render_details(sound_id, candidate, row, decision, source))


def render_details(
    sound_id: str | None,
    candidate: Mapping[str, Any] | None,
    row: Row | None,
    decision: Pick | Reject | None,
    source: Source | Unplayable | None,
) -> Text:
    """The pane's text (a function so it is testable without a running app)."""
    text = Text(no_wrap=False)
    if sound_id is None:
        text.append("No candidate selected.", style="dim")
        return text
    if candidate is None:
        reason = row.unreadable if row and row.unreadable else "candidate file missing"
        text.append(f"{sound_id}\n", style="bold")
        text.append(f"unreadable: {reason}\n", style="bold yellow")
        return text
    cand = Candidate(candidate)

    def field(label: str, value: str, style: str = "") -> None:
        text.append(f"{label:<12}", style="dim")
        text.append(f"{value}\n", style=style)

    text.append(f"{cand.caption or sound_id}\n\n", style="bold")
    field("id", sound_id)
    if cand.tags:
        field("tags", ", ".join(cand.tags))
    bits = [format_duration(cand.duration_s)]
    if cand.sample_rate:
        bits.append(f"{cand.sample_rate} Hz")
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
    text.append("\n")
    if isinstance(decision, Pick):
        field(
            "decision",
            f"picked · layer {decision.layer or '-'} · onset {format_onset(decision.onset)}",
            "bold green",
        )
    elif isinstance(decision, Reject):
        reason = f": {decision.reason}" if decision.reason else ""
        field("decision", f"rejected{reason}", "bold red")
    else:
        field("decision", "undecided", "dim")
    if isinstance(source, Source):
        field("audio", f"{source.format.value} · {source.how} · {source.path.name}")
    elif isinstance(source, Unplayable):
        field("audio", f"⊘ unplayable: {source.reason}", "bold yellow")
    return text
