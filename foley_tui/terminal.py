"""Keep data from other machines and libraries' chatter off the user's terminal.

Two hazards:

- **Escapes in data.** A session title, a sound id or a caption comes from an import or
  another tool; printed raw, ``ESC ] 0 ; … BEL`` retitles the terminal and ``ESC [ 2 J``
  clears it. :func:`escape_controls` spells every control character (C0 but newline and
  tab, DEL, C1), every bidirectional override (Trojan-source style reordering) and every
  lone surrogate (which cannot even be encoded) as a visible ``\\x1b``/``\\u202e``
  escape. :func:`escaping_streams` applies it to everything a CLI verb prints.
- **Library stderr.** libmpg123, ALSA and PortAudio write warnings straight to file
  descriptor 2, which is the terminal Textual paints on: the TUI gets scribbled over.
  :func:`library_stderr_to_log` points fd 2 at a log file for the app run, and gives
  Textual (and Python's own ``sys.stderr``) a private copy of the terminal.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

_CONTROL = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_TABLE: dict[int, str] = {
    code: (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _CONTROL + _BIDI
}
_KEEP_LINES = {**_TABLE}
del _KEEP_LINES[0x0A], _KEEP_LINES[0x09]
_SURROGATE = re.compile("[\ud800-\udfff]")
#: The same characters, deleted (each is zero cells wide, so a line's layout holds), and
#: lone surrogates (one cell) as the replacement character.
_DROP: dict[int, str | None] = {
    **{code: None for code in _CONTROL + _BIDI},
    **{code: "\ufffd" for code in range(0xD800, 0xE000)},
}


def _surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_controls(text: str, *, keep_lines: bool = False) -> str:
    """``text`` with every control, bidi override and lone surrogate made visible.

    ``keep_lines`` leaves newlines and tabs alone (for whole lines of output).
    """
    text = text.translate(_KEEP_LINES if keep_lines else _TABLE)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(_surrogate, text)
    return text


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def escape_line(text: str) -> str:
    """Text safe on one terminal line: control characters (C0, DEL, C1) and backslashes
    escaped (``\\n``, ``\\x1b``), so a message can neither break a listing nor drive the
    terminal."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 32 or 127 <= ord(ch) < 160 or ch in "\u2028\u2029":
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def drop_controls(text: str) -> str:
    """``text`` without any control character or bidi override, lone surrogates replaced:
    what may reach a terminal *inside* text that was already measured and laid out (the
    characters dropped take no cells)."""
    return text.translate(_DROP)


class EscapingWriter(io.TextIOBase):
    """A text stream that escapes control characters before they reach ``target``.

    ``after``: a stream flushed before each write, so what it was given reaches the
    terminal first (stderr after stdout: a piped stdout is block-buffered, and a message
    on stderr would otherwise overtake the lines printed before it)."""

    def __init__(self, target: TextIO, after: TextIO | None = None) -> None:
        self.target = target
        self.after = after

    def write(self, text: str) -> int:
        if self.after is not None:
            self.after.flush()
        self.target.write(escape_controls(text, keep_lines=True))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.target, "encoding", "utf-8"))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


@contextlib.contextmanager
def escaping_streams() -> Iterator[None]:
    """Every line a CLI verb prints (stdout and stderr) goes through :func:`escape_controls`."""
    old_out, old_err = sys.stdout, sys.stderr
    sys.stdout = EscapingWriter(old_out)
    sys.stderr = EscapingWriter(old_err, after=old_out)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr = old_out, old_err


def stderr_log_path() -> Path:
    """``$XDG_STATE_HOME/foley-tui/stderr.log`` (``~/.local/state/foley-tui/stderr.log``)."""
    base = os.environ.get("XDG_STATE_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".local" / "state"
    return root / "foley-tui" / "stderr.log"


#: The log is cut back to nothing when it grows past this at the start of a run.
MAX_LOG_BYTES = 4 << 20


@contextlib.contextmanager
def library_stderr_to_log(path: Path | None = None) -> Iterator[Path | None]:
    """Point file descriptor 2 at a log for the duration (what C libraries write lands
    there); ``sys.__stderr__``/``sys.stderr`` get a private copy of the terminal, which
    is what Textual draws on. Yields the log's path, or None when it cannot be opened
    (then nothing is redirected)."""
    target = path or stderr_log_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
        log_fd = os.open(target, flags, 0o600)
        if os.fstat(log_fd).st_size > MAX_LOG_BYTES:
            os.ftruncate(log_fd, 0)
        terminal_fd = os.dup(2)
    except OSError:
        yield None
        return
    old_dunder, old_err = sys.__stderr__, sys.stderr
    encoding = getattr(old_dunder, "encoding", None) or "utf-8"
    terminal = os.fdopen(terminal_fd, "w", buffering=1, encoding=encoding, errors="replace")
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os.dup2(log_fd, 2)
    os.close(log_fd)
    setattr(sys, "__stderr__", terminal)  # noqa: B010 (a Final name for type checkers)
    sys.stderr = terminal
    try:
        yield target
    finally:
        with contextlib.suppress(Exception):
            terminal.flush()
        os.dup2(terminal_fd, 2)
        setattr(sys, "__stderr__", old_dunder)  # noqa: B010
        sys.stderr = old_err
        terminal.close()
