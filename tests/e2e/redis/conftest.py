"""Fixtures of the Redis tests: a real redis-server per test (AOF, ``appendfsync always``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from foley_tui.store.redis.namespace import RedisBackend
from foley_tui.store.redis.service import RedisSessionService
from tests.e2e.test_tmux_e2e import tmux  # noqa: F401 (the tmux fixture, for the app test)

from .server import RedisServer


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def service(redis_server: RedisServer) -> RedisSessionService:
    return RedisSessionService(redis_server.url, user="ana")


@pytest.fixture
def backend(redis_server: RedisServer) -> RedisBackend:
    return RedisBackend.from_url(redis_server.url, user="ana")
