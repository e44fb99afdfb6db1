"""The document lifecycle as data: per kind of document, its status codes with their words, and
what each step does from each status (``docs/sevdesk-api.md`` §2.4-2.8, §3.1), in the shape of
h11's ``_state.py``.

Rule 1: every decision that depends on nothing but a document's kind and status lives here, as
data. ``TRANSITIONS[kind][status][step]`` is the status the step leads to (:data:`GONE` for a
deleted draft), or :class:`Refused` with the reason. A refusal also records what sevDesk itself
does: refuse too (``sevdesk`` is ``None``), or accept and leave the document in a status, for
the steps this server refuses as a policy (an email would finalize a draft on the way). The fake
sevDesk keeps its own state machine (``fake/lifecycle.py``); a test checks that both agree on
every transition, and that every status x step of a kind is decided.

Rule 2: the table speaks of a plain document: not festgeschrieben, with no payments beyond what
its status says, no credit note, not cancelled, with a positive sum. What depends on more than
the status stays an explicit check where the step is planned:

- festgeschrieben (``enshrined``): enshrining again, resetting to draft, resetting a receipt to
  open, changing or deleting a draft (``document_actions``, ``resets``, ``document_drafts``);
- payments booked (``paidAmount``): cancelling an open invoice paid in part before 2024 (code
  390), resetting to draft, "nothing to reset" for an open document without payments, a negative
  paid amount, an amount above the open amount (``reversals``, ``resets``, ``payments``);
- a credit note for the invoice (codes 170, 455; ``reversals``, ``resets``);
- a cancelled invoice or a cancellation invoice (``SR``; ``reversals``, ``resets``,
  ``payments``);
- a negative sum (code 7100), no amount, a credit note without a number (``document_actions``).

The table names no tool: a refusal is a :class:`Why`, which the module taking the step turns
into its message (with :class:`~sevdesk_mcp.domain.errors.Action` for any next step).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.safety.preview import Said, say

Kind = Literal["invoice", "credit_note", "order", "voucher"]


class Status(msgspec.Struct, frozen=True):
    """A status code of one kind of document, in the words of the tools and of sevDesk's UI.

    :param name: the word the read tools show and filter by, e.g. ``partially_paid``.
    :param german: sevDesk's German UI term, e.g. ``teilbezahlt``.
    :param english: its English meaning, e.g. ``partially paid``.
    """

    name: str
    german: str
    english: str

    @property
    def word(self) -> str:
        """:returns: e.g. ``teilbezahlt (partially paid)``, as previews and messages say it."""
        return f"{self.german} ({self.english})"

    @property
    def said(self) -> Said:
        """:returns: the status in both languages, as previews show it (``open`` / ``offen``)."""
        return Said(self.english, self.german)


class Step(enum.Enum):
    """A step of the lifecycle; a payment is two steps, because its amount decides the status."""

    FINALIZE = "finalize"
    ENSHRINE = "enshrine"
    EMAIL = "email"
    PAY_PART = "pay_part"  # a payment of less than the open amount
    PAY_REST = "pay_rest"  # a payment of all that is open
    CANCEL = "cancel"
    CREDIT_NOTE = "credit_note"
    RESET_TO_OPEN = "reset_to_open"
    RESET_TO_DRAFT = "reset_to_draft"
    UPDATE_DRAFT = "update_draft"
    DELETE_DRAFT = "delete_draft"


class Why(enum.Enum):
    """Why a step is refused in a status; the value says it in plain words."""

    IS_DRAFT = "it is a draft"
    NOT_DRAFT = "it is no draft"
    NOT_OPEN = "it is not open"
    PAID = "it is paid"
    PAYMENTS = "payments are booked on it"
    NOT_FOR_KIND = "sevDesk has no such step for this kind of document"


class Refused(msgspec.Struct, frozen=True):
    """A step this server refuses; ``sevdesk`` is ``None`` when sevDesk refuses it too, else the
    status sevDesk would leave the document in."""

    why: Why
    sevdesk: int | None = None


Outcome = int | Refused
GONE: Final = 0  # not a sevDesk code: the draft is deleted

_DRAFT: Final = Status("draft", "Entwurf", "draft")
_OPEN: Final = Status("open", "offen", "open")
_PARTLY: Final = Status("partially_paid", "teilbezahlt", "partially paid")
_PAID: Final = Status("paid", "bezahlt", "paid")

STATUSES: Final[Mapping[Kind, Mapping[int, Status]]] = {
    "invoice": {
        50: Status("deactivated", "deaktiviert", "deactivated"),
        100: _DRAFT,
        200: _OPEN,
        750: _PARTLY,
        1000: _PAID,
    },
    "credit_note": {100: _DRAFT, 200: _OPEN, 750: _PARTLY, 1000: _PAID},
    "order": {
        100: _DRAFT,
        200: Status("sent", "versendet", "sent"),
        300: Status("rejected", "abgelehnt", "rejected"),
        500: Status("accepted", "angenommen", "accepted"),
        750: Status("partially_invoiced", "teilweise berechnet", "partially invoiced"),
        1000: Status("invoiced", "berechnet", "invoiced"),
    },
    "voucher": {
        50: _DRAFT,
        100: _OPEN,
        150: Status("transferred", "überwiesen", "transferred"),
        750: _PARTLY,
        1000: _PAID,
    },
}
INITIAL: Final[Mapping[Kind, int]] = {
    "invoice": 100,
    "credit_note": 100,
    "order": 100,
    "voucher": 50,
}
"""The status a new draft is saved with."""


SAME: Final = -1  # in a grid: sevDesk accepts the step and the status stays
IS_DRAFT: Final = Refused(Why.IS_DRAFT)
SENDS_DRAFT: Final = Refused(Why.IS_DRAFT, sevdesk=200)  # sendViaEmail would finalize it
NOT_DRAFT: Final = Refused(Why.NOT_DRAFT)
SENT: Final = Refused(Why.NOT_DRAFT, sevdesk=SAME)  # sendBy again only records the sending
NOT_OPEN: Final = Refused(Why.NOT_OPEN)
PAID: Final = Refused(Why.PAID)
PAYMENTS: Final = Refused(Why.PAYMENTS)
NO_SUCH_STEP: Final = Refused(Why.NOT_FOR_KIND)

# kind -> step -> the outcome from each status, in the order of STATUSES[kind]
_GRIDS: Final[Mapping[Kind, Mapping[Step, tuple[Outcome, ...]]]] = {
    "invoice": {  # 50, 100, 200, 750, 1000
        Step.FINALIZE: (SENT, 200, SENT, SENT, SENT),
        Step.ENSHRINE: (50, IS_DRAFT, 200, 750, 1000),
        Step.EMAIL: (50, SENDS_DRAFT, 200, 750, 1000),
        Step.PAY_PART: (Refused(Why.NOT_OPEN, 750), IS_DRAFT, 750, 750, PAID),
        Step.PAY_REST: (Refused(Why.NOT_OPEN, 1000), IS_DRAFT, 1000, 1000, PAID),
        Step.CANCEL: (1000, IS_DRAFT, 1000, PAYMENTS, PAYMENTS),
        Step.CREDIT_NOTE: (50, IS_DRAFT, 200, 750, 1000),
        Step.RESET_TO_OPEN: (200, IS_DRAFT, 200, 200, 200),
        Step.RESET_TO_DRAFT: (NOT_OPEN, IS_DRAFT, 100, NOT_OPEN, NOT_OPEN),
        Step.UPDATE_DRAFT: (NOT_DRAFT, 100, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT),
        Step.DELETE_DRAFT: (NOT_DRAFT, GONE, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT),
    },
    "credit_note": {  # 100, 200, 750, 1000
        Step.FINALIZE: (200, SENT, SENT, SENT),
        Step.ENSHRINE: (IS_DRAFT, 200, 750, 1000),
        Step.EMAIL: (SENDS_DRAFT, 200, 750, 1000),
        Step.PAY_PART: (IS_DRAFT, 750, 750, PAID),
        Step.PAY_REST: (IS_DRAFT, 1000, 1000, PAID),
        Step.RESET_TO_OPEN: (IS_DRAFT, 200, 200, 200),
        Step.RESET_TO_DRAFT: (IS_DRAFT, 100, NOT_OPEN, NOT_OPEN),
        Step.UPDATE_DRAFT: (100, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT),
        Step.DELETE_DRAFT: (GONE, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT),
    },
    "order": {  # 100, 200, 300, 500, 750, 1000
        Step.FINALIZE: (200, SENT, SENT, SENT, SENT, SENT),
        Step.ENSHRINE: (NO_SUCH_STEP,) * 6,
        Step.EMAIL: (SENDS_DRAFT, 200, 300, 500, 750, 1000),
        Step.UPDATE_DRAFT: (100, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT),
        Step.DELETE_DRAFT: (GONE, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT, NOT_DRAFT),
    },
    "voucher": {  # 50, 100, 150, 750, 1000
        Step.PAY_PART: (IS_DRAFT, 750, 750, 750, PAID),
        Step.PAY_REST: (IS_DRAFT, 1000, 1000, 1000, PAID),
        Step.RESET_TO_OPEN: (IS_DRAFT, 100, 100, 100, 100),
        Step.RESET_TO_DRAFT: (IS_DRAFT, 50, NOT_OPEN, NOT_OPEN, NOT_OPEN),
    },
}


def _outcome(cell: Outcome, status: int) -> Outcome:
    if isinstance(cell, Refused) and cell.sevdesk == SAME:
        return Refused(cell.why, sevdesk=status)
    return cell


def _by_status(kind: Kind) -> dict[int, dict[Step, Outcome]]:
    # a row of a grid shorter or longer than the kind's statuses fails here, at import
    cells = {
        step: dict(zip(STATUSES[kind], row, strict=True)) for step, row in _GRIDS[kind].items()
    }
    return {
        status: {step: _outcome(column[status], status) for step, column in cells.items()}
        for status in STATUSES[kind]
    }


TRANSITIONS: Final[Mapping[Kind, Mapping[int, Mapping[Step, Outcome]]]] = {
    kind: _by_status(kind) for kind in STATUSES
}
"""kind -> status -> step -> the status after the step, or :class:`Refused`."""
STEPS: Final[Mapping[Kind, tuple[Step, ...]]] = {kind: tuple(_GRIDS[kind]) for kind in STATUSES}
"""The steps this server takes on each kind (an order's enshrine only to refuse it)."""


def word(kind: Kind, status: int | None) -> str:
    """:returns: the status in sevDesk's German UI term with its English meaning, e.g.
    ``offen (open)``, or ``status 500`` for a code sevDesk does not document."""
    known = STATUSES[kind].get(status or 0)
    return known.word if known else f"status {status}"


def said(kind: Kind, status: int | None) -> Said:
    """:returns: the status in both languages for a preview (``offen`` / ``open``), or
    ``status 500`` / ``Status 500`` for a code sevDesk does not document."""
    known = STATUSES[kind].get(status or 0)
    return known.said if known else say("status {0}", "Status {0}", str(status))


def names(kind: Kind) -> dict[int, str]:
    """:returns: status code -> the word the read tools show and filter by."""
    return {code: status.name for code, status in STATUSES[kind].items()}


def open_statuses(kind: Kind) -> frozenset[int]:
    """:returns: the statuses in which the document takes payments (open, partly paid …)."""
    rows = TRANSITIONS[kind].items()
    return frozenset(code for code, row in rows if isinstance(row.get(Step.PAY_PART), int))


def decide(kind: Kind, status: int | None, step: Step, record: str) -> Outcome:
    """:returns: the status ``step`` leads to from ``status``, or the refusal.

    :param record: the document, as a message names it, e.g. ``Rechnung (invoice) RE-1 (id 7)``.
    :raises PreconditionError: for a status sevDesk does not document (nothing is decided on
        what is not understood).
    """
    row = TRANSITIONS[kind].get(status or 0)
    if row is None:
        raise PreconditionError(
            f"{record} has status {status}, which sevDesk does not document for this kind of "
            "document; look at it in sevDesk before changing it.",
            record=record,
        )
    return row[step]


def refusal(kind: Kind, status: int | None, step: Step, record: str) -> Refused | None:
    """:returns: why ``step`` is refused from ``status``, or ``None`` if it is not.

    :raises PreconditionError: for a status sevDesk does not document.
    """
    outcome = decide(kind, status, step, record)
    return outcome if isinstance(outcome, Refused) else None


def after(kind: Kind, status: int | None, step: Step, record: str) -> int:
    """:returns: the status ``step`` leads to from ``status``.

    :raises PreconditionError: if the step is refused there (said in plain words; the modules
        taking steps say it better first), or for a status sevDesk does not document.
    """
    outcome = decide(kind, status, step, record)
    if isinstance(outcome, Refused):
        raise PreconditionError(
            f"{record} is {word(kind, status)}: {step.value} is refused, because "
            f"{outcome.why.value}.",
            record=record,
        )
    return outcome
