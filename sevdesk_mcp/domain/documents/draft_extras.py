"""The fields of a document draft besides contact, tax and positions (``docs/sevdesk-api.md``
§2.4-2.6): payment method, currency with its exchange rate, the buyer reference (Leitweg-ID)
and, on bookkeeping 1.0, the tax type instead of a tax rule.

- ``paymentMethod`` is an id of the account's GET /PaymentMethod list (ids are per account);
  invoices and credit notes only (an e-invoice needs one: code 830).
- A currency other than EUR needs ``propertyExchangeRate`` (EUR for one unit of the currency),
  as sevDesk asks of foreign-currency receipts; the positions' prices are in that currency.
- sevDesk writes the buyer reference (BT-10) of the **contact** into an e-invoice; there is no
  field on the document. A draft's buyer reference is checked as the e-invoice preflight checks
  it (BR-DE-15: present, not sevDesk's ``"-"``) and, where the contact holds another, set on
  the contact before the draft is saved; the preview says so.
- Bookkeeping 1.0 takes ``taxType`` (default, eu, noteu, ss) and knows no ``taxRule``; 2.0
  refuses ``custom`` and maps the rest for a transition only, so a tax type is refused there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.documents.draft_checks import TAX_TYPES, Recipient, check_tax_type
from sevdesk_mcp.domain.documents.kinds import KindName
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import ref, reference_name
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import Fact, Number, Said, fact, quoted, say

TaxType = Literal["default", "eu", "noteu", "ss"]
HOME_CURRENCY: Final = "EUR"
LEGACY: Final = "1.0"
NO_REFERENCE: Final = frozenset({"", "-"})  # sevDesk's "-" is none (D-042)
ZERO_RATE: Final = Decimal(0)
MAX_RATE: Final = Decimal(100000)
RATE_PLACES: Final = 6
_TAX_TEXT: Final = {
    "default": "Umsatzsteuer ausweisen",
    "eu": "Steuerfreie innergemeinschaftliche Lieferung",
    "noteu": "Nicht im Inland steuerbare Leistung",
    "ss": "Steuer nicht erhoben nach §19UStG",
}


class Extras(msgspec.Struct, frozen=True, kw_only=True):
    """The optional fields of a draft; the defaults send what a draft had before them."""

    payment_method_id: int | None = None
    currency: str = HOME_CURRENCY
    exchange_rate: Decimal | None = None
    buyer_reference: str | None = None
    tax_type: TaxType | None = None


class ContactChange(msgspec.Struct, frozen=True):
    """The buyer reference to set on the draft's contact before the draft is saved."""

    contact_id: int
    buyer_reference: str


def checked(extras: Extras, kind: KindName) -> Extras:
    """:returns: ``extras`` with the currency in capitals and the buyer reference stripped.

    :raises ToolInputError: naming the field that does not fit the document or each other.
    """
    currency = extras.currency.strip().upper()
    if currency == HOME_CURRENCY and extras.exchange_rate is not None:
        raise ToolInputError("exchange_rate applies to a currency other than EUR; leave it out.")
    if currency != HOME_CURRENCY and extras.exchange_rate is None:
        raise ToolInputError(
            f"A draft in {currency} needs exchange_rate: the EUR value of one {currency} on the "
            "document date (sevDesk books the EUR amounts with it), such as 0.9234."
        )
    rate = extras.exchange_rate
    if rate is not None and not (
        rate.is_finite() and ZERO_RATE < rate < MAX_RATE and rate == round(rate, RATE_PLACES)
    ):
        raise ToolInputError(
            "exchange_rate must be above 0 with at most 6 decimal places (EUR for one unit)."
        )
    if extras.payment_method_id is not None and kind == "order":
        raise ToolInputError(
            "payment_method_id applies to invoices and credit notes; leave it out."
        )
    reference = extras.buyer_reference
    if reference is not None and reference.strip() in NO_REFERENCE:
        raise ToolInputError(
            'buyer_reference is empty or sevDesk\'s placeholder "-"; an e-invoice needs the '
            "buyer's reference (BT-10, for public buyers the Leitweg-ID such as "
            "04011000-1234512345-06), or leave the field out."
        )
    return msgspec.structs.replace(
        extras, currency=currency, buyer_reference=reference.strip() if reference else None
    )


