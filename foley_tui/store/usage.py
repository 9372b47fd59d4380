"""The session's ledger: token usage and spend of the agent, and the generation cost of
the candidates.

Counters live in ``sessions/<id>/.foley-tui/usage.json``. They only grow: an update adds
to them (negative amounts are refused) with a read-modify-write under the session's lock
and an atomic, fsync'd replace, so concurrent updates from several processes never lose
an increment and a crash leaves either the old or the new counters, never half of them.
Money is kept as integer micro-dollars, so sums are exact; it is shown in dollars.

Headless: never imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from foley_tui.domain import ValidationError
from foley_tui.store.backend import StateBackend, attached
from foley_tui.store.codec import DecodeError, dumps, loads_object
from foley_tui.store.errors import StoreProblem
from foley_tui.store.messages import MAX_RACES
from foley_tui.store.records import iso, now_utc, parse_iso

USAGE_FILE = "usage.json"
MICRO = 1_000_000
_COUNTERS = ("input_tokens", "output_tokens", "cost_micro_usd")


def usd_to_micro(value: object) -> int:
    """Dollars (a number or decimal text) -> integer micro-dollars, exactly.

    ``0.62`` -> 620000. A float is taken by its shortest decimal form (what it prints as),
    so 0.1 + 0.2 style binary noise never reaches the counters; finer than a micro-dollar
    rounds half-even. Negative, non-finite or non-numeric values raise ValidationError.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise ValidationError(f"a cost must be a number of dollars (got {value!r})")
    try:
        amount = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value).strip())
    except InvalidOperation:
        raise ValidationError(f"a cost must be a number of dollars (got {value!r})") from None
    if not amount.is_finite():
        raise ValidationError(f"a cost must be finite (got {value!r})")
    if amount < 0:
        raise ValidationError(f"a cost must not be negative (got {value!r})")
    return int((amount * MICRO).quantize(Decimal(1), rounding="ROUND_HALF_EVEN"))


def micro_to_usd(micro: int) -> float:
    """Micro-dollars as a float of dollars (exact to the micro-dollar when printed)."""
    return micro / MICRO


def format_usd(micro: int) -> str:
    """``$0.62`` (cents), or more digits when the amount has them (``$0.000125``)."""
    text = f"{Decimal(micro) / MICRO:f}"
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    return f"${whole}.{frac.ljust(2, '0')}"


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(f"{name} must be a whole number (got {value!r})")
    if value < 0:
        raise ValidationError(f"{name} must not be negative (got {value})")
    return value


@dataclass(frozen=True, slots=True)
class Usage:
    """A session's counters."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_micro_usd: int = 0
    updated: datetime | None = None

    @property
    def cost_usd(self) -> float:
        return micro_to_usd(self.cost_micro_usd)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def plus(self, input_tokens: int, output_tokens: int, cost_micro_usd: int) -> Usage:
        return Usage(
            self.input_tokens + input_tokens,
            self.output_tokens + output_tokens,
            self.cost_micro_usd + cost_micro_usd,
            now_utc(),
        )

    def to_record(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_micro_usd": self.cost_micro_usd,
            "updated": iso(self.updated) if self.updated else None,
        }

    def to_json(self) -> dict[str, Any]:
        """The ``usage`` object of ``session show --json``."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "cost_micro_usd": self.cost_micro_usd,
        }

    @classmethod
    def from_record(cls, record: object) -> Usage:
        """Counters from a stored or exported record; ValueError when it is not one."""
        if not isinstance(record, Mapping):
            raise ValueError("usage must be an object")
        unknown = set(record) - {*_COUNTERS, "updated"}
        if unknown:
            raise ValueError(f"unknown usage keys: {', '.join(sorted(map(str, unknown)))}")
        try:
            counts = [_count(record.get(name, 0), name) for name in _COUNTERS]
        except ValidationError as exc:
            raise ValueError(str(exc)) from None
        updated = record.get("updated")
        if updated is not None and parse_iso(updated) is None:
            raise ValueError(f"usage.updated is not a time: {updated!r}")
        inp, out, micro = counts
        return cls(inp, out, micro, parse_iso(updated))


