"""The 2025 era over the wire: handshake, negotiation, legacy methods and the MRTR shim."""

from __future__ import annotations

import anyio
import pytest

from tests.fixture_app import fixture_app
from tests.wire import FORM, Wire, open_wire

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("requested", "answered"),
    [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("banana", "2025-11-25"),
    ],
)
async def test_initialize_echoes_a_supported_version_and_never_answers_2026(
    requested: str, answered: str
) -> None:
    async with open_wire(fixture_app()) as wire:
        answer = await wire.initialize(requested)
    result = answer["result"]
    assert result["protocolVersion"] == answered
    assert result["serverInfo"] == {"name": "fixture", "version": "1.0"}
    assert result["capabilities"]["logging"] == {}
    assert result["instructions"] == "fixture server"
    assert "resultType" not in result and "_meta" not in result


async def test_initialize_needs_a_version_and_only_happens_once() -> None:
    async with open_wire(fixture_app()) as wire:
        bad = await wire.request("initialize", {"capabilities": {}})
        await wire.initialize()
        again = await wire.request("initialize", {"protocolVersion": "2025-11-25"})
    assert bad["error"]["code"] == -32602
    assert again["error"]["code"] == -32600


async def test_legacy_results_carry_no_2026_fields() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize()
        tools = (await wire.request("tools/list"))["result"]
        call = await wire.request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
        read = (await wire.request("resources/read", {"uri": "test://r/0"}))["result"]
    for result in (tools, call["result"], read):
        assert not {"resultType", "ttlMs", "cacheScope", "_meta"} & set(result)


async def test_ping_and_set_level_work_and_unknown_methods_are_32601() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize()
        ping = await wire.request("ping")
        level = await wire.request("logging/setLevel", {"level": "warning"})
        bad_level = await wire.request("logging/setLevel", {"level": "shout"})
        unknown = await wire.request("server/discover")
        await wire.send(
            {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "log"}}
        )
        note, answer = await wire.recv(), await wire.recv()
    assert ping["result"] == {} and level["result"] == {}
    assert bad_level["error"]["code"] == -32602
    assert unknown["error"]["code"] == -32601
    assert note["params"] == {"level": "warning", "data": "heard"}
    assert answer["id"] == 9


async def test_resource_not_found_is_32002_in_the_2025_era() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize()
        answer = await wire.request("resources/read", {"uri": "nope://x"})
    assert answer["error"]["code"] == -32002
    assert answer["error"]["data"] == {"uri": "nope://x"}


async def _answer_elicitation(wire: Wire, result: dict) -> dict:
    request = await wire.recv()
    assert request["method"] == "elicitation/create"
    assert str(request["id"]).startswith("srv-")
    await wire.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    return request


@pytest.mark.parametrize(("version", "has_mode"), [("2025-11-25", True), ("2025-06-18", False)])
async def test_shim_sends_a_real_elicitation_and_reenters_the_handler(
    version: str, has_mode: bool
) -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize(version, caps={"elicitation": {}})
        await wire.send(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "greet", "arguments": {}},
            }
        )
        request = await _answer_elicitation(wire, {"action": "accept", "content": {"name": "Ada"}})
        answer = await wire.recv()
    assert ("mode" in request["params"]) is has_mode
    assert request["params"]["message"] == "What is your name?"
    assert answer["id"] == 5
    assert answer["result"]["content"][0]["text"] == "Hello, Ada! state={'round': 1}"


async def test_shim_loops_over_several_rounds() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize(caps=FORM)
        await wire.send(
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "two_questions"}}
        )
        await _answer_elicitation(wire, {"action": "accept", "content": {"name": "1"}})
        await _answer_elicitation(wire, {"action": "accept", "content": {"name": "2"}})
        await _answer_elicitation(wire, {"action": "accept", "content": {"name": "3"}})
        answer = await wire.recv()
    assert answer["result"]["content"][0]["text"] == "{'name': '2'} {'name': '3'}"


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        ({"error": {"code": -1, "message": "user closed"}}, "refused the request (user closed)"),
        ({"result": {"action": "sure"}}, "malformed result"),
    ],
)
async def test_shim_reports_error_answers_as_tool_errors(reply: dict, fragment: str) -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize(caps=FORM)
        await wire.send(
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "greet"}}
        )
        request = await wire.recv()
        await wire.send({"jsonrpc": "2.0", "id": request["id"], **reply})
        answer = await wire.recv()
    assert answer["result"]["isError"] is True
    assert fragment in answer["result"]["content"][0]["text"]
    assert (
        "Nothing was changed" in answer["result"]["content"][0]["text"]
        or "nothing" in answer["result"]["content"][0]["text"]
    )


async def test_shim_times_out_when_the_client_never_answers() -> None:
    async with open_wire(fixture_app(elicitation_timeout_s=0.2)) as wire:
        await wire.initialize(caps=FORM)
        await wire.send(
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "greet"}}
        )
        await wire.recv()  # the elicitation, never answered
        answer = await wire.recv()
        late = {"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "accept"}}
        await wire.send(late)  # a late answer is ignored
        ping = await wire.request("ping")
    assert "did not answer within 0.2 seconds" in answer["result"]["content"][0]["text"]
    assert ping["result"] == {}


async def test_shim_refuses_clients_without_elicitation_with_the_hint() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize(caps={"sampling": {}})
        answer = await wire.request("tools/call", {"name": "greet"})
        prompt = await wire.request("prompts/get", {"name": "hello", "arguments": {"who": "ask"}})
    text = answer["result"]["content"][0]["text"]
    assert answer["result"]["isError"] is True
    assert "cannot be asked" in text and "Use browser mode." in text
    assert prompt["error"]["code"] == -32603
    assert "cannot be asked" in prompt["error"]["message"]


async def test_shim_gives_up_after_the_round_limit() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize(caps=FORM)
        await wire.send(
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "nag"}}
        )
        for _ in range(8):
            await _answer_elicitation(wire, {"action": "accept", "content": {}})
        answer = await wire.recv()
    assert "8 rounds" in answer["result"]["content"][0]["text"]


async def test_eof_fails_a_pending_elicitation_at_once() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.initialize(caps=FORM)
        await wire.send(
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "greet"}}
        )
        await wire.recv()
        await wire.close()
        with anyio.fail_after(60):  # a hang guard only
            answer = await wire.recv()
    assert "connection closed" in answer["result"]["content"][0]["text"]
