"""Bounded, non-blocking reads: only regular files, never through a link (unless asked),
never above the cap; and the view values a session may carry."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from foley_tui.limits import VOLUME_RANGE_DB, clamp_volume_db, finite_float, sanitize_view
from foley_tui.safe_io import (
    FileTooLargeError,
    UnsafeFileError,
    open_regular,
    read_capped,
    read_head,
)


def test_a_regular_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"{}")
    assert read_capped(path) == b"{}"
    assert read_head(path, 1) == (b"{", 2)


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    done = threading.Event()
    errors: list[BaseException] = []

    def read() -> None:
        try:
            read_capped(fifo)
        except BaseException as exc:
            errors.append(exc)
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(30), "reading a FIFO blocked"
    assert isinstance(errors[0], UnsafeFileError) and "FIFO" in str(errors[0])


def test_devices_sockets_and_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeFileError, match="character device"):
        read_capped("/dev/zero", follow=True)
    with pytest.raises(IsADirectoryError):
        read_capped(tmp_path)
    sock_path = tmp_path / "s"
    sock = socket.socket(socket.AF_UNIX)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        sock.bind("s")
    finally:
        os.chdir(cwd)
    try:
        with pytest.raises(UnsafeFileError, match="socket"):
            read_capped(sock_path)
    finally:
        sock.close()


def test_links_are_refused_unless_followed(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"outside")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(UnsafeFileError, match="symbolic link"):
        read_capped(link)
    assert read_capped(link, follow=True) == b"outside"
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    with pytest.raises(UnsafeFileError, match="character device"):
        read_capped(zero, follow=True)  # followed, still never read unbounded


def test_the_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as fh:
        fh.truncate(17 << 20)  # sparse
    with pytest.raises(FileTooLargeError, match="too large"):
        read_capped(path)
    assert len(read_capped(path, 32 << 20)) == 17 << 20
    fd, st = open_regular(path)
    os.close(fd)
    assert st.st_size == 17 << 20


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1.5, 1.5), (3, 3.0), (True, None), (float("nan"), None), (1e309, None), (10**401, None)],
)
def test_finite_float(value: object, expected: float | None) -> None:
    assert finite_float(value) == expected


def test_the_view_is_clamped_and_typed() -> None:
    low, high = VOLUME_RANGE_DB
    assert clamp_volume_db(120) == high and clamp_volume_db(-1e9) == low
    assert clamp_volume_db(float("inf"), -3.0) == -3.0
    view = sanitize_view(
        {
            "volume_db": 10**401,
            "loop": "yes",
            "autoplay": True,
            "filter": "x" * 10_000,
            "sort": 5,
            "future_setting": [1, 2],
            7: "not a key",
        }
    )
    assert view == {"autoplay": True, "filter": "x" * 500, "future_setting": [1, 2]}
    assert sanitize_view({"volume_db": 120})["volume_db"] == high
    assert sanitize_view("nope") == {}


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--start", "1e308", "out of range"),
        ("--start", "nan", "out of range"),
        ("--volume", "1e308", "out of range"),
        ("--volume", "inf", "out of range"),
        ("--volume", "loud", "not a number"),
        ("--loudness", "-inf", "out of range"),
    ],
)
def test_play_refuses_absurd_numbers_cleanly(
    flag: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from foley_tui.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["play", "x.wav", f"{flag}={value}"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_onset_dialog_refuses_310_nines() -> None:
    from foley_tui.domain import ValidationError, parse_onset

    for text in ("9" * 310 + ":00", "9" * 310 + ":00:00", "1" + "0" * 400):
        with pytest.raises(ValidationError):
            parse_onset(text)
