"""Toolset ``advanced`` (off by default): ``sevdesk_api_get``, a guarded generic read for what
no task tool covers. The guards are in :mod:`sevdesk_mcp.domain.api_get`."""

from __future__ import annotations

from typing import Annotated

import msgspec

from sevdesk_mcp.domain import api_get
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS


class ApiGetInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_api_get``."""

    path: Annotated[
        str,
        msgspec.Meta(
            max_length=200,
            pattern=r"^/[A-Za-z0-9/]{1,199}$",
            description="e.g. /Contact/42 or /Invoice/7/getPositions",
        ),
    ]
    query: (
        Annotated[str, msgspec.Meta(max_length=1000, description="e.g. limit=10&offset=0&depth=1")]
        | None
    ) = None


class ApiGetResult(msgspec.Struct, frozen=True, kw_only=True):
    """sevDesk's answer, cleaned."""

    path: str
    data: Annotated[
        str, msgspec.Meta(description="The answer as JSON; sevDesk's text values fenced in ⟦ ⟧")
    ]
    objects: int
    shown: int
    note: str | None = None


async def _api_get(args: ApiGetInput, ctx: ToolContext) -> ApiGetResult:
    query = api_get.parse_query(args.query)
    refused = api_get.refusal(args.path, query)
    if refused is not None:
        raise ToolInputError(f"Refused: {refused}.")
    client = api_get.capped(ctx.account.reader())
    answer = await api_get.read(client, args.path, query)
    out = api_get.shown(answer)
    return ApiGetResult(
        path=args.path, data=out.data, objects=out.objects, shown=out.shown, note=out.note
    )


API_GET = define_tool(
    name="sevdesk_api_get",
    title="Read any sevDesk resource (generic GET)",
    description=(
        "Reads a sevDesk API path no task tool covers with a GET (e.g. /ContactCustomField). "
        "Anything that could change data or render files is refused; long output is cut "
        "(limit, offset)."
    ),
    toolset="advanced",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=ApiGetInput,
    output=ApiGetResult,
    handler=_api_get,
)

TOOLS = (API_GET,)
