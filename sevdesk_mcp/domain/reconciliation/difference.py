"""What a bookkeeper does with a payment that is less than the open amount
(``../shared/docs/german-tax-rules.md`` section 4):

- cash discount (``CB``) only when the document grants Skonto (a percentage and days), the
  money came within its days of the document's date (:data:`GRACE_DAYS` of grace) and the
  difference is at most the granted percentage of the gross (one cent of tolerance);
- fees (``MTC``) only when the transaction names the bank's charges (:mod:`.charges`) and the
  difference is what fees take (at most :data:`MAX_FEES` and :data:`FEES_PERCENT` %); fees never
  reduce the VAT base;
- anything else stays open: the payment is booked as a part, and the suggestion says why and
  to ask (Skonto the document does not grant, Skonto after its days, an unexplained
  difference). Never written off as fees only because it is small.

The grace: a SEPA transfer reaches the payee's bank at the latest one business day after the
order (§675s(1) BGB) and is credited at once (§675t BGB), and a weekend adds two days; the value
date on the statement therefore lags a transfer ordered on the last day of the Skonto period
by up to three days.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.money import shown
from sevdesk_mcp.domain.reconciliation.index import Cents
from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Tx

GRACE_DAYS: Final = 3
MAX_FEES: Final = Decimal(25)
MAX_FEES_CENTS: Final = 2_500
FEES_SHARE: Final = Decimal("0.03")
FEES_PERCENT: Final = 3
DEDUCTION_PERCENT: Final = 5  # a shortfall up to this share looks deducted, not paid in part
ASK: Final = "book it as a part payment, leave the rest open and ask"


def grants_skonto(doc: OpenDoc) -> bool:
    """:returns: whether the document's terms grant a cash discount (a percentage and days)."""
    return doc.terms.discount_percent > 0 and doc.terms.discount_days > 0


def days_after(tx: Tx, doc: OpenDoc) -> int | None:
    """:returns: the days from the document's date to the money's, if both are known."""
    if tx.day is None or doc.issued is None:
        return None
    return (tx.day - doc.issued).days


def in_time(tx: Tx, doc: OpenDoc) -> bool:
    """:returns: whether ``tx`` came within the Skonto days of ``doc`` (with the grace);
    ``False`` when a date is unknown: then nobody can tell."""
    days = days_after(tx, doc)
    return days is not None and days <= doc.terms.discount_days + GRACE_DAYS


def fees_fit(missing: Cents, paid: Cents) -> bool:
    """:returns: whether ``missing`` cents are what a bank's fees take: at most
    :data:`MAX_FEES` and :data:`FEES_PERCENT` % of what was owed."""
    return missing <= MAX_FEES_CENTS and missing * 100 <= (missing + paid) * FEES_PERCENT


def deducted(missing: Cents, owed: Cents) -> bool:
    """:returns: whether the shortfall is the size of a deduction (a cash discount or fees)
    rather than a part payment."""
    return missing <= MAX_FEES_CENTS or missing * 100 <= owed * DEDUCTION_PERCENT


def percent(part: Decimal, whole: Decimal) -> str:
    """:returns: ``part`` as a share of ``whole`` in words (``2 %``)."""
    if not whole:
        return "?"
    share = (part * 100 / whole).quantize(Decimal("0.1")).normalize()
    return f"{share:f} %"


def granted(doc: OpenDoc) -> str:
    """:returns: the Skonto of the terms in words."""
    terms = doc.terms
    return f"{terms.discount_percent.normalize():f} % within {terms.discount_days} days"


def missing_text(tx: Tx, doc: OpenDoc) -> str:
    """:returns: how much less than open came, in money and as a share of the gross."""
    missing = doc.open - tx.rest
    return f"{shown(missing, tx.currency)} ({percent(missing, doc.gross)}) less than open"


def late_text(tx: Tx, doc: OpenDoc) -> str:
    """:returns: why a Skonto after its days stays open."""
    days = days_after(tx, doc)
    when = f"{days} days after the document's date" if days is not None else "on an unknown date"
    return (
        f"{missing_text(tx, doc)}: the cash discount ({granted(doc)}), but paid {when}, after "
        f"its days; {ASK} the customer"
    )


def fees_text(tx: Tx, doc: OpenDoc, cue: str) -> str:
    """:returns: why a difference is settled as fees."""
    return (
        f"{missing_text(tx, doc)}, and the purpose names the bank's charges ({cue!r}): fees "
        "(MTC, Nebenkosten des Geldverkehrs); they never reduce the VAT base"
    )


def open_text(tx: Tx, doc: OpenDoc, cue: str | None, skonto: bool) -> str:
    """:returns: why a difference that is neither a granted Skonto nor fees stays open."""
    said = missing_text(tx, doc)
    if doc.kind == "voucher":
        return (
            f"{said}: booked as a part payment, the rest stays open; if you took a cash "
            "discount the supplier grants, book it with settle=cash_discount (at most 3 %)"
        )
    if cue is not None:
        return f"{said}: more than bank fees take, though the purpose names charges; {ASK}"
    if grants_skonto(doc):
        why = f"more than the cash discount the terms grant ({granted(doc)})"
    else:
        why = "the document grants no cash discount"
    told = " (the purpose speaks of Skonto)" if skonto else ""
    return f"{said}{told}: {why}; not bank fees, the purpose names no charges; {ASK} the customer"