class Ledger:
    """The usage counters of one session, on file or in memory."""

    def __init__(self, state: StateBackend) -> None:
        self.state = state
        # In memory the counters live in this object; otherwise in the backend's document.
        self._stored = state.keeps_documents
        self._where = state.where(USAGE_FILE)
        self._memory = Usage()
        self._lock = threading.Lock()
        self._problems: list[StoreProblem] = []

    def read(self) -> Usage:
        """The counters now (zeros when nothing was recorded yet). Unreadable counters
        read as zeros and are reported in :attr:`problems` (never fatal to a reader)."""
        try:
            return self._load()
        except ValidationError:
            return Usage()

    def _load(self) -> Usage:
        return self._load_raw()[0]

    def _load_raw(self) -> tuple[Usage, bytes | None]:
        """The counters and the stored bytes they came from (for compare-and-swap)."""
        if not self._stored:
            return self._memory, None
        try:
            data = self.state.read_doc(USAGE_FILE)
            return (Usage() if data is None else Usage.from_record(loads_object(data))), data
        except (DecodeError, ValueError, OSError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            problem = StoreProblem("foley-tui", USAGE_FILE, self._where, reason)
            if problem not in self._problems:
                self._problems.append(problem)
            raise ValidationError(
                f"the usage counters in {self._where} are unreadable ({reason}); not adding to them"
            ) from None

    def add(self, input_tokens: int = 0, output_tokens: int = 0, cost: object = 0) -> Usage:
        """Add to the counters; return the new totals. Raises ValidationError on a
        negative or malformed amount (nothing is written then)."""
        inp = _count(input_tokens, "input_tokens")
        out = _count(output_tokens, "output_tokens")
        micro = usd_to_micro(cost)
        return self.add_micro(inp, out, micro)

    def add_micro(self, input_tokens: int, output_tokens: int, cost_micro_usd: int) -> Usage:
        for value, name in (
            (input_tokens, "input_tokens"),
            (output_tokens, "output_tokens"),
            (cost_micro_usd, "cost_micro_usd"),
        ):
            _count(value, name)
        with self._lock, self.state.lock():
            for _ in range(MAX_RACES):
                # _load_raw, not read: adding to unreadable counters would overwrite them.
                current, raw = self._load_raw()
                usage = current.plus(input_tokens, output_tokens, cost_micro_usd)
                if self._store(usage, raw):
                    return usage
        raise OSError(f"could not update the usage: {MAX_RACES} other writers came first")

    def replace(self, usage: Usage) -> None:
        """Set the counters (an import restoring them)."""
        with self._lock, self.state.lock():
            for _ in range(MAX_RACES):
                if self._store(usage, self._load_raw()[1]):
                    return
        raise OSError(f"could not set the usage: {MAX_RACES} other writers came first")

    def _store(self, usage: Usage, old: bytes | None) -> bool:
        if not self._stored:
            self._memory = usage
            return True
        return self.state.swap_doc(USAGE_FILE, old, dumps(usage.to_record()))

    def token(self) -> Hashable:
        """Differs after any update (by any process): cheap to poll."""
        return self.state.token_of(USAGE_FILE) if self._stored else self._memory

    @property
    def problems(self) -> list[StoreProblem]:
        return list(self._problems)


def ledger_of(store: Any) -> Ledger:
    """The :class:`Ledger` of a :class:`SessionStore` (made on first use)."""
    return attached(store, Ledger, lambda: Ledger(store.state))


@dataclass(frozen=True, slots=True)
class GenerationCost:
    """What generating the candidates cost: actual where known, else estimated, apart."""

    actual_micro_usd: int = 0
    estimate_micro_usd: int = 0
    candidates: int = 0

    def plus(self, actual: int, estimate: int) -> GenerationCost:
        return GenerationCost(
            self.actual_micro_usd + actual, self.estimate_micro_usd + estimate, self.candidates + 1
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "cost_actual_usd": micro_to_usd(self.actual_micro_usd),
            "cost_estimate_usd": micro_to_usd(self.estimate_micro_usd),
            "candidates": self.candidates,
        }


def _money(value: object) -> int | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return usd_to_micro(value)
    except ValidationError:
        return None


def event_of(candidate: Mapping[str, Any]) -> str | None:
    """The scene event a foley candidate belongs to (``event.query``), if any."""
    event = candidate.get("event")
    if isinstance(event, Mapping):
        query = event.get("query")
        if isinstance(query, str) and query:
            return query
    return None


def generation_cost(
    candidates: Iterable[Mapping[str, Any]],
) -> tuple[GenerationCost, dict[str | None, GenerationCost]]:
    """(total, per event) generation cost of foley candidates.

    A candidate's ``cost_actual_usd`` counts as actual; its ``cost_estimate_usd`` counts
    as estimated only when it has no actual cost (the two are never added together).
    Candidates with neither are not counted. Events are keyed by ``event.query`` (None for
    candidates that belong to no event)."""
    total = GenerationCost()
    events: dict[str | None, GenerationCost] = {}
    for candidate in candidates:
        actual = _money(candidate.get("cost_actual_usd"))
        estimate = None if actual is not None else _money(candidate.get("cost_estimate_usd"))
        if actual is None and estimate is None:
            continue
        a, e = actual or 0, estimate or 0
        total = total.plus(a, e)
        key = event_of(candidate)
        events[key] = events.get(key, GenerationCost()).plus(a, e)
    return total, events


__all__ = [
    "USAGE_FILE",
    "GenerationCost",
    "Ledger",
    "Usage",
    "event_of",
    "format_usd",
    "generation_cost",
    "ledger_of",
    "micro_to_usd",
    "usd_to_micro",
]
