"""The 2026-07-28 envelope is decoded once per request, by the same code on stdio and HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sevdesk_mcp.mcp import envelope, streamable
from sevdesk_mcp.mcp.envelope import RequestMeta
from sevdesk_mcp.mcp.types import JsonObject
from tests.fixture_app import fixture_app
from tests.http.helpers import META, http, modern_headers, running
from tests.wire import open_wire

pytestmark = pytest.mark.anyio

VERSION = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
LEVEL = "io.modelcontextprotocol/logLevel"

BAD_ENVELOPES = {
    "no capabilities": {VERSION: "2026-07-28"},
    "numeric version": {VERSION: 20260728, CAPS: {}},
    "capabilities a list": {VERSION: "2026-07-28", CAPS: []},
    "unknown log level": {**META, LEVEL: "loud"},
    "numeric log level": {**META, LEVEL: 3},
    "unknown version and log level": {VERSION: "1900-01-01", CAPS: {}, LEVEL: "loud"},
    "unknown version": {VERSION: "1900-01-01", CAPS: {}},
}


async def _over_stdio(meta: dict[str, Any]) -> dict[str, Any]:
    async with open_wire(fixture_app()) as wire:
        return await wire.request("tools/list", {"_meta": meta}, id="e-1")


async def _over_http(meta: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    body = {"jsonrpc": "2.0", "id": "e-1", "method": "tools/list", "params": {"_meta": meta}}
    version = meta[VERSION] if isinstance(meta[VERSION], str) else "2026-07-28"
    headers = modern_headers("tools/list", **{"mcp-protocol-version": version})
    async with running() as server, http(server) as client:
        response = await client.post("/mcp", content=json.dumps(body).encode(), headers=headers)
    answer: dict[str, Any] = response.json()
    return response.status_code, answer


@pytest.mark.parametrize("meta", list(BAD_ENVELOPES.values()), ids=list(BAD_ENVELOPES))
async def test_both_transports_refuse_an_envelope_with_the_same_answer(
    meta: dict[str, Any],
) -> None:
    stdio = await _over_stdio(meta)
    status, answer = await _over_http(meta)
    assert status == 400
    assert answer == stdio
    assert stdio["error"]["code"] in (-32602, -32022)


async def test_an_envelope_is_decoded_once_per_request_on_either_transport(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded: list[RequestMeta | None] = []
    real = envelope.decode_meta

    def counting(params: JsonObject) -> RequestMeta | None:
        decoded.append(real(params))
        return decoded[-1]

    monkeypatch.setattr(envelope, "decode_meta", counting)
    monkeypatch.setattr(streamable, "decode_meta", counting)
    stdio = await _over_stdio({**META, "progressToken": 1})
    assert "result" in stdio and len(decoded) == 1
    status, answer = await _over_http({**META, "progressToken": 1})
    assert status == 200 and "result" in answer and len(decoded) == 2
    status, answer = await _over_http(dict(META))  # the quiet path: one JSON answer, no stream
    assert status == 200 and "result" in answer and len(decoded) == 3
    assert all(meta is not None and meta.protocol_version == "2026-07-28" for meta in decoded)
