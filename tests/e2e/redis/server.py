"""A private redis-server for tests: a free port, a temp dir, AOF on, torn down after.

``appendfsync always`` (the default here) fsyncs the AOF before each write is
acknowledged, so a ``kill -9`` loses nothing acknowledged; ``everysec`` may lose up to
a second of acknowledged writes (docs/redis.md explains both).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import redis

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """One redis-server process; ``kill()`` is SIGKILL, ``start()`` restarts on the same
    port and dir (so the AOF is replayed)."""

    def __init__(
        self, folder: Path, *, appendfsync: str = "always", extra: tuple[str, ...] = ()
    ) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.folder = folder
        self.port = free_port()
        self.appendfsync = appendfsync
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self, **kwargs: Any) -> Any:
        """A plain client (typed loosely: redis-py's replies are wide unions)."""
        return redis.Redis(host="127.0.0.1", port=self.port, **kwargs)

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [
            str(REDIS_SERVER),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--protected-mode", "no",
            "--logfile", str(self.folder / "redis.log"),
            *self.extra,
        ]  # fmt: skip
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30  # generous: a loaded 2-CPU machine
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)
        while True:
            try:
                if client.ping():
                    # Loading the AOF answers -LOADING: ping passes only once it is done.
                    break
            except redis.exceptions.BusyLoadingError:
                pass
            except redis.ConnectionError:
                pass
            if self.proc.poll() is not None:
                log = (self.folder / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server exited ({self.proc.returncode}):\n{log}")
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not answer within 30 s")
            time.sleep(0.02)
        client.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown save, no goodbye (a crash, a power cut for the process)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
            self.kill()
