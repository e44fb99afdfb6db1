"""``mcp-server-sevdesk --http`` as a subprocess on an ephemeral loopback port."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
from anyio.abc import Process

from tests.http.helpers import HANG_GUARD_S, SECRET
from tests.integration.test_cli import ROOT, clean_environment

SERVING = "serving MCP at "


@dataclass
class HttpProcess:
    """A running server process and everything it wrote to stderr so far."""

    process: Process
    url: str
    stderr: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    async def terminate(self) -> int:
        """Send SIGTERM and wait for the exit status."""
        self.process.send_signal(signal.SIGTERM)
        with anyio.fail_after(HANG_GUARD_S):
            return await self.process.wait()


def http_env(**extra: str) -> dict[str, str]:
    return {
        **clean_environment(),
        "PYTHONPATH": str(ROOT),
        "SEVDESK_HTTP_AUTH": "bearer",
        "SEVDESK_HTTP_SECRET": SECRET,
        "SEVDESK_HTTP_PORT": "0",
        **extra,
    }


@asynccontextmanager
async def http_server(*args: str, env: dict[str, str] | None = None) -> AsyncIterator[HttpProcess]:
    """Start ``python -m sevdesk_mcp --http ARGS``; stop it with SIGTERM at the end."""
    command = [sys.executable, "-m", "sevdesk_mcp", "--http", *args]
    process = await anyio.open_process(
        command, env=env or http_env(), cwd=ROOT, stdin=subprocess.DEVNULL
    )
    async with process, anyio.create_task_group() as tg:
        lines: list[str] = []
        ready = anyio.Event()
        tg.start_soon(_read_lines, process, lines, ready)
        with anyio.fail_after(HANG_GUARD_S):
            await ready.wait()
        url = next((line.split(SERVING, 1)[1].split()[0] for line in lines if SERVING in line), "")
        server = HttpProcess(process, url, lines)
        try:
            yield server
        finally:
            if process.returncode is None:
                await server.terminate()


async def _read_lines(process: Process, lines: list[str], ready: anyio.Event) -> None:
    assert process.stderr is not None
    buffer = b""
    async for chunk in process.stderr:
        buffer += chunk
        *complete, buffer = buffer.split(b"\n")
        lines.extend(line.decode() for line in complete)
        if any(SERVING in line for line in lines):
            ready.set()
    lines.extend([buffer.decode()] if buffer else [])
    ready.set()  # the process ended (a start-up refusal): the test reads the lines
