"""What a session store could not use, and the tolerant read that reports it.

:class:`Problems` is the store's part that remembers every unreadable or foreign entry
its reads met (reported, never fatal and never deleted) and the leftovers of interrupted
writes it cleaned up. :func:`read_value` reads one entry of any namespace mapping and
notes what went wrong. Headless: never imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from foley_tui.store.codec import DecodeError
from foley_tui.store.errors import StoreProblem
from foley_tui.store.files import UnreadableEntry

#: A file modified this close to our scan may still change within the same timestamp
#: tick without changing size (file-system clocks are coarse): re-read it next time.
RACY_NS = 50_000_000


class Problems:
    """Problems found by a store's reads, per entry and per namespace scan.

    Thread-safe: every method takes the part's own lock, held only for bookkeeping.
    """

    def __init__(self, state_problems: Callable[[], list[StoreProblem]]) -> None:
        self._state_problems = state_problems
        self._by_entry: dict[tuple[str, str], StoreProblem] = {}
        self._by_scan: dict[str, list[StoreProblem]] = {}
        self._recovered: list[str] = []
        self._lock = threading.Lock()

    def note(self, problem: StoreProblem) -> None:
        with self._lock:
            self._by_entry[(problem.namespace, problem.key)] = problem

    def clear(self, namespace: str, key: str) -> None:
        with self._lock:
            self._by_entry.pop((namespace, key), None)

    def get(self, namespace: str, key: str) -> StoreProblem | None:
        with self._lock:
            return self._by_entry.get((namespace, key))

    def keys_in(self, namespace: str) -> set[str]:
        """Keys of ``namespace`` with a problem noted."""
        with self._lock:
            return {key for ns, key in self._by_entry if ns == namespace}

    def keep_only(self, namespace: str, present: set[str]) -> None:
        """Forget the problems of ``namespace`` entries that are gone."""
        with self._lock:
            for ns, key in list(self._by_entry):
                if ns == namespace and key not in present:
                    del self._by_entry[(ns, key)]

    def set_scan(self, namespace: str, found: list[StoreProblem]) -> None:
        """What the last scan of ``namespace`` found (replaces the previous scan's)."""
        with self._lock:
            self._by_scan[namespace] = found

    def all(self) -> list[StoreProblem]:
        with self._lock:
            found = list(self._by_entry.values())
            for items in self._by_scan.values():
                found.extend(items)
        found.extend(self._state_problems())
        return sorted(set(found), key=lambda p: (p.namespace, p.key, p.path))

    def recovered(self, lines: list[str]) -> None:
        """Lines saying what was cleaned up (stale temp files of an interrupted write)."""
        with self._lock:
            self._recovered += lines

    def take_recovered(self) -> list[str]:
        with self._lock:
            lines, self._recovered = self._recovered, []
        return lines


def read_value(
    ns: Mapping[str, dict[str, Any]], name: str, key: str, problems: Problems
) -> dict[str, Any] | None:
    """``ns[key]`` as a dict, or None when absent or unusable (then noted in ``problems``)."""
    try:
        value = ns[key]
    except KeyError:
        problems.clear(name, key)
        return None
    except UnreadableEntry as exc:
        problems.note(exc.problem)
        return None
    except DecodeError as exc:
        problems.note(StoreProblem(name, key, "", str(exc)))
        return None
    if not isinstance(value, dict):
        problems.note(StoreProblem(name, key, "", "not a JSON object"))
        return None
    problems.clear(name, key)
    return value


__all__ = ["RACY_NS", "Problems", "read_value"]