async def body_fields(
    client: SevdeskPort, extras: Extras, to: Recipient
) -> tuple[JsonObject, list[Fact], ContactChange | None]:
    """:returns: the document fields of ``extras``, their preview facts, and the buyer
        reference to set on the contact first (``None`` if it holds it already or none is set).

    :raises PreconditionError: for a payment method the account does not list.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    top: JsonObject = {"currency": extras.currency}
    facts: list[Fact] = []
    if extras.exchange_rate is not None:
        top["propertyExchangeRate"] = format(extras.exchange_rate, "f")
        facts.append(
            fact(
                "Currency",
                "Währung",
                say(
                    "{0} (1 {0} = {1} EUR; prices are in {0})",
                    "{0} (1 {0} = {1} EUR; Preise in {0})",
                    extras.currency,
                    Number(extras.exchange_rate),
                ),
            )
        )
    if extras.payment_method_id is not None:
        name = await reference_name(client, "PaymentMethod", extras.payment_method_id)
        if name is None:
            raise PreconditionError(
                f"This sevDesk account has no payment method {extras.payment_method_id}; ",
                Action.LIST_PAYMENT_METHODS,
                " lists them with their ids.",
                record=f"payment method {extras.payment_method_id}",
                field="payment_method_id",
            )
        top["paymentMethod"] = ref(extras.payment_method_id, "PaymentMethod")
        shown = say("{0} (id {1})", "{0} (ID {1})", quoted(name), extras.payment_method_id)
        facts.append(fact("Payment method", "Zahlungsart", shown))
    change = _buyer_reference(extras, to, facts)
    return top, facts, change


def _buyer_reference(extras: Extras, to: Recipient, facts: list[Fact]) -> ContactChange | None:
    wanted = extras.buyer_reference
    if wanted is None:
        return None
    held = (to.buyer_reference or "").strip()
    if held == wanted:
        facts.append(fact("Buyer reference", "Käuferreferenz", quoted(wanted)))
        return None
    was = quoted(held) if held not in NO_REFERENCE else Said("none", "keine")
    facts.append(
        fact(
            "Buyer reference",
            "Käuferreferenz",
            say(
                "{0}, set on contact {1} first (was {2}): sevDesk takes it from the contact",
                "{0}, zuerst beim Kontakt {1} gesetzt (bisher {2}): sevDesk nimmt sie vom Kontakt",
                quoted(wanted),
                to.contact_id,
                was,
            ),
        )
    )
    return ContactChange(to.contact_id, wanted)


def tax_type_fields(
    version: str, extras: Extras, rule_id: int, rates: list[Decimal]
) -> JsonObject | None:
    """:returns: on bookkeeping 1.0 the ``taxType`` fields that replace the tax rule (checked
        against the rates); ``None`` on 2.0.

    :raises ToolInputError: for a tax type on 2.0, or a tax rule other than 1 on 1.0.
    :raises PreconditionError: for rates the tax type does not allow.
    """
    if version != LEGACY:
        if extras.tax_type is not None:
            raise ToolInputError(
                "tax_type is for bookkeeping 1.0; this account is on 2.0: use tax_rule_id "
                "(default is 1, eu 3, noteu 17, ss 11) and leave tax_type out."
            )
        return None
    if rule_id != 1:
        raise ToolInputError(
            "This account is on bookkeeping 1.0, which has no tax rules: leave tax_rule_id out "
            f"and give tax_type ({', '.join(TAX_TYPES)})."
        )
    tax_type = extras.tax_type or "default"
    check_tax_type(tax_type, rates)
    return {
        "taxType": tax_type,
        "taxText": _TAX_TEXT[tax_type],
        "smallSettlement": tax_type == "ss",
    }
