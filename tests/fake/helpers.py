"""Shared helpers of the fake sevDesk tests."""

from __future__ import annotations

from typing import Any

import httpx

from sevdesk_mcp.fake import FakeSevdesk

TOKEN = "0123456789abcdef0123456789abcdef"
BASE_URL = "https://my.sevdesk.de/api/v1"


def api(fake: FakeSevdesk, token: str | None = None) -> httpx.AsyncClient:
    """:returns: a client talking to ``fake`` through its transport, authenticated."""
    headers = {"Authorization": fake.token if token is None else token}
    return httpx.AsyncClient(transport=fake.transport(), base_url=BASE_URL, headers=headers)


async def objects(client: httpx.AsyncClient, path: str, **params: Any) -> Any:
    """GET ``path`` and return ``objects`` of a 200 answer."""
    response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()["objects"]


def assert_error(response: httpx.Response, status: int, code: int | None = None) -> dict[str, Any]:
    """Check sevDesk's error body and return its ``error`` object."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["objects"] is None
    error = body["error"]
    assert set(error) == {"exceptionUUID", "message", "errorCode", "code", "data", "responseCode"}
    assert error["exceptionUUID"] == "00000000-0000-0000-0000-000000000000"
    assert error["errorCode"] == 0
    assert error["code"] == code
    return dict(error)
