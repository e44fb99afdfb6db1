"""The tools of the conformance fixture server (names and texts as the scenarios check them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from sevdesk_mcp.errors import INVALID_PARAMS, MISSING_CLIENT_CAPABILITY, ProtocolError
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.types import ClientRequest, InputRequired, JsonObject, ToolResult
from tests.http.conformance.content import WAV_B64, form, image, text

Outcome = ToolResult | InputRequired
Handler = Callable[[JsonObject, RequestContext], Awaitable[Outcome]]
STRING: JsonObject = {"type": "string"}
NAME_FORM = form("What is your name?", {"name": STRING}, ["name"])
SAMPLING = ClientRequest(
    "sampling/createMessage",
    {
        "messages": [{"role": "user", "content": text("What is the capital of France?")}],
        "maxTokens": 100,
    },
)
GREETING = ClientRequest(
    "sampling/createMessage",
    {"messages": [{"role": "user", "content": text("Generate a greeting")}], "maxTokens": 50},
)
ROOTS = ClientRequest("roots/list", {})


def _done(*blocks: JsonObject, error: bool = False) -> ToolResult:
    return ToolResult(content=list(blocks), is_error=error)


def _accepted(ctx: RequestContext, key: str) -> dict[str, Any] | None:
    answer = (ctx.input_responses or {}).get(key)
    return answer.content if answer is not None and answer.action == "accept" else None


def _sampled_text(ctx: RequestContext, key: str) -> str | None:
    result = (ctx.input_results or {}).get(key)
    content = result.get("content") if result else None
    return str(content.get("text")) if isinstance(content, dict) else None


async def simple_text(args: JsonObject, ctx: RequestContext) -> Outcome:
    return _done(text("This is a simple text response for testing."))


async def image_content(args: JsonObject, ctx: RequestContext) -> Outcome:
    return _done(image())


async def audio_content(args: JsonObject, ctx: RequestContext) -> Outcome:
    return _done({"type": "audio", "data": WAV_B64, "mimeType": "audio/wav"})


async def embedded_resource(args: JsonObject, ctx: RequestContext) -> Outcome:
    resource: JsonObject = {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    }
    return _done({"type": "resource", "resource": resource})


async def multiple_content_types(args: JsonObject, ctx: RequestContext) -> Outcome:
    resource: JsonObject = {
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": '{"test":"data","value":123}',
    }
    return _done(
        text("Multiple content types test:"), image(), {"type": "resource", "resource": resource}
    )


async def error_handling(args: JsonObject, ctx: RequestContext) -> Outcome:
    return _done(text("This tool intentionally returns an error for testing"), error=True)


async def tool_with_progress(args: JsonObject, ctx: RequestContext) -> Outcome:
    for step in (0, 50, 100):
        await ctx.report_progress(step, total=100)
        await anyio.sleep(0.05)
    return _done(text("Progress complete"))


async def tool_with_logging(args: JsonObject, ctx: RequestContext) -> Outcome:
    for message in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        if ctx.era == "legacy":  # 2025: a server may log unasked (logging/setLevel only filters)
            await ctx.peer.notify("notifications/message", {"level": "info", "data": message})
        else:
            await ctx.log("info", message)
        await anyio.sleep(0.05)
    return _done(text("Logging complete"))


async def logging_tool(args: JsonObject, ctx: RequestContext) -> Outcome:
    await ctx.log("info", "logged only if the request asked for a log level")
    return _done(text("logged"))


async def missing_capability(args: JsonObject, ctx: RequestContext) -> Outcome:
    if not ctx.declares("sampling"):
        raise ProtocolError(
            MISSING_CLIENT_CAPABILITY,
            "This tool needs sampling, which the client did not declare",
            {"requiredCapabilities": {"sampling": {}}},
        )
    return _done(text("sampling is available"))


async def ask_name(args: JsonObject, ctx: RequestContext) -> Outcome:
    """``test_input_required_result_elicitation`` and ``test_streaming_elicitation``."""
    content = _accepted(ctx, "user_name")
    if content is None or not isinstance(content.get("name"), str):
        return InputRequired({"user_name": NAME_FORM})
    return _done(text(f"Hello, {content['name']}!"))


async def ask_sampling(args: JsonObject, ctx: RequestContext) -> Outcome:
    answer = _sampled_text(ctx, "capital_question")
    if answer is None:
        return InputRequired({}, client_requests={"capital_question": SAMPLING})
    return _done(text(f"The model said: {answer}"))


async def ask_roots(args: JsonObject, ctx: RequestContext) -> Outcome:
    result = (ctx.input_results or {}).get("client_roots")
    roots = result.get("roots") if result else None
    if not isinstance(roots, list):
        return InputRequired({}, client_requests={"client_roots": ROOTS})
    uris = [str(r.get("uri")) for r in roots if isinstance(r, dict)]
    return _done(text(f"Roots: {', '.join(uris)}"))


async def ask_with_state(args: JsonObject, ctx: RequestContext) -> Outcome:
    confirm = form("Please confirm", {"ok": {"type": "boolean"}}, ["ok"])
    content = _accepted(ctx, "confirm")
    if content is None or ctx.request_state != {"issued": "round-1"}:
        return InputRequired({"confirm": confirm}, state={"issued": "round-1"})
    return _done(text(f"state-ok: confirmed={content.get('ok')}"))


async def ask_many(args: JsonObject, ctx: RequestContext) -> Outcome:
    name, greeting = _accepted(ctx, "user_name"), _sampled_text(ctx, "greeting")
    roots = (ctx.input_results or {}).get("client_roots")
    if name is None or greeting is None or roots is None or ctx.request_state != "many":
        requests = {"greeting": GREETING, "client_roots": ROOTS}
        return InputRequired({"user_name": NAME_FORM}, state="many", client_requests=requests)
    return _done(text(f"{greeting} {name.get('name')}, roots: {roots.get('roots')}"))


async def multi_round(args: JsonObject, ctx: RequestContext) -> Outcome:
    state = ctx.request_state if isinstance(ctx.request_state, dict) else {}
    step1 = form("Step 1: What is your name?", {"name": STRING}, ["name"])
    step2 = form("Step 2: What is your favorite color?", {"color": STRING}, ["color"])
    if state.get("step") == 2 and (color := _accepted(ctx, "step2")) is not None:
        return _done(text(f"{state.get('name')} likes {color.get('color')}"))
    if state.get("step") == 1 and (name := _accepted(ctx, "step1")) is not None:
        return InputRequired({"step2": step2}, state={"step": 2, "name": name.get("name")})
    return InputRequired({"step1": step1}, state={"step": 1})


async def capabilities(args: JsonObject, ctx: RequestContext) -> Outcome:
    forms = {"user_name": NAME_FORM} if ctx.can_elicit_form() else {}
    others = {"client_roots": ROOTS} if ctx.declares("roots") else {}
    if ctx.declares("sampling"):
        others["capital_question"] = SAMPLING
    if ctx.input_responses is not None or ctx.input_results is not None:
        return _done(text("thanks"))
    if not forms and not others:
        return _done(text("the client declared nothing to ask with"))
    return InputRequired(forms, state="caps", client_requests=others)


async def legacy_elicitation(args: JsonObject, ctx: RequestContext) -> Outcome:
    """``test_elicitation`` (2025 era): username and email."""
    schema: dict[str, Any] = {"username": STRING, "email": {"type": "string", "format": "email"}}
    message = str(args.get("message", "Please provide your details"))
    content = _accepted(ctx, "details")
    answer = (ctx.input_responses or {}).get("details")
    if answer is None:
        return InputRequired({"details": form(message, schema, ["username", "email"])})
    return _done(text(f"User response: action={answer.action}, content={content or {}}"))


async def legacy_sampling(args: JsonObject, ctx: RequestContext) -> Outcome:
    """``test_sampling`` (2025 era)."""
    answer = _sampled_text(ctx, "llm")
    if answer is None:
        prompt = str(args.get("prompt", ""))
        request = ClientRequest(
            "sampling/createMessage",
            {"messages": [{"role": "user", "content": text(prompt)}], "maxTokens": 100},
        )
        return InputRequired({}, client_requests={"llm": request})
    return _done(text(f"LLM response: {answer}"))


SEP1034: dict[str, Any] = {
    "name": {"type": "string", "description": "User name", "default": "John Doe"},
    "age": {"type": "integer", "description": "User age", "default": 30},
    "score": {"type": "number", "description": "User score", "default": 95.5},
    "status": {
        "type": "string",
        "description": "User status",
        "enum": ["active", "inactive", "pending"],
        "default": "active",
    },
    "verified": {"type": "boolean", "description": "Verification status", "default": True},
}
_CHOICES = ["option1", "option2", "option3"]
SEP1330: dict[str, Any] = {
    "untitledSingle": {"type": "string", "enum": _CHOICES},
    "titledSingle": {
        "type": "string",
        "oneOf": [
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"},
        ],
    },
    "legacyEnum": {
        "type": "string",
        "enum": ["opt1", "opt2", "opt3"],
        "enumNames": ["Option One", "Option Two", "Option Three"],
    },
    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": _CHOICES}},
    "titledMulti": {
        "type": "array",
        "items": {
            "anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"},
            ]
        },
    },
}


def _schema_elicitation(message: str, properties: dict[str, Any]) -> Handler:
    """:returns: a 2025-era tool that asks one form and reports the answer (SEP-1034, 1330)."""

    async def ask(args: JsonObject, ctx: RequestContext) -> Outcome:
        answer = (ctx.input_responses or {}).get("form")
        if answer is None:
            return InputRequired({"form": form(message, properties, [])})
        return _done(
            text(f"Elicitation completed: action={answer.action}, content={answer.content}")
        )

    return ask


HANDLERS: dict[str, Handler] = {
    "test_simple_text": simple_text,
    "test_image_content": image_content,
    "test_audio_content": audio_content,
    "test_embedded_resource": embedded_resource,
    "test_multiple_content_types": multiple_content_types,
    "test_error_handling": error_handling,
    "test_tool_with_progress": tool_with_progress,
    "test_tool_with_logging": tool_with_logging,
    "test_logging_tool": logging_tool,
    "test_missing_capability": missing_capability,
    "test_streaming_elicitation": ask_name,
    "test_input_required_result_elicitation": ask_name,
    "test_input_required_result_sampling": ask_sampling,
    "test_input_required_result_list_roots": ask_roots,
    "test_input_required_result_request_state": ask_with_state,
    "test_input_required_result_multiple_inputs": ask_many,
    "test_input_required_result_multi_round": multi_round,
    "test_input_required_result_tampered_state": ask_with_state,
    "test_input_required_result_capabilities": capabilities,
    "test_elicitation": legacy_elicitation,
    "test_sampling": legacy_sampling,
    "test_elicitation_sep1034_defaults": _schema_elicitation(
        "Test client default value handling - please accept with defaults", SEP1034
    ),
    "test_elicitation_sep1330_enums": _schema_elicitation("Test enum schema variants", SEP1330),
}
_STRING_ARGS = {"test_elicitation": "message", "test_sampling": "prompt"}


def _tool(name: str) -> JsonObject:
    schema: JsonObject = {"type": "object", "properties": {}}
    if name in _STRING_ARGS:
        schema = {"type": "object", "properties": {_STRING_ARGS[name]: dict(STRING)}}
    return {"name": name, "description": f"Conformance fixture {name}", "inputSchema": schema}


class ConformanceTools:
    """Every tool a conformance scenario calls."""

    def list_tools(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return [_tool(name) for name in HANDLERS]

    async def call_tool(self, name: str, arguments: JsonObject, ctx: RequestContext) -> Outcome:
        handler = HANDLERS.get(name)
        if handler is None:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
        return await handler(arguments, ctx)
