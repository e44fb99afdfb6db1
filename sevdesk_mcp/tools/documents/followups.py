"""Toolset ``documents``: follow-ups of sales documents. A payment reminder (Mahnung) from an
overdue invoice and an invoice from an order, both drafts (tier ``write``, ADR 0003 write flow),
and the recurring invoices read (tier ``read``).

The logic is in :mod:`sevdesk_mcp.domain.documents.reminders`,
:mod:`sevdesk_mcp.domain.documents.from_order` and
:mod:`sevdesk_mcp.domain.documents.recurring`.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from sevdesk_mcp.domain.documents import from_order, recurring, reminders
from sevdesk_mcp.domain.documents.from_order import InvoicedOrder, OrderPlan
from sevdesk_mcp.domain.documents.recurring import RecurringList
from sevdesk_mcp.domain.documents.reminders import ReminderPlan
from sevdesk_mcp.domain.documents.writes import DocumentWritten
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, WRITE_ANNOTATIONS, DryRun, SevdeskId
from sevdesk_mcp.tools.write_flow import PrepareContext, WithContext, define_write_tool, plan_only


class ReminderInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_create_payment_reminder``."""

    invoice_id: Annotated[SevdeskId, msgspec.Meta(description="The overdue invoice")]
    dryRun: DryRun = False


class FromOrderInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_invoice_from_order``."""

    order_id: Annotated[SevdeskId, msgspec.Meta(description="The offer or order confirmation")]
    dryRun: DryRun = False


class RecurringInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_list_recurring_invoices`` (none)."""


async def _prepare_reminder(
    args: ReminderInput, client: SevdeskPort, context: PrepareContext
) -> Prepared[ReminderPlan]:
    return await reminders.prepare_reminder(client, args.invoice_id, context.today)


async def _prepare_from_order(args: FromOrderInput, client: SevdeskPort) -> Prepared[OrderPlan]:
    return await from_order.prepare_from_order(client, args.order_id)


async def _recurring(args: RecurringInput, ctx: ToolContext) -> RecurringList:
    return await recurring.list_recurring(ctx.account.require_client())


CREATE_REMINDER = define_write_tool(
    name="sevdesk_create_payment_reminder",
    title="Payment reminder (Mahnung)",
    description=(
        "Drafts a payment reminder (Mahnung, type MA) for an overdue invoice at its next dunning "
        "level; sevDesk sets fee and deadline. Then finalize and send it as any draft."
    ),
    toolset="documents",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=ReminderInput,
    output=DocumentWritten,
    prepare=WithContext(_prepare_reminder),
    execute=plan_only(reminders.execute_reminder),
    locks=lambda a: (f"invoice/{a.invoice_id}",),
)

INVOICE_FROM_ORDER = define_write_tool(
    name="sevdesk_invoice_from_order",
    title="Invoice from an order (Angebot)",
    description=(
        "Drafts an invoice from a whole offer or order confirmation, positions and link kept; "
        "sevDesk marks the order invoiced. Refuses delivery notes and invoiced orders."
    ),
    toolset="documents",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=FromOrderInput,
    output=InvoicedOrder,
    prepare=_prepare_from_order,
    execute=plan_only(from_order.execute_from_order),
    locks=lambda a: (f"order/{a.order_id}",),
)

LIST_RECURRING = define_tool(
    name="sevdesk_list_recurring_invoices",
    title="Recurring invoices (Abo-Rechnungen)",
    description=(
        "Lists recurring invoices (type WKR), which sevdesk_search_documents does not find: "
        "interval, next date, customer and the sums of the invoice each will make."
    ),
    toolset="documents",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=RecurringInput,
    output=RecurringList,
    handler=_recurring,
)

TOOLS = (CREATE_REMINDER, INVOICE_FROM_ORDER, LIST_RECURRING)
