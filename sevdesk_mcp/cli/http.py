"""``--http``: what bearer mode (``cli.bearer``) and OAuth mode (``cli.oauth``) share: the
configuration and the HTTP settings with authentication required, the shared state of several
instances when ``SEVDESK_HTTP_STATE_URL`` is set (``cli.scaleout``, imported only then), the
server factory on it, and the one line when the address cannot be bound."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from sevdesk_mcp.config import Config, load_config
from sevdesk_mcp.errors import ConfigError, StartupError
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.server import Reach, ServerFactory

if TYPE_CHECKING:
    from sevdesk_mcp.cli.scaleout import SharedStores
    from sevdesk_mcp.http.settings import HttpSettings
    from sevdesk_mcp.safety.approval_local import Pages

log = logging.getLogger("sevdesk_mcp")


@dataclasses.dataclass(frozen=True, slots=True)
class HttpSetup:
    """What both HTTP modes start from: the configuration, the HTTP settings (authentication
    configured) and the shared state (``None`` without ``SEVDESK_HTTP_STATE_URL``)."""

    config: Config
    settings: HttpSettings
    shared: SharedStores | None


def http_setup(env: Mapping[str, str]) -> HttpSetup:
    """:returns: the configuration, HTTP settings and shared state of ``env``.

    :raises ConfigError: if the configuration is invalid, no authentication is configured, or
        the shared state cannot be used (see :func:`shared_state`).
    """
    from sevdesk_mcp.http.kit.lang import set_default_lang  # noqa: PLC0415
    from sevdesk_mcp.http.settings import load_http_settings, require_auth  # noqa: PLC0415

    config = load_config(env)
    set_default_lang(config.language)  # the pages' language where the browser names none
    settings = load_http_settings(env)
    require_auth(settings)
    open_files_for(settings.max_connections)
    return HttpSetup(config, settings, shared_state(settings, config))


FILES_BESIDE_CONNECTIONS = 64  # the listener, logs, the audit log, Redis, sevDesk, the pages


def open_files_for(connections: int) -> None:
    """Raise this process's soft limit of open files so ``connections`` fit (one file each),
    as far as the hard limit allows; say so on the log when it does not."""
    try:
        import resource  # noqa: PLC0415 - POSIX only, and only for --http
    except ImportError:  # pragma: no cover - Windows has no such limit to raise
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = connections + FILES_BESIDE_CONNECTIONS
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    if target < needed:
        log.warning(
            "SEVDESK_HTTP_MAX_CONNECTIONS=%d needs %d open files, the hard limit allows %d: "
            "raise it (ulimit -Hn, LimitNOFILE= in systemd) or lower the setting",
            connections,
            needed,
            hard,
        )


def shared_state(settings: HttpSettings, config: Config) -> SharedStores | None:
    """:returns: the stores on ``SEVDESK_HTTP_STATE_URL``, or ``None`` without it.

    :raises ConfigError: if the redis extra is missing, or approvals would need this machine's
        local page (bearer mode with ``SEVDESK_CONFIRM=browser``), which other instances cannot
        reach.
    """
    if settings.state_url is None:
        return None
    if settings.auth == "bearer" and config.confirm == "browser":
        raise ConfigError(
            "SEVDESK_CONFIRM",
            "browser approval in bearer mode opens a page on the serving machine, which the "
            "other instances cannot reach; with SEVDESK_HTTP_STATE_URL use elicitation (the "
            "default) or OAuth mode, whose inbox every instance serves",
        )
    from sevdesk_mcp.cli.scaleout import shared_stores  # noqa: PLC0415 - scale-out only

    shared = shared_stores(settings)
    log.info(
        "shared state: Redis at SEVDESK_HTTP_STATE_URL, namespace %s", settings.state_namespace
    )
    return shared


def server_factory(
    config: Config,
    pages: Callable[[], Pages],
    shared: SharedStores | None,
    *,
    files: Reach,
) -> ServerFactory:
    """:returns: the server factory offering the tools ``files`` can serve; with the shared
    state its safety runtime and request-state sealer are the ones every instance shares."""
    if shared is None:
        return ServerFactory(config, pages=pages, files=files)
    safety = shared.safety(AuditLog(config.audit_log, rehearsal=config.rehearse), pages)
    return ServerFactory(config, pages=pages, safety=safety, codec=shared.codec(), files=files)


@contextlib.contextmanager
def listening(settings: HttpSettings) -> Iterator[None]:
    """Turn a refused bind inside into the one start-up line naming the address.

    :raises StartupError: if binding raised :class:`OSError`.
    """
    try:
        yield
    except OSError as exc:
        where = f"{settings.host}:{settings.port}"
        raise StartupError(f"cannot listen on {where} ({exc.strerror or exc})") from None


@contextlib.asynccontextmanager
async def closing(shared: SharedStores | None) -> AsyncIterator[None]:
    """Close the shared state's connections when the server has stopped."""
    try:
        yield
    finally:
        if shared is not None:
            await shared.state.aclose()
