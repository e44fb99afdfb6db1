"""Tools defined with ``define_tool`` for tests of the framework (never shipped)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

import msgspec

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.mcp.types import ElicitForm, InputRequired
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import Annotations, ToolContext, define_tool

WRITE = Annotations(read_only=False, destructive=False, idempotent=False, open_world=True)
READ = Annotations(read_only=True, destructive=False, idempotent=True, open_world=True)


class Lookup(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    query: Annotated[str, msgspec.Meta(max_length=20, description="What to look for")]
    limit: Annotated[int, msgspec.Meta(ge=1, le=50)] = 10
    kind: Literal["a", "b"] = "a"
    amount: Decimal | None = None
    tags: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=10)]], msgspec.Meta(max_length=3)
    ] = []


class Line(msgspec.Struct, frozen=True):
    label: str
    amount: Decimal


class Found(msgspec.Struct, frozen=True):
    query: str
    limit: int
    lines: list[Line]
    note: Annotated[str, msgspec.Meta(max_length=5)] = ""


class NoInput(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


async def _lookup(args: Lookup, ctx: ToolContext) -> Found:
    if args.query == "fail":
        raise ToolError("The lookup failed; try another query.")
    if args.query == "crash":
        raise KeyError("secret-internal")
    if args.query == "badout":
        return Found(query="x", limit=1, lines=[], note="far too long")
    if args.query == "wrongtype":
        return Line(label="x", amount=Decimal(1))  # type: ignore[return-value]
    return Found(
        query=args.query,
        limit=args.limit,
        lines=[Line(label=args.kind, amount=args.amount or Decimal("0.10"))],
    )


async def _ask(args: NoInput, ctx: ToolContext) -> Found | InputRequired:
    form = ElicitForm(message="ok?", requested_schema={"type": "object", "properties": {}})
    return InputRequired({"ok": form})


LOOKUP = define_tool(
    name="sevdesk_test_lookup",
    title="Test lookup",
    description="Looks things up for tests.",
    toolset="testing",
    tier=Tier.READ,
    annotations=READ,
    input=Lookup,
    output=Found,
    handler=_lookup,
)
DRAFT = define_tool(
    name="sevdesk_test_draft",
    title="Test draft",
    description="Pretends to write a draft.",
    toolset="testing",
    tier=Tier.WRITE,
    annotations=WRITE,
    input=NoInput,
    output=Found,
    handler=_ask,
)
FINALIZE = define_tool(
    name="sevdesk_test_finalize",
    title="Test finalize",
    description="Pretends to finalize.",
    toolset="testing",
    tier=Tier.COMMIT,
    annotations=WRITE,
    input=NoInput,
    output=Found,
    handler=_ask,
)
SEND = define_tool(
    name="sevdesk_test_send",
    title="Test send",
    description="Pretends to send by email.",
    toolset="other",
    tier=Tier.EXTERNAL,
    annotations=WRITE,
    input=NoInput,
    output=Found,
    handler=_ask,
)
TEST_TOOLS = (LOOKUP, DRAFT, FINALIZE, SEND)
