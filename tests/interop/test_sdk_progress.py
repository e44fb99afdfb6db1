"""Progress notifications and debug logs through the official SDK client (issue 14, point 2):
both eras, over stdio and over HTTP (where they make the answer an event stream)."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.http.helpers import SECRET
from tests.http.process import http_server
from tests.interop.test_sdk_stdio import _params

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


class Heard:
    def __init__(self) -> None:
        self.progress: list[tuple[float, str | None]] = []
        self.logs: list[Any] = []

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append((progress, message))

    async def on_log(self, params: Any) -> None:
        self.logs.append(params.data)


@asynccontextmanager
async def connected(transport: str, mode: str, heard: Heard) -> AsyncIterator[Any]:
    options: dict[str, Any] = {
        "mode": mode,
        "cache": None,
        "logging_callback": heard.on_log,
    }
    if mode == "auto":
        options["log_level"] = "debug"  # sent in every request's _meta
    if transport == "stdio":
        async with Client(_params("sevdesk_mcp"), **options) as c:
            yield c
        return
    from mcp.client.streamable_http import streamable_http_client

    async with http_server("--demo") as server:
        headers = {"Authorization": f"Bearer {SECRET}"}
        timeout = httpx2.Timeout(60)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout) as h,
            Client(streamable_http_client(server.url, http_client=h), **options) as c,
        ):
            yield c


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_progress_and_debug_logs_arrive_in_both_eras(transport: str, mode: str) -> None:
    heard = Heard()
    async with connected(transport, mode, heard) as c:
        if mode == "legacy":
            with warnings.catch_warnings():  # the SDK warns: deprecated in 2026-07-28
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await c.set_logging_level("debug")
        result = await c.call_tool("sevdesk_cash_position", {}, progress_callback=heard.on_progress)
    assert result.is_error is not True
    steps = [p for p, _ in heard.progress]
    assert len(steps) >= 3 and steps == sorted(set(steps))
    messages = [m for _, m in heard.progress]
    assert all(m and m.startswith("Read: ") for m in messages)  # words, no method or path
    assert "Read: payment accounts" in messages  # GET /CheckAccount
    asked = [log["sevdesk"] for log in heard.logs if isinstance(log, dict) and "sevdesk" in log]
    assert "GET /CheckAccount" in asked  # over HTTP in the 2025 era: kept by the session
    assert all(SECRET not in str(log) for log in heard.logs)
