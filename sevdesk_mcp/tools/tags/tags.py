"""Toolset ``tags``: list tags (read) and add or remove one on a document or receipt (write).

Two tools instead of four: one read (all tags, one tag's objects, one object's tags) and one
write with ``action``. The logic is in :mod:`sevdesk_mcp.domain.tags`.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.tags import read as tags
from sevdesk_mcp.domain.tags import writes
from sevdesk_mcp.domain.tags.objects import Kind, Target
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import (
    DELETE_ANNOTATIONS,
    READ_ANNOTATIONS,
    DryRun,
    SevdeskId,
    stripped,
)
from sevdesk_mcp.tools.write_flow import define_write_tool, plan_only

ObjectKind = Annotated[Kind, msgspec.Meta(description="voucher: a receipt")]
ObjectId = Annotated[SevdeskId, msgspec.Meta(description="Its sevDesk id (not its number)")]


class ListTagsInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_list_tags``."""

    tag_id: Annotated[SevdeskId, msgspec.Meta(description="List this tag's objects")] | None = None
    object: (
        Annotated[Kind, msgspec.Meta(description="With object_id: only the tags on it")] | None
    ) = None
    object_id: ObjectId | None = None


class TagInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_tag``."""

    action: Annotated[writes.TagAction, msgspec.Meta(description="add or remove")]
    tag: Annotated[str, msgspec.Meta(min_length=1, max_length=100, description="The tag's name")]
    object: ObjectKind
    object_id: ObjectId
    dryRun: DryRun = False


async def _list(args: ListTagsInput, ctx: ToolContext) -> tags.TagList:
    if (args.object is None) != (args.object_id is None):
        raise ToolInputError("Give object and object_id together (or neither).")
    if args.object is not None and args.tag_id is not None:
        raise ToolInputError("Give tag_id or object with object_id, not both.")
    target = None
    if args.object is not None and args.object_id is not None:
        target = Target(args.object, args.object_id, None)
    client = ctx.account.require_client()
    return await tags.list_tags(client, tag_id=args.tag_id, target=target)


async def _prepare(args: TagInput, client: SevdeskPort) -> Prepared[writes.TagPlan]:
    name = stripped(args.tag, "tag") or ""  # never blank: ``stripped`` refuses that
    return await writes.prepare_tag(client, args.action, name, args.object, args.object_id)


LIST_TAGS = define_tool(
    name="sevdesk_list_tags",
    title="List tags",
    description=(
        "Lists the tags with how many objects of each kind carry them; with tag_id that tag's "
        "objects, with object and object_id the tags on that object."
    ),
    toolset="tags",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=ListTagsInput,
    output=tags.TagList,
    handler=_list,
)

TAG = define_write_tool(
    name="sevdesk_tag",
    title="Add or remove a tag",
    description=(
        "Adds a tag (created if new) to an invoice, credit note, order or receipt, or removes it."
        " No contacts; remove works only on a tag's last object (the tag goes), else it is "
        "refused."
    ),
    toolset="tags",
    tier=Tier.WRITE,
    annotations=DELETE_ANNOTATIONS,
    input=TagInput,
    output=writes.TagWritten,
    prepare=_prepare,
    execute=plan_only(writes.execute_tag),
    locks=lambda a: ("tags",),
)

TOOLS = (LIST_TAGS, TAG)
