"""TerminalWatch: a hung-up tty, a closed pipe or a file read to its end is noticed
without reading the input (Textual owns it), once, from the watch thread."""

from __future__ import annotations

import os
import pty
import threading
from pathlib import Path

from foley_tui.app.terminal_watch import TerminalWatch, terminal_lost


def test_a_live_tty_is_not_lost_and_a_hung_up_one_is() -> None:
    master, slave = pty.openpty()
    try:
        assert terminal_lost(slave) is None
        os.write(master, b"typed")  # pending input is not a hang-up, and is not consumed
        assert terminal_lost(slave) is None
        os.close(master)  # the terminal goes (a closed window, tmux kill-server)
        assert terminal_lost(slave) is not None
    finally:
        os.close(slave)


def test_a_pipe_whose_writer_closed_is_end_of_input() -> None:
    read_end, write_end = os.pipe()
    try:
        assert terminal_lost(read_end) is None
        os.close(write_end)
        assert terminal_lost(read_end) is not None
    finally:
        os.close(read_end)


def test_a_file_is_lost_only_once_read_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_bytes(b"jjq")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert terminal_lost(fd) is None
        os.read(fd, 10)
        assert terminal_lost(fd) == "end of input"
    finally:
        os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        assert terminal_lost(null) is not None
    finally:
        os.close(null)


def test_the_watch_calls_back_once_when_the_tty_hangs_up() -> None:
    master, slave = pty.openpty()
    heard: list[str] = []
    called = threading.Event()

    def lost(reason: str) -> None:
        heard.append(reason)
        called.set()

    watch = TerminalWatch(slave, lost, interval_s=0.05)
    try:
        watch.start()
        assert not called.wait(0.2)  # a live terminal: nothing
        os.close(master)
        assert called.wait(30), "the hang-up was never noticed"
        watch.join(30)
        assert not watch.alive  # it ends after calling back, with no stop()
        assert len(heard) == 1
    finally:
        watch.stop()
        os.close(slave)


def test_a_stopped_watch_stays_quiet() -> None:
    master, slave = pty.openpty()
    heard: list[str] = []
    watch = TerminalWatch(slave, heard.append, interval_s=0.05)
    watch.start()
    watch.stop()
    watch.join(30)
    assert not watch.alive
    os.close(master)
    os.close(slave)
    assert heard == []
