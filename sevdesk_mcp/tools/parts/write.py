"""Toolset ``parts``, tier ``write``: create and update articles (ADR 0003 write flow).

Both tools run on :func:`~sevdesk_mcp.tools.write_flow.define_write_tool`; the logic is in
:mod:`sevdesk_mcp.domain.parts.writes`. The tax rate is an enum of 0, 7 and 19, so any other
rate is refused by the schema before a request is made; prices are decimal strings.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.parts import writes as domain
from sevdesk_mcp.domain.parts.writes import PartPlan, PartWritten, TaxRate
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.errors import NotFoundError, ToolInputError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.vocabulary import WRITE_ANNOTATIONS, DryRun, SevdeskId, stripped
from sevdesk_mcp.tools.write_flow import define_write_tool, plan_only

PartName = Annotated[str, msgspec.Meta(max_length=200)]
Rate = Annotated[TaxRate, msgspec.Meta(description="VAT rate in percent")]
NetPrice = Annotated[Decimal, msgspec.Meta(description="Net, EUR")]
Stock = Decimal


class CreatePartInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_create_part``."""

    name: PartName
    part_number: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=60,
                description="Unique; omit for the next free one",
            ),
        ]
        | None
    ) = None
    tax_rate: Rate
    net_price: NetPrice
    unit_id: Annotated[
        int, msgspec.Meta(ge=1, le=10**6, description="Unit id (1 is Stk, piece)")
    ] = 1
    stock: Stock = Decimal(0)
    text: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    dryRun: DryRun = False


class UpdatePartInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_update_part``; omitted fields stay as they are."""

    part_id: Annotated[
        SevdeskId,
        msgspec.Meta(description="The article's sevDesk id (not the article number)"),
    ]
    name: PartName | None = None
    net_price: NetPrice | None = None
    tax_rate: Rate | None = None
    stock: Stock | None = None
    active: Annotated[bool, msgspec.Meta(description="false deactivates the article")] | None = None
    dryRun: DryRun = False


async def _prepare_create(args: CreatePartInput, client: SevdeskPort) -> Prepared[PartPlan]:
    name = stripped(args.name, "name")
    if not name:
        raise ToolInputError("An article needs name.")
    new = domain.NewPart(
        name=name,
        part_number=stripped(args.part_number, "part_number"),
        unit_id=args.unit_id,
        tax_rate=args.tax_rate,
        net_price=args.net_price,
        stock=args.stock,
        text=stripped(args.text, "text"),
    )
    return await domain.prepare_create(client, new)


async def _prepare_update(args: UpdatePartInput, client: SevdeskPort) -> Prepared[PartPlan]:
    changes = domain.PartChanges(
        part_id=args.part_id,
        name=stripped(args.name, "name"),
        net_price=args.net_price,
        tax_rate=args.tax_rate,
        stock=args.stock,
        active=args.active,
    )
    if changes == domain.PartChanges(part_id=args.part_id):
        raise ToolInputError("Give at least one field to change besides part_id.")
    try:
        return await domain.prepare_update(client, changes)
    except NotFoundError:  # the only record prepare_update reads is the article
        raise PreconditionError(
            f"There is no article {args.part_id}. part_id is the sevDesk id of the article, not "
            "its article number; sevdesk_search_parts finds an article by name or article "
            "number and gives its id.",
            record=f"article {args.part_id}",
            field="part_id",
        ) from None


CREATE_PART = define_write_tool(
    name="sevdesk_create_part",
    title="Create an article",
    description=(
        "Creates an article (part), gross price computed. Without part_number it takes the next "
        "free number; refuses an existing one."
    ),
    toolset="parts",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=CreatePartInput,
    output=PartWritten,
    prepare=_prepare_create,
    execute=plan_only(domain.execute_create),
    locks=lambda a: ("numbers/part",),
)

UPDATE_PART = define_write_tool(
    name="sevdesk_update_part",
    title="Update an article",
    description=(
        "Changes an article's name, net price, VAT rate, stock or active state; the gross price "
        "follows."
    ),
    toolset="parts",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=UpdatePartInput,
    output=PartWritten,
    prepare=_prepare_update,
    execute=plan_only(domain.execute_update),
    locks=lambda a: (f"part/{a.part_id}",),
)

TOOLS = (CREATE_PART, UPDATE_PART)
