"""The connection to the shared state: one ``redis.asyncio`` client per process.

This is the only module that imports the optional ``redis`` package
(``pip install 'mcp-server-sevdesk[redis]'``), and only when a state URL is configured. The
client never retries a command: one that timed out may have been applied, and a second run of a
single-use claim would refuse its own first use. Every Redis failure leaves :func:`guard` as
:class:`~sevdesk_mcp.errors.StateUnavailableError`.

After a failure to reach Redis (not a slow answer), :func:`guard` closes the idle connections
of every client of the process: a connection opened before Redis went away may still look open
when it comes back (its end of stream not yet noticed) and would fail the first command sent on
it; closed, each is opened anew on its next use.

The client is asyncio's (the server runs on asyncio); under trio the shared state is refused at
start-up.
"""

from __future__ import annotations

import importlib
import logging
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import msgspec

from sevdesk_mcp.errors import ConfigError, StateUnavailableError
from sevdesk_mcp.shared.keys import DEFAULT_NAMESPACE, Keys
from sevdesk_mcp.shared.seal import Seal

if TYPE_CHECKING:  # the names the stores annotate with; they never import redis themselves
    from typing import TypeAlias

    import redis.asyncio
    import redis.asyncio.client
    import redis.commands.core

    Redis: TypeAlias = redis.asyncio.Redis
    PubSub: TypeAlias = redis.asyncio.client.PubSub
    Script: TypeAlias = redis.commands.core.AsyncScript

log = logging.getLogger("sevdesk_mcp.shared")
_CLIENTS: weakref.WeakSet[Any] = weakref.WeakSet()  # every open client, for guard()

VARIABLE: Final = "SEVDESK_HTTP_STATE_URL"
TIMEOUT_S: Final = 2.0
HEALTH_CHECK_S: Final = 15
SCHEMES: Final = ("redis", "rediss")
UNREACHABLE: Final = (
    "the shared state (Redis at SEVDESK_HTTP_STATE_URL) cannot be reached or refused the "
    "command ({what}); the request was not completed, try again when it is back"
)
NOT_INSTALLED: Final = (
    "the shared state needs the redis extra: pip install 'mcp-server-sevdesk[redis]'"
)


def check_url(url: str) -> str:
    """:returns: ``url`` if it is a ``redis://`` or ``rediss://`` URL with a host.

    :raises ConfigError: naming the variable and the accepted form otherwise.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        port, parts = -1, urlsplit("")
    if parts.scheme not in SCHEMES or not parts.hostname or port == -1 or parts.fragment:
        raise ConfigError(
            VARIABLE,
            "use redis://[:password@]host[:port][/db] or rediss://... for TLS (the password, "
            "if any, is masked in every log line)",
        )
    return url


def _redis_module() -> Any:  # noqa: ANN401 - the optional package, typed at its uses
    try:
        return importlib.import_module("redis.asyncio")
    except ImportError:
        raise ConfigError(VARIABLE, NOT_INSTALLED) from None


def _no_retry() -> Any:  # noqa: ANN401 - redis.retry.Retry, imported with the package
    retry = importlib.import_module("redis.retry")
    backoff = importlib.import_module("redis.backoff")
    return retry.Retry(backoff.NoBackoff(), 0)


@asynccontextmanager
async def guard() -> AsyncIterator[None]:
    """Turn every Redis failure in the block into :class:`StateUnavailableError`.

    :raises StateUnavailableError: if Redis cannot be reached, timed out or refused.
    """
    exceptions = importlib.import_module("redis.exceptions")
    try:
        yield
    except (exceptions.RedisError, OSError) as exc:
        if isinstance(exc, exceptions.ConnectionError | ConnectionError):  # not a slow answer
            await _close_idle()
        raise StateUnavailableError(UNREACHABLE.format(what=type(exc).__name__)) from None


async def _close_idle() -> None:
    """Close the idle connections of every client (see the module's text). A close that fails
    (a client whose loop has ended, a close that times out) is passed over: the caller reports
    the outage either way. A connection another task takes while they close fails that task's
    command as the outage would."""
    for client in list(_CLIENTS):
        try:
            await client.connection_pool.disconnect(inuse_connections=False)
        except Exception as exc:  # any failure to close leaves the outage as it is
            log.debug("closing idle Redis connections failed: %s", type(exc).__name__)


def as_bytes(value: object) -> bytes:
    """:returns: a value Redis answered, as bytes (the client decodes nothing; a script's
    integer answer comes as an int)."""
    return value if isinstance(value, bytes) else str(value).encode()


class Outage:
    """Logs the start and the end of an outage of the shared state once each (for the two
    throttles that fall back to this process while Redis cannot be reached).

    :param what: what falls back, for the log line.
    """

    def __init__(self, what: str) -> None:
        self._what = what
        self.down = False

    def started(self, exc: StateUnavailableError) -> None:
        """Note a failure; the first of an outage is logged as a warning."""
        if not self.down:
            self.down = True
            log.warning("%s: this process's own until Redis is back (%s)", self._what, exc)

    def ended(self) -> None:
        """Note a success; the first after an outage is logged."""
        if self.down:
            self.down = False
            log.warning("%s: shared again", self._what)


class SharedState(msgspec.Struct, frozen=True):
    """The client, key names and seal every shared store uses.

    :param client: the ``redis.asyncio`` client (decoded responses off: values are bytes).
    """

    client: Redis
    keys: Keys
    seal: Seal

    def script(self, source: str) -> Script:
        """:returns: a Lua script run atomically by Redis (sent by digest after its first use)."""
        return self.client.register_script(source)

    async def ping(self) -> bool:
        """:returns: whether Redis answers now (``/healthz``)."""
        try:
            async with guard():
                return bool(await self.client.ping())
        except StateUnavailableError:
            return False

    async def aclose(self) -> None:
        """Close the client's connections."""
        await self.client.aclose()


def open_state(
    url: str, secrets: Sequence[str], *, namespace: str = DEFAULT_NAMESPACE
) -> SharedState:
    """Make the shared state of ``url`` (connections open on first use).

    :param secrets: the server secret, then the previous one while rotating.
    :raises ConfigError: if the URL is invalid or the redis extra is not installed.
    """
    module = _redis_module()
    client = module.Redis.from_url(
        check_url(url),
        socket_timeout=TIMEOUT_S,
        socket_connect_timeout=TIMEOUT_S,
        health_check_interval=HEALTH_CHECK_S,
        retry=_no_retry(),
        retry_on_timeout=False,
        decode_responses=False,
    )
    _CLIENTS.add(client)
    return SharedState(client, Keys(namespace), Seal(secrets))
