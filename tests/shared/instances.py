"""Several ``mcp-server-sevdesk --http`` processes sharing one Redis, in front of one fake
sevDesk served from the test process (so the test sees every request that reached sevDesk)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.serve import serve_fake
from tests.http.helpers import HANG_GUARD_S, META, SECRET, modern_body, modern_headers
from tests.http.process import HttpProcess, http_env, http_server
from tests.wire import FORM

CAPS = {"_meta": {**META, "io.modelcontextprotocol/clientCapabilities": FORM}}


@dataclass
class Books:
    """The fake sevDesk all instances talk to, and its URL."""

    fake: FakeSevdesk
    url: str

    def writes(self) -> list[str]:
        """:returns: every write that reached sevDesk, as ``METHOD path``."""
        return [f"{r.method} {r.path}" for r in self.fake.requests if r.method != "GET"]


@contextmanager
def demo_books() -> Iterator[Books]:
    """The demo books on a loopback port of this process."""
    fake = build_demo()
    with serve_fake(fake) as url:
        yield Books(fake, url)


@asynccontextmanager
async def instances(
    books: Books, redis_url: str, count: int = 3, **extra: str
) -> AsyncIterator[list[HttpProcess]]:
    """``count`` server processes on loopback ports sharing ``redis_url`` (a namespace of
    their own) and ``books``."""
    env = http_env(
        SEVDESK_API_URL=books.url,
        SEVDESK_API_TOKEN=books.fake.token,
        SEVDESK_HTTP_STATE_URL=redis_url,
        SEVDESK_HTTP_STATE_NAMESPACE=f"instances-{uuid.uuid4().hex}",
        SEVDESK_ALLOW="write,commit",
        **extra,
    )
    async with AsyncExitStack() as stack:
        yield [await stack.enter_async_context(http_server(env=env)) for _ in range(count)]


async def call(
    server: HttpProcess, name: str, arguments: dict[str, Any], **more: Any
) -> dict[str, Any]:
    """One 2026-07-28 ``tools/call`` to ``server`` (with the form capability).

    :returns: the JSON-RPC message of the answer.
    """
    params = {"name": name, "arguments": arguments, **CAPS, **more}
    headers = {**modern_headers("tools/call", name), "authorization": f"Bearer {SECRET}"}
    async with httpx.AsyncClient(timeout=HANG_GUARD_S, trust_env=False) as client:
        response = await client.post(
            server.url, json=modern_body("tools/call", params), headers=headers
        )
    message: dict[str, Any] = response.json()
    return message


def answer(first: dict[str, Any], approve: bool = True) -> dict[str, Any]:
    """:returns: the retry's extra params answering ``first``'s approval form."""
    result = first["result"]
    (key,) = result["inputRequests"]
    content = {"approve": approve}
    return {
        "requestState": result["requestState"],
        "inputResponses": {key: {"action": "accept", "content": content}},
    }
