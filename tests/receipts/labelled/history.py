"""The company's own history: receipts already in the books before the labelled ones arrive.

The issue's history case (#37): the same supplier booked twice before on 4964 (SKR03) / 6837
(SKR04), finalized; its third receipt (``history=True`` in the set) says words that point
elsewhere ("Schulung", "Beratung"), and the right answer is the account of the history.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Final

from tests.receipts.labelled.model import BookedReceipt

# the history supplier of each chart: (name, VAT id, country, IBAN)
HISTORY_SUPPLIER_03: Final = (
    "Lexaro Cloud GmbH", "DE287654321", "DE", "DE89370400440532013000",
)  # fmt: skip
HISTORY_SUPPLIER_04: Final = (
    "Pixelwerk Software GmbH", "DE198765432", "DE", "DE02120300000000202051",
)  # fmt: skip

HISTORY_RECEIPTS: Final = (
    BookedReceipt("h03-lexaro-1", "skr03", date(2026, 2, 3), *HISTORY_SUPPLIER_03,
                  "Lexaro Team, Februar 2026", Decimal("89.00"), Decimal(19), "4964", 9),
    BookedReceipt("h03-lexaro-2", "skr03", date(2026, 3, 3), *HISTORY_SUPPLIER_03,
                  "Lexaro Team, März 2026", Decimal("89.00"), Decimal(19), "4964", 9),
    BookedReceipt("h04-pixelwerk-1", "skr04", date(2026, 2, 10), *HISTORY_SUPPLIER_04,
                  "Pixelwerk Studio Lizenz 02/2026", Decimal("49.00"), Decimal(19), "6837", 9),
    BookedReceipt("h04-pixelwerk-2", "skr04", date(2026, 3, 10), *HISTORY_SUPPLIER_04,
                  "Pixelwerk Studio Lizenz 03/2026", Decimal("49.00"), Decimal(19), "6837", 9),
)  # fmt: skip
