"""Toolset ``contacts``, tier ``write``: create and update contacts (ADR 0003 write flow).

Both tools run on :func:`~sevdesk_mcp.tools.write_flow.define_write_tool`: ``prepare`` reads and
previews, ``execute`` makes exactly the planned writes. The logic is in
:mod:`sevdesk_mcp.domain.contacts.writes`; here are the arguments and their plain checks.
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

from sevdesk_mcp.domain.contacts import updates
from sevdesk_mcp.domain.contacts import writes as domain
from sevdesk_mcp.domain.contacts.details import AddressChange, DetailChanges
from sevdesk_mcp.domain.contacts.updates import ContactField, UpdatePlan
from sevdesk_mcp.domain.contacts.writes import ContactWritten, CreatePlan
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.vocabulary import (
    WRITE_ANNOTATIONS,
    DryRun,
    Email,
    SevdeskId,
    stripped,
)
from sevdesk_mcp.tools.write_flow import define_write_tool, plan_only

PHONE_PATTERN: Final = r"^\+?[0-9][0-9 ()/.-]{2,39}$"


def _text(max_length: int, description: str) -> msgspec.Meta:
    return msgspec.Meta(max_length=max_length, description=description)


Id = Annotated[
    SevdeskId, msgspec.Meta(description="The contact's sevDesk id (not the customer number)")
]
Name = Annotated[str, msgspec.Meta(max_length=200)]
FirstName = Annotated[str, msgspec.Meta(max_length=100)]
FamilyName = Annotated[str, msgspec.Meta(max_length=100)]
CustomerNumber = Annotated[str, _text(40, "Not the sevDesk id")]
VatNumber = Annotated[str, _text(30, "USt-IdNr., e.g. DE123456789")]
TaxNumber = Annotated[str, _text(30, "Tax number (Steuernummer)")]
Street = Annotated[str, _text(200, "Invoice address: street and number")]
Zip = Annotated[str, _text(20, "Invoice address: postal code")]
CountryId = Annotated[
    int, msgspec.Meta(ge=1, le=10**6, description="Invoice address: country id (1 Germany)")
]
EmailAddress = Email
Phone = Annotated[str, msgspec.Meta(max_length=40, pattern=PHONE_PATTERN)]


class CreateContactInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_create_contact``."""

    kind: Annotated[
        domain.ContactKind,
        msgspec.Meta(description="organisation: name; person: family_name"),
    ]
    category: domain.ContactCategory
    name: Name | None = None
    first_name: FirstName | None = None
    family_name: FamilyName | None = None
    customer_number: (
        Annotated[str, _text(40, "Not the sevDesk id; omit for the next free one")] | None
    ) = None
    parent_id: (
        Annotated[
            SevdeskId,
            msgspec.Meta(description="A person's organisation (sevDesk id)"),
        ]
        | None
    ) = None
    vat_number: VatNumber | None = None
    tax_number: TaxNumber | None = None
    street: Street | None = None
    zip: Zip | None = None
    city: Annotated[str, _text(100, "Invoice address: city (gives the address)")] | None = None
    country_id: CountryId = 1
    email: EmailAddress | None = None
    phone: Phone | None = None
    allow_duplicate: Annotated[bool, msgspec.Meta(description="Create despite a look-alike")] = (
        False
    )
    dryRun: DryRun = False


class UpdateContactInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_update_contact``; omitted fields stay as they are."""

    contact_id: Id
    name: Name | None = None
    first_name: FirstName | None = None
    family_name: FamilyName | None = None
    customer_number: CustomerNumber | None = None
    vat_number: VatNumber | None = None
    tax_number: TaxNumber | None = None
    status: (
        Annotated[updates.ContactStatus, msgspec.Meta(description="active, lead or pending")] | None
    ) = None
    email: EmailAddress | None = None
    phone: Phone | None = None
    street: Street | None = None
    zip: Zip | None = None
    city: Annotated[str, _text(100, "Invoice address: city (a new one needs it)")] | None = None
    country_id: CountryId | None = None
    dryRun: DryRun = False


def _new_contact(args: CreateContactInput) -> domain.NewContact:
    new = domain.NewContact(
        kind=args.kind,
        category=args.category,
        name=stripped(args.name, "name"),
        first_name=stripped(args.first_name, "first_name"),
        family_name=stripped(args.family_name, "family_name"),
        customer_number=stripped(args.customer_number, "customer_number"),
        parent_id=args.parent_id,
        vat_number=stripped(args.vat_number, "vat_number"),
        tax_number=stripped(args.tax_number, "tax_number"),
        street=stripped(args.street, "street"),
        zip=stripped(args.zip, "zip"),
        city=stripped(args.city, "city"),
        country_id=args.country_id,
        email=stripped(args.email, "email"),
        phone=stripped(args.phone, "phone"),
        allow_duplicate=args.allow_duplicate,
    )
    if new.kind == "organisation":
        if not new.name or new.first_name or new.family_name:
            raise ToolInputError("An organisation needs name and takes no first_name/family_name.")
        if new.parent_id is not None:
            raise ToolInputError("Only a person can have parent_id (the organisation it is in).")
    elif not new.family_name or new.name:
        raise ToolInputError("A person needs family_name (and first_name) and takes no name.")
    if (new.street or new.zip) and not new.city:
        raise ToolInputError("An invoice address needs city (street and zip are optional).")
    return new


async def _prepare_create(args: CreateContactInput, client: SevdeskPort) -> Prepared[CreatePlan]:
    return await domain.prepare_create(client, _new_contact(args))


async def _prepare_update(args: UpdateContactInput, client: SevdeskPort) -> Prepared[UpdatePlan]:
    fields: dict[ContactField, str | None] = {
        "name": stripped(args.name, "name"),
        "surename": stripped(args.first_name, "first_name"),
        "familyname": stripped(args.family_name, "family_name"),
        "customerNumber": stripped(args.customer_number, "customer_number"),
        "vatNumber": stripped(args.vat_number, "vat_number"),
        "taxNumber": stripped(args.tax_number, "tax_number"),
        "status": args.status,
    }
    changes: dict[ContactField, str] = {f: v for f, v in fields.items() if v is not None}
    details = DetailChanges(
        email=stripped(args.email, "email"),
        phone=stripped(args.phone, "phone"),
        address=AddressChange(
            street=stripped(args.street, "street"),
            zip=stripped(args.zip, "zip"),
            city=stripped(args.city, "city"),
            country_id=args.country_id,
        ),
    )
    if not changes and details == DetailChanges():
        raise ToolInputError("Give at least one field to change besides contact_id.")
    return await updates.prepare_update(client, args.contact_id, changes, details)


def _update_locks(args: UpdateContactInput) -> tuple[str, ...]:
    """:returns: the contact (its invoice address and communication ways belong to it, so two
    updates of one contact never both create a missing one), and the customer number range
    when a customer number is set."""
    numbers = ("numbers/contact",) if args.customer_number is not None else ()
    return (f"contact/{args.contact_id}", *numbers)


CREATE_CONTACT = define_write_tool(
    name="sevdesk_create_contact",
    title="Create a contact",
    description=(
        "Creates an organisation or a person (customer, supplier, partner, prospect). Refuses a "
        "duplicate customer number or name in the category, naming it, unless allow_duplicate."
    ),
    toolset="contacts",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=CreateContactInput,
    output=ContactWritten,
    prepare=_prepare_create,
    execute=plan_only(domain.execute_create),
    locks=lambda a: ("numbers/contact",),
)

UPDATE_CONTACT = define_write_tool(
    name="sevdesk_update_contact",
    title="Update a contact",
    description=(
        "Changes the given fields of a contact; email and phone replace the main one of their "
        "kind, a missing invoice address is created."
    ),
    toolset="contacts",
    tier=Tier.WRITE,
    annotations=WRITE_ANNOTATIONS,
    input=UpdateContactInput,
    output=ContactWritten,
    prepare=_prepare_update,
    execute=plan_only(updates.execute_update),
    locks=_update_locks,
)

TOOLS = (CREATE_CONTACT, UPDATE_CONTACT)
