"""The stdio transport and the JSON-RPC robustness rules (threat list J01-J07, J10-J12)."""

from __future__ import annotations

import json

import anyio
import pytest

from sevdesk_mcp.mcp import stdio
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.types import JsonObject, ToolResult
from tests.fixture_app import FixtureTools, fixture_app
from tests.wire import HANG_GUARD_S, meta, open_wire

pytestmark = pytest.mark.anyio

PING_OK = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}}
LONG_GRACE_S = 10 * HANG_GUARD_S  # a grace no call here outlives


class GatedTools(FixtureTools):
    """``slow`` runs until the test opens ``gate``: nothing depends on how long it takes."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = anyio.Event()

    async def _slow(self, arguments: JsonObject, ctx: RequestContext) -> ToolResult:
        self.started.set()
        await self.gate.wait()
        return ToolResult(content=[{"type": "text", "text": "slept"}])


async def _still_serves(wire) -> None:  # type: ignore[no-untyped-def]
    answer = await wire.modern("tools/list")
    assert "result" in answer


@pytest.mark.threat("J01")
@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":1',
        b"\xef\xbb\xbf{}",
        b'{"id":"\xff"}',
        b'"\\ud800"',
        b"NaN",
        b'{"jsonrpc":"2.0"} trailing',
        b"1e400",
    ],
)
async def test_malformed_json_is_32700_with_null_id_and_the_stream_survives(line: bytes) -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(line + b"\n")
        answer = await wire.recv()
        await _still_serves(wire)
    assert answer["id"] is None
    assert answer["error"]["code"] == -32700


@pytest.mark.threat("J02")
async def test_deep_nesting_is_a_parse_error_not_a_crash() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(b"[" * 200_000 + b"]" * 200_000 + b"\n")
        first = await wire.recv()
        await wire.send_raw(
            b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":'
            + b"[" * 5000
            + b"]" * 5000
            + b"}}\n"
        )
        second = await wire.recv()
        await _still_serves(wire)
    assert first["error"]["code"] in (-32700, -32600)
    assert second["error"]["code"] in (-32700, -32602)


@pytest.mark.threat("J03")
@pytest.mark.parametrize(
    ("message", "echoed"),
    [
        ({"jsonrpc": "1.0", "id": 3, "method": "tools/list"}, 3),
        ({"id": 3, "method": "tools/list"}, 3),
        ({"jsonrpc": "2.0", "id": 3, "method": 7}, 3),
        ({"jsonrpc": "2.0", "id": 3, "method": ""}, 3),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": [1]}, 3),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "result": {}}, 3),
        ({"jsonrpc": "2.0", "id": 3}, 3),
        ({"jsonrpc": "2.0", "id": True, "method": "tools/list"}, None),
        ({"jsonrpc": "2.0", "id": None, "method": "tools/list"}, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}, None),
        ({"jsonrpc": "2.0", "id": 10**30, "method": "tools/list"}, None),
        ({"jsonrpc": "2.0", "id": 2**53, "method": "tools/list"}, None),
        ({"jsonrpc": "2.0", "id": "x" * 129, "method": "tools/list"}, None),
        ({"jsonrpc": "2.0", "id": [1], "method": "tools/list"}, None),
        ("just a string", None),
    ],
)
async def test_wrong_envelopes_are_32600_echoing_only_valid_ids(
    message: object, echoed: object
) -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(json.dumps(message).encode() + b"\n")
        answer = await wire.recv()
        await _still_serves(wire)
    assert answer["error"]["code"] == -32600
    assert answer["id"] == echoed


@pytest.mark.threat("J05")
async def test_ids_at_the_limits_are_echoed_exactly() -> None:
    async with open_wire(fixture_app()) as wire:
        for request_id in (2**53 - 1, -(2**53 - 1), "x" * 128, 0, ""):
            answer = await wire.request("tools/list", {"_meta": meta()}, id=request_id)
            assert answer["id"] == request_id and "result" in answer


@pytest.mark.threat("J04")
@pytest.mark.parametrize("batch", [b"[]", b"[" + json.dumps(PING_OK).encode() + b"]"])
async def test_batches_are_refused_whole(batch: bytes) -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(batch + b"\n")
        answer = await wire.recv()
        assert await wire.nothing_within(0.1)
    assert answer == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": answer["error"]["message"]},
    }
    assert "Batches" in answer["error"]["message"]


@pytest.mark.threat("J06")
@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}',
    ],
)
async def test_duplicate_envelope_keys_are_refused(raw: bytes) -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(raw + b"\n")
        answer = await wire.recv()
    assert answer["error"]["code"] == -32600
    assert answer["id"] is None


async def test_repeated_keys_inside_nested_objects_are_not_envelope_duplicates() -> None:
    params = {"name": "echo", "arguments": {"text": "ok", "id": 1}, "_meta": meta()}
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(line.encode() + b"\n")
        answer = await wire.recv()
    assert answer["result"]["content"][0]["text"] == "ok"


@pytest.mark.threat("J10")
async def test_notifications_are_never_answered() -> None:
    async with open_wire(fixture_app()) as wire:
        for method in ("notifications/initialized", "notifications/unknown", "tools/call"):
            await wire.send({"jsonrpc": "2.0", "method": method, "params": {"name": "boom"}})
        await wire.send(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}}
        )
        assert await wire.nothing_within(0.2)
        await _still_serves(wire)


@pytest.mark.threat("J12")
@pytest.mark.parametrize("request_id", [999, [1], {"a": 1}, None, True])
async def test_cancellations_of_unknown_or_malformed_ids_are_ignored(request_id: object) -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": request_id},
            }
        )
        assert await wire.nothing_within(0.05)
        await _still_serves(wire)


@pytest.mark.threat("J10")
async def test_responses_to_unknown_ids_are_ignored() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send({"jsonrpc": "2.0", "id": "srv-77", "result": {}})
        await wire.send({"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "x"}})
        assert await wire.nothing_within(0.1)
        await _still_serves(wire)


@pytest.mark.threat("J11")
async def test_an_unexpected_exception_is_32603_with_a_reference_and_no_detail(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from sevdesk_mcp.mcp.app import McpApp

    class Broken(FixtureTools):
        def list_tools(self, ctx):  # type: ignore[no-untyped-def]
            raise RuntimeError("secret-detail")

    app = fixture_app()
    app = McpApp(**{**{f: getattr(app, f) for f in app.__struct_fields__}, "tools": Broken()})
    async with open_wire(app) as wire:
        answer = await wire.modern("tools/list")
        boom = await wire.modern("tools/call", {"name": "boom"})
    assert answer["error"]["code"] == -32603
    assert "reference" in answer["error"]["message"]
    assert "secret" not in json.dumps(answer)
    assert boom["error"]["code"] == -32603
    assert "secret" not in json.dumps(boom)
    assert "reference" in caplog.text


@pytest.mark.threat("J12")
async def test_cancelled_notification_cancels_the_call_and_suppresses_its_answer() -> None:
    tools = FixtureTools()
    async with open_wire(fixture_app(tools=tools)) as wire:
        await wire.send(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "slow", "_meta": meta()},
            }
        )
        with anyio.fail_after(60):  # a hang guard only
            await tools.started.wait()
        await wire.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 7, "reason": "user"},
            }
        )
        assert await wire.nothing_within(0.2)
        await _still_serves(wire)
    assert tools.cancelled


@pytest.mark.threat("J05")
async def test_an_id_already_in_flight_is_refused() -> None:
    tools = GatedTools()
    async with open_wire(fixture_app(tools=tools)) as wire:
        slow = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "slow", "_meta": meta()},
        }
        await wire.send(slow)
        with anyio.fail_after(HANG_GUARD_S):
            await tools.started.wait()
        await wire.send(slow)
        refused = await wire.recv()
        tools.gate.set()  # the first call still runs: only now does it finish
        finished = await wire.recv()
    assert refused["error"]["code"] == -32600 and "in flight" in refused["error"]["message"]
    assert finished["id"] == 7 and finished["result"]["content"][0]["text"] == "slept"


async def test_progress_notifications_increase_and_precede_the_answer() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "progress", "_meta": meta(extra={"progressToken": "tok"})},
            }
        )
        frames = [await wire.recv() for _ in range(4)]
        await wire.send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "progress", "_meta": meta()},
            }
        )
        silent = await wire.recv()
    progress = [f["params"]["progress"] for f in frames[:3]]
    assert progress == [1, 2, 3]
    assert all(f["params"]["progressToken"] == "tok" for f in frames[:3])
    assert frames[0]["params"]["total"] == 3 and frames[0]["params"]["message"] == "step 1"
    assert frames[3]["id"] == 3
    assert silent["id"] == 4


async def test_blank_lines_are_skipped_and_crlf_is_tolerated() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(b"\n  \n" + json.dumps(PING_OK).encode() + b"\r\n")
        answer = await wire.recv()
    assert answer["id"] == 1 and "result" in answer


async def test_a_frame_over_the_cap_is_refused_and_the_next_frame_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stdio, "MAX_FRAME_BYTES", 1000)
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(b"x" * 1500)
        await wire.send_raw(b"y" * 1500 + b"\n")
        too_big = await wire.recv()
        await wire.send_raw(b'{"a":"' + b"z" * 1200 + b'"}\n')
        too_big_whole = await wire.recv()
        await _still_serves(wire)
    assert too_big["error"]["code"] == -32700 and "too large" in too_big["error"]["message"]
    assert too_big_whole["error"]["code"] == -32700


async def test_a_final_line_without_newline_is_served_at_eof() -> None:
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(json.dumps(PING_OK).encode())
        await wire.close()
        answer = await wire.recv()
    assert answer["id"] == 1


async def test_eof_lets_running_calls_finish_within_the_grace_period(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A grace past the guard: the call ends well within it however slow the machine, and the
    # server must stop once it has answered (not at the grace's end).
    monkeypatch.setattr(stdio, "EOF_GRACE_S", LONG_GRACE_S)
    with anyio.fail_after(HANG_GUARD_S):
        async with open_wire(fixture_app()) as wire:
            await wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "slow", "arguments": {"seconds": 0.2}, "_meta": meta()},
                }
            )
            await wire.close()
            answer = await wire.recv()
    assert answer["result"]["content"][0]["text"] == "slept"


async def test_eof_cancels_calls_that_outlive_the_grace_period(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stdio, "EOF_GRACE_S", 0.1)
    tools = FixtureTools()
    with anyio.fail_after(60):  # a hang guard only
        async with open_wire(fixture_app(tools=tools)) as wire:
            await wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "slow", "_meta": meta()},
                }
            )
            await tools.started.wait()
            await wire.close()
    assert tools.cancelled
