"""The supplier of a receipt: an existing contact, matched by name, VAT id or IBAN, or a name
that the preview shows as a new supplier (sevDesk then keeps only ``supplierName``, Q39).

Contacts are read whole and matched here (``search=`` is unreliable, Q41). More than one
matching contact is refused with their ids: the caller picks one.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from sevdesk_mcp.domain.contacts.read import display_name
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import Missing, read_raw
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.safety.preview import Said, Words, quoted, say
from sevdesk_mcp.sevdesk import wire

MAX_CONTACTS: Final = 20_000
_SPACES: Final = re.compile(r"\s+")


class SupplierContact(msgspec.Struct, frozen=True):
    """The fields of a contact that identify a supplier."""

    id: int
    name: str | None = None
    surename: str | None = None  # sic (Q37)
    familyname: str | None = None
    vatNumber: str | None = None
    bankAccount: str | None = None


class SupplierQuery(msgspec.Struct, frozen=True):
    """Who the caller says the supplier is."""

    contact_id: int | None = None
    name: str | None = None
    vat_id: str | None = None
    iban: str | None = None


class Supplier(msgspec.Struct, frozen=True):
    """The supplier as it will be saved: a contact, or only a name (``contact_id`` ``None``)."""

    contact_id: int | None
    name: str
    how: Said

    def said(self) -> Said:
        """:returns: the supplier as a preview names it (the name quoted: third-party text)."""
        if self.contact_id is None:
            return say(
                "{0} — NEW supplier: {1}; saved as a name only",
                "{0} — NEUER Lieferant: {1}; nur als Name gespeichert",
                quoted(self.name),
                self.how,
            )
        return say("{0} (contact {1}, {2})", "{0} (Kontakt {1}, {2})", quoted(self.name),
                   self.contact_id, self.how)  # fmt: skip

    def shown(self) -> str:
        """:returns: the supplier in one line for the model (the name fenced)."""
        return Words("en", "model").text(self.said())


async def find_supplier(client: SevdeskPort, query: SupplierQuery) -> Supplier:
    """:returns: the supplier the query names.

    :raises ToolInputError: if neither a contact nor a name is given.
    :raises PreconditionError: if the contact does not exist or several contacts match.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if query.contact_id is not None:
        missing = Missing("contact", Action.FIND_CONTACT, " finds suppliers.", "supplier_id")
        raw = await read_raw(client, "Contact", query.contact_id, missing=missing)
        contact = wire.parse(raw, SupplierContact)
        return Supplier(contact.id, _name(contact), say("given by id", "per ID angegeben"))
    if not query.name:
        raise ToolInputError("Name the supplier: give supplier_id or supplier_name.")
    page = await client.get_all("/Contact", {"depth": 1}, max_items=MAX_CONTACTS)
    contacts = wire.parse_all(page.items, SupplierContact)
    found = [(c, how) for c in contacts if (how := _matched_by(c, query))]
    if len({c.id for c, _ in found}) > 1:
        ids = ", ".join(str(c.id) for c, _ in found[:10])
        raise PreconditionError(
            f"Several contacts match the supplier (ids {ids}); give supplier_id with the right "
            "one (see ",
            Action.FIND_CONTACT,
            ").",
            field="supplier_name",
        )
    if found:
        contact, how = found[0]
        return Supplier(contact.id, _name(contact), say("matched by {0}", "gefunden über {0}", how))
    none = say(
        "no contact matches its name, VAT id or IBAN",
        "kein Kontakt passt zu Name, USt-IdNr. oder IBAN",
    )
    return Supplier(None, clean(query.name), none)


def _matched_by(contact: SupplierContact, query: SupplierQuery) -> Said | None:
    if query.vat_id and _code(contact.vatNumber) == _code(query.vat_id):
        return say("VAT id", "USt-IdNr.")
    if query.iban and _code(contact.bankAccount) == _code(query.iban):
        return say("IBAN", "IBAN")
    if query.name and _words(_name(contact)) == _words(query.name):
        return say("name", "Name")
    return None


def _name(contact: SupplierContact) -> str:
    parsed = wire.Contact(
        id=contact.id, name=contact.name, surename=contact.surename, familyname=contact.familyname
    )
    return clean(display_name(parsed)) or f"contact {contact.id}"


def _code(value: str | None) -> str:
    return _SPACES.sub("", value or "").upper() or "\x00"  # an empty value matches nothing


def _words(value: str) -> str:
    return _SPACES.sub(" ", clean(value)).strip().casefold()
