"""The positions of a receipt suggested from an e-invoice: each invoice line asked of the one
suggestion engine (:mod:`sevdesk_mcp.domain.receipts.suggest`), lines of one VAT breakdown kept
together where they share an account and split where their natures differ (a software licence
and paper on one invoice). Shipping and postage billed with goods or a subscription is an
ancillary supply: it shares the main line's account and rate (the magazine's postage is booked
with the magazine, not to postage). A split is made only where the lines' nets add up to the
breakdown's taxable amount and their rounded VAT to its VAT; otherwise one position per
breakdown, with the main line's account."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.einvoice.model import Invoice, Line, VatBreakdown
from sevdesk_mcp.domain.einvoice.values import ZERO
from sevdesk_mcp.domain.money import HUNDRED, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.suggest import (
    Company,
    ReceiptQuery,
    Suggestion,
    SupplierFacts,
    suggest_receipt,
)
from sevdesk_mcp.domain.receipts.suggest.matching import match
from sevdesk_mcp.domain.receipts.suggest.text import words
from sevdesk_mcp.safety.fence import fence

MAX_TEXT: Final = 200
ANCILLARY: Final = "postage"  # the words case of shipping and postage
Kind = Literal["expense", "revenue"]


class SuggestedPosition(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One position: a VAT breakdown of the invoice (or the lines of it that share an account),
    with a booking account if one fits, how sure and why."""

    category: str
    tax_rate: Decimal
    net: Decimal
    tax: Decimal
    gross: Decimal
    text: str | None = None
    account_number: str | None = None
    account_name: str | None = None
    reason: str | None = None
    confidence: str | None = None
    alternatives: list[str] = []


class _Asked(msgspec.Struct, frozen=True):
    text: str
    net: Decimal
    best: Suggestion | None
    others: list[str]


async def positions_of(
    client: SevdeskPort, invoice: Invoice, vat: VatBreakdown, kind: Kind, company: Company
) -> list[SuggestedPosition]:
    """:returns: the positions of one VAT breakdown, one per account its lines need.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    lines = [x for x in invoice.lines if x.category == vat.category and _same_rate(x, vat)]
    lines = lines or [Line(net=vat.taxable)]  # no line of its own: the seller's name alone
    asked = [await _ask(client, invoice, vat, x, kind=kind, company=company) for x in lines]
    asked = _ancillary(asked)
    groups: defaultdict[str | None, list[_Asked]] = defaultdict(list)
    for one in asked:
        groups[one.best.account_number if one.best else None].append(one)
    if len(groups) > 1 and _splits(vat, [g for g in groups.values()]):
        return [_position(vat, group, split=True) for group in groups.values()]
    named = [a for a in asked if a.best is not None] or asked
    main = max(named, key=lambda a: a.net) if named else None
    return [_position(vat, asked, split=False, main=main)]


def _same_rate(line: Line, vat: VatBreakdown) -> bool:
    return line.rate is None or vat.rate is None or line.rate == vat.rate


async def _ask(  # noqa: PLR0913 - each is a separate fact of the question
    client: SevdeskPort, invoice: Invoice, vat: VatBreakdown, line: Line, *, kind: Kind,
    company: Company,
) -> _Asked:  # fmt: skip
    """:raises UpstreamError: if sevDesk cannot be read."""
    text = " ".join(p for p in (line.name, line.description) if p)[:MAX_TEXT]
    ibans = [i for m in invoice.payment_means for i in m.ibans]
    seller = invoice.seller
    query = ReceiptQuery(
        description=text or "(no text)",
        kind=kind,
        rate=vat.rate,
        net=line.net,
        day=_day(invoice),
        supplier=SupplierFacts(
            name=seller.name or seller.trading_name,
            vat_id=seller.vat_id,
            iban=ibans[0] if ibans else None,
            country=seller.address.country if seller.address else None,
        ),
    )
    found = (await suggest_receipt(client, query, company)).suggestions
    best = found[0] if found else None
    others = [s.account_number for s in found[1:]]
    return _Asked(text, line.net or ZERO, best, others)


def _day(invoice: Invoice) -> dt.date | None:
    try:
        return dt.date.fromisoformat(invoice.delivery_date or invoice.issue_date or "")
    except ValueError:
        return None


def _ancillary(asked: list[_Asked]) -> list[_Asked]:
    """:returns: ``asked`` with shipping and postage lines, and lines no account fits, following
    the main line (the largest with an account), where it is of another nature."""
    leading = [a for a in asked if a.best is not None]
    main = max(leading, key=lambda a: a.net) if leading else None
    if main is None or main.best is None:
        return asked
    out = []
    for one in asked:
        if one.best is None:
            why = "no words of its own: booked with the main line"
        elif one is not main and _is_postage(one.text) and not _is_postage(main.text):
            why = "ancillary to the main line: shipping billed with it shares its account"
        else:
            out.append(one)
            continue
        said = f"{why} ({main.best.account_number}); {main.best.reason}"
        out.append(
            msgspec.structs.replace(one, best=msgspec.structs.replace(main.best, reason=said))
        )
    return out


def _is_postage(text: str) -> bool:
    found = match(words(text))
    return bool(found) and found[0].case.key == ANCILLARY


def _splits(vat: VatBreakdown, groups: list[list[_Asked]]) -> bool:
    rate, taxable, tax = vat.rate or ZERO, vat.taxable or ZERO, vat.tax or ZERO
    nets = [sum((a.net for a in group), ZERO) for group in groups]
    taxes = [cents(net * rate / HUNDRED) for net in nets]
    return sum(nets, ZERO) == taxable and sum(taxes, ZERO) == tax


def _position(
    vat: VatBreakdown, group: list[_Asked], *, split: bool, main: _Asked | None = None
) -> SuggestedPosition:
    rate = vat.rate or ZERO
    lead: _Asked | None = main
    if split:
        net = sum((a.net for a in group), ZERO)
        tax = cents(net * rate / HUNDRED)
        lead = max(group, key=lambda a: a.net)
    else:
        net, tax = vat.taxable or ZERO, vat.tax or ZERO
    best = lead.best if lead else None
    text = "; ".join(a.text for a in group if a.text)[:MAX_TEXT] or None
    return SuggestedPosition(
        category=vat.category or "?", tax_rate=rate, net=net, tax=tax, gross=net + tax,
        text=fence(text),
        account_number=best.account_number if best else None,
        account_name=best.account_name if best else None,
        reason=best.reason if best else "no booking account fits; pick one",
        confidence=best.confidence if best else None,
        alternatives=lead.others if lead else [],
    )  # fmt: skip
