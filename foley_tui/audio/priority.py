"""Real-time scheduling for the player's threads, and the GIL they share.

The audio callback is Python: every block it hands the device needs the GIL. It runs at
a real-time priority (SCHED_RR, where the system grants it), so busy processes at normal
priority never delay it themselves; but a thread of normal priority that holds the GIL
when a busy process preempts it keeps the callback waiting until the scheduler gives it
a CPU again, which on a loaded machine is tens of milliseconds: longer than the device's
buffer. That is a priority inversion, and the usual answer is a priority ceiling: a
thread runs the player's own GIL-heavy work (opening and decoding the first block of a
sound, building a scene's stems, measuring loudness) at a real-time priority just below
the audio threads' (:func:`audio_ceiling`), so nothing of normal priority preempts it
while it holds the GIL, and it drops the GIL for the callback within Python's switch
interval. It returns to its own priority as soon as the work is done.

Where the system grants no real-time priority (no RLIMIT_RTPRIO, not Linux) every call
here is a no-op and the threads keep their normal priority.

Headless: never imports textual.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: The real-time priority asked for PortAudio's callback thread and the feeder (SCHED_RR),
#: as audio servers and PortAudio's own ALSA option do: below the audio servers' threads.
REALTIME_PRIORITY = 10

#: The priority the player's GIL-heavy work runs at on a caller's thread: above every
#: normal process, below the callback and the feeder (which preempt it and take the GIL
#: at its next switch).
CEILING_PRIORITY = 5

#: The reader thread's priority (it decodes every voice ahead): above every normal
#: process, so none preempts it while it holds the GIL, and below everything on the way
#: to the device (the callback, the feeder, the sound server's threads and the ALSA
#: plugin's, which run at the ceiling's priority): its long decoding never keeps one of
#: them waiting for a CPU.
READER_PRIORITY = 2

_REALTIME_POLICIES = frozenset(
    getattr(os, name) for name in ("SCHED_RR", "SCHED_FIFO") if hasattr(os, name)
)


def ask_realtime(priority: int = REALTIME_PRIORITY) -> bool:
    """Put the calling thread on SCHED_RR at ``priority``; True if the system allowed it."""
    try:
        os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(priority))
    except (AttributeError, OSError):  # not Linux, or not allowed: normal priority
        return False
    return True


class _SchedParam(ctypes.Structure):
    _fields_ = [("sched_priority", ctypes.c_int)]


@functools.cache
def _libc_setscheduler() -> Callable[..., int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        return libc.sched_setscheduler
    except (OSError, AttributeError):
        return None


def restore_scheduling(policy: int, priority: int) -> None:
    """Put the calling thread back on ``policy`` at ``priority`` *without the GIL*.

    Leaving a real-time priority lets the kernel preempt the thread at once (busy
    processes have been waiting for its CPU); if it still held the GIL then, the
    callback would wait for it as long as the scheduler keeps the thread off a CPU:
    the inversion the ceiling is there to prevent. ``os.sched_setscheduler`` keeps the
    GIL across the system call; a ``ctypes`` call releases it first, so the thread is
    preempted without it and takes it back when it runs again."""
    call = _libc_setscheduler()
    if call is not None and call(0, policy, ctypes.byref(_SchedParam(priority))) == 0:
        return
    with contextlib.suppress(OSError):
        os.sched_setscheduler(0, policy, os.sched_param(priority))


@contextlib.contextmanager
def audio_ceiling() -> Iterator[None]:
    """Run the block at :data:`CEILING_PRIORITY` (unless the thread already runs at a
    real-time priority at least as high), then restore the thread's own scheduling."""
    try:
        policy = os.sched_getscheduler(0)
        param = os.sched_getparam(0)
    except (AttributeError, OSError):
        yield
        return
    if policy in _REALTIME_POLICIES and param.sched_priority >= CEILING_PRIORITY:
        yield
        return
    raised = ask_realtime(CEILING_PRIORITY)
    try:
        yield
    finally:
        if raised:
            restore_scheduling(policy, param.sched_priority)


def at_audio_ceiling(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a player method whose work holds the GIL long: it runs under
    :func:`audio_ceiling`."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with audio_ceiling():
            return func(*args, **kwargs)

    return wrapper
