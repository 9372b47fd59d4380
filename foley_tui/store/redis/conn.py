"""Reaching a Redis (or Valkey) server: store URLs, the password, key names, errors.

A store URL is ``redis://[user@]host:port/db`` or ``rediss://`` (TLS). The password comes
from ``$FOLEY_TUI_REDIS_PASSWORD`` or a password file (``$FOLEY_TUI_REDIS_PASSWORD_FILE``,
else ``~/.config/foley-tui/redis-password`` when it exists), so it never has to be on a
command line. A password inside the URL works but is warned about. The password never
appears in what we print, log or raise: every message names the server by
:func:`redact`'s form of the URL.

Headless: never imports textual.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

# redis-py parses replies with hiredis (C) whenever it imports: a 100k-row index reply
# parses an order of magnitude faster than in pure Python. Imported here so a broken
# install fails at once rather than silently falling back to the pure-Python parser.
import hiredis  # noqa: F401
import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.retry import Retry

from foley_tui import paths
from foley_tui.store.errors import StoreTimeoutError, StoreWriteError

PASSWORD_ENV = "FOLEY_TUI_REDIS_PASSWORD"
PASSWORD_FILE_ENV = "FOLEY_TUI_REDIS_PASSWORD_FILE"
PREFIX_ENV = "FOLEY_TUI_REDIS_PREFIX"
DEFAULT_PREFIX = "foley:"
SCHEMES = ("redis", "rediss")
#: How long one store operation waits for the server before it gives up (seconds):
#: ``?socket_timeout=`` in the URL, else the ``store_timeout_s`` setting, else this.
DEFAULT_TIMEOUT_S = 2.0
#: What ``?socket_timeout=`` accepts (seconds).
TIMEOUT_RANGE_S = (0.01, 600.0)


class RedisStoreError(StoreWriteError):
    """The Redis server could not be reached or refused us; nothing was half written.

    An ``OSError`` (as :class:`StoreWriteError`), so callers that handle a failed disk
    write handle this too. The message never holds the password."""


class RedisTimeoutError(StoreTimeoutError):
    """The server did not answer within the operation's deadline (see
    :class:`~foley_tui.store.errors.StoreTimeoutError`: a write's outcome is unknown,
    which is why it is not a :class:`RedisStoreError`, whose writes did not happen)."""


class RedisKeyError(RedisStoreError):
    """A key of ours holds the wrong kind of value (``WRONGTYPE``: damaged or foreign data
    on the server): the server answers, the data is bad; the message names the key."""


class PasswordInURLWarning(UserWarning):
    """A password was given inside the store URL (visible in shell history and ``ps``)."""


def is_redis_url(url: str | None) -> bool:
    return bool(url) and urlsplit(str(url)).scheme in SCHEMES


def redact(url: str) -> str:
    """The URL with any password replaced by ``***`` (what messages show)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = quote(unquote(parts.username or ""), safe="")
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def password_file() -> Path:
    explicit = os.environ.get(PASSWORD_FILE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    return paths.config_dir() / "redis-password"


def _password_from_file(path: Path, *, explicit: bool) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if explicit:
            raise RedisStoreError(f"the Redis password file {path} does not exist") from None
        return None
    except OSError as exc:
        raise RedisStoreError(
            f"could not read the Redis password file {path}: {exc.strerror or exc}"
        ) from None
    return text.strip("\r\n") or None


def resolve_password(url: str) -> str | None:
    """The password: in the URL (warned about), else the env var, else the password file."""
    parts = urlsplit(url)
    if parts.password is not None:
        warnings.warn(
            f"the Redis password is in the store URL ({redact(url)}): other users can see "
            f"it in `ps` and your shell history; use ${PASSWORD_ENV} or a password file",
            PasswordInURLWarning,
            stacklevel=3,
        )
        return unquote(parts.password)
    env = os.environ.get(PASSWORD_ENV)
    if env:
        return env
    return _password_from_file(password_file(), explicit=bool(os.environ.get(PASSWORD_FILE_ENV)))


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed store URL: where the server is and how to log in (password kept apart)."""

    url: str
    """The URL as shown in messages (password redacted)."""
    scheme: str
    host: str
    port: int
    db: int
    username: str | None
    prefix: str
    timeout_s: float | None = None
    """``?socket_timeout=`` of the URL (None: not given there)."""

    @property
    def tls(self) -> bool:
        return self.scheme == "rediss"


def parse_url(url: str, prefix: str | None = None) -> Target:
    """Check a store URL and split it; the prefix comes from ``?prefix=``, then the env."""
    parts = urlsplit(url)
    shown = redact(url)
    if parts.scheme not in SCHEMES:
        raise RedisStoreError(f"not a Redis store URL (redis:// or rediss://): {shown}")
    try:
        port = parts.port or 6379
    except ValueError:
        raise RedisStoreError(f"bad port in the store URL {shown}") from None
    path = parts.path.strip("/")
    try:
        db = int(path) if path else 0
    except ValueError:
        raise RedisStoreError(f"the database in {shown} must be a number (got {path!r})") from None
    query = dict(q.split("=", 1) for q in parts.query.split("&") if "=" in q)
    chosen = prefix or unquote(query.get("prefix", "")) or os.environ.get(PREFIX_ENV)
    timeout_s = _timeout_of(query.get("socket_timeout"), shown)
    return Target(
        url=shown,
        scheme=parts.scheme,
        host=parts.hostname or "localhost",
        port=port,
        db=db,
        username=unquote(parts.username) if parts.username else None,
        prefix=chosen or DEFAULT_PREFIX,
        timeout_s=timeout_s,
    )


def _timeout_of(text: str | None, shown: str) -> float | None:
    if text is None:
        return None
    low, high = TIMEOUT_RANGE_S
    try:
        value = float(unquote(text))
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # NaN fails both
        raise RedisStoreError(
            f"socket_timeout in {shown} must be a number of seconds from {low:g} to {high:g} "
            f"(got {unquote(text)!r})"
        )
    return value


def connect(
    url: str, *, prefix: str | None = None, timeout_s: float | None = None, **options: Any
) -> tuple[redis.Redis, Target]:
    """A client for the URL (lazy: the first command connects) and its parsed target.

    Every command waits at most the deadline (``?socket_timeout=`` of the URL, else
    ``timeout_s``, else :data:`DEFAULT_TIMEOUT_S`) for the server, to connect or to
    answer; a timed-out command is never sent again, so an operation (which stops at its
    first failed command) ends within one deadline of a server that stopped answering.
    The client reconnects by itself: after an error its connection is dropped and the
    next command opens a new one.
    """
    target = parse_url(url, prefix)
    deadline = target.timeout_s or timeout_s or DEFAULT_TIMEOUT_S
    target = replace(target, timeout_s=deadline)
    password = resolve_password(url)
    client = redis.Redis(
        host=target.host,
        port=target.port,
        db=target.db,
        username=target.username,
        password=password,
        ssl=target.tls,
        socket_connect_timeout=options.pop("socket_connect_timeout", deadline),
        socket_timeout=options.pop("socket_timeout", deadline),
        health_check_interval=options.pop("health_check_interval", 15),
        # One immediate retry of a dropped connection (a server restart), without
        # redis-py's default backoff holding a refused decision for seconds. Never after a
        # timeout: that would double the deadline, and a paused server may still run the
        # first attempt (a write sent twice).
        retry=options.pop("retry", Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,))),
        client_name="foley-tui",
        **options,
    )
    return client, target


def unavailable(
    target: Target, exc: BaseException, doing: str, key: str | None = None
) -> RedisStoreError | RedisTimeoutError:
    """A user-facing error for a failed Redis call (the password is never in it);
    ``key``: the key the call read or wrote, named when it holds the wrong type."""
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, redis.ResponseError) and reason.startswith("WRONGTYPE"):
        return RedisKeyError(f"{doing}: {wrong_type(key)}")
    for secret in filter(None, (os.environ.get(PASSWORD_ENV),)):
        reason = reason.replace(secret, "***")
    if isinstance(
        exc, redis.AuthenticationError | redis.exceptions.AuthenticationWrongNumberOfArgsError
    ):
        reason = f"authentication failed ({reason})"
    elif isinstance(exc, redis.exceptions.NoPermissionError):
        reason = f"the Redis user may not do this ({reason}); check its ACL key pattern"
    elif isinstance(exc, redis.TimeoutError):
        return RedisTimeoutError(f"{doing}: {timed_out(target)}")
    elif isinstance(exc, RedisConnectionError):
        reason = f"Redis at {target.url} is unreachable ({reason})"
    return RedisStoreError(f"{doing}: {reason}")


def wrong_type(key: str | None) -> str:
    """The words of a key that holds the wrong kind of value."""
    which = f"the key {key}" if key else "a key of the session"
    return f"{which} holds the wrong kind of value on the server (WRONGTYPE): damaged data"


def timed_out(target: Target) -> str:
    """The words of a deadline that passed (the CLI's, the app's, the status line's)."""
    seconds = target.timeout_s or DEFAULT_TIMEOUT_S
    return f"the store did not answer in {seconds:g} s (Redis at {target.url})"


__all__ = [
    "DEFAULT_PREFIX",
    "DEFAULT_TIMEOUT_S",
    "PASSWORD_ENV",
    "PASSWORD_FILE_ENV",
    "PasswordInURLWarning",
    "RedisError",
    "RedisKeyError",
    "RedisStoreError",
    "RedisTimeoutError",
    "Target",
    "connect",
    "is_redis_url",
    "parse_url",
    "redact",
    "resolve_password",
    "timed_out",
    "unavailable",
    "wrong_type",
]
