"""The conformance fixture server: our core and HTTP transport with the suite's fixtures.

``python -m tests.http.conformance.server [PORT]`` binds 127.0.0.1 (port 0: a free one), prints
the MCP URL as its first line on stdout and serves until SIGTERM or SIGINT. It runs without
authentication (the suite sends none) and with rate limits high enough for one client to run
every scenario; everything else is the product's HTTP stack. Never shipped.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable

import anyio

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import install_access_logger
from sevdesk_mcp.http.service.serve import bind_service
from sevdesk_mcp.http.settings import HttpSettings
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.mcp.types import Implementation
from tests.http.conformance.content import (
    ConformanceCompletions,
    ConformancePrompts,
    ConformanceResources,
)
from tests.http.conformance.tools import ConformanceTools

LIMITS = Limits(rate_per_s=10_000.0, rate_burst=10_000)


def app_factory() -> Callable[[], McpApp]:
    """:returns: an app builder sharing one request-state key, as the product's factory does."""
    codec = RequestStateCodec()

    def build() -> McpApp:
        return McpApp(
            info=Implementation(name="sevdesk-mcp-conformance", version="1.0.0"),
            codec=codec,
            instructions="Conformance fixture server of mcp-server-sevdesk (tests only).",
            tools=ConformanceTools(),
            prompts=ConformancePrompts(),
            resources=ConformanceResources(),
            completions=ConformanceCompletions(),
        )

    return build


async def serve(port: int) -> None:
    """Serve on 127.0.0.1 until a signal arrives."""
    install_access_logger()
    settings = HttpSettings(host="127.0.0.1", port=port)
    service = await bind_service(settings, app_factory(), principal="conformance", limits=LIMITS)
    print(service.site.mcp_url, flush=True)
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_stop_on_signal, stop)
        await service.run(stop)
        tg.cancel_scope.cancel()


async def _stop_on_signal(stop: anyio.Event) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            stop.set()
            return


if __name__ == "__main__":
    anyio.run(serve, int(sys.argv[1]) if len(sys.argv) > 1 else 0)
