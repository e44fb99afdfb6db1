"""What a document draft is checked against before any write: the tax rule and the rates of
its positions (``docs/sevdesk-api.md`` §3.4), the contact and its billing address (Q24), the
sevDesk user who signs (``contactPerson``), and earlier documents that look the same.

sevDesk itself accepts many wrong combinations on a draft and fails only when the document is
finalized or reported, so the rules are checked here, before anything is sent.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.contacts.read import display_name
from sevdesk_mcp.domain.documents import draft_oss as oss
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.domain.documents.search import list_documents
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import Missing, read_one
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.safety.preview import Lines, Said, quoted
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import QueryValue

_ALL: Final = frozenset({Decimal(0), Decimal(7), Decimal(19)})
_ZERO: Final = frozenset({Decimal(0)})
CONTACT: Final = Missing("contact", Action.FIND_CONTACT, " finds the right id.", "contact_id")
SALES_RULES: Final[dict[int, frozenset[Decimal]]] = {
    1: _ALL,  # Umsatzsteuerpflichtige Umsätze
    2: _ZERO,  # Ausfuhren
    3: _ALL,  # Innergemeinschaftliche Lieferungen
    4: _ZERO,  # Steuerfreie Umsätze §4 UStG
    5: _ZERO,  # Reverse Charge §13b Abs. 1
    11: _ZERO,  # Kleinunternehmer §19 UStG
    17: _ZERO,  # Nicht im Inland steuerbare Leistung
    21: _ZERO,  # Reverse Charge §18b
}
PROVISION_RULE: Final = 9  # credit notes for commissions (Q35)
ONE_STOP_SHOP: Final = oss.RULES
TAX_TYPES: Final[dict[str, frozenset[Decimal]]] = {  # bookkeeping 1.0 (§3.4), custom not written
    "default": _ALL,
    "eu": _ALL,
    "noteu": _ZERO,
    "ss": _ZERO,
}
SMALL_BUSINESS_RULE: Final = 11
BILLING_ADDRESS: Final = 47


class Recipient(msgspec.Struct, frozen=True):
    """The contact a document goes to, with the address sevDesk will print (Q24)."""

    contact_id: int
    name: str
    street: str | None
    zip: str | None
    city: str | None
    country_id: int | None
    default_days: int | None
    vat_number: str | None = None
    buyer_reference: str | None = None

    def lines(self) -> Lines:
        """:returns: the address as the preview shows it, each line quoted (third-party text)."""
        town = " ".join(p for p in (self.zip, self.city) if p)
        return Lines(tuple(quoted(p) for p in (self.name, self.street, town) if p))


async def tax_rule_name(
    client: SevdeskPort,
    rule_id: int,
    rates: list[Decimal],
    *,
    provision: bool = False,
) -> str:
    """Check a sales document's tax rule and the rates of its positions (a One-Stop-Shop rule's
    rates are checked by :func:`one_stop_shop`).

    :returns: the rule's name in the account (untrusted text cleaned).
    :raises PreconditionError: naming the rule or the rates that do not fit, and what would.
    :raises ToolInputError: for a rule that needs another kind of document.
    :raises UpstreamError: if the reference data cannot be read.
    """
    check_rule_rates(rule_id, rates, provision=provision)
    rules = wire.parse_all((await client.get_all("/TaxRule", max_items=1000)).items, wire.TaxRule)
    for rule in rules:
        if rule.id == rule_id:
            return clean(rule.name or rule.code or "") or f"tax rule {rule_id}"
    raise PreconditionError(
        f"This sevDesk account has no tax rule {rule_id}; ",
        Action.LIST_TAX_RULES,
        " lists the ones it has.",
        record=f"tax rule {rule_id}",
        field="tax_rule_id",
    )


async def one_stop_shop(
    client: SevdeskPort, rule_id: int, rates: list[Decimal], to: Recipient
) -> Said | None:
    """Check a One-Stop-Shop document (rules 18-20) against its buyer, ``to``: a consumer in
    another member state, at that state's rates.

    :returns: the country and its rates for the preview (``AT: 20 %``); ``None`` for any other
        rule.
    :raises PreconditionError: naming what does not fit and what would.
    :raises UpstreamError: if the country list cannot be read.
    """
    if rule_id not in ONE_STOP_SHOP:
        return None
    code = await oss.country_code(client, to.country_id)
    return oss.check(rule_id, rates, code, to.vat_number)


def check_tax_type(tax_type: str, rates: list[Decimal]) -> None:
    """Check the rates of a bookkeeping-1.0 document against its tax type.

    :raises PreconditionError: naming the rates that do not fit, and what would.
    """
    allowed = TAX_TYPES[tax_type]
    wrong = sorted({r for r in rates if r not in allowed})
    if wrong:
        raise PreconditionError(
            f"Tax type {tax_type} does not allow the rate(s) {_shown(wrong)}; its positions "
            f"must use {_fits(allowed)}. Change the rates or the tax_type.",
            record=f"tax type {tax_type}",
            field="tax_type",
        )


def check_rule_rates(rule_id: int, rates: list[Decimal], *, provision: bool = False) -> None:
    """Check the rates against a tax rule without asking sevDesk (a One-Stop-Shop rule's rates
    depend on the buyer's country: :func:`one_stop_shop`).

    :raises PreconditionError: naming the rule or the rates that do not fit, and what would.
    :raises ToolInputError: for a rule that needs another kind of document.
    """
    if rule_id in ONE_STOP_SHOP and not provision:
        return
    allowed = _allowed_rates(rule_id, provision=provision)
    wrong = sorted({r for r in rates if r not in allowed})
    if wrong:
        raise PreconditionError(
            f"Tax rule {rule_id} does not allow the rate(s) {_shown(wrong)}; its positions must "
            f"use {_fits(allowed)}.{oss.foreign_hint(wrong)} Change the rates, or choose another "
            "tax_rule_id (",
            Action.LIST_TAX_RULES,
            " lists them).",
            record=f"tax rule {rule_id}",
            field="tax_rule_id",
        )


def _shown(rates: list[Decimal]) -> str:
    return ", ".join(f"{r.normalize():f} %" for r in rates)


def _fits(allowed: frozenset[Decimal]) -> str:
    return " or ".join(f"{r} %" for r in sorted(int(a) for a in allowed))


def _allowed_rates(rule_id: int, *, provision: bool) -> frozenset[Decimal]:
    if provision:
        if rule_id != PROVISION_RULE:
            raise ToolInputError(
                f"A commission credit note (provision) needs tax rule {PROVISION_RULE} "
                f"(Vorsteuerabziehbare Aufwendungen), not {rule_id}."
            )
        return _ALL
    if rule_id not in SALES_RULES:
        raise PreconditionError(
            f"Tax rule {rule_id} is not a rule for sales documents. Use 1 (taxable sales), "
            "2, 3, 4, 5, 11, 17, 18-20 (One-Stop-Shop) or 21; ",
            Action.LIST_TAX_RULES,
            " names them.",
            record=f"tax rule {rule_id}",
            field="tax_rule_id",
        )
    return SALES_RULES[rule_id]


async def recipient(client: SevdeskPort, contact_id: int) -> Recipient:
    """:returns: the contact with its billing address (else its first address).

    :raises PreconditionError: if there is no such contact.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    contact = await read_one(client, "Contact", contact_id, wire.Contact, missing=CONTACT)
    query: dict[str, QueryValue] = {"contact[id]": contact_id, "contact[objectName]": "Contact"}
    page = await client.get_all("/ContactAddress", query, max_items=100)
    addresses = [
        a
        for a in wire.parse_all(page.items, wire.ContactAddress)
        if a.contact is not None and a.contact.id == contact_id
    ]
    addresses.sort(key=lambda a: (a.category is None or a.category.id != BILLING_ADDRESS, a.id))
    first = addresses[0] if addresses else None
    return Recipient(
        contact_id=contact_id,
        name=clean(display_name(contact)),
        street=clean(first.street) if first and first.street else None,
        zip=clean(first.zip) if first and first.zip else None,
        city=clean(first.city) if first and first.city else None,
        country_id=first.country.id if first and first.country else None,
        default_days=contact.defaultTimeToPay,
        vat_number=contact.vatNumber,
        buyer_reference=contact.buyerReference,
    )


async def signing_user(client: SevdeskPort) -> int:
    """:returns: the id of the sevDesk user named as contact person (``contactPerson``).

    :raises ToolError: if the account lists no user.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    users = wire.parse_all((await client.get_all("/SevUser", max_items=100)).items, wire.Named)
    if not users:
        raise ToolError("sevDesk listed no user to name as the document's contact person.")
    return min(u.id for u in users)


class Fingerprint(msgspec.Struct, frozen=True):
    """What makes two documents look the same: contact, date, gross amount and header."""

    kind: KindName
    contact_id: int
    day: dt.date
    gross: Decimal
    header: str | None


async def refuse_lookalike(client: SevdeskPort, new: Fingerprint) -> None:
    """Refuse a draft that repeats an earlier document of the same contact: same date, same
    gross amount and same header (the description), ignoring case.

    :raises PreconditionError: naming the earlier document and how to go on.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    kind = KINDS[new.kind]
    query: dict[str, QueryValue] = {"contact[id]": new.contact_id, "contact[objectName]": "Contact"}
    wanted = (new.header or "").strip().casefold()
    for doc in await list_documents(client, kind, query, whole=True):
        same_day = dates.berlin_date(doc.date()) == new.day
        same_text = clean(doc.header or "").strip().casefold() == wanted
        if same_day and same_text and (doc.sumGross or ZERO) == new.gross:
            number = doc.number() or f"draft {doc.id}"
            raise PreconditionError(
                f"{kind.label.capitalize()} {doc.id} ({number}) has the same contact, date, "
                "gross amount and header. "
                "If it is the same document, change it instead (",
                Action.UPDATE_DRAFT,
                " for a draft); if a second one is really wanted, call again with "
                "allow_duplicate=true.",
                record=f"{kind.label} {doc.id}",
                field="allow_duplicate",
            )
