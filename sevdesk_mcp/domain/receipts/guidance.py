"""What sevDesk allows per booking account (``ReceiptGuidance``, §3.6) and the checks of every
receipt position against it before the first request.

sevDesk saves a draft with any account x tax rule x rate and fails later (on finalizing, or in
the tax return); so every position is checked here: the account must take the receipt's kind
(``EXPENSE``/``REVENUE``), the receipt's tax rule and the position's rate. The guidance of all
accounts is reference data (cached); an account number missing from it is asked for by number,
whose answer is a bare object (Q6). Guidance ids are ints (Q8).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.errors import NotFoundError, UpstreamValidationError
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import many

ReceiptKind = Literal["expense", "revenue"]
RATES: Final = {"ZERO": Decimal(0), "SEVEN": Decimal(7), "NINETEEN": Decimal(19)}
RECEIPT_TYPES: Final = {"expense": "EXPENSE", "revenue": "REVENUE"}


class Guide(msgspec.Struct, frozen=True):
    """One booking account and what it allows: tax rule id → rates (percent)."""

    account_id: int
    number: str
    name: str
    description: str | None
    kinds: frozenset[str]
    rules: Mapping[int, frozenset[Decimal]]
    rule_names: Mapping[int, str]

    def allowed(self, kind: ReceiptKind) -> str:
        """:returns: the combinations this account takes, in words."""
        if RECEIPT_TYPES[kind] not in self.kinds:
            kinds = ", ".join(k.lower() for k in sorted(self.kinds)) or "no"
            return f"account {self.number} takes only {kinds} receipts"
        parts = [
            f"tax rule {rule} ({self.rule_names.get(rule, '?')}) at "
            f"{'/'.join(f'{r:f}' for r in sorted(rates))} %"
            for rule, rates in sorted(self.rules.items())
        ]
        return f"account {self.number} ({self.name}) allows " + "; ".join(parts)


def guide_of(item: wire.ReceiptGuidance) -> Guide:
    """:returns: the guide of one guidance item, names cleaned."""
    rules = {
        r.id: frozenset(RATES[t] for t in r.taxRates if t in RATES) for r in item.allowedTaxRules
    }
    return Guide(
        account_id=item.accountDatevId,
        number=item.accountNumber or str(item.accountDatevId),
        name=clean(item.accountName or "") or "?",
        description=clean(item.description or "") or None,
        kinds=frozenset(item.allowedReceiptTypes),
        rules=rules,
        rule_names={r.id: clean(r.name or "") for r in item.allowedTaxRules},
    )


class Guides:
    """The guidance of an account's booking accounts, by number and by id."""

    def __init__(self, client: SevdeskPort, guides: list[Guide]) -> None:
        self._client = client
        self.by_number = {g.number: g for g in guides}
        self.by_id = {g.account_id: g for g in guides}

    @classmethod
    async def load(cls, client: SevdeskPort) -> Guides:
        """:returns: the guidance of every account sevDesk lists.

        :raises UpstreamError: if sevDesk cannot be read.
        """
        raw = await client.get("/ReceiptGuidance/forAllAccounts")
        return cls(client, [guide_of(g) for g in wire.parse_all(many(raw), wire.ReceiptGuidance)])

    async def number(self, number: str) -> Guide | None:
        """:returns: the guide of account ``number``; asked for by number when the list lacks
        it (a bare object, Q6); ``None`` if sevDesk has no guidance for it.

        :raises UpstreamError: if sevDesk cannot be read.
        """
        if number in self.by_number:
            return self.by_number[number]
        try:
            raw = await self._client.get(
                "/ReceiptGuidance/forAccountNumber", {"accountNumber": number}
            )
        except (NotFoundError, UpstreamValidationError):
            return None
        found = [guide_of(g) for g in wire.parse_all(many(raw), wire.ReceiptGuidance)]
        guide = next((g for g in found if g.number == number), None)
        if guide is not None:
            self.by_number[number], self.by_id[guide.account_id] = guide, guide
        return guide


class Wanted(msgspec.Struct, frozen=True):
    """What a position asks of its account: the receipt's kind and tax rule, its rate."""

    kind: ReceiptKind
    rule: int
    rate: Decimal


def check_position(guide: Guide | None, where: str, number: str, wanted: Wanted) -> Guide:
    """:returns: ``guide`` if it allows the kind, tax rule and rate ``wanted``.

    :raises PreconditionError: naming the position, what is wrong and what is allowed.
    """
    kind, rule, rate = wanted.kind, wanted.rule, wanted.rate
    if guide is None:
        raise PreconditionError(
            f"{where}: booking account {number} has no receipt guidance in this sevDesk "
            "account (unknown, hidden or not for receipts). Pick one from the booking accounts "
            "of the reference data, or ask for a suggestion of booking accounts.",
            field="positions",
        )
    allowed = guide.allowed(kind)
    if RECEIPT_TYPES[kind] not in guide.kinds:
        raise PreconditionError(f"{where}: {allowed}; this is a {kind} receipt.", field="positions")
    if rate not in guide.rules.get(rule, frozenset()):
        raise PreconditionError(
            f"{where}: account {number} does not take tax rule {rule} at {rate:f} %; {allowed}. "
            "Change the rule, the rate or the account.",
            field="positions",
        )
    return guide
