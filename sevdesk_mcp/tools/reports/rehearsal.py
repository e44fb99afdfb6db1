"""``sevdesk_rehearsal_report`` (toolset ``rehearsal``): what a rehearsal changed, the figures
before and after, and how to do the same for real.

"Before" is read through the rehearsal's real transport (the real account, past the overlay);
"after" through the account's rehearsing client (the real account with the rehearsal laid over
it). Both: the cash position at the books' today (balances of the active accounts, open
receivables and payables by the rule of ``sevdesk_open_items``, the net position) and the
advance VAT return of the month (by ``SEVDESK_VAT_METHOD``, Soll when unset). Nothing is ever
replayed to sevDesk from a rehearsal: the report names the tools that make each change for real.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from decimal import Decimal
from typing import Annotated, Final

import msgspec

from sevdesk_mcp.domain import reports
from sevdesk_mcp.domain.money import Money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports import vat
from sevdesk_mcp.domain.reports.period import parse_period
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.rehearsal import RehearsalChange, RehearsalLog
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.reports.rehearsal_steps import tool_for
from sevdesk_mcp.tools.reports.tax import vat_basis
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS

THIS_MONTH: Final = msgspec.Meta(  # parse_period checks the month itself
    pattern=r"^\d{4}-\d\d$", max_length=7, description="Default: this month"
)
MAX_LISTED: Final = 500
NEVER_REPLAYED: Final = (
    "Nothing of this rehearsal is ever sent to sevDesk, and it is gone when the server stops. "
    "To do it for real, start the server without --rehearse and call each change's for_real "
    "tool in the order listed; each is previewed and approved again on the real books."
)
NOT_REHEARSING: Final = (
    "sevdesk_rehearsal_report reports on a rehearsal, and none is running: start the server "
    "with --rehearse (or SEVDESK_REHEARSE=on)."
)


class ReportInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_rehearsal_report``."""

    month: Annotated[str, THIS_MONTH] | None = None


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One change of the rehearsal, in order, and the tool that makes it for real."""

    at: dt.datetime
    action: str
    object: str
    object_id: int | None = None
    number: str | None = None
    summary: str
    for_real: str


class ActionTotal(msgspec.Struct, frozen=True, kw_only=True):
    """How many changes of one action the rehearsal made."""

    action: str
    count: int


class Figures(msgspec.Struct, frozen=True, kw_only=True):
    """The figures a rehearsal can move: cash, open items, net position, the month's VAT."""

    cash: list[Money]
    receivables: list[Money]
    payables: list[Money]
    net_position: list[Money]
    vat_output_tax: Decimal
    vat_input_tax: Decimal
    vat_box_83: Decimal


class RehearsalReport(msgspec.Struct, frozen=True, kw_only=True):
    """The rehearsal's changes, the figures before (real) and after (rehearsed), and how to do
    it for real."""

    month: str
    on_date: dt.date
    changes: list[Step]
    changes_total: int
    totals: list[ActionTotal]
    before: Figures
    after: Figures
    to_do_for_real: str
    upstream_refused: int


async def _report(args: ReportInput, ctx: ToolContext) -> RehearsalReport:
    account = ctx.account
    log, real = account.rehearsal, account.real_reader
    if log is None or real is None:
        raise ToolError(NOT_REHEARSING)
    today = account.today()
    month = args.month or f"{today.year}-{today.month:02d}"
    basis = vat_basis(None, ctx)
    before = await figures(real, month, today, basis)
    after = await figures(account.require_client(), month, today, basis)
    return report_of(log, month, today, before, after)


def report_of(
    log: RehearsalLog, month: str, on_date: dt.date, before: Figures, after: Figures
) -> RehearsalReport:
    """:returns: the report of ``log``'s changes with the figures given."""
    changes = list(log.changes())
    counted = Counter(c.action for c in changes)
    return RehearsalReport(
        month=month,
        on_date=on_date,
        changes=[step_of(c) for c in changes[:MAX_LISTED]],
        changes_total=len(changes),
        totals=[ActionTotal(action=a, count=n) for a, n in sorted(counted.items())],
        before=before,
        after=after,
        to_do_for_real=NEVER_REPLAYED,
        upstream_refused=log.upstream_refused(),
    )


def step_of(change: RehearsalChange) -> Step:
    """:returns: ``change`` as a step of the report."""
    return Step(
        at=change.at,
        action=change.action,
        object=change.object_name,
        object_id=change.object_id,
        number=change.number,
        summary=change.summary,
        for_real=tool_for(change),
    )


async def figures(
    client: SevdeskPort, month: str, on_date: dt.date, basis: vat.VatBasis
) -> Figures:
    """:returns: the figures as ``client`` reads them: the cash position at ``on_date`` and the
    VAT return of ``month``.

    :raises UpstreamError: if sevDesk cannot be read.
    :raises ToolInputError: if ``month`` names no month.
    """
    cash = await reports.cash_position(client, on_date)
    ret = await vat.vat_return(client, parse_period(month), basis, max_sources=1)
    return Figures(
        cash=cash.cash_totals,
        receivables=cash.receivables,
        payables=cash.payables,
        net_position=cash.net_position,
        vat_output_tax=ret.output_tax,
        vat_input_tax=ret.input_tax,
        vat_box_83=ret.box_83,
    )


REHEARSAL_REPORT = define_tool(
    name="sevdesk_rehearsal_report",
    title="Rehearsal report",
    description="What this rehearsal changed (not in sevDesk) and which figures moved.",
    toolset="rehearsal",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=ReportInput,
    output=RehearsalReport,
    handler=_report,
)

TOOLS = (REHEARSAL_REPORT,)
