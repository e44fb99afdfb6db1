"""The model pieces with amounts, which both readers build alike: lines, allowances and
charges, VAT breakdowns and the document totals. Each syntax names where it keeps the values
(paths relative to the piece's element); the field names in refusals are the same for both."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

import msgspec

from sevdesk_mcp.domain.einvoice import values as v
from sevdesk_mcp.domain.einvoice.model import (
    AllowanceCharge,
    Line,
    TaxAmount,
    Totals,
    VatBreakdown,
)
from sevdesk_mcp.domain.einvoice.nodes import Node
from sevdesk_mcp.domain.einvoice.pieces import PeriodPaths, period

_CHARGE = "An allowance or charge"


class ChargePaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps an allowance's or charge's values (BG-20, BG-21, BG-27, BG-28);
    ``category`` and ``rate`` are ``None`` where the syntax has none at that level."""

    indicator: str
    amount: str
    base: str
    percent: str
    category: str | None
    rate: str | None
    reason: str
    reason_code: str


class LinePaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps a line's values (BG-25), relative to the line element, but those
    from ``net`` to ``charges`` relative to its ``settlement`` child and ``price`` and
    ``gross_price`` relative to its ``agreement`` child (``None``: the line element itself)."""

    id: str
    name: str
    description: str
    quantity: str
    settlement: str | None
    net: str
    category: str
    rate: str
    period: str
    period_paths: PeriodPaths
    charges: str
    charge_paths: ChargePaths
    agreement: str | None
    price: str
    gross_price: str


class BreakdownPaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps a VAT breakdown's values (BG-23)."""

    taxable: str
    tax: str
    category: str
    rate: str
    exemption_reason: str
    exemption_code: str


class TotalPaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps each document total (BG-22), relative to its totals element."""

    line_net: str
    allowances: str
    charges: str
    net: str
    gross: str
    prepaid: str
    rounding: str
    due: str


def line(node: Node, index: int, paths: LinePaths) -> Line:
    """:returns: the line of ``node``, the ``index``-th (from 1) of the invoice.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    where = f"Line {index}"
    settle = node if paths.settlement is None else node.child(paths.settlement)
    agreement = node if paths.agreement is None else node.child(paths.agreement)
    quantity = node.find(paths.quantity)
    return Line(
        id=node.text(paths.id),
        name=node.text(paths.name),
        description=node.text(paths.description),
        quantity=v.amount(quantity, f"{where}: quantity"),
        unit=None if quantity is None else quantity.get("unitCode"),
        net=settle.amount(paths.net, f"{where}: net amount"),
        price=agreement.amount(paths.price, f"{where}: net price"),
        gross_price=agreement.amount(paths.gross_price, f"{where}: gross price"),
        category=settle.text(paths.category),
        rate=settle.amount(paths.rate, f"{where}: VAT rate"),
        period=period(settle.child(paths.period), paths.period_paths),
        allowances_charges=[charge(n, paths.charge_paths) for n in settle.nodes(paths.charges)],
    )


def charge(node: Node, paths: ChargePaths) -> AllowanceCharge:
    """:returns: the allowance or charge of ``node``.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    return AllowanceCharge(
        charge=(node.text(paths.indicator) or "").lower() == "true",
        amount=node.amount(paths.amount, f"{_CHARGE}: amount"),
        base=node.amount(paths.base, f"{_CHARGE}: base amount"),
        percent=node.amount(paths.percent, f"{_CHARGE}: percentage"),
        category=node.text(paths.category) if paths.category else None,
        rate=node.amount(paths.rate, f"{_CHARGE}: VAT rate") if paths.rate else None,
        reason=node.text(paths.reason),
        reason_code=node.text(paths.reason_code),
    )


def breakdown(node: Node, paths: BreakdownPaths) -> VatBreakdown:
    """:returns: the VAT breakdown of ``node``.

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    return VatBreakdown(
        taxable=node.amount(paths.taxable, "VAT breakdown: taxable amount"),
        tax=node.amount(paths.tax, "VAT breakdown: tax amount"),
        category=node.text(paths.category),
        rate=node.amount(paths.rate, "VAT breakdown: rate"),
        exemption_reason=node.text(paths.exemption_reason),
        exemption_code=node.text(paths.exemption_code),
    )


def totals(
    money: Node, paths: TotalPaths, amounts: list[TaxAmount], currencies: tuple[str | None, ...]
) -> Totals:
    """:returns: the document totals; ``amounts`` are the total VAT amounts as written,
        ``currencies`` the invoice currency and the VAT accounting currency (or ``None``).

    :raises EInvoiceRefusedError: if an amount is no decimal number.
    """
    currency, tax_currency = currencies
    return Totals(
        line_net=money.amount(paths.line_net, "Sum of line net amounts"),
        allowances=money.amount(paths.allowances, "Sum of allowances"),
        charges=money.amount(paths.charges, "Sum of charges"),
        net=money.amount(paths.net, "Total without VAT"),
        vat=_in_currency(amounts, currency),
        vat_accounting=_in_currency(amounts, tax_currency) if tax_currency else None,
        gross=money.amount(paths.gross, "Total with VAT"),
        prepaid=money.amount(paths.prepaid, "Paid amount"),
        rounding=money.amount(paths.rounding, "Rounding amount"),
        due=money.amount(paths.due, "Amount due"),
        tax_amounts=amounts,
    )


def tax_amounts(elements: list[ET.Element]) -> list[TaxAmount]:
    """:returns: the total VAT amounts (BT-110, BT-111) with their currencies.

    :raises EInvoiceRefusedError: if one is no decimal number.
    """
    amounts = []
    for element in elements:
        value = v.amount(element, "Total VAT amount")
        if value is not None:
            amounts.append(TaxAmount(amount=value, currency=element.get("currencyID")))
    return amounts


def _in_currency(amounts: list[TaxAmount], currency: str | None) -> Decimal | None:
    found = [a.amount for a in amounts if a.currency == currency]
    if not found and len(amounts) == 1 and amounts[0].currency is None:
        return amounts[0].amount
    return found[0] if found else None
