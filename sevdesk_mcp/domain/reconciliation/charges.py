"""Whether a transaction says that a bank took charges from it (the fee cue).

A shortfall is settled as fees (``MTC``) only when the transaction says so: the bank's charge
line or the payer's purpose names charges. A transaction in sevDesk holds its purpose, the
payer's name and IBAN, its amount and dates; a bank writes its charge line into the purpose
(MT940 field 86, camt ``AddtlNtryInf``), so that is where the cue is read:

- words, on whole folded words: ``Gebühr``, ``Entgelt``, ``Spesen`` (also inside compounds:
  ``Bankgebühren``, ``Fremdspesen``, ``Auslandsentgelt``), ``fee``, ``fees``, ``charge``,
  ``charges``, the SWIFT field ``/CHGS/``;
- the SWIFT charge codes (MT103 field 71A) that leave charges to the payee: ``SHA`` (shared)
  and ``BEN`` (beneficiary), in capitals; ``BEN`` only as the field (``71A:BEN``) or between
  slashes (``/BEN/``), since it is also a first name. ``OUR`` is no cue:
  the payer bore all charges, so a shortfall is not the bank's.

A separate charge transaction of the bank on the same day is no cue for a short payment: it is
a debit of its own (booked against the bank's receipt), and writing the difference off as fees
as well would count the charge twice. "SWIFT" alone is no cue either: a foreign transfer may
as well be short by a deduction of the customer's.
"""

from __future__ import annotations

import re
from typing import Final

from sevdesk_mcp.domain.reconciliation.model import Tx
from sevdesk_mcp.domain.reconciliation.text import words_of

STEMS: Final = ("gebuehr", "entgelt", "spesen")
WORDS: Final = frozenset({"fee", "fees", "charge", "charges", "chgs"})
_CODES: Final = re.compile(r"\bSHA\b|/BEN/|\b71A\W{0,3}BEN\b")  # in capitals: codes, not words


def fee_cue(tx: Tx) -> str | None:
    """:returns: the word or code of the purpose that names the bank's charges, or ``None``."""
    purpose = tx.purpose or ""
    for word in sorted(words_of(purpose)):
        if word in WORDS or any(stem in word for stem in STEMS):
            return word
    found = _CODES.search(purpose)
    return found.group() if found is not None else None
