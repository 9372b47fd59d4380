"""Key names of a session on Redis: one place, so an ACL pattern on the prefix covers all.

Everything of a session lives under ``<prefix>{<session id>}:...`` (``foley:{01J...}:picks``):
the braces make the id the key's hash tag, so every key of one session lands on the same
node of a cluster and a decision's keys can be written in one atomic script. The only
keys outside a session are ``<prefix>sessions`` (a SET of session ids: listing never
scans keys) and ``<prefix>audio:<sha256>`` (shared audio blobs).

Headless: never imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Our append-only logs kept per session (the conversation): the state API's log names.
LOGS = ("messages.jsonl",)
#: Change events kept in a session's stream (approximate trim: ``MAXLEN ~``).
CHANGES_MAXLEN = 10_000


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str

    @property
    def sessions(self) -> str:
        """SET of every session id in this prefix."""
        return f"{self.prefix}sessions"

    def audio(self, sha256: str) -> str:
        """STRING: the bytes of one audio file, by content hash (shared by sessions)."""
        return f"{self.prefix}audio:{sha256}"

    def audio_index(self, session_id: str) -> str:
        """HASH sound id -> the sha256 of its audio blob (what ``--with-audio`` pushed)."""
        return f"{self.base(session_id)}:audio"

    def base(self, session_id: str) -> str:
        return f"{self.prefix}{{{session_id}}}"

    def ns(self, session_id: str, name: str) -> str:
        """HASH sound id -> foley's JSON bytes (``candidates``, ``picks``, ``rejects``)."""
        return f"{self.base(session_id)}:{name}"

    def rows(self, session_id: str) -> str:
        """HASH sound id -> the list columns of that candidate (compact JSON)."""
        return f"{self.base(session_id)}:rows"

    def order(self, session_id: str) -> str:
        """ZSET sound id -> when it was first cached (ms): the list order."""
        return f"{self.base(session_id)}:order"

    def version(self, session_id: str) -> str:
        """STRING counter bumped by every write to the namespaces and every decision."""
        return f"{self.base(session_id)}:version"

    def changes(self, session_id: str) -> str:
        """STREAM of change events (what the app follows with XREAD BLOCK)."""
        return f"{self.base(session_id)}:changes"

    def journal(self, session_id: str) -> str:
        """STREAM of decisions, one entry each (seq, author, the record)."""
        return f"{self.base(session_id)}:journal"

    def seq(self, session_id: str) -> str:
        """STRING counter: the last journal seq handed out."""
        return f"{self.base(session_id)}:seq"

    def meta(self, session_id: str) -> str:
        """HASH of shared metadata (title, created, updated, origin), JSON per field."""
        return f"{self.base(session_id)}:meta"

    def users(self, session_id: str) -> str:
        """SET of the users who kept a cursor/view here (so delete finds their keys)."""
        return f"{self.base(session_id)}:users"

    def user(self, session_id: str, user: str) -> str:
        """HASH of one user's cursor and view, JSON per field."""
        return f"{self.base(session_id)}:user:{user}"

    def log(self, session_id: str, name: str) -> str:
        """STRING: an append-only log of ours, newline-terminated records (``LOGS``)."""
        return f"{self.base(session_id)}:log:{name}"

    def extra(self, session_id: str) -> str:
        """HASH of other per-session documents moved with the session (narration...)."""
        return f"{self.base(session_id)}:extra"

    def stamps(self, session_id: str, name: str) -> str:
        """HASH sound id -> the version of its last write in ``picks`` or ``rejects``: a
        watcher compares these per key, as the file store compares (mtime, size)."""
        return f"{self.base(session_id)}:stamps:{name}"

    def nsver(self, session_id: str) -> str:
        """HASH namespace -> the version of its last write (candidates' change token)."""
        return f"{self.base(session_id)}:nsver"

    def fixed(self, session_id: str) -> list[str]:
        """Every key of a session except the per-user ones."""
        return [
            # Foley's three namespaces and our marks (rating, hidden, region).
            *(self.ns(session_id, n) for n in ("candidates", "picks", "rejects", "marks")),
            self.rows(session_id),
            self.order(session_id),
            self.version(session_id),
            self.changes(session_id),
            self.journal(session_id),
            self.seq(session_id),
            self.meta(session_id),
            self.users(session_id),
            self.extra(session_id),
            *(self.log(session_id, name) for name in LOGS),
            self.stamps(session_id, "picks"),
            self.stamps(session_id, "rejects"),
            self.nsver(session_id),
            self.audio_index(session_id),
        ]
