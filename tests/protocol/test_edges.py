"""Edges of the core: servers without some providers, odd responses, codec corner cases."""

from __future__ import annotations

from typing import Annotated

import msgspec
import pytest

from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.mrtr import parse_elicit_result
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.mcp.stdio import StdioPeer
from sevdesk_mcp.mcp.types import Implementation
from sevdesk_mcp.tools.schema import input_schema
from tests.wire import open_wire

pytestmark = pytest.mark.anyio


def bare_app() -> McpApp:
    return McpApp(info=Implementation(name="bare", version="0"), codec=RequestStateCodec())


@pytest.mark.parametrize(
    "method",
    [
        "tools/list",
        "tools/call",
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "completion/complete",
    ],
)
async def test_methods_of_undeclared_capabilities_are_32601_in_both_eras(method: str) -> None:
    async with open_wire(bare_app()) as wire:
        discover = (await wire.modern("server/discover"))["result"]
        modern = await wire.modern(method, {"name": "x", "uri": "x"})
        await wire.initialize()
        legacy = await wire.request(method, {"name": "x", "uri": "x"})
    assert discover["capabilities"] == {}
    assert "instructions" not in discover
    assert modern["error"]["code"] == -32601
    assert legacy["error"]["code"] == -32601


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "result": 5},
        {"jsonrpc": "2.0", "id": 1, "error": "bad"},
        {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}},
        {"jsonrpc": "2.0", "result": {}},
    ],
)
def test_malformed_responses_are_invalid(message: dict) -> None:
    decoded = jsonrpc.decode(msgspec.json.encode(message))
    assert isinstance(decoded, jsonrpc.Rejected)
    assert decoded.answer["error"]["code"] == -32600  # type: ignore[index, call-overload]


def test_duplicate_keys_too_deep_to_check_are_refused() -> None:
    raw = (
        b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"id":' + b"[" * 3000 + b"]" * 3000 + b"}}"
    )
    decoded = jsonrpc.decode(raw)
    assert isinstance(decoded, jsonrpc.Rejected)


@pytest.mark.parametrize("value", [None, "accept", {"action": "accept", "content": "x"}])
def test_non_object_elicit_results_are_not_answers(value: object) -> None:
    assert parse_elicit_result(value) is None  # type: ignore[arg-type]


async def test_requests_after_close_fail_at_once() -> None:
    sent: list[object] = []

    async def send(message: object) -> None:
        sent.append(message)

    peer = StdioPeer(send)
    peer.close()
    assert not peer.can_request
    with pytest.raises(Exception, match="closed"):
        await peer.request("elicitation/create", {}, 1.0)
    assert sent == []


class Patterned(msgspec.Struct, forbid_unknown_fields=True):
    code: Annotated[str, msgspec.Meta(min_length=2, max_length=4, pattern="^[A-Z]+$")]
    codes: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=4)]], msgspec.Meta(min_length=1, max_length=2)
    ]


def test_string_and_list_bounds_reach_the_schema() -> None:
    props = input_schema(Patterned)["properties"]
    assert props == {
        "code": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$"},
        "codes": {
            "type": "array",
            "items": {"type": "string", "maxLength": 4},
            "minItems": 1,
            "maxItems": 2,
        },
    }
