"""The domain's own precondition errors: what is wrong, with which record and field, and what to
do next as data.

Domain code knows the actions a caller can take next (read the document again, update the draft,
finalize it first), never the tools that take them. It writes its message as parts, with an
:class:`Action` where the next step is named; ``tools/remedies.py`` puts in the name of the tool
(and its arguments) that performs the action. Without that rendering, ``str()`` says the action
in plain words.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from sevdesk_mcp.errors import ToolError


class Action(enum.Enum):
    """A next step a message can point to; the value is its plain-words name."""

    FIND_CONTACT = "the contact search"
    READ_CONTACT = "reading the contact"
    LIST_TAX_RULES = "the reference data of tax rules"
    LIST_UNITS = "the reference data of units"
    LIST_COUNTRIES = "the reference data of countries"
    LIST_PAYMENT_METHODS = "the reference data of payment methods"
    LIST_BANK_ACCOUNTS = "the list of bank accounts"
    FIND_TRANSACTIONS = "the transaction search"
    FIND_UNMATCHED_TRANSACTIONS = "the transaction search for unmatched transactions"
    READ_DOCUMENT = "reading the document"
    CREATE_DRAFT = "creating a draft"
    UPDATE_DRAFT = "updating the draft"
    FINALIZE = "finalizing the document"
    RESET_TO_OPEN = "resetting the document to open"
    CANCEL_INVOICE = "cancelling the invoice"
    CREDIT_NOTE_FROM_INVOICE = "a credit note from the invoice"
    UPDATE_PART = "updating the article"
    CREATE_RECEIPT_DRAFT = "creating a receipt draft"


Said = tuple[str | Action, ...]
"""A message in parts: trusted text, and the actions it points to where they belong."""

Phrase = Callable[[Action], str]
"""Names an action in a message: plain words here, the tool that performs it in ``tools/``."""


def plain(action: Action) -> str:
    """:returns: the action in plain words."""
    return action.value


def say(parts: Said, phrase: Phrase = plain) -> str:
    """:returns: the message, each action named by ``phrase``."""
    return "".join(p if isinstance(p, str) else phrase(p) for p in parts)


class PreconditionError(ToolError):
    """A record or a value does not allow the action asked for.

    :param parts: the message (what is wrong, and what would fix it) with the next steps as
        :class:`Action` parts.
    :param record: the record at fault, such as ``"Invoice 42"``, if one is.
    :param field: the input field at fault, such as ``"tax_rule_id"``, if one is.
    """

    def __init__(
        self, *parts: str | Action, record: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(say(parts))
        self.parts: Said = parts
        self.record = record
        self.field = field

    @property
    def actions(self) -> tuple[Action, ...]:
        """:returns: the next steps the message points to, in order."""
        return tuple(p for p in self.parts if isinstance(p, Action))
