"""The tool behind each next step the domain points to.

Domain code says what to do next as an :class:`~sevdesk_mcp.domain.errors.Action` ("update the
draft", "finalize it first") and never names a tool. This table names the tool, with the
arguments that select the action, so the message a model reads says exactly what to call.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

import msgspec

from sevdesk_mcp.domain.errors import Action, PreconditionError, say


class Call(msgspec.Struct, frozen=True):
    """A tool, and the arguments (``name value`` pairs) that make it perform the action."""

    tool: str
    arguments: tuple[tuple[str, str], ...] = ()
    joined: str = " "  # how an argument is written after its name: "kind tax_rules", "to=open"

    def __str__(self) -> str:
        if not self.arguments:
            return self.tool
        given = ", ".join(f"{name}{self.joined}{value}" for name, value in self.arguments)
        return f"{self.tool} with {given}"


REMEDIES: Final[Mapping[Action, Call]] = MappingProxyType(
    {
        Action.FIND_CONTACT: Call("sevdesk_search_contacts"),
        Action.READ_CONTACT: Call("sevdesk_get_contact"),
        Action.LIST_TAX_RULES: Call("sevdesk_reference_data", (("kind", "tax_rules"),)),
        Action.LIST_UNITS: Call("sevdesk_reference_data", (("kind", "units"),)),
        Action.LIST_COUNTRIES: Call("sevdesk_reference_data", (("kind", "countries"),)),
        Action.LIST_PAYMENT_METHODS: Call("sevdesk_reference_data", (("kind", "payment_methods"),)),
        Action.LIST_BANK_ACCOUNTS: Call("sevdesk_list_bank_accounts"),
        Action.FIND_TRANSACTIONS: Call("sevdesk_search_transactions"),
        Action.FIND_UNMATCHED_TRANSACTIONS: Call(
            "sevdesk_search_transactions", (("state", "unmatched"),)
        ),
        Action.READ_DOCUMENT: Call("sevdesk_get_document"),
        Action.CREATE_DRAFT: Call("sevdesk_create_document_draft"),
        Action.UPDATE_DRAFT: Call("sevdesk_update_document_draft"),
        Action.FINALIZE: Call("sevdesk_finalize_document"),
        Action.RESET_TO_OPEN: Call("sevdesk_reset_document", (("to", "open"),), joined="="),
        Action.CANCEL_INVOICE: Call("sevdesk_cancel_invoice"),
        Action.CREDIT_NOTE_FROM_INVOICE: Call("sevdesk_credit_note_from_invoice"),
        Action.UPDATE_PART: Call("sevdesk_update_part"),
        Action.CREATE_RECEIPT_DRAFT: Call("sevdesk_create_receipt_draft"),
    }
)


def phrase(action: Action) -> str:
    """:returns: the tool call that performs ``action``, as a message names it."""
    return str(REMEDIES[action])


def message(exc: BaseException) -> str:
    """:returns: the text a model reads for ``exc``: a domain precondition with each next step
    named by its tool, anything else as it says itself."""
    if isinstance(exc, PreconditionError):
        return say(exc.parts, phrase)
    return str(exc)
