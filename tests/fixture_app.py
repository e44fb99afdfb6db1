"""Fixture providers registered on the protocol core for tests (never shipped in the package)."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
from msgspec.structs import replace

from sevdesk_mcp.errors import INVALID_PARAMS, ProtocolError, ResourceNotFoundError
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.mcp.types import (
    ElicitForm,
    Implementation,
    InputRequired,
    JsonObject,
    JsonValue,
    ToolResult,
)
from tests.wire import HANG_GUARD_S

HOLD_S = 1.5 * HANG_GUARD_S  # ``slow`` by default: past every guard, only a cancellation ends it

NAME_FORM = ElicitForm(
    message="What is your name?",
    requested_schema={
        "type": "object",
        "properties": {"name": {"type": "string", "maxLength": 50}},
        "required": ["name"],
    },
)


def _text(text: str) -> ToolResult:
    return ToolResult(content=[{"type": "text", "text": text}])


class FixtureTools:
    """Tools exercising every path of the core."""

    names = ("echo", "greet", "two_questions", "progress", "boom", "slow", "log", "nag")

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.cancelled = False

    def list_tools(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return [
            {"name": n, "description": f"fixture {n}", "inputSchema": {"type": "object"}}
            for n in self.names
        ]

    async def call_tool(
        self, name: str, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        if name not in self.names:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
        handler = getattr(self, f"_{name}")
        result: ToolResult | InputRequired = await handler(arguments, ctx)
        return result

    async def _echo(self, arguments: JsonObject, ctx: RequestContext) -> ToolResult:
        return _text(str(arguments.get("text", "")))

    async def _greet(
        self, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        answer = (ctx.input_responses or {}).get("name")
        if answer is None:
            return InputRequired({"name": NAME_FORM}, state={"round": 1})
        if answer.action != "accept":
            return _text(f"greeting: {answer.action}")
        return _text(f"Hello, {answer.content.get('name')}! state={ctx.request_state}")

    async def _two_questions(
        self, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        responses = ctx.input_responses or {}
        if "first" not in responses:
            return InputRequired({"first": NAME_FORM}, state="one")
        if "second" not in responses:
            merged = {"first": NAME_FORM, "second": replace(NAME_FORM, message="And again?")}
            return InputRequired(merged, state="two")
        return _text(f"{responses['first'].content} {responses['second'].content}")

    async def _nag(self, arguments: JsonObject, ctx: RequestContext) -> InputRequired:
        return InputRequired({"name": NAME_FORM})

    async def _progress(self, arguments: JsonObject, ctx: RequestContext) -> ToolResult:
        for step in (1, 2, 2, 3):
            await ctx.report_progress(step, total=3, message=f"step {step}")
        return _text("done")

    async def _boom(self, arguments: JsonObject, ctx: RequestContext) -> ToolResult:
        raise RuntimeError("secret-detail-that-must-not-leak")

    async def _slow(self, arguments: JsonObject, ctx: RequestContext) -> ToolResult:
        self.started.set()
        try:
            await anyio.sleep(float(str(arguments.get("seconds", HOLD_S))))
        except anyio.get_cancelled_exc_class():
            self.cancelled = True
            raise
        return _text("slept")

    async def _log(self, arguments: JsonObject, ctx: RequestContext) -> ToolResult:
        await ctx.log("debug", "too quiet")
        await ctx.log("warning", "heard")
        return _text("logged")


class FixturePrompts:
    def list_prompts(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return [{"name": "hello", "arguments": [{"name": "who", "required": True}]}]

    async def get_prompt(
        self, name: str, arguments: dict[str, str], ctx: RequestContext
    ) -> JsonObject | InputRequired:
        if name != "hello" or "who" not in arguments:
            raise ProtocolError(INVALID_PARAMS, "hello needs the argument who")
        if arguments["who"] == "ask":
            answer = (ctx.input_responses or {}).get("name")
            if answer is None:
                return InputRequired({"name": NAME_FORM})
            return {"messages": [_message(f"Hello {answer.content.get('name')}")]}
        return {"messages": [_message(f"Hello {arguments['who']}")]}


def _message(text: str) -> JsonObject:
    return {"role": "user", "content": {"type": "text", "text": text}}


class FixtureResources:
    def __init__(self, count: int = 3) -> None:
        self.count = count

    def list_resources(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return [
            {"uri": f"test://r/{i}", "name": f"r{i}", "description": f"resource {i}"}
            for i in range(self.count)
        ]

    def list_templates(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return [{"uriTemplate": "test://r/{id}", "name": "r", "description": "by id"}]

    async def read_resource(self, uri: str, ctx: RequestContext) -> Sequence[JsonObject]:
        if not uri.startswith("test://r/"):
            raise ResourceNotFoundError(uri)
        return [{"uri": uri, "mimeType": "text/plain", "text": f"content of {uri}"}]


class FixtureCompletions:
    async def complete(
        self, ref: JsonObject, argument: JsonObject, ctx: RequestContext
    ) -> JsonObject:
        prefix = str(argument.get("value", ""))
        values: list[JsonValue] = [v for v in ("alpha", "beta", "alphabet") if v.startswith(prefix)]
        return {"values": values, "total": len(values), "hasMore": False}


def fixture_app(
    *,
    tools: FixtureTools | None = None,
    codec: RequestStateCodec | None = None,
    resources: int = 3,
    elicitation_timeout_s: float = HANG_GUARD_S,
    page_size: int = 100,
) -> McpApp:
    """:returns: an app with every provider registered."""
    return McpApp(
        info=Implementation(name="fixture", version="1.0"),
        codec=codec or RequestStateCodec(),
        instructions="fixture server",
        tools=tools or FixtureTools(),
        prompts=FixturePrompts(),
        resources=FixtureResources(resources),
        completions=FixtureCompletions(),
        elicitation_timeout_s=elicitation_timeout_s,
        page_size=page_size,
        legacy_elicitation_hint="Use browser mode.",
    )
