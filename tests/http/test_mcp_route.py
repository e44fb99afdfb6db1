"""POST /mcp: the protocol over HTTP in both eras, the header ladder, statuses, JSON and SSE."""

from __future__ import annotations

import base64
import json
from typing import Any

import anyio
import httpx
import msgspec
import pytest

from sevdesk_mcp.http.service.mcp_route import SEND_FAILED, HttpPeer
from sevdesk_mcp.http.settings import HttpSettings
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.server import LEGACY_ELICITATION_HINT
from tests.fixture_app import fixture_app
from tests.http.conformance.server import app_factory
from tests.http.helpers import (
    META,
    head,
    http,
    modern_body,
    modern_headers,
    post_modern,
    raw,
    running,
)

pytestmark = pytest.mark.anyio

FORM: dict[str, Any] = {"elicitation": {"form": {}}}


def error(response: httpx.Response) -> tuple[int, int]:
    return response.status_code, response.json()["error"]["code"]


def sse_messages(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.headers["content-type"] == "text/event-stream"
    events = [e for e in response.text.split("\n\n") if e.strip()]
    assert all(e.startswith("event: message\ndata: ") for e in events)
    return [json.loads(e.split("data: ", 1)[1]) for e in events]


async def post(
    client: httpx.AsyncClient, body: Any, headers: dict[str, str] | None = None
) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    base = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    return await client.post("/mcp", content=content, headers={**base, **(headers or {})})


async def test_a_modern_request_gets_json_with_the_2026_result_fields() -> None:
    async with running() as server, http(server) as client:
        response = await post_modern(client, "tools/list")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    result = response.json()["result"]
    assert result["resultType"] == "complete" and result["cacheScope"] == "private"
    assert "mcp-session-id" not in response.headers


@pytest.mark.parametrize(
    ("headers", "body_version"),
    [
        ({"mcp-method": "tools/list"}, "2026-07-28"),  # Mcp-Method differs from the body
        ({"mcp-method": ""}, "2026-07-28"),
        ({"mcp-name": "other"}, "2026-07-28"),  # Mcp-Name differs from params.name
        ({"mcp-protocol-version": "2025-11-25"}, "2026-07-28"),
        ({}, "v999.0.0"),  # header 2026-07-28, body another version: -32020 before -32022
    ],
)
async def test_a_header_that_does_not_mirror_the_body_is_32020_and_400(
    headers: dict[str, str], body_version: str
) -> None:
    params = {
        "name": "echo",
        "arguments": {},
        "_meta": {**META, "io.modelcontextprotocol/protocolVersion": body_version},
    }
    body = modern_body("tools/call", params)
    async with running() as server, http(server) as client:
        base = modern_headers("tools/call", "echo")
        response = await post(client, body, {**base, **headers})
    assert error(response) == (400, -32020)
    assert response.json()["id"] == 1


@pytest.mark.parametrize("missing", ["mcp-method", "mcp-name", "mcp-protocol-version"])
async def test_a_missing_mirrored_header_is_32020(missing: str) -> None:
    headers = {k: v for k, v in modern_headers("tools/call", "echo").items() if k != missing}
    async with running() as server, http(server) as client:
        response = await post(client, modern_body("tools/call", {"name": "echo"}), headers)
    assert error(response) == (400, -32020)


async def test_mirrored_headers_tolerate_case_whitespace_and_base64_names() -> None:
    name = "=?base64?" + base64.b64encode(b"echo").decode() + "?="
    body = json.dumps(modern_body("tools/call", {"name": "echo", "arguments": {"text": "hi"}}))
    async with running() as server:
        async with raw(server) as c:
            await c.send(
                head(
                    "POST",
                    "/mcp",
                    "CONTENT-TYPE: application/json",
                    f"content-length: {len(body)}",
                    "MCP-METHOD:   tools/call  ",
                    f"mcp-name: {name}",
                    "Mcp-Protocol-Version:\t2026-07-28",
                )
                + body.encode()
            )
            response, answer = await c.response()
        async with http(server) as client:
            headers = modern_headers("tools/call", "=?base64?***?=")
            broken = await post(client, json.loads(body), headers)
    assert response.status_code == 200
    assert json.loads(answer)["result"]["content"][0]["text"] == "hi"
    assert error(broken) == (400, -32020)


async def test_an_unsupported_version_in_header_and_body_is_32022_and_400() -> None:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}
    body = modern_body("server/discover", {"_meta": meta})
    async with running() as server, http(server) as client:
        response = await post(
            client,
            body,
            modern_headers("server/discover", **{"mcp-protocol-version": "1900-01-01"}),
        )
    assert error(response) == (400, -32022)
    assert response.json()["error"]["data"]["requested"] == "1900-01-01"


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}},
        {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
        {"_meta": {**META, "io.modelcontextprotocol/logLevel": "loud"}},
    ],
    ids=["no meta", "no version", "no capabilities", "bad log level"],
)
async def test_a_missing_or_malformed_envelope_with_modern_headers_is_32602_and_400(
    params: dict[str, Any],
) -> None:
    body = {"jsonrpc": "2.0", "id": "x", "method": "server/discover", "params": params}
    async with running() as server, http(server) as client:
        response = await post(client, body, modern_headers("server/discover"))
    assert error(response) == (400, -32602)
    assert response.json()["id"] == "x"


