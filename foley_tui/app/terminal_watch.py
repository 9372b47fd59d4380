"""Notice the terminal going away, so the app can save and leave instead of spinning.

When a terminal closes (a window shut, ``tmux kill-server``, an ssh drop) the process may
get no signal at all: the kernel sends SIGHUP to the session leader only, and under
``make`` or a non-interactive shell that is not us. The tty is then hung up: reads return
end-of-file at once, and Textual's input thread (a ``select`` + ``read`` loop) spins at
100% CPU for ever (a known upstream issue; we do not depend on its fix).

:class:`TerminalWatch` waits on the terminal's file descriptor in its own thread with
``poll`` for the events the kernel reports on a hung-up or closed descriptor (``POLLHUP``,
``POLLERR``, ``POLLNVAL``: reported whatever mask is asked, so no input is ever consumed),
and checks that the tty still answers ``tcgetattr`` (a hung-up tty fails it with ``EIO``).
It costs one wake-up per interval and calls ``on_lost`` once, from its thread.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import os
import select
import stat
import termios
import threading
from collections.abc import Callable

#: How often the tty is probed when poll reports nothing (a hang-up wakes poll at once).
POLL_INTERVAL_S = 0.25

_LOST = select.POLLHUP | select.POLLERR | select.POLLNVAL


def terminal_lost(fd: int, *, timeout_s: float = 0.0, tty: bool | None = None) -> str | None:
    """Why the terminal on ``fd`` is gone, or None while it is usable.

    Waits up to ``timeout_s`` for a hang-up (0: just look). ``tty``: whether ``fd`` was a
    terminal when watching began (then a failing ``tcgetattr`` also means gone).
    """
    poller = select.poll()
    try:
        poller.register(fd, 0)  # 0: ask for nothing; HUP/ERR/NVAL are reported anyway
    except (OSError, ValueError):
        return "terminal closed"
    events = poller.poll(max(0, int(timeout_s * 1000)))
    for _fd, mask in events:
        if mask & select.POLLNVAL:
            return "terminal closed"
        if mask & _LOST:
            return "terminal hung up (end of input)"
    if tty if tty is not None else os.isatty(fd):
        try:
            termios.tcgetattr(fd)
        except (termios.error, OSError):
            return "terminal hung up"
        return None
    return _file_at_end(fd)


def _file_at_end(fd: int) -> str | None:
    """End of input on a descriptor poll says nothing about: a regular file read to its
    end, or the null device (both always poll readable, never hung up)."""
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            return "end of input" if os.lseek(fd, 0, os.SEEK_CUR) >= info.st_size else None
        if stat.S_ISCHR(info.st_mode) and os.path.samestat(info, os.stat(os.devnull)):
            return "end of input (the null device)"
    except OSError:
        return "terminal closed"
    return None


class TerminalWatch:
    """Calls ``on_lost(reason)`` once, from its own thread, when the terminal goes."""

    def __init__(
        self,
        fd: int,
        on_lost: Callable[[str], None],
        *,
        interval_s: float = POLL_INTERVAL_S,
    ) -> None:
        self.fd = fd
        self._on_lost = on_lost
        self._interval = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tty = False
        with contextlib.suppress(OSError):
            self._tty = os.isatty(fd)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="terminal-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop watching (returns at once; the thread ends within one interval)."""
        self._stop.set()

    def join(self, timeout_s: float | None = None) -> None:
        """Wait for the watch's thread to end: it ends after calling back, or within one
        interval of :meth:`stop`. Returns at once if it never started."""
        if self._thread is not None:
            self._thread.join(timeout_s)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            reason = terminal_lost(self.fd, timeout_s=self._interval, tty=self._tty)
            if reason is not None and not self._stop.is_set():
                self._on_lost(reason)
                return


__all__ = ["POLL_INTERVAL_S", "TerminalWatch", "terminal_lost"]
