"""2026-07-28 over the wire: envelope, discover, lists, errors and MRTR, bytes in and out."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.mcp.state import RequestStateCodec
from tests.fixture_app import fixture_app
from tests.wire import FORM, meta, open_wire

pytestmark = pytest.mark.anyio

SERVER_INFO = {"name": "fixture", "version": "1.0"}


async def test_discover_lists_versions_capabilities_instructions_and_cache_hints() -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.modern("server/discover")
    result = answer["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18"]
    assert result["capabilities"] == {
        "tools": {},
        "prompts": {},
        "resources": {},
        "completions": {},
    }
    assert result["instructions"] == "fixture server"
    assert result["ttlMs"] == 300_000 and result["cacheScope"] == "private"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == SERVER_INFO


@pytest.mark.parametrize(
    "bad_meta",
    [
        {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
        {
            "io.modelcontextprotocol/protocolVersion": 20260728,
            "io.modelcontextprotocol/clientCapabilities": {},
        },
        {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": [],
        },
    ],
)
async def test_malformed_envelope_is_invalid_params_with_the_id_echoed(bad_meta: dict) -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.request("server/discover", {"_meta": bad_meta}, id="x-1")
    assert answer["id"] == "x-1"
    assert answer["error"]["code"] == -32602


async def test_request_without_envelope_or_handshake_is_invalid_params() -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.request("server/discover", {})
        bare = await wire.request("tools/list")
    assert answer["error"]["code"] == -32602
    assert "initialize" in answer["error"]["message"]
    assert bare["error"]["code"] == -32602


async def test_unsupported_version_is_32022_with_supported_and_requested() -> None:
    async with open_wire(fixture_app()) as wire:
        params = {"_meta": {**meta(), "io.modelcontextprotocol/protocolVersion": "1900-01-01"}}
        answer = await wire.request("tools/list", params)
    assert answer["error"]["code"] == -32022
    assert answer["error"]["data"] == {"supported": ["2026-07-28"], "requested": "1900-01-01"}


@pytest.mark.parametrize(
    "method", ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nothing"]
)
async def test_removed_and_unknown_methods_are_32601_on_2026(method: str) -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.modern(method)
    assert answer["error"]["code"] == -32601


async def test_tools_list_is_complete_with_cache_hints_and_server_info() -> None:
    async with open_wire(fixture_app()) as wire:
        result = (await wire.modern("tools/list"))["result"]
    assert [t["name"] for t in result["tools"]][:2] == ["echo", "greet"]
    assert result["resultType"] == "complete"
    assert result["ttlMs"] == 300_000 and result["cacheScope"] == "private"
    assert "nextCursor" not in result


async def test_lists_paginate_with_opaque_cursors_until_no_next_cursor() -> None:
    async with open_wire(fixture_app(resources=5, page_size=2)) as wire:
        seen: list[str] = []
        cursor = None
        for _ in range(5):
            params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
            result = (await wire.modern("resources/list", params))["result"]
            seen += [r["uri"] for r in result["resources"]]
            assert result["ttlMs"] == 300_000
            cursor = result.get("nextCursor")
            if cursor is None:
                break
    assert seen == [f"test://r/{i}" for i in range(5)]


@pytest.mark.parametrize("cursor", ["", "nonsense", "YzE6OTk5", 7, "YzE6MA=="])
async def test_an_invalid_cursor_is_invalid_params(cursor: object) -> None:
    async with open_wire(fixture_app(page_size=1)) as wire:
        answer = await wire.modern("tools/list", {"cursor": cursor})
    assert answer["error"]["code"] == -32602


async def test_tools_call_result_carries_result_type_and_no_cache_hints() -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.modern("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    result = answer["result"]
    assert result["content"] == [{"type": "text", "text": "hi"}]
    assert result["resultType"] == "complete"
    assert "ttlMs" not in result and "cacheScope" not in result


@pytest.mark.parametrize("arguments", [None, "missing"])
async def test_missing_or_null_arguments_count_as_empty(arguments: object) -> None:
    params = {"name": "echo"} if arguments == "missing" else {"name": "echo", "arguments": None}
    async with open_wire(fixture_app()) as wire:
        answer = await wire.modern("tools/call", params)
    assert answer["result"]["content"] == [{"type": "text", "text": ""}]


@pytest.mark.parametrize(
    "params",
    [
        {"name": "echo", "arguments": [1]},
        {"name": 5},
        {"name": "unknown_tool"},
    ],
)
async def test_bad_tool_calls_are_invalid_params(params: dict) -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.modern("tools/call", params)
    assert answer["error"]["code"] == -32602


async def test_prompts_list_and_get() -> None:
    async with open_wire(fixture_app()) as wire:
        listed = (await wire.modern("prompts/list"))["result"]
        got = await wire.modern("prompts/get", {"name": "hello", "arguments": {"who": "Ada"}})
        missing = await wire.modern("prompts/get", {"name": "hello"})
        bad = await wire.modern("prompts/get", {"name": "hello", "arguments": {"who": 1}})
    assert listed["prompts"][0]["name"] == "hello" and listed["cacheScope"] == "private"
    assert got["result"]["messages"][0]["content"]["text"] == "Hello Ada"
    assert got["result"]["resultType"] == "complete"
    assert missing["error"]["code"] == -32602
    assert bad["error"]["code"] == -32602


async def test_resources_read_templates_and_not_found_with_uri() -> None:
    async with open_wire(fixture_app()) as wire:
        read = (await wire.modern("resources/read", {"uri": "test://r/1"}))["result"]
        templates = (await wire.modern("resources/templates/list"))["result"]
        missing = await wire.modern("resources/read", {"uri": "nope://x"})
    assert read["contents"][0]["text"] == "content of test://r/1"
    assert read["ttlMs"] == 300_000 and read["cacheScope"] == "private"
    assert templates["resourceTemplates"][0]["uriTemplate"] == "test://r/{id}"
    assert missing["error"] == {
        "code": -32602,
        "message": "Resource not found",
        "data": {"uri": "nope://x"},
    }


async def test_completion_complete() -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.modern(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "hello"},
                "argument": {"name": "who", "value": "al"},
            },
        )
        bad = await wire.modern("completion/complete", {"ref": "x"})
    assert answer["result"]["completion"] == {
        "values": ["alpha", "alphabet"],
        "total": 2,
        "hasMore": False,
    }
    assert bad["error"]["code"] == -32602


async def test_log_level_in_meta_controls_log_notifications_and_bad_level_is_refused() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "log",
                    "_meta": meta(extra={"io.modelcontextprotocol/logLevel": "info"}),
                },
            }
        )
        note = await wire.recv()
        answer = await wire.recv()
        quiet = await wire.modern("tools/call", {"name": "log"})
        bad = await wire.request(
            "tools/list", {"_meta": meta(extra={"io.modelcontextprotocol/logLevel": "loud"})}
        )
    assert note == {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "warning", "data": "heard"},
    }
    assert answer["id"] == 1
    assert quiet["result"]["content"][0]["text"] == "logged"
    assert bad["error"]["code"] == -32602


# --- MRTR -------------------------------------------------------------------------------------


async def _first_leg(wire, name: str = "greet") -> dict:  # type: ignore[no-untyped-def]
    answer = await wire.modern("tools/call", {"name": name, "arguments": {}}, caps=FORM)
    return answer["result"]


async def test_input_required_carries_requests_and_sealed_state_but_no_cache_hints() -> None:
    async with open_wire(fixture_app()) as wire:
        result = await _first_leg(wire)
    assert result["resultType"] == "input_required"
    request = result["inputRequests"]["name"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form"
    assert request["params"]["message"] == "What is your name?"
    assert result["requestState"].startswith("v1.")
    assert "round" not in result["requestState"]  # sealed, not readable
    assert "ttlMs" not in result


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ({"action": "accept", "content": {"name": "Ada"}}, "Hello, Ada! state={'round': 1}"),
        ({"action": "decline"}, "greeting: decline"),
        ({"action": "cancel"}, "greeting: cancel"),
    ],
)
async def test_retry_with_answers_reaches_the_handler(response: dict, expected: str) -> None:
    async with open_wire(fixture_app()) as wire:
        first = await _first_leg(wire)
        retry = await wire.modern(
            "tools/call",
            {
                "name": "greet",
                "arguments": {},
                "inputResponses": {"name": response},
                "requestState": first["requestState"],
            },
            caps=FORM,
        )
    assert retry["result"]["content"][0]["text"] == expected
    assert retry["result"]["resultType"] == "complete"


async def test_missing_or_malformed_answers_get_a_new_input_request() -> None:
    async with open_wire(fixture_app()) as wire:
        first = await _first_leg(wire)
        for responses in (
            {},
            {"other": {"action": "accept"}},
            {"name": {"action": "maybe"}},
            {"name": {"action": "accept", "content": []}},
            "junk",
        ):
            retry = await wire.modern(
                "tools/call",
                {
                    "name": "greet",
                    "arguments": {},
                    "inputResponses": responses,
                    "requestState": first["requestState"],
                },
                caps=FORM,
            )
            assert retry["result"]["resultType"] == "input_required"


async def test_multi_round_flows_ask_again_with_new_keys() -> None:
    async with open_wire(fixture_app()) as wire:
        first = await _first_leg(wire, "two_questions")
        answer = {"action": "accept", "content": {"name": "A"}}
        second = (
            await wire.modern(
                "tools/call",
                {
                    "name": "two_questions",
                    "arguments": {},
                    "inputResponses": {"first": answer},
                    "requestState": first["requestState"],
                },
                caps=FORM,
            )
        )["result"]
        assert set(second["inputRequests"]) == {"first", "second"}
        done = (
            await wire.modern(
                "tools/call",
                {
                    "name": "two_questions",
                    "arguments": {},
                    "inputResponses": {"first": answer, "second": answer},
                    "requestState": second["requestState"],
                },
                caps=FORM,
            )
        )["result"]
    assert done["content"][0]["text"] == "{'name': 'A'} {'name': 'A'}"


@pytest.mark.parametrize("tamper", ["flip", "truncate", "prefix", "not-a-string", "huge"])
async def test_tampered_state_is_refused_with_32602(tamper: str) -> None:
    async with open_wire(fixture_app()) as wire:
        state = (await _first_leg(wire))["requestState"]
        forged: object = {
            "flip": state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1],
            "truncate": state[:20],
            "prefix": "v2." + state[3:],
            "not-a-string": 42,
            "huge": "v1." + "A" * 20_000,
        }[tamper]
        retry = await wire.modern(
            "tools/call",
            {
                "name": "greet",
                "arguments": {},
                "requestState": forged,
                "inputResponses": {"name": {"action": "accept", "content": {"name": "x"}}},
            },
            caps=FORM,
        )
    assert retry["error"] == {
        "code": -32602,
        "message": "Invalid or expired requestState",
        "data": {"reason": "invalid_request_state"},
    }


async def test_state_is_bound_to_tool_and_arguments() -> None:
    async with open_wire(fixture_app()) as wire:
        state = (await _first_leg(wire))["requestState"]
        other_args = await wire.modern(
            "tools/call", {"name": "greet", "arguments": {"x": 1}, "requestState": state}, caps=FORM
        )
        other_tool = await wire.modern(
            "tools/call",
            {"name": "two_questions", "arguments": {}, "requestState": state},
            caps=FORM,
        )
    assert other_args["error"]["code"] == -32602
    assert other_tool["error"]["code"] == -32602


async def test_expired_state_is_refused() -> None:
    now = [1_000_000.0]
    codec = RequestStateCodec(clock=lambda: now[0])
    async with open_wire(fixture_app(codec=codec)) as wire:
        state = (await _first_leg(wire))["requestState"]
        now[0] += 601
        retry = await wire.modern(
            "tools/call", {"name": "greet", "arguments": {}, "requestState": state}, caps=FORM
        )
    assert retry["error"]["code"] == -32602


async def test_state_from_another_process_key_is_refused() -> None:
    async with open_wire(fixture_app()) as one:
        state = (await _first_leg(one))["requestState"]
    async with open_wire(fixture_app()) as other:
        retry = await other.modern(
            "tools/call", {"name": "greet", "arguments": {}, "requestState": state}, caps=FORM
        )
    assert retry["error"]["code"] == -32602


async def test_answers_without_state_reach_the_handler_without_state() -> None:
    async with open_wire(fixture_app()) as wire:
        retry = await wire.modern(
            "tools/call",
            {
                "name": "greet",
                "arguments": {},
                "inputResponses": {"name": {"action": "accept", "content": {"name": "Bo"}}},
            },
            caps=FORM,
        )
    assert retry["result"]["content"][0]["text"] == "Hello, Bo! state=None"


@pytest.mark.parametrize("caps", [{}, {"elicitation": {"url": {}}}, {"sampling": {}}])
async def test_input_request_without_declared_form_elicitation_is_32021(caps: dict) -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.modern("tools/call", {"name": "greet", "arguments": {}}, caps=caps)
    assert answer["error"]["code"] == -32021
    assert answer["error"]["data"] == {"requiredCapabilities": {"elicitation": {"form": {}}}}


async def test_prompts_get_and_resources_can_ask_too() -> None:
    async with open_wire(fixture_app()) as wire:
        first = (
            await wire.modern(
                "prompts/get", {"name": "hello", "arguments": {"who": "ask"}}, caps=FORM
            )
        )["result"]
        done = (
            await wire.modern(
                "prompts/get",
                {
                    "name": "hello",
                    "arguments": {"who": "ask"},
                    "requestState": first["requestState"],
                    "inputResponses": {"name": {"action": "accept", "content": {"name": "Cy"}}},
                },
                caps=FORM,
            )
        )["result"]
    assert first["resultType"] == "input_required"
    assert done["messages"][0]["content"]["text"] == "Hello Cy"