@pytest.mark.parametrize("method", ["unknown/method", "initialize", "ping", "logging/setLevel"])
async def test_an_unknown_or_removed_method_is_404_and_32601(method: str) -> None:
    async with running() as server, http(server) as client:
        response = await post_modern(client, method)
    assert error(response) == (404, -32601)


async def test_errors_raised_while_serving_travel_in_a_200() -> None:
    async with running() as server, http(server) as client:
        unknown_tool = await post_modern(client, "tools/call", {"name": "nope"})
        missing = await post_modern(client, "resources/read", {"uri": "other://x"})
    assert error(unknown_tool) == (200, -32602)
    assert error(missing) == (200, -32602)


async def test_an_input_request_without_the_capability_is_32021_and_400() -> None:
    async with running() as server, http(server) as client:
        response = await post_modern(client, "tools/call", {"name": "greet"})
    assert error(response) == (400, -32021)


async def test_mrtr_round_trips_over_http_with_a_fresh_app_per_leg() -> None:
    caps = {"_meta": {**META, "io.modelcontextprotocol/clientCapabilities": FORM}}
    async with running() as server, http(server) as client:
        first = (await post_modern(client, "tools/call", {"name": "greet", **caps})).json()
        retry = {
            "name": "greet",
            "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}},
            "requestState": first["result"]["requestState"],
            **caps,
        }
        second = (await post_modern(client, "tools/call", retry)).json()
    assert first["result"]["resultType"] == "input_required"
    assert second["result"]["content"][0]["text"].startswith("Hello, Ada!")
    assert len(server.built) == 2 and server.built[0] is not server.built[1]


@pytest.mark.threat("J10")
async def test_notifications_and_responses_are_accepted_with_202_and_no_body() -> None:
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    response = {"jsonrpc": "2.0", "id": "srv-1", "result": {}}
    async with running() as server, http(server) as client:
        answers = [await post(client, notification), await post(client, response)]
        modern = await post(client, response, {"mcp-protocol-version": "2026-07-28"})
    assert [(a.status_code, a.content) for a in answers] == [(202, b""), (202, b"")]
    assert error(modern) == (400, -32600)
    assert server.built == []


