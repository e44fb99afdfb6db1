"""Booking accounts and receipt guidance (``docs/sevdesk-api.md`` §2.1, §3.5, §3.6).

GET /AccountDatev lists only visible accounts and ignores every filter but ``limit`` and
``offset`` (Q42); by id it reaches hidden ones. ``forAccountNumber`` answers a bare object when
exactly one account matches (Q6). GET /AccountingType serves the booking accounts of bookkeeping
system 1.0 that legacy voucher positions still point at (§3.5).
"""

from __future__ import annotations

from sevdesk_mcp.fake import accounts, legacy
from sevdesk_mcp.fake.listing import list_reply, object_reply, one_reply
from sevdesk_mcp.fake.reference import tax_rule_codes
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import FakeError, not_found

router = Router()


@router.route("GET", "/AccountDatev")
def list_accounts(ctx: Context) -> Reply:
    """:returns: the visible booking accounts; filters are ignored (Q42)."""
    visible = [a for a in accounts.chart_accounts(ctx.store.chart) if not a.hidden]
    return list_reply(ctx, visible, accounts.account_wire)


@router.route("GET", "/AccountDatev/{id}")
def get_account(ctx: Context) -> Reply:
    """:returns: one booking account, hidden ones included (Q42).

    :raises FakeError: 404 code 151 for an unknown id.
    """
    ident = ctx.path_id("AccountDatev")
    account = accounts.account_by_id(ident, ctx.store.chart)
    if account is None:
        raise not_found("AccountDatev", ident)
    return one_reply(accounts.account_wire(account))


@router.route("GET", "/AccountingType")
def list_accounting_types(ctx: Context) -> Reply:
    """:returns: the legacy (1.0) booking accounts."""
    return list_reply(ctx, legacy.ACCOUNTING_TYPES, legacy.accounting_type_wire)


@router.route("GET", "/AccountingType/{id}")
def get_accounting_type(ctx: Context) -> Reply:
    """:returns: one legacy booking account. :raises FakeError: 404 code 151."""
    ident = ctx.path_id("AccountingType")
    entry = legacy.accounting_type_by_id(ident)
    if entry is None:
        raise not_found("AccountingType", ident)
    return one_reply(legacy.accounting_type_wire(entry))


@router.route("GET", "/ReceiptGuidance/forAllAccounts")
def guidance_all(ctx: Context) -> Reply:
    """:returns: the guidance of every visible account (§3.6)."""
    return list_reply(ctx, accounts.guided_accounts(chart=ctx.store.chart), accounts.guidance)


@router.route("GET", "/ReceiptGuidance/forExpense")
def guidance_expense(ctx: Context) -> Reply:
    """:returns: the guidance of the expense accounts."""
    guided = accounts.guided_accounts(accounts.EXPENSE, ctx.store.chart)
    return list_reply(ctx, guided, accounts.guidance)


@router.route("GET", "/ReceiptGuidance/forRevenue")
def guidance_revenue(ctx: Context) -> Reply:
    """:returns: the guidance of the revenue accounts."""
    guided = accounts.guided_accounts(accounts.REVENUE, ctx.store.chart)
    return list_reply(ctx, guided, accounts.guidance)


@router.route("GET", "/ReceiptGuidance/forAccountNumber")
def guidance_for_number(ctx: Context) -> Reply:
    """:returns: the guidance of one account number as a bare object (Q6).

    :raises FakeError: 400 without ``accountNumber``; 422 for a number without guidance.
    """
    number = ctx.query.get("accountNumber")
    if not number:
        raise FakeError(400, "Parameter 'accountNumber' is required")
    account = accounts.account_by_number(number, ctx.store.chart)
    if account is None or account not in accounts.guided_accounts(chart=ctx.store.chart):
        raise FakeError(422, f"No receipt guidance for account number {number}")
    return object_reply(accounts.guidance(account))


@router.route("GET", "/ReceiptGuidance/forTaxRule")
def guidance_for_rule(ctx: Context) -> Reply:
    """:returns: the guidance of the accounts that allow the tax rule **code** ``taxRule``.

    :raises FakeError: 400 without ``taxRule``.
    """
    code = ctx.query.get("taxRule")
    if not code:
        raise FakeError(400, "Parameter 'taxRule' is required")
    codes = tax_rule_codes()
    matches = [
        a
        for a in accounts.guided_accounts(chart=ctx.store.chart)
        if any(codes[r][0] == code for r, _ in a.rules)
    ]
    return list_reply(ctx, matches, accounts.guidance)
