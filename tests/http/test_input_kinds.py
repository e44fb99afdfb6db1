"""Sampling and roots input requests (MRTR) of the conformance fixtures, in both eras.

2026-07-28 over HTTP: they go on the wire as ``inputRequests``, each only for a capability the
request declared (-32021 otherwise). 2025 over stdio: the legacy shim sends them as real requests.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.http.conformance.server import LIMITS, app_factory
from tests.http.helpers import META, http, post_modern, running
from tests.wire import Wire, open_wire

pytestmark = pytest.mark.anyio

SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}
ROOTS = {"roots": [{"uri": "file:///books", "name": "books"}]}


def with_caps(caps: dict[str, Any], **params: Any) -> dict[str, Any]:
    return {**params, "_meta": {**META, "io.modelcontextprotocol/clientCapabilities": caps}}


@pytest.mark.parametrize(
    ("tool", "caps", "required"),
    [
        ("test_input_required_result_sampling", {}, {"sampling": {}}),
        ("test_input_required_result_list_roots", {"sampling": {}}, {"roots": {}}),
        (
            "test_input_required_result_multiple_inputs",
            {"elicitation": {}},
            {"sampling": {}, "roots": {}},
        ),
        (
            "test_input_required_result_multiple_inputs",
            {"sampling": {}, "roots": {}},
            {"elicitation": {"form": {}}},
        ),
    ],
)
async def test_an_input_request_for_an_undeclared_capability_is_32021(
    tool: str, caps: dict[str, Any], required: dict[str, Any]
) -> None:
    async with running(build=app_factory(), limits=LIMITS) as server, http(server) as client:
        response = await post_modern(client, "tools/call", with_caps(caps, name=tool))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32021 and error["data"] == {"requiredCapabilities": required}


async def test_only_declared_kinds_are_requested_and_answers_arrive_raw() -> None:
    tool = "test_input_required_result_multiple_inputs"
    caps: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
    async with running(build=app_factory(), limits=LIMITS) as server, http(server) as client:
        first = (await post_modern(client, "tools/call", with_caps(caps, name=tool))).json()
        result = first["result"]
        retry = with_caps(
            caps,
            name=tool,
            requestState=result["requestState"],
            inputResponses={
                "user_name": {"action": "accept", "content": {"name": "Ada"}},
                "greeting": SAMPLED,
                "client_roots": ROOTS,
            },
        )
        second = (await post_modern(client, "tools/call", retry)).json()
    methods = {key: r["method"] for key, r in result["inputRequests"].items()}
    assert methods == {
        "user_name": "elicitation/create",
        "greeting": "sampling/createMessage",
        "client_roots": "roots/list",
    }
    assert second["result"]["content"][0]["text"].startswith("Paris Ada, roots:")


async def answer_requests(wire: Wire, call_id: int, answers: dict[str, Any]) -> dict[str, Any]:
    """Answer every server request by method until the call's own answer arrives."""
    while True:
        frame = await wire.recv()
        if frame.get("id") == call_id and "method" not in frame:
            return frame
        if frame.get("method") in answers:
            answer = answers[frame["method"]]
            await wire.send({"jsonrpc": "2.0", "id": frame["id"], **answer})


async def test_the_legacy_shim_sends_sampling_and_roots_as_real_requests() -> None:
    caps: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
    answers = {
        "elicitation/create": {"result": {"action": "accept", "content": {"name": "Ada"}}},
        "sampling/createMessage": {"result": SAMPLED},
        "roots/list": {"result": ROOTS},
    }
    async with open_wire(app_factory()()) as wire:
        await wire.initialize(caps=caps)
        params = {"name": "test_input_required_result_multiple_inputs", "arguments": {}}
        await wire.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})
        answer = await answer_requests(wire, 9, answers)
    assert answer["result"]["content"][0]["text"].startswith("Paris Ada, roots:")


@pytest.mark.parametrize(
    ("caps", "reply", "text"),
    [
        ({}, {}, "needs sampling from the client"),
        ({"sampling": {}}, {"error": {"code": -1, "message": "no"}}, "refused the request"),
    ],
)
async def test_the_legacy_shim_reports_sampling_it_cannot_get(
    caps: dict[str, Any], reply: dict[str, Any], text: str
) -> None:
    async with open_wire(app_factory()()) as wire:
        await wire.initialize(caps=caps)
        params = {"name": "test_sampling", "arguments": {"prompt": "capital?"}}
        await wire.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params})
        answer = await answer_requests(wire, 5, {"sampling/createMessage": reply})
    assert answer["result"]["isError"] is True
    assert text in answer["result"]["content"][0]["text"]