@pytest.mark.threat("J04")
@pytest.mark.parametrize("body", [b"[]", b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]'])
async def test_a_batch_is_400_and_32600(body: bytes) -> None:
    async with running() as server, http(server) as client:
        response = await post(client, body)
    assert error(response) == (400, -32600)
    assert response.json()["id"] is None


@pytest.mark.threat("J01")
@pytest.mark.parametrize("body", [b"", b"{", b'{"jsonrpc":"2.0"} x', b"\xff\xfe", b"NaN"])
async def test_a_parse_error_is_400_and_32700(body: bytes) -> None:
    async with running() as server, http(server) as client:
        response = await post(client, body)
        after = await post_modern(client, "tools/list")  # the server keeps serving
    assert error(response) == (400, -32700)
    assert after.status_code == 200


@pytest.mark.parametrize(
    "accept", [None, "application/json", "text/event-stream", "*/*", "text/html"]
)
async def test_accept_is_never_a_reason_to_refuse(accept: str | None) -> None:
    headers = modern_headers("tools/list")
    headers.pop("accept")
    if accept is not None:
        headers["accept"] = accept
    async with running() as server, http(server) as client:
        response = await post(client, modern_body("tools/list"), headers)
    assert response.status_code == 200
    if accept == "text/event-stream":
        assert sse_messages(response)[0]["result"]["resultType"] == "complete"
    else:
        assert response.json()["result"]["tools"]


async def test_progress_turns_the_answer_into_an_event_stream() -> None:
    params = {"name": "progress", "_meta": {**META, "progressToken": "p1"}}
    async with running() as server, http(server) as client:
        streamed = await post_modern(client, "tools/call", params)
        plain = await post_modern(client, "tools/call", {"name": "progress"})
        json_only = await post_modern(client, "tools/call", params, accept="application/json")
    assert streamed.headers["x-accel-buffering"] == "no"
    messages = sse_messages(streamed)
    assert [m["params"]["progress"] for m in messages[:-1]] == [1, 2, 3]
    assert messages[-1]["result"]["content"][0]["text"] == "done"
    assert plain.headers["content-type"] == "application/json"
    assert json_only.json()["result"]["content"][0]["text"] == "done"


async def test_legacy_initialize_is_answered_without_a_session() -> None:
    """With SEVDESK_HTTP_SESSIONS=off (sessions on: tests/http/test_sessions.py)."""
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
    }
    settings = HttpSettings(host="127.0.0.1", port=0, sessions=False)
    async with running(settings=settings) as server, http(server) as client:
        response = await post(client, body)
        modern_header = await post(client, body, {"mcp-protocol-version": "2026-07-28"})
    result = response.json()["result"]
    assert response.status_code == 200 and result["protocolVersion"] == "2025-06-18"
    assert "mcp-session-id" not in response.headers and "resultType" not in result
    assert error(modern_header) == (400, -32020)


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", None])
async def test_later_legacy_requests_are_served_statelessly(version: str | None) -> None:
    headers = {"mcp-protocol-version": version} if version else {}
    call = {"name": "echo", "arguments": {"text": "hi"}}
    async with running() as server, http(server) as client:
        ping = await post(client, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers)
        echo = await post(
            client, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, headers
        )
        unknown = await post(client, {"jsonrpc": "2.0", "id": 3, "method": "nope"}, headers)
    assert ping.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert echo.json()["result"] == {"content": [{"type": "text", "text": "hi"}]}
    assert error(unknown) == (200, -32601)  # in-band: a 404 means "session gone" to 2025 clients


async def test_an_unsupported_legacy_version_header_is_400() -> None:
    async with running() as server, http(server) as client:
        response = await post(
            client, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"mcp-protocol-version": "1999"}
        )
    assert error(response) == (400, -32600)
    assert response.json()["error"]["data"]["requested"] == "1999"


async def test_a_2025_client_that_would_need_an_elicitation_gets_the_actionable_error() -> None:
    codec = RequestStateCodec()

    def build() -> McpApp:
        app = fixture_app(codec=codec)
        return msgspec.structs.replace(app, legacy_elicitation_hint=LEGACY_ELICITATION_HINT)

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}
    async with running(build=build) as server, http(server) as client:
        response = await post(client, body, {"mcp-protocol-version": "2025-11-25"})
    result = response.json()["result"]
    text = result["content"][0]["text"]
    assert response.status_code == 200 and result["isError"] is True
    assert "without a session (stateless HTTP), whatever the client declared" in text
    assert "2026-07-28" in text and "stdio" in text


async def test_legacy_progress_streams_too() -> None:
    params = {"name": "progress", "_meta": {"progressToken": 5}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    async with running() as server, http(server) as client:
        response = await post(client, body, {"mcp-protocol-version": "2025-11-25"})
    messages = sse_messages(response)
    assert [m.get("method") for m in messages] == ["notifications/progress"] * 3 + [None]


async def test_a_legacy_tool_that_logs_unasked_still_streams() -> None:
    params = {"name": "test_tool_with_logging", "arguments": {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    async with running(build=app_factory()) as server, http(server) as client:
        response = await post(client, body, {"mcp-protocol-version": "2025-11-25"})
    messages = sse_messages(response)  # 2025: a server may log without logging/setLevel
    assert [m.get("method") for m in messages] == ["notifications/message"] * 3 + [None]


async def test_a_notification_the_connection_cannot_carry_gives_the_request_up() -> None:
    class Failing:
        aborted: str | None = None

        async def start(self, status: int, headers: list[tuple[str, str]]) -> None:
            raise anyio.BrokenResourceError

        def abort(self, reason: str) -> None:
            self.aborted = reason
            scope.cancel()

    exchange = Failing()
    peer = HttpPeer(exchange)  # type: ignore[arg-type]
    with anyio.CancelScope() as scope:
        await peer.notify("notifications/progress", {"progress": 1})
        pytest.fail("the handler went on after its connection failed")
    assert scope.cancelled_caught and exchange.aborted == SEND_FAILED
    assert not peer.streaming
