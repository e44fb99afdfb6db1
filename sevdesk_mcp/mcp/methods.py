"""The MCP methods, era-neutral: each takes the app, the request context and the params.

Era-specific fields (``resultType``, cache hints, ``serverInfo``) are added by the dispatcher.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Final

from sevdesk_mcp.errors import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, ProtocolError
from sevdesk_mcp.mcp import envelope, mrtr
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.state import Binding, canonical_digest
from sevdesk_mcp.mcp.types import (
    SUPPORTED_VERSIONS,
    InputRequired,
    JsonObject,
    JsonValue,
    ToolResult,
)

_CURSOR_PREFIX: Final = "c1:"


async def discover(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``server/discover``: versions, capabilities, instructions."""
    result: JsonObject = {
        "supportedVersions": list(SUPPORTED_VERSIONS),
        "capabilities": app.capabilities(legacy=False),
    }
    if app.instructions:
        result["instructions"] = app.instructions
    return result


async def ping(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``ping`` (2025 era only): an empty result."""
    return {}


async def tools_list(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``tools/list``, paginated."""
    if app.tools is None:
        raise _unsupported("tools/list")
    return _page("tools", app.tools.list_tools(ctx), params, app.page_size)


async def tools_call(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``tools/call``; a handler may ask for input first (MRTR). A 2025-era client that cannot
    be asked gets an ``isError`` result saying why."""
    if app.tools is None:
        raise _unsupported("tools/call")
    tools = app.tools
    call = envelope.decode_tool_call(params)

    async def invoke(c: RequestContext) -> JsonObject | InputRequired:
        outcome = await tools.call_tool(call.name, call.arguments, c)
        return outcome.to_json() if isinstance(outcome, ToolResult) else outcome

    binding = Binding("tools/call", call.name, ctx.principal, canonical_digest(call.arguments))
    return await _interactive(app, ctx, binding, call, invoke, unavailable=_tool_error)


async def prompts_list(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``prompts/list``, paginated."""
    if app.prompts is None:
        raise _unsupported("prompts/list")
    return _page("prompts", app.prompts.list_prompts(ctx), params, app.page_size)


async def prompts_get(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``prompts/get``; may ask for input first (MRTR)."""
    if app.prompts is None:
        raise _unsupported("prompts/get")
    prompts = app.prompts
    prompt = envelope.decode_prompt_get(params)

    async def invoke(c: RequestContext) -> JsonObject | InputRequired:
        return await prompts.get_prompt(prompt.name, prompt.arguments, c)

    digest = canonical_digest(dict(prompt.arguments))
    binding = Binding("prompts/get", prompt.name, ctx.principal, digest)
    return await _interactive(app, ctx, binding, prompt, invoke)


async def resources_list(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``resources/list``, paginated."""
    if app.resources is None:
        raise _unsupported("resources/list")
    return _page("resources", app.resources.list_resources(ctx), params, app.page_size)


async def resources_templates_list(
    app: McpApp, ctx: RequestContext, params: JsonObject
) -> JsonObject:
    """``resources/templates/list``, paginated."""
    if app.resources is None:
        raise _unsupported("resources/templates/list")
    templates = app.resources.list_templates(ctx)
    return _page("resourceTemplates", templates, params, app.page_size)


async def resources_read(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``resources/read``; may ask for input first (MRTR)."""
    if app.resources is None:
        raise _unsupported("resources/read")
    resources = app.resources
    read = envelope.decode_resource_read(params)

    async def invoke(c: RequestContext) -> JsonObject | InputRequired:
        outcome = await resources.read_resource(read.uri, c)
        return outcome if isinstance(outcome, InputRequired) else {"contents": list(outcome)}

    binding = Binding("resources/read", read.uri, ctx.principal, canonical_digest({}))
    return await _interactive(app, ctx, binding, read, invoke)


async def completion_complete(app: McpApp, ctx: RequestContext, params: JsonObject) -> JsonObject:
    """``completion/complete``."""
    if app.completions is None:
        raise _unsupported("completion/complete")
    ref, argument = params.get("ref"), params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise ProtocolError(INVALID_PARAMS, "completion/complete needs ref and argument objects")
    return {"completion": await app.completions.complete(ref, argument, ctx)}


def _tool_error(exc: mrtr.InputUnavailableError) -> JsonObject:
    return ToolResult.error(str(exc)).to_json()


def _protocol_error(exc: mrtr.InputUnavailableError) -> JsonObject:
    raise ProtocolError(INTERNAL_ERROR, str(exc)) from exc


async def _interactive(  # noqa: PLR0913 - the request, its binding and what to do when stuck
    app: McpApp,
    ctx: RequestContext,
    binding: Binding,
    params: envelope.InteractiveParams,
    invoke: mrtr.Invoke[JsonObject],
    *,
    unavailable: Callable[[mrtr.InputUnavailableError], JsonObject] = _protocol_error,
) -> JsonObject:
    """Run ``invoke`` in the request's era: over the connection (2025) or as MRTR legs (2026).

    :raises ProtocolError: -32603 if a 2025-era client cannot be asked (by default).
    """
    if ctx.era == "legacy":
        try:
            return await mrtr.run_legacy(app, ctx, invoke)
        except mrtr.InputUnavailableError as exc:
            return unavailable(exc)
    return await mrtr.run_modern(app, ctx, binding, params, invoke)


def _page(key: str, items: Sequence[JsonObject], params: JsonObject, size: int) -> JsonObject:
    start = _decode_cursor(params.get("cursor"), len(items))
    result: JsonObject = {key: list(items[start : start + size])}
    if start + size < len(items):
        result["nextCursor"] = _encode_cursor(start + size)
    return result


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{offset}".encode()).decode("ascii")


def _decode_cursor(cursor: JsonValue, total: int) -> int:
    if cursor is None:
        return 0
    try:
        text = base64.urlsafe_b64decode(str(cursor).encode("ascii")).decode("ascii")
        offset = int(text.removeprefix(_CURSOR_PREFIX)) if text.startswith(_CURSOR_PREFIX) else -1
    except (binascii.Error, UnicodeError, ValueError):
        offset = -1
    if not isinstance(cursor, str) or not 0 < offset < total:
        raise ProtocolError(INVALID_PARAMS, "Invalid cursor: pass nextCursor exactly as received")
    return offset


def _unsupported(method: str) -> ProtocolError:
    return ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")
