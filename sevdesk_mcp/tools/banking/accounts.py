"""Toolset ``banking``: bank accounts and cash registers with balances, and their transactions."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.banking import accounts as banking
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.remedies import phrase
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, Limit, SevdeskId


class AccountsInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_list_bank_accounts``."""

    on_date: (
        Annotated[
            dt.date,
            msgspec.Meta(description="Default: today"),
        ]
        | None
    ) = None


class TransactionsInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_search_transactions``."""

    account_id: SevdeskId | None = None
    state: Annotated[
        banking.State,
        msgspec.Meta(
            description="private: owner's withdrawal or deposit; linked: tied, not booked"
        ),
    ] = "any"
    counterparty: (
        Annotated[str, msgspec.Meta(max_length=100, description="Part of the payer/payee name")]
        | None
    ) = None
    purpose: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    direction: Annotated[
        banking.Direction, msgspec.Meta(description="incoming (credit) or outgoing (debit)")
    ] = "any"
    amount: Annotated[Decimal, msgspec.Meta(description="Exact, without sign")] | None = None
    amount_min: Decimal | None = None
    amount_max: Decimal | None = None
    booked_on_kind: banking.BookedKind | None = None
    booked_on_id: (
        Annotated[SevdeskId, msgspec.Meta(description="Booked on this document")] | None
    ) = None
    limit: Limit = 25


async def _accounts(args: AccountsInput, ctx: ToolContext) -> banking.BankAccountList:
    client = ctx.account.require_client()
    return await banking.list_bank_accounts(client, args.on_date or ctx.account.today())


async def _transactions(args: TransactionsInput, ctx: ToolContext) -> banking.TransactionList:
    client = ctx.account.require_client()
    if (args.booked_on_kind is None) != (args.booked_on_id is None):
        raise ToolInputError("booked_on_kind and booked_on_id go together; give both or neither.")
    booked_on = None
    if args.booked_on_kind is not None and args.booked_on_id is not None:
        booked_on = (args.booked_on_kind, args.booked_on_id)
    search = banking.TransactionSearch(
        account_id=args.account_id,
        state=args.state,
        counterparty=args.counterparty,
        purpose=args.purpose,
        date_from=args.date_from,
        date_to=args.date_to,
        direction=args.direction,
        limit=args.limit,
        amount=args.amount,
        amount_min=args.amount_min,
        amount_max=args.amount_max,
        booked_on=booked_on,
    )
    return await banking.search_transactions(client, banking.checked_search(search), phrase=phrase)


LIST_BANK_ACCOUNTS = define_tool(
    name="sevdesk_list_bank_accounts",
    title="Bank accounts and balances",
    description=(
        "Lists bank accounts and cash registers with IBAN, balance, unmatched count and whether "
        "each is online (a payment there needs its transaction). With open items: "
        "sevdesk_cash_position."
    ),
    toolset="banking",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=AccountsInput,
    output=banking.BankAccountList,
    handler=_accounts,
)

SEARCH_TRANSACTIONS = define_tool(
    name="sevdesk_search_transactions",
    title="Search bank transactions",
    description=(
        "Finds bank and cash transactions, newest first, with signed amounts, sums and the "
        "documents booked ones were booked on; by amount (unsigned) or by the document booked on."
    ),
    toolset="banking",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=TransactionsInput,
    output=banking.TransactionList,
    handler=_transactions,
)

TOOLS = (LIST_BANK_ACCOUNTS, SEARCH_TRANSACTIONS)
