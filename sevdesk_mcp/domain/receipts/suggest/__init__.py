"""Booking account suggestions for receipts, e-invoice receipts and reconciliation's receipt
side: one engine, its evidence named in every suggestion, strongest first (german-tax-rules.md
§3): the company's own history for the supplier, sevDesk's receipt guidance for the account, the
curated words table of the company's chart. The net amount decides an item's treatment
(expense, GWG, pool, asset), a foreign supplier's receipt without German VAT gets reverse charge
proposed, and every suggestion says how sure it is and why; when nothing fits the answer says
what is missing.

- :mod:`.engine` (2.0) and :mod:`.legacy` (1.0): the suggestions;
- :mod:`.history`: what the company booked before, cached per account;
- :mod:`.words`, :mod:`.matching`, :mod:`.text`, :mod:`.names`: the words, matched whole;
- :mod:`.amounts`: expense, GWG, pool or asset by the net amount;
- :mod:`.foreign`: reverse charge proposed, and the previews' sentence;
- :mod:`.rates`: the usual rates and their hints; :mod:`.charts`: SKR03 or SKR04.
"""

from __future__ import annotations

from decimal import Decimal

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.guidance import ReceiptKind
from sevdesk_mcp.domain.receipts.suggest.engine import MAX_SUGGESTIONS, suggest_v2
from sevdesk_mcp.domain.receipts.suggest.foreign import (
    ReverseCharge,
    SupplierFacts,
    owed_sentence,
    propose_reverse_charge,
)
from sevdesk_mcp.domain.receipts.suggest.legacy import suggest_v1
from sevdesk_mcp.domain.receipts.suggest.model import (
    Company,
    ReceiptQuery,
    Suggestion,
    Suggestions,
)

__all__ = [
    "MAX_SUGGESTIONS",
    "Company",
    "ReceiptQuery",
    "ReverseCharge",
    "Suggestion",
    "Suggestions",
    "SupplierFacts",
    "owed_sentence",
    "propose_reverse_charge",
    "suggest",
    "suggest_receipt",
]


async def suggest_receipt(
    client: SevdeskPort, query: ReceiptQuery, company: Company | None = None
) -> Suggestions:
    """:returns: the booking accounts that may fit ``query``, best first, each with its tax
    rule and rate, confidence and evidence: from the engine on bookkeeping 2.0, from the
    accounting types on 1.0.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    facts = company or Company()
    if await client.system_version() != "2.0":
        return await suggest_v1(client, query, facts)
    return await suggest_v2(client, query, facts)


async def suggest(
    client: SevdeskPort, description: str, kind: ReceiptKind, rate: Decimal | None
) -> Suggestions:
    """:returns: the suggestions for a description alone (no supplier, no amount).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    query = ReceiptQuery(description=description, kind=kind, rate=rate)
    return await suggest_receipt(client, query)
