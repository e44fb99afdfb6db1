"""The typed MCP envelope: ``_meta``, the 2025 handshake and the params of the MRTR methods."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec import UNSET

from sevdesk_mcp.errors import ProtocolError
from sevdesk_mcp.mcp import envelope, streamable
from sevdesk_mcp.mcp.dispatcher import Connection
from sevdesk_mcp.mcp.envelope import (
    Handshake,
    PromptGetParams,
    RequestMeta,
    ResourceReadParams,
    ToolCallParams,
)
from sevdesk_mcp.mcp.jsonrpc import Request
from sevdesk_mcp.mcp.stdio import StdioPeer
from sevdesk_mcp.mcp.types import LOG_LEVELS

VERSION = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
LEVEL = "io.modelcontextprotocol/logLevel"
MALFORMED = (
    "params._meta needs a string io.modelcontextprotocol/protocolVersion and an object "
    "io.modelcontextprotocol/clientCapabilities"
)
BAD_LEVEL = (
    "The log level must be one of: debug, info, notice, warning, error, critical, alert, emergency"
)


def meta(**extra: Any) -> dict[str, Any]:
    return {VERSION: "2026-07-28", CAPS: {"elicitation": {}}, **extra}


def refused(call: Any, *args: Any) -> tuple[int, str, Any]:
    with pytest.raises(ProtocolError) as info:
        call(*args)
    return info.value.code, info.value.message, info.value.data


class Headers(dict[str, str]):
    """Request headers for the header ladder (already lower-case)."""


async def _noop(message: Any) -> None:
    return None


PEER = StdioPeer(_noop)


# --- _meta ------------------------------------------------------------------------------------


def test_a_full_envelope_decodes_into_one_typed_value() -> None:
    raw = meta(
        **{LEVEL: "warning", "progressToken": "p-1", "io.modelcontextprotocol/clientInfo": 5}
    )
    assert envelope.decode_meta({"_meta": raw}) == RequestMeta(
        protocol_version="2026-07-28",
        client_capabilities={"elicitation": {}},
        log_level="warning",
        progress_token="p-1",
    )


@pytest.mark.parametrize(
    "params", [{}, {"_meta": None}, {"_meta": []}, {"_meta": {CAPS: {}}}, {"_meta": {}}]
)
def test_without_the_version_key_there_is_no_envelope(params: dict[str, Any]) -> None:
    assert envelope.decode_meta(params) is None


@pytest.mark.parametrize(
    "raw",
    [
        {VERSION: "2026-07-28"},
        {VERSION: None, CAPS: {}},
        {VERSION: 20260728, CAPS: {}},
        {VERSION: "2026-07-28", CAPS: []},
        {VERSION: "2026-07-28", CAPS: None},
    ],
)
def test_a_malformed_envelope_is_32602_with_one_text(raw: dict[str, Any]) -> None:
    assert refused(envelope.decode_meta, {"_meta": raw}) == (-32602, MALFORMED, None)


@pytest.mark.parametrize("level", ["loud", "", "INFO", 3, True, [], {}])
def test_an_unknown_log_level_is_32602(level: object) -> None:
    assert refused(envelope.decode_meta, {"_meta": meta(**{LEVEL: level})}) == (
        -32602,
        BAD_LEVEL,
        None,
    )


def test_a_null_log_level_means_none_and_every_known_level_is_kept() -> None:
    assert envelope.decode_meta({"_meta": meta(**{LEVEL: None})}) == RequestMeta(
        protocol_version="2026-07-28", client_capabilities={"elicitation": {}}
    )
    for level in LOG_LEVELS:
        decoded = envelope.decode_meta({"_meta": meta(**{LEVEL: level})})
        assert decoded is not None and decoded.log_level == level


def test_the_version_is_decoded_before_it_is_checked() -> None:
    decoded = envelope.decode_meta({"_meta": meta(**{VERSION: "1900-01-01"})})
    assert decoded is not None and decoded.protocol_version == "1900-01-01"
    assert refused(envelope.require_supported, decoded) == (
        -32022,
        "Unsupported protocol version",
        {"supported": ["2026-07-28"], "requested": "1900-01-01"},
    )
    # A bad log level is part of a malformed envelope: -32602 even for an unknown version.
    bad = {"_meta": meta(**{VERSION: "1900-01-01", LEVEL: "loud"})}
    assert refused(envelope.decode_meta, bad)[0] == -32602


@pytest.mark.parametrize(
    ("token", "kept"),
    [(7, 7), (0, 0), ("t", "t"), (True, None), (1.5, None), (None, None), ([1], None)],
)
def test_a_progress_token_is_kept_only_as_a_string_or_an_integer(token: Any, kept: Any) -> None:
    decoded = envelope.decode_meta({"_meta": meta(progressToken=token)})
    assert decoded is not None and decoded.progress_token == kept
    assert envelope.progress_token({"progressToken": token}) == kept


@pytest.mark.parametrize("raw", [None, "x", [], {}])
def test_no_meta_object_means_no_progress_token(raw: Any) -> None:
    assert envelope.progress_token(raw) is None


# --- the 2025 handshake -----------------------------------------------------------------------


def test_initialize_echoes_a_supported_version_and_keeps_object_capabilities() -> None:
    assert envelope.decode_initialize(
        {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}}}
    ) == Handshake("2025-06-18", {"roots": {}})
    assert envelope.decode_initialize(
        {"protocolVersion": "2026-07-28", "capabilities": []}
    ) == Handshake("2025-11-25", {})


def test_initialize_without_a_string_version_is_32602() -> None:
    assert refused(envelope.decode_initialize, {"protocolVersion": 2025}) == (
        -32602,
        "initialize needs a string protocolVersion",
        None,
    )


def test_a_transport_opens_a_legacy_connection_at_a_2025_version_only() -> None:
    conn = Connection.legacy(PEER, "2025-06-18", principal="bearer")
    assert conn.handshake == Handshake("2025-06-18", {})
    assert conn.principal == "bearer" and conn.log_level is None
    assert Connection(PEER).handshake is None
    with pytest.raises(ValueError, match="2026-07-28"):
        Connection.legacy(PEER, "2026-07-28")


# --- params of the MRTR methods ---------------------------------------------------------------


def test_tools_call_params_default_arguments_and_keep_absent_mrtr_fields_unset() -> None:
    assert envelope.decode_tool_call({"name": "echo", "arguments": None}) == ToolCallParams(
        name="echo", arguments={}
    )
    call = envelope.decode_tool_call(
        {"name": "echo", "requestState": None, "inputResponses": {"a": {"action": "cancel"}}}
    )
    assert call.arguments == {} and call.request_state is None
    assert call.input_responses == {"a": {"action": "cancel"}}
    assert envelope.decode_tool_call({"name": "echo"}).request_state is UNSET


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "The parameter 'name' must be a string"),
        ({"name": 5, "arguments": []}, "The parameter 'name' must be a string"),
        ({"name": "echo", "arguments": []}, "tools/call: arguments must be a JSON object"),
        ({"name": "echo", "arguments": "x"}, "tools/call: arguments must be a JSON object"),
    ],
)
def test_malformed_tools_call_params_are_32602(params: dict[str, Any], message: str) -> None:
    assert refused(envelope.decode_tool_call, params) == (-32602, message, None)


def test_prompts_get_params_map_names_to_strings() -> None:
    decoded = envelope.decode_prompt_get({"name": "p", "arguments": {"who": "Ada"}})
    assert decoded == PromptGetParams(name="p", arguments={"who": "Ada"})
    assert envelope.decode_prompt_get({"name": "p", "arguments": None}).arguments == {}
    assert envelope.decode_prompt_get({"name": "p", "requestState": "s"}).request_state == "s"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"arguments": {}}, "The parameter 'name' must be a string"),
        ({"name": "p", "arguments": {"n": 1}}, "prompts/get: arguments must map names to strings"),
        ({"name": "p", "arguments": ["x"]}, "prompts/get: arguments must map names to strings"),
        ({"name": "p", "arguments": ""}, "prompts/get: arguments must map names to strings"),
        ({"name": "p", "arguments": []}, "prompts/get: arguments must map names to strings"),
    ],
)
def test_malformed_prompts_get_params_are_32602(params: dict[str, Any], message: str) -> None:
    assert refused(envelope.decode_prompt_get, params) == (-32602, message, None)


def test_resources_read_params_need_a_string_uri() -> None:
    assert envelope.decode_resource_read({"uri": "test://r/0"}) == ResourceReadParams(
        uri="test://r/0"
    )
    assert refused(envelope.decode_resource_read, {"uri": None}) == (
        -32602,
        "The parameter 'uri' must be a string",
        None,
    )


# --- HTTP: the header ladder hands the decoded envelope on ------------------------------------


def test_the_header_ladder_returns_the_decoded_envelope_or_none_for_2025() -> None:
    modern = Request(1, "tools/list", {"_meta": meta()})
    headers = Headers({"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"})
    assert streamable.check_request(modern, headers) == envelope.decode_meta(modern.params)
    legacy = Request(2, "tools/list", {})
    assert streamable.check_request(legacy, Headers({"mcp-protocol-version": "2025-06-18"})) is None


@pytest.mark.parametrize(
    ("method", "header", "version"),
    [
        ("tools/list", "2025-06-18", "2025-06-18"),
        ("tools/list", None, "2025-11-25"),
        ("initialize", "2025-06-18", None),
    ],
)
def test_a_stateless_2025_request_is_served_at_its_header_version(
    method: str, header: str | None, version: str | None
) -> None:
    headers = Headers({} if header is None else {"mcp-protocol-version": header})
    conn = streamable.open_connection(Request(1, method, {}), None, headers, PEER, "bearer")
    assert conn.principal == "bearer"
    assert (conn.handshake.version if conn.handshake else None) == version


def test_a_2026_request_is_served_on_a_fresh_connection() -> None:
    headers = Headers({"mcp-protocol-version": "2025-06-18"})
    decoded = envelope.decode_meta({"_meta": meta()})
    conn = streamable.open_connection(Request(1, "tools/list", {}), decoded, headers, PEER, "x")
    assert conn.handshake is None
