"""XRechnung CIUS rules on how to pay: the Skonto lines of the payment terms (BR-DE-18) and
the IBAN of a SEPA credit transfer (BR-DE-19), as the KoSIT schematron checks them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from sevdesk_mcp.domain.einvoice.findings import Finding, error, warning, xpath
from sevdesk_mcp.domain.einvoice.model import Invoice, PaymentMeans

SKONTO_FORMAT: Final = "#SKONTO#TAGE=n#PROZENT=n.nn# (optionally #BASISBETRAG=n.nn# before the end)"
_SKONTO: Final = re.compile(
    r"^#SKONTO#TAGE=[0-9]+#PROZENT=[0-9]+\.[0-9]{2}(#BASISBETRAG=-?[0-9]+\.[0-9]{2})?#$"
)
_ENTRY: Final = re.compile(r"#[^\r\n]+#")  # KoSIT's '#.+#': '.' stops at a line break
_BREAK: Final = re.compile(r"[ \t\r\n]*\n")
_IBAN: Final = re.compile(r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{0,30}$")
_SPACE: Final = re.compile(r"\s+")
SEPA_TRANSFER: Final = "58"


def skonto(invoice: Invoice) -> Iterator[Finding]:
    """BR-DE-18: every line of the payment terms (BT-20) that starts with ``#`` is a Skonto
    entry and must have the Skonto format on its own, and the last entry must end with a line
    break (KoSIT checks each line; the text's line breaks are kept by the reader).

    :returns: one finding per malformed line (named by its number), and one for a missing
        final line break.
    """
    terms = invoice.payment_terms or ""
    rows = [(n, row) for n, row in enumerate(terms.split("\n"), 1) if row.startswith("#")]
    where = xpath(invoice, "BT-20")
    for number, row in rows:
        if not _SKONTO.match(row):
            yield error(
                "BR-DE-18",
                f"Line {number} of the payment terms (BT-20) starts with # but is no valid "
                f"Skonto entry: each such line must read {SKONTO_FORMAT}, in capitals, with "
                "two decimals, on a line of its own. Correct that line.",
                where,
            )
    if rows and not _ends_with_break(terms):
        yield error(
            "BR-DE-18",
            f"The last Skonto entry of the payment terms (BT-20, line {rows[-1][0]}) must be "
            "followed by a line break; add one after its final #.",
            where,
        )


def _ends_with_break(terms: str) -> bool:
    """:returns: whether the text after the last ``#...#`` begins with a line break (after
    spaces), as KoSIT's ``matches(tokenize(., '#.+#')[last()], '^\\s*\\n')``."""
    entries = list(_ENTRY.finditer(terms))
    return bool(entries) and _BREAK.match(terms, entries[-1].end()) is not None


def iban(invoice: Invoice, index: int, means: PaymentMeans) -> Iterator[Finding]:
    """BR-DE-19 (a warning, as in KoSIT): with code 58 (SEPA credit transfer) the payment
    account (BT-84) must be an IBAN with valid ISO 13616 check digits (mod 97); spaces in it
    are ignored. Only the first account is checked, as the schematron does.

    :returns: the finding, if the account is missing, no IBAN or has wrong check digits.
    """
    if means.code != SEPA_TRANSFER:
        return
    where = xpath(invoice, "BG-16", index)
    start = f"Payment means {index} is a SEPA credit transfer (code 58), but its account (BT-84)"
    if not means.ibans:
        yield warning("BR-DE-19", f"{start} is missing; ask the sender for the IBAN.", where)
        return
    compact = _SPACE.sub("", means.ibans[0])
    if not _IBAN.match(compact):
        yield warning(
            "BR-DE-19",
            f"{start} is no IBAN: an IBAN is two capital letters for the country, two check "
            "digits and up to 30 capital letters or digits. Ask the sender for the IBAN.",
            where,
        )
    elif not iban_checks(compact):
        yield warning(
            "BR-DE-19",
            f"{start} has wrong IBAN check digits, so the IBAN is mistyped; compare it with "
            "the sender's bank details before paying.",
            where,
        )


def iban_checks(compact: str) -> bool:
    """:returns: whether an IBAN of the right shape (no spaces, capitals) has valid check
    digits: the country and check digits moved to the end, letters as 10 … 35 (A … Z), the
    number taken modulo 97 is 1 (ISO 13616)."""
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in moved)) % 97 == 1
