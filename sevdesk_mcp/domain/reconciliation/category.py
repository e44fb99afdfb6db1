"""Transactions that pay no document: private withdrawals and deposits, the bank's own fees
and interest, and taxes. Recognized by words of the purpose and the counterparty's name."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.domain.reconciliation.model import Tx
from sevdesk_mcp.domain.reconciliation.text import words_of

RULES: Final = (
    ("private", ("privat", "entnahme", "einlage")),
    ("taxes", ("finanzamt", "steuer", "ustva", "bundeskasse", "zoll")),
    ("bank_fees", ("entgelt", "gebuehr", "kontofuehr", "spesen", "zinsen", "abschluss")),
    ("payroll", ("gehalt", "lohn", "sozialversicherung", "krankenkasse")),
)
EXACT: Final = {"ust": "taxes", "kfz": "taxes", "fee": "bank_fees", "fees": "bank_fees"}
HINTS: Final = {
    "private": "looks like a private withdrawal or deposit (Privatentnahme/-einlage): mark it "
    "as private instead of booking it against a document",
    "taxes": "looks like a tax payment or refund: it is booked against a receipt or the tax "
    "account, not an invoice",
    "bank_fees": "looks like the bank's own fees or interest: book it against a receipt of the "
    "bank",
    "payroll": "looks like payroll: it is booked through the payroll accounts, not an invoice",
}


def category_of(tx: Tx) -> str | None:
    """:returns: ``private``, ``taxes``, ``bank_fees`` or ``payroll`` when the words say so."""
    words = words_of(tx.purpose) | words_of(tx.counterparty)
    for word in sorted(words):
        if word in EXACT:
            return EXACT[word]
    for name, stems in RULES:
        if any(stem in word for word in words for stem in stems):
            return name
    return None
