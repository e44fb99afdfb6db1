"""Toolset ``contacts``: find contacts and read one with its addresses and persons."""

from __future__ import annotations

from typing import Annotated

import msgspec

from sevdesk_mcp.domain.contacts import read as contacts
from sevdesk_mcp.errors import NotFoundError
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import ToolContext, define_tool
from sevdesk_mcp.tools.vocabulary import READ_ANNOTATIONS, Limit, SevdeskId

ContactId = Annotated[
    SevdeskId,
    msgspec.Meta(description="The contact's sevDesk id (not the customer number)"),
]


class SearchInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_search_contacts``."""

    query: (
        Annotated[
            str,
            msgspec.Meta(max_length=100, description="Part of a name or customer number"),
        ]
        | None
    ) = None
    category: contacts.Category = "any"
    limit: Limit = 25


class GetInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Arguments of ``sevdesk_get_contact``."""

    contact_id: ContactId


async def _search(args: SearchInput, ctx: ToolContext) -> contacts.ContactList:
    client = ctx.account.require_client()
    return await contacts.search_contacts(
        client, ctx.account.api_url, query=args.query, category=args.category, limit=args.limit
    )


async def _get(args: GetInput, ctx: ToolContext) -> contacts.ContactDetail:
    client = ctx.account.require_client()
    try:
        return await contacts.get_contact(client, ctx.account.api_url, args.contact_id)
    except NotFoundError as exc:
        raise NotFoundError(
            f"{exc} contact_id is the sevDesk id of the contact, not its customer number; "
            "sevdesk_search_contacts finds a contact by name or customer number and gives its id.",
            status=exc.status,
            code=exc.code,
        ) from None


SEARCH_CONTACTS = define_tool(
    name="sevdesk_search_contacts",
    title="Search contacts",
    description=(
        "Finds customers, suppliers and other contacts (organisations and their persons); ids for "
        "sevdesk_get_contact."
    ),
    toolset="contacts",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=SearchInput,
    output=contacts.ContactList,
    handler=_search,
)

GET_CONTACT = define_tool(
    name="sevdesk_get_contact",
    title="Get a contact",
    description=(
        "Reads one contact: addresses, emails, phones, VAT and tax numbers, payment terms, its "
        "persons or its organisation."
    ),
    toolset="contacts",
    tier=Tier.READ,
    annotations=READ_ANNOTATIONS,
    input=GetInput,
    output=contacts.ContactDetail,
    handler=_get,
)

TOOLS = (SEARCH_CONTACTS, GET_CONTACT)
